#!/bin/bash
# What the command sees in oz0run's sandbox (issue 13 items 2 and 4, "The
# command", "Details that tools around it rely on"): its working directory
# is the workspace, the tree through an oz0fs mount that refuses writes to
# hooks and config while git commit, git worktree add and git submodule
# update work; the run's refusals are readable at $OZ0_AUDIT; the root is
# read-only, /tmp and /dev/shm its own, /proc fresh, the network loopback
# only; nothing stays mounted, and no cgroup stays, afterwards.
. "$(dirname "$0")/run-lib.sh"
rl_setup 300

GIT_ID=(git -c user.name=Agent -c user.email=agent@example.invalid)

tree=$T/tree
rl_repo "$tree"
config_sum=$(sha256sum <"$tree/.git/config")

# ---- The workspace -----------------------------------------------------------------------

rl_cg_before
rl_mounts_before
rl_go cwd --tree "$tree" -- sh -c 'pwd; cat file1.txt'
rl_status "cwd: exit 0" 0
rl_is "cwd: the command runs in the tree's own path, seeing its files" "$tree 1" "$(tr '\n' ' ' <"$T/cwd.out" | sed 's/ $//')"
rl_ok "cwd: nothing is mounted outside afterwards" rl_mounts_same
rl_ok "cwd: no cgroup is left" rl_cg_same

cd "$tree"
rl_go default-tree -- pwd
cd "$T"
rl_is "no --tree: the tree is the current directory" "$tree" "$(cat "$T/default-tree.out")"

rl_go fuse --tree "$tree" -- python3 -c '
import os
cwd, kind = os.getcwd(), "not a mount point"
for line in open("/proc/self/mountinfo"):
    left, _, right = line.partition(" - ")
    if left.split()[4] == cwd:
        kind = right.split()[0]
print(kind)'
rl_ok "fuse: the workspace is a FUSE mount inside ($(cat "$T/fuse.out"))" grep -q '^fuse' "$T/fuse.out"

mkdir "$T/ws"
rl_go workspace --tree "$tree" --workspace "$T/ws" -- sh -c 'pwd; cat file2.txt'
rl_status "--workspace: exit 0" 0
rl_is "--workspace PATH: the command runs there, seeing the tree" "$T/ws 2" "$(tr '\n' ' ' <"$T/workspace.out" | sed 's/ $//')"
rl_ok "--workspace: the folder outside is still empty" test -z "$(ls -A "$T/ws")"

# A tree below /tmp, which the sandbox has a /tmp of its own over.
tmp_tree=$(mktemp -d /tmp/oz0run-test.XXXXXX)
rl_at_exit "rm -rf '$tmp_tree'"
rl_repo "$tmp_tree/tree"
RL_MOUNT_ROOTS=$tmp_tree rl_mounts_before
rl_go tmptree --tree "$tmp_tree/tree" -- sh -c 'pwd; cat file3.txt'
rl_status "a tree below /tmp: exit 0" 0
rl_is "a tree below /tmp: the command runs there, seeing its files" "$tmp_tree/tree 3" \
	"$(tr '\n' ' ' <"$T/tmptree.out" | sed 's/ $//')"
RL_MOUNT_ROOTS=$tmp_tree rl_ok "a tree below /tmp: nothing is mounted outside afterwards" rl_mounts_same

# ---- Protection inside ---------------------------------------------------------------------

rl_go protect --tree "$tree" -- sh -c '
	echo "hook: $(fsop create .git/hooks/x)"
	echo "config: $(fsop append .git/config)"
	echo "audit-set: ${OZ0_AUDIT:+yes}"
	# The daemon may write its line just after the refusal returns.
	line="\"path\":\"\.git/hooks(/x\"|\",.*\"name\":\"x\")"
	for i in 1 2 3 4 5 6 7 8 9 10; do grep -qE "$line" "$OZ0_AUDIT" && break; sleep 0.3; done
	echo "audit-hook: $(grep -cE "$line" "$OZ0_AUDIT")"
	echo "audit-write: $(fsop append "$OZ0_AUDIT")"'
rl_status "protect: exit 0" 0
rl_is "protect: a new .git/hooks/x is refused with EACCES" "hook: EACCES" "$(grep '^hook:' "$T/protect.out")"
rl_is "protect: a write to .git/config is refused with EACCES" "config: EACCES" "$(grep '^config:' "$T/protect.out")"
rl_is "protect: \$OZ0_AUDIT is set" "audit-set: yes" "$(grep '^audit-set:' "$T/protect.out")"
rl_ok "protect: \$OZ0_AUDIT shows the refused hook's line" grep -qE '^audit-hook: [1-9]' "$T/protect.out"
rl_ok "protect: \$OZ0_AUDIT cannot be written ($(grep '^audit-write:' "$T/protect.out"))" \
	grep -qE '^audit-write: E[A-Z]+$' "$T/protect.out"
rl_ok "protect: --audit FILE holds the hook's refusal" fsop audit "$T/protect.audit" 0 create .git/hooks/x
rl_ok "protect: --audit FILE holds the config's refusal" fsop audit "$T/protect.audit" 0 "write|open" .git/config
rl_ok "protect: no hook x afterwards" test ! -e "$tree/.git/hooks/x"
rl_is "protect: .git/config unchanged" "$config_sum" "$(sha256sum <"$tree/.git/config")"

# ---- Git works inside -------------------------------------------------------------------

echo changed >"$tree/file1.txt"
rl_go commit --tree "$tree" -- "${GIT_ID[@]}" commit -qam "made in the sandbox"
rl_status "git commit inside exits 0" 0
rl_is "git commit: the commit is in the repository" "made in the sandbox" "$(git -C "$tree" log -1 --format=%s)"
rl_ok "git commit: the repository is sound" git -C "$tree" fsck --no-progress

rl_go worktree --tree "$tree" -- git worktree add -q -b wtb wt
rl_status "git worktree add inside exits 0" 0
rl_is "git worktree add: the worktree is on its branch" wtb "$(git -C "$tree/wt" rev-parse --abbrev-ref HEAD 2>&1)"
rl_is "git worktree add: git lists two worktrees" 2 "$(git -C "$tree" worktree list | wc -l)"

# A submodule from a local file:// repository, recorded and then deinit'ed
# with its git directory gone, so that update must clone it again.
for r in lib other; do
	rl_repo "$T/src/$r"
done
git -C "$tree" -c protocol.file.allow=always submodule add -q "file://$T/src/lib" lib
"${GIT_ID[@]}" -C "$tree" commit -qm lib
git -C "$tree" submodule deinit -q -f lib
rm -rf "$tree/.git/modules/lib"
rl_go subupdate --tree "$tree" -- git -c protocol.file.allow=always submodule update -q --init
rl_status "git submodule update --init inside exits 0" 0
rl_is "git submodule update: lib is checked out" 1 "$(cat "$tree/lib/file1.txt" 2>&1)"
rl_ok "git submodule update: git sees it checked out" \
	sh -c "git -C '$tree' submodule status | grep -q '^ '"
rl_go subadd --tree "$tree" -- git -c protocol.file.allow=always submodule add -q "file://$T/src/other" other
rl_status "git submodule add inside exits 0" 0
rl_is "git submodule add: other is checked out" 1 "$(cat "$tree/other/file1.txt" 2>&1)"

# ---- Namespaces ---------------------------------------------------------------------------

rl_go pidns --tree "$tree" -- sh -c 'echo "$$"; ls /proc | grep -c "^[0-9]"; tr "\0" " " </proc/1/cmdline'
rl_status "pidns: exit 0" 0
rl_ok "pidns: the command is not pid 1 ($(sed -n 1p "$T/pidns.out"))" test "$(sed -n 1p "$T/pidns.out")" != 1
rl_ok "pidns: /proc is fresh: a handful of processes ($(sed -n 2p "$T/pidns.out"))" test "$(sed -n 2p "$T/pidns.out")" -lt 20
rl_ok "pidns: its pid 1 is not ours" test "$(sed -n 3p "$T/pidns.out")" != "$(tr '\0' ' ' </proc/1/cmdline)"

outside=/tmp/oz0run-outside.$$
touch "$outside" /dev/shm/oz0run-outside.$$
# (and what a writable root would have let the command make)
rl_at_exit "rm -f '$outside' /dev/shm/oz0run-outside.$$ /usr/oz0run-probe /tmp/oz0run-inside.$$ /dev/shm/oz0run-inside.$$"
rl_go fs --tree "$tree" -- sh -c '
	echo "usr: $(fsop create /usr/oz0run-probe)"
	echo "scratch: $(fsop create "$0/made-inside")"
	echo "tmp-outside: $(ls /tmp | grep -c oz0run-outside)"
	echo "tmp-write: $(fsop create /tmp/oz0run-inside.$1)"
	echo "shm-outside: $(ls /dev/shm | grep -c oz0run-outside)"
	echo "shm-write: $(fsop create /dev/shm/oz0run-inside.$1)"' "$T" $$
rl_status "fs: exit 0" 0
rl_is "fs: the root is read-only" "usr: EROFS" "$(grep '^usr:' "$T/fs.out")"
rl_is "fs: outside the tree is read-only" "scratch: EROFS" "$(grep '^scratch:' "$T/fs.out")"
rl_is "fs: /tmp is its own: ours is not there" "tmp-outside: 0" "$(grep '^tmp-outside:' "$T/fs.out")"
rl_is "fs: /tmp is writable" "tmp-write: ok" "$(grep '^tmp-write:' "$T/fs.out")"
rl_ok "fs: what it made in /tmp is not in ours" test ! -e "/tmp/oz0run-inside.$$"
rl_is "fs: /dev/shm is its own" "shm-outside: 0" "$(grep '^shm-outside:' "$T/fs.out")"
rl_is "fs: /dev/shm is writable" "shm-write: ok" "$(grep '^shm-write:' "$T/fs.out")"
rl_ok "fs: what it made in /dev/shm is not in ours" test ! -e "/dev/shm/oz0run-inside.$$"

# interfaces: the names in /proc/net/dev, sorted, one line.
interfaces() {
	sed -n 's/^ *\([^:]*\):.*/\1/p' "${1:-/proc/net/dev}" | sort | tr '\n' ' ' | sed 's/ $//'
}
loopback='
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
c = socket.create_connection(s.getsockname(), timeout=5)
a, _ = s.accept()
c.sendall(b"up")
print("loopback:", a.recv(2).decode())'
rl_go net --tree "$tree" -- sh -c 'cat /proc/net/dev; ip -o link show lo; python3 -c "$0"' "$loopback"
rl_status "net: exit 0" 0
grep ':' "$T/net.out" | grep -v '^[0-9]' | grep -v loopback >"$T/net.dev" || true
rl_is "net: --network none (the default) has lo alone" lo "$(interfaces "$T/net.dev")"
rl_ok "net: lo is up" grep -qE '^[0-9]+: lo: <[^>]*\bUP\b' "$T/net.out"
rl_is "net: loopback carries a connection" "loopback: up" "$(grep '^loopback:' "$T/net.out")"
rl_go host --tree "$tree" --network host -- cat /proc/net/dev
rl_status "host: --network host, exit 0" 0
rl_is "host: the sandbox sees our interfaces" "$(interfaces)" "$(interfaces "$T/host.out")"
rl_go none --tree "$tree" --network none -- cat /proc/net/dev
rl_is "none: --network none has lo alone" lo "$(interfaces "$T/none.out")"
tap_done
