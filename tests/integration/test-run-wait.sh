#!/bin/bash
# oz0run's ending (issue 13, "Waiting", "Exit status" and "Details that
# tools around it rely on"; seed 000 "The runner looks only once every
# process of the sandbox has ended" and "Cleanup after an interrupted
# sandbox"): stdout is the command's, its status is passed on (128+N for a
# signal), a timeout is 124, what the command leaves running is killed
# before the tree is settled, a settled run fails with 3 (or keeps the
# command's own failure), and a runner killed with SIGKILL is settled by
# the next run on the tree, which says so.
. "$(dirname "$0")/run-lib.sh"
rl_setup 300
rl_require_cgroups

# A pre-commit hook that leaves $T/pwned when it runs.
printf '#!/bin/sh\ntouch %s\n' "$T/pwned" >"$T/hook"
chmod 755 "$T/hook"

tree=$T/tree
rl_repo "$tree"

# now_ms: the time in milliseconds.
now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# no_state: the state dir holds no run's state.
no_state() {
	! ls "$OZ0RUN_STATE_DIR"/*.state >/dev/null 2>&1 || { ls -l "$OZ0RUN_STATE_DIR"; return 1; }
}

# ---- stdout, statuses ---------------------------------------------------------------

rl_go echo --tree "$tree" -- echo hi
rl_status "echo hi exits 0" 0
rl_ok "stdout is exactly the command's: hi and a newline" cmp -s "$T/echo.out" <(printf 'hi\n')
rl_ok "every stderr line is oz0run's, starting 'oz0run: '" sh -c "! grep -v '^oz0run: ' '$T/echo.err'"
rl_ok "no state is left after a run" no_state

best=999999
for i in 1 2; do
	rl_go true$i --tree "$tree" -- true
	[ "$rl_ms" -ge "$best" ] || best=$rl_ms
done
rl_status "true exits 0" 0
rl_ok "a command that exits at once returns at once (true: best of two ${best} ms, under 1000)" test "$best" -lt 1000

rl_go exit7 --tree "$tree" -- sh -c 'exit 7'
rl_status "sh -c 'exit 7' exits 7" 7
rl_is "exit 7: the report" "exited 7 0 7 []" \
	"$(rl_json exit7 '" ".join(str(x) for x in (j["ended"], j["exit_status"], j["signal"], j["status"], j["settled"]))')"

rl_go usr1 --tree "$tree" -- sh -c 'kill -USR1 $$'
rl_status "sh -c 'kill -USR1 \$\$' exits 138: the command is not pid 1" 138
rl_is "USR1: the report says signaled, signal 10" "signaled 10 138" \
	"$(rl_json usr1 '" ".join(str(x) for x in (j["ended"], j["signal"], j["exit_status"]))')"

rl_go notfound --tree "$tree" -- oz0run-no-such-command
rl_status "a command that is not found exits 127" 127
mkdir "$tree/bin"
echo 'echo never' >"$tree/bin/noexec"
chmod 644 "$tree/bin/noexec"
RL_PATH=$tree/bin:$RL_PATH rl_go noexec --tree "$tree" -- noexec
rl_status "a command that cannot be executed exits 126" 126

# ---- SIGKILL of ARGV ----------------------------------------------------------------------

mark=$(rl_mark 0)
rl_cg_before
rl_mounts_before
rl_go_watched kill9 "$mark" --tree "$tree" -- sh -c 'sleep 0.3; kill -9 $$' "$mark"
rl_status "sh -c 'kill -9 \$\$' exits 137 (128+9)" 137
rl_is "kill -9: the report says signaled, signal 9, not oom" "signaled 9" \
	"$(rl_json kill9 '" ".join(str(x) for x in (j["ended"], j["signal"]))')"
rl_ok "kill -9: no process of the run is left" rl_gone kill9
rl_ok "kill -9: no cgroup is left" rl_cg_same kill9
rl_ok "kill -9: nothing is mounted outside afterwards" rl_mounts_same

# ---- Timeout -----------------------------------------------------------------------------

mark=$(rl_mark 60)
rl_go_watched timeout "$mark" --tree "$tree" --timeout 2 -- sh -c 'sleep "$0" & sleep "$0"' "$mark"
rl_status "--timeout 2 with sleep 60 exits 124" 124
rl_ok "timeout: it ended after 2 s and within 5 s (took $rl_ms ms)" test "$rl_ms" -ge 1900 -a "$rl_ms" -le 5000
rl_is "timeout: the report says timeout" timeout "$(rl_json timeout 'j["ended"]')"
rl_ok "timeout: the background sleep is gone too" rl_gone timeout

# A command that ignores SIGTERM is killed 10 s after it.
mark=$(rl_mark 60)
rl_go_watched stubborn "$mark" --tree "$tree" --timeout 1 -- sh -c 'trap "" TERM; sleep "$0"' "$mark"
rl_status "--timeout 1, SIGTERM ignored: exits 124" 124
rl_ok "stubborn: SIGKILL came about 10 s after SIGTERM (took $rl_ms ms)" test "$rl_ms" -ge 10500 -a "$rl_ms" -le 15000
rl_ok "stubborn: no process of the run is left" rl_gone stubborn

# ---- What the command leaves running -------------------------------------------------------

late=$T/late-tree
rl_repo "$late"
start=$(now_ms)
rl_go late --tree "$late" -- sh -c '(sleep 3; touch late) & exit 0'
rl_status "a background (sleep 3; touch late) after exit 0: exits 0" 0
rl_ok "it returns promptly (took $rl_ms ms, under 2000)" test "$rl_ms" -lt 2000
wait_ms=$((start + 4000 - $(now_ms)))
[ "$wait_ms" -le 0 ] || sleep "$(printf '%d.%03d' $((wait_ms / 1000)) $((wait_ms % 1000)))"
rl_ok "4 s after the start, late was never made" test ! -e "$late/late"

# A background process writes a hook into a new repository after the main
# one has exited: it is killed first, or its hook is settled.
# check_hook_writer NAME DELAY: one such run, the writer waiting DELAY.
check_hook_writer() {
	local name=$1 d=$T/$1
	rl_repo "$d"
	rl_go "$name" --tree "$d" -- sh -c 'git init -q newrepo; (sleep "$1"; cp "$0" newrepo/.git/hooks/pre-commit) & exit 0' "$T/hook" "$2"
	rl_ok "$name: exits 0 (killed before it wrote) or 3 (settled)" test "$rl_rc" -eq 0 -o "$rl_rc" -eq 3
	sleep 0.5
	rl_ok "$name: no live hook in newrepo/.git/hooks" test ! -e "$d/newrepo/.git/hooks/pre-commit"
	git -C "$d/newrepo" commit -q --allow-empty -m after >/dev/null 2>&1 || true
	rl_ok "$name: a commit there runs nothing planted" test ! -e "$T/pwned"
}
check_hook_writer hook-late 1
check_hook_writer hook-now 0

# ---- Settled runs ---------------------------------------------------------------------------

# hook_moved DIR: DIR/sub's hook is no longer live, and was moved aside.
hook_moved() {
	[ ! -e "$1/sub/.git/hooks/pre-commit" ] || { echo "the hook is still live"; return 1; }
	find "$1/sub/.git" -path '*.sandbox-refused*' -name pre-commit | grep -q . ||
		{ echo "no pre-commit below a .sandbox-refused"; find "$1/sub/.git" -maxdepth 2; return 1; }
}

# settled_entry RUN EARLIER: the report lists a move of sub/.git/hooks (or
# of the hook), EARLIER (True or False) saying whether an earlier run's.
settled_entry() {
	rl_json "$1" 'any(s["path"].startswith("sub/.git/hooks") and s["action"] == "moved aside" and s.get("to", "").startswith(s["path"] + ".sandbox-refused") and s["earlier"] is '"$2"' and s["reason"] for s in j["settled"])'
}

settled=$T/settled
rl_repo "$settled"
rl_go settled --tree "$settled" -- sh -c 'git init -q sub && cp "$0" sub/.git/hooks/pre-commit' "$T/hook"
rl_status "git init sub and a pre-commit hook: exits 3" 3
rl_ok "settled: stderr names sub/.git/hooks" rl_err_has settled '^oz0run: .*sub/\.git/hooks'
rl_is "settled: the report lists the move, this run's" True "$(settled_entry settled False)"
rl_is "settled: the report's exit_status 0, status 3" "0 3" "$(rl_json settled '"%s %s" % (j["exit_status"], j["status"])')"
rl_ok "settled: the hook was moved aside as .sandbox-refused" hook_moved "$settled"
git -C "$settled/sub" commit -q --allow-empty -m after >/dev/null 2>&1 || true
rl_ok "settled: a commit in sub runs nothing planted" test ! -e "$T/pwned"

failing=$T/failing
rl_repo "$failing"
rl_go failing --tree "$failing" -- sh -c 'git init -q sub && cp "$0" sub/.git/hooks/pre-commit; exit 5' "$T/hook"
rl_status "the same, then exit 5: the command's status stays, 5" 5
rl_is "failing: the report lists the move all the same" True "$(settled_entry failing False)"
rl_ok "failing: the hook was moved aside" hook_moved "$failing"

# ---- SIGKILL of oz0run itself -----------------------------------------------------------------

killed=$T/killed
rl_repo "$killed"
mark=$(rl_mark 30)
rl_cg_before
rl_mounts_before
rl_watch killed "$mark"
env PATH="$RL_PATH" "$OZ0RUN" --tree "$killed" -- \
	sh -c 'git init -q sub && cp "$1" sub/.git/hooks/pre-commit && sleep "$0"' "$mark" "$T/hook" \
	>"$T/killed.out" 2>"$T/killed.err" </dev/null &
runner=$!
for ((i = 0; i < 400; i++)); do
	[ ! -e "$killed/sub/.git/hooks/pre-commit" ] || break
	kill -0 "$runner" 2>/dev/null || break
	sleep 0.05
done
rl_ok "killed: the command planted its hook" test -e "$killed/sub/.git/hooks/pre-commit"
kill -KILL "$runner" 2>/dev/null || true
wait "$runner" 2>/dev/null || true
for ((i = 0; i < 60; i++)); do
	[ "$(rl_w killed end)" = 1 ] && break
	sleep 0.05
done
rl_name=killed rl_rc=137 rl_ms=0
rl_ok "killed: its state file stays" ls "$OZ0RUN_STATE_DIR"/tree-*.state
rl_ok "killed: no process of the run is left a moment later" rl_gone killed
rl_ok "killed: nothing is mounted outside" rl_mounts_same
kill "$rl_watcher" 2>/dev/null || true

rl_go next --tree "$killed" -- true
rl_ok "next run: exits 0 or 3 (status $rl_rc)" test "$rl_rc" -eq 0 -o "$rl_rc" -eq 3
rl_ok "next run: stderr says it settles an earlier run's state" rl_err_has next "^oz0run: settling an earlier run's state"
rl_ok "next run: stderr names sub/.git/hooks" rl_err_has next '^oz0run: .*sub/\.git/hooks'
rl_is "next run: the report lists the move as an earlier run's" True "$(settled_entry next True)"
rl_ok "next run: the planted hook was moved aside" hook_moved "$killed"
rl_ok "next run: no state is left" no_state
rl_ok "next run: the killed run's cgroups are gone too" rl_cg_same killed
# Whatever the killed run left, empty, goes with the test.
for c in memory pids cpu cpuacct; do
	d=$(rl_w killed "cg.$c")
	[ -z "$d" ] || rl_at_exit "rmdir '$d' 2>/dev/null"
done
rl_ok "next run: nothing is mounted outside" rl_mounts_same
tap_done
