#!/bin/bash
# oz0run as an ordinary user (issue 13 item 5, "Tests": "the protection and
# exit-status tests as an unprivileged user"): nobody, with /dev/fuse made
# usable for the test, runs in a user namespace over a tree it owns; the
# mount refuses writes to hooks and config while git commit works; the
# statuses are the same as root's; cgroups are not delegated to nobody
# here, so the run has no limits and says so.
. "$(dirname "$0")/run-lib.sh"
rl_setup 300

# Another copy of this test (another checkout's, on a shared machine) would
# take 0666 for the mode to put back: one at a time, under a lock on /dev,
# which every checkout shares and which leaves no file behind.
exec 9</dev
flock -w 300 9 || oz_unavailable "another test holds /dev/fuse's mode for 300 s"
fuse_mode=$(stat -c %a /dev/fuse)
rl_at_exit "chmod $fuse_mode /dev/fuse"
chmod 0666 /dev/fuse

group=$(id -gn nobody)
NB=$T/nobody
rl_repo "$NB/tree"
mkdir -p "$NB/home" "$NB/out" "$NB/state" "$NB/agent-home/.ssh"
echo SECRET-key >"$NB/agent-home/.ssh/id_rsa"
printf '#!/bin/sh\ntouch %s\n' "$NB/pwned" >"$NB/hook"
chmod 755 "$NB/hook"
chmod 700 "$NB/state"
chown -R "nobody:$group" "$NB"
# The build tree may lie in a folder nobody cannot enter (a clone in a
# mktemp -d folder is 0700): nobody runs copies, oz0fs beside oz0run.
mkdir -p "$T/bin"
cp "$OZ0RUN" "$OZ0FS" "$T/bin/"
chmod 755 "$T/bin" "$T/bin/oz0run" "$T/bin/oz0fs"
OZ0RUN=$T/bin/oz0run
RL_AS=nobody RL_HOME=$NB/home RL_OUT=$NB/out
OZ0RUN_STATE_DIR=$NB/state
tree=$NB/tree
config_sum=$(sha256sum <"$tree/.git/config")

rl_cg_before
rl_mounts_before
rl_go echo --tree "$tree" -- sh -c 'echo hi; id -u'
rl_status "as nobody: a command runs, exit 0" 0
rl_is "as nobody: stdout is the command's, run as nobody" "hi $(id -u nobody)" "$(tr '\n' ' ' <"$T/echo.out" | sed 's/ $//')"
rl_is "as nobody: the report's cgroup mode is none" none "$(rl_json echo 'j["cgroup"]')"
rl_ok "as nobody: stderr says it runs without limits" grep -qiE '^oz0run: .*(no (cgroup )?limits|without limits|mode none|: none\b)' "$T/echo.err"
rl_ok "as nobody: nothing is mounted outside afterwards" rl_mounts_same
rl_ok "as nobody: no cgroup is left" rl_cg_same

# Starting is the same every time: ten runs in a row.
statuses='' failed=''
for i in $(seq 1 10); do
	rl_go "again$i" --tree "$tree" -- true
	statuses+=" $rl_rc"
	[ "$rl_rc" -eq 0 ] || [ -n "$failed" ] || failed="again$i $rl_rc $rl_ms"
done
# The details below are the first failed run's.
[ -z "$failed" ] || read -r rl_name rl_rc rl_ms <<<"$failed"
rl_is "as nobody: ten runs of true in a row each exit 0" " 0 0 0 0 0 0 0 0 0 0" "$statuses"

rl_go protect --tree "$tree" -- sh -c '
	echo "hook: $(fsop create .git/hooks/x)"
	echo "config: $(fsop append .git/config)"'
rl_status "as nobody: protect, exit 0" 0
rl_is "as nobody: a new .git/hooks/x is refused with EACCES" "hook: EACCES" "$(grep '^hook:' "$T/protect.out")"
rl_is "as nobody: a write to .git/config is refused with EACCES" "config: EACCES" "$(grep '^config:' "$T/protect.out")"
rl_ok "as nobody: the audit file holds the hook's refusal" fsop audit "$NB/out/protect.audit" 0 create .git/hooks/x
rl_is "as nobody: .git/config unchanged" "$config_sum" "$(sha256sum <"$tree/.git/config")"

echo changed >"$tree/file1.txt"
rl_go commit --tree "$tree" -- git -c user.name=Agent -c user.email=agent@example.invalid commit -qam "nobody's commit"
rl_status "as nobody: git commit inside exits 0" 0
rl_is "as nobody: the commit is in the repository" "nobody's commit" "$(git -C "$tree" log -1 --format=%s)"

rl_go exit7 --tree "$tree" -- sh -c 'exit 7'
rl_status "as nobody: exit 7 is 7" 7
rl_go usr1 --tree "$tree" -- sh -c 'kill -USR1 $$'
rl_status "as nobody: kill -USR1 \$\$ is 138" 138
rl_go notfound --tree "$tree" -- oz0run-no-such-command
rl_status "as nobody: a command not found is 127" 127
mark=$(rl_mark 30)
rl_go_watched timeout "$mark" --tree "$tree" --timeout 1 -- sh -c 'sleep "$0" & sleep "$0"' "$mark"
rl_status "as nobody: --timeout 1 is 124" 124
rl_ok "as nobody: the timeout's processes are all gone" rl_gone timeout
rl_go settled --tree "$tree" -- sh -c 'git init -q sub && cp "$0" sub/.git/hooks/pre-commit' "$NB/hook"
rl_status "as nobody: a hook planted in a new repository is settled, 3" 3
rl_ok "as nobody: the hook is no longer live" test ! -e "$tree/sub/.git/hooks/pre-commit"
rl_ok "as nobody: it was moved aside" sh -c "find '$tree/sub/.git' -path '*.sandbox-refused*' -name pre-commit | grep -q ."
rl_raw refusal --tree "$tree" --pids 0 -- true
rl_status "as nobody: a bad value is 125" 125
rl_ok "as nobody: ... with one line" rl_one_line refusal

rl_go home --tree "$tree" --home "$NB/agent-home" -- sh -c 'ls -A "$HOME/.ssh" | wc -l'
rl_status "as nobody: --home DIR, exit 0" 0
rl_is "as nobody: the home's .ssh reads as empty" 0 "$(cat "$T/home.out")"

rl_raw check --check
rl_status "as nobody: --check exits 0" 0
rl_ok "as nobody: --check says the cgroup mode is none" grep -qiE '^cgroup[^:]*: none\b' "$T/check.out"
rl_ok "as nobody: --check says rootless runs are ready" grep -qiE '^rootless[^:]*: (on|ready|yes)\b' "$T/check.out"
rl_ok "as nobody: no state is left" sh -c "! ls '$OZ0RUN_STATE_DIR'/*.state 2>/dev/null"
rl_ok "as nobody: nothing is mounted outside at the end" rl_mounts_same
tap_done
