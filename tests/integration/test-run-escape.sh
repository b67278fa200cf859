#!/bin/bash
# A command trying to leave oz0run's sandbox (issue 13; a review's findings):
# init's and the caller's descriptors, the machine's sysctls, sockets and
# devices, the settler's state, a ceiling in the tree, a link planted where
# the report goes, a link or a rename that would expose a credential, stdio
# closed. Each attempt must fail and leave the machine and the tree as they
# were.
. "$(dirname "$0")/run-lib.sh"
rl_setup 300

tree=$T/tree
rl_repo "$tree"
hooks_before=$(ls "$tree/.git/hooks")

# ---- Descriptors -----------------------------------------------------------------------

rl_go initfd --tree "$tree" -- sh -c 'for f in /proc/1/fd/*; do ls "$f/.git" >/dev/null 2>&1 && echo "reached $f"; done
	ls /proc/self/fd | tr "\n" " "'
rl_status "init's descriptors: exit 0" 0
rl_is "init's descriptors cannot be opened (/proc/1/fd)" "" "$(grep reached "$T/initfd.out")"
rl_is "the command holds only stdio (and the listing's own)" "0 1 2 3 " "$(cat "$T/initfd.out")"

exec 9<"$tree"
rl_go callerfd --tree "$tree" -- sh -c 'echo evil >/proc/self/fd/9/.git/hooks/post-checkout; echo "wrote=$?"'
exec 9<&-
rl_is "a descriptor the caller passed does not reach the command" "wrote=2" "$(cat "$T/callerfd.out")"
rl_is "no hook was written into the tree" "$hooks_before" "$(ls "$tree/.git/hooks")"

# ---- The machine's sysctls, sockets and devices ------------------------------------------

before=$(cat /proc/sys/kernel/printk_ratelimit)
rl_go sysctl --tree "$tree" -- sh -c 'echo 7 >/proc/sys/kernel/printk_ratelimit; echo "sysctl=$?"'
rl_is "a machine sysctl is not writable" "sysctl=2" "$(cat "$T/sysctl.out")"
rl_is "the machine's sysctl is unchanged" "$before" "$(cat /proc/sys/kernel/printk_ratelimit)"

rl_go devices --tree "$tree" -- sh -c 'ls /dev | tr "\n" " "; echo; ls /run | wc -l; echo hi >/dev/null && echo null-ok'
rl_is "/dev holds only the nodes a command uses" \
	"fd full null ptmx pts random shm stderr stdin stdout tty urandom zero " "$(sed -n 1p "$T/devices.out")"
rl_is "/run is empty: no machine socket to talk to" 0 "$(sed -n 2p "$T/devices.out")"
rl_is "/dev/null works" null-ok "$(sed -n 3p "$T/devices.out")"

# ---- As root, the command runs as the tree's owner ---------------------------------------

owned=$T/owned
rl_repo "$owned"
chown -R 65534:65534 "$owned"
rl_go owner --tree "$owned" -- sh -c 'id -u; cat /etc/shadow >/dev/null 2>&1; echo "shadow=$?"; touch ~/x && echo home-ok
	echo x >new.txt && echo write-ok'
rl_status "a tree nobody owns: exit 0" 0
rl_is "the command runs as the tree's owner, reads no root-only file, has a home and writes the tree" \
	"65534 shadow=1 home-ok write-ok" "$(tr '\n' ' ' <"$T/owner.out" | sed 's/ $//')"
rl_is "what it wrote belongs to the owner" 65534 "$(stat -c %u "$owned/new.txt")"

# ---- The settler's state -----------------------------------------------------------------

# The run's own state file, by the name the runner gives it, anywhere in the
# sandbox's view. (Another test's run, beside this one with a state folder of
# its own in the machine's /var/tmp, is no secret of this run's.)
state_name=$(stat -c 'tree-%d-%i.state' "$tree")
rl_go state --tree "$tree" -- sh -c 'find / -name "$1" 2>/dev/null | head -1; git init -q sub &&
	git -C sub config core.hooksPath /tmp/evil; exit 1' sh "$state_name"
rl_status "a run that plants a configuration and fails: its own status" 1
rl_is "the state file cannot be seen from the sandbox" "" "$(cat "$T/state.out")"
rl_ok "... by the name the runner gives it (its lock stays beside it)" test -e "$OZ0RUN_STATE_DIR/${state_name%.state}.lock"
rl_ok "the configuration was settled (moved aside)" test -e "$tree/sub/.git/config.sandbox-refused"
rm -rf "$tree/sub"

printf '[ceiling]\nmemory_mb = 100000\n' >"$tree/ceiling.conf"
printf '[ceiling]\nfile = %s\n' "$tree/ceiling.conf" >"$T/ceiling-in-tree.conf"
rl_go ceiling --tree "$tree" --config "$T/ceiling-in-tree.conf" -- true
rl_status "a ceiling file in the tree (the command's to raise): 125" 125
rl_ok "it says so in one line" rl_one_line ceiling
rm -f "$tree/ceiling.conf"

# ---- The report's folder -----------------------------------------------------------------

mkdir -p "$tree/out" "$T/victim"
rl_raw report --tree "$tree" --report "$tree/out/r.json" -- sh -c 'rmdir out && ln -s "$0" out' "$T/victim"
rl_status "a link planted where the report goes: exit 0" 0
rl_is "the report does not follow the link" "" "$(ls "$T/victim")"
rm -f "$tree/out"

# ---- Credentials behind links and renames -------------------------------------------------

H=$T/home
mkdir -p "$H/.config/gcloud" "$H/.docker"
echo GCLOUD-SECRET >"$H/.config/gcloud/credentials.db"
rl_go rename --tree "$tree" --home "$H" -- sh -c 'mv ~/.config ~/.cfg2; echo "mv=$?"'
rl_is "a folder holding a credential cannot be renamed away" "mv=1" "$(cat "$T/rename.out")"
mv "$H/.config" "$H/.cfg2" && ln -s .cfg2 "$H/.config"
rl_go linked --tree "$tree" --home "$H" -- sh -c 'cat ~/.config/gcloud/credentials.db 2>&1 | grep -c SECRET'
rl_is "a credential behind a link in the home is not read through it" 0 "$(cat "$T/linked.out")"
rl_ok "the folder the link names is not hidden (it is no credential path)" \
	grep -q GCLOUD-SECRET "$H/.cfg2/gcloud/credentials.db"

# ---- What a killed runner left in $TMPDIR --------------------------------------------------

mkdir -p "$T/tmpd"
sh -c 'exit 0' &
dead=$!
wait "$dead"
mkdir "$T/tmpd/oz0run.$dead.left" "$T/tmpd/oz0run.$dead.kept" "$T/tmpd/oz0run.$$.alive"
touch "$T/tmpd/oz0run.$dead.left/audit" "$T/tmpd/oz0run.$dead.left/daemon.log" "$T/tmpd/oz0run.$dead.kept/other"
TMPDIR=$T/tmpd rl_go sweep --tree "$tree" -- true
rl_status "a run beside a killed runner's files: exit 0" 0
rl_is "the killed runner's folder is removed; one holding another file, and a live runner's, stay" \
	"$(printf 'oz0run.%s.alive\noz0run.%s.kept\n' $$ "$dead" | sort | tr '\n' ' ' | sed 's/ $//')" \
	"$(ls "$T/tmpd" | sort | tr '\n' ' ' | sed 's/ $//')"

# ---- Closed stdio --------------------------------------------------------------------------

st=0
timeout 60 env OZ0RUN_STATE_DIR="$OZ0RUN_STATE_DIR" "$OZ0RUN" --tree "$tree" -- true <&- >&- 2>&- || st=$?
check_eq "a run with stdio closed ends, exit 0" 0 "$st"

tap_done
