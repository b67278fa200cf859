#!/bin/bash
# oz0fs --check and --explain: the machine report, a good tree and hostile
# ones, each rule of --explain, its answers against a real mount, and usage.
. "$(dirname "$0")/lib.sh"

# expect_in NAME PATTERN: one TAP line, ok when $T/out matches the extended
# regular expression PATTERN.
expect_in() {
	if grep -qE -- "$2" "$T/out"; then
		tap_ok "$1"
	else
		tap_not_ok "$1" "no line matches: $2" "$(head -n 20 "$T/out")"
	fi
}

# status_of CMD...: runs CMD (see run) and prints its exit status.
status_of() {
	local status=0
	run "$@" || status=$?
	echo "$status"
}

# json_get EXPR: evaluates the Python expression EXPR over the JSON in
# $T/out (as j); prints the value, or "invalid JSON".
json_get() {
	"$OZ_PY" -c 'import json, sys
try:
    j = json.load(open(sys.argv[1]))
except ValueError:
    print("invalid JSON"); sys.exit(0)
print(eval(sys.argv[2]))' "$T/out" "$1"
}

machine() {
	check_eq "--check on this machine exits 0" 0 "$(status_of "$OZ0FS" --check)"
	expect_in "the FUSE device is on" '^FUSE device: on — '
	expect_in "a real FUSE mount works" '^FUSE mount: on — mounted an empty folder, kernel FUSE protocol 7\.[0-9]+'
	expect_in "the kernel line names the release" "^Kernel: $(uname -r) — "
	expect_in "FUSE passthrough is on or off, with why" '^FUSE passthrough: (on|off) — '
	expect_in "FUSE over io_uring is on or off, with why" '^FUSE over io_uring: (on|off) — '
	expect_in "the request spin follows the CPUs" "^Request spin: $([ "$(nproc)" -ge 2 ] && echo on || echo off) — $(nproc) CPU"
	expect_in "the cgroup mode is v2, scope, v1 or none" '^Cgroup limits: (v2|scope|v1|none) — tried for real '
	# Whatever mode is used, the line names why each earlier one was not:
	# a machine on v1 or none says why neither v2 nor a scope is used.
	local mode
	mode=$(sed -n 's/^Cgroup limits: \([a-z0-9]*\) — .*/\1/p' "$T/out")
	case $mode in
	v1 | none) expect_in "the cgroup line says why v2 and a scope are not used" \
		'^Cgroup limits: (v1|none) — .*\); v2: .*; scope: ' ;;
	scope) expect_in "the cgroup line says why v2 is not used" '^Cgroup limits: scope — .*\); v2: ' ;;
	*) expect_in "the cgroup line names the delegated subtree" '^Cgroup limits: v2 — .*v2 \(a delegated subtree at ' ;;
	esac
	expect_in "credential read-protection is on: oz0run builds the mounts that hide them" \
		'^Read-protected credential paths: on — oz0run hides the node user.s home'
	expect_in "the rootless line says what an ordinary user's run lacks or has" '^Rootless runs: (on|off) — '
	expect_in "the ceiling line says none without a [ceiling]" '^Ceiling: none — no \[ceiling\]'
	check_eq "--check leaves no probe cgroup behind" "" \
		"$(find /sys/fs/cgroup -maxdepth 7 \( -name 'oz0fs-check.*' -o -name 'oz0run.supervisor.*' \) 2>/dev/null)"
	check_eq "--check --json exits 0" 0 "$(status_of "$OZ0FS" --check --json)"
	check_eq "--check --json: ok and the mount line" "True on" "$(json_get 'j["ok"], j["fuse_mount"]["state"]' | tr -d "(),'")"
}

# good_repo DIR: a repository with a hook, a tracked file and a link.
good_repo() {
	git init -q "$1"
	printf '#!/bin/sh\nexit 0\n' >"$1/.git/hooks/pre-commit"
	chmod +x "$1/.git/hooks/pre-commit"
	mkdir "$1/src"
	echo 'int main(void) { return 0; }' >"$1/src/main.c"
	ln -s src "$1/lnk"
	git -C "$1" add src lnk
	git -C "$1" commit -q -m init
}

good_tree() {
	local g=$T/good
	good_repo "$g"
	check_eq "--check DIR on a good repository exits 0" 0 "$(status_of "$OZ0FS" --check "$g")"
	expect_in "the mount would start" '^Mount on the tree: on — '
	expect_in "protected objects by rule" \
		'^Protected objects: [0-9]+ — read-only: [0-9]+ \(rule protected\), frozen folders: 2 \(frozen-dir\), anchors: [0-9]+'
	run "$OZ0FS" --check --json "$g"
	# Frozen: .git/hooks and .git/branches, which git init's template makes.
	check_eq "--check --json DIR counts: two frozen folders, commondir and config.worktree missing at least" \
		"2 True True" "$(json_get 'j["protected_objects"]["frozen_dirs"], j["protected_objects"]["missing_names"] >= 2, j["mount"]["state"] == "on"' | tr -d "(),'")"
}

hostile_trees() {
	local h=$T/hooks-link f=$T/fifo-config
	git init -q "$h"
	mkdir "$T/elsewhere"
	rm -rf "$h/.git/hooks"
	ln -s "$T/elsewhere" "$h/.git/hooks"
	check_eq "--check on a tree with a symlinked .git/hooks exits 1" 1 "$(status_of "$OZ0FS" --check "$h")"
	expect_in "... and says why" "^Mount on the tree: off — .* would refuse: '\.git/hooks' is a symbolic link"
	check_eq "--explain in that tree exits 1" 1 "$(status_of "$OZ0FS" --explain "$h" .git/config)"
	expect_in "... with the same reason" "would refuse: '\.git/hooks' is a symbolic link"

	git init -q "$f"
	rm "$f/.git/config"
	mkfifo "$f/.git/config"
	check_eq "--check on a tree with a FIFO .git/config exits 1 (and does not hang)" 1 \
		"$(status_of "$OZ0FS" --check "$f")"
	expect_in "... and says why" "^Mount on the tree: off — .* would refuse: '\.git/config' is a FIFO"
	run "$OZ0FS" --check --json "$f" || true
	check_eq "--check --json says so too" "False off" "$(json_get 'j["ok"], j["mount"]["state"]' | tr -d "(),'")"
}

# explain NAME PATH PATTERN...: --explain on the good tree exits 0 and its
# output matches every PATTERN.
explain() {
	local name=$1 path=$2 status p missing=
	shift 2
	status=$(status_of "$OZ0FS" --explain "$T/good" "$path")
	for p; do
		grep -qE -- "$p" "$T/out" || missing+="$p; "
	done
	if [ "$status" -eq 0 ] && [ -z "$missing" ]; then
		tap_ok "$name"
	else
		tap_not_ok "$name" "exit $status; not matched: $missing" "$(head -n 20 "$T/out")"
	fi
}

explain_rules() {
	explain "--explain a hook: protected, in the frozen hooks" .git/hooks/pre-commit \
		'^\.git/hooks/pre-commit: protected \(rule protected, frozen-dir \.git/hooks\): .+' \
		'^  because: \.git/hooks \(frozen-dir\): ' '^  because: \.git \(anchor\): ' \
		'^  write: refused \(protected \.git/hooks/pre-commit\)' '^  rename-away: refused \(frozen-dir \.git/hooks\)'
	explain "--explain the config: protected, replaced only by harmless bytes" .git/config \
		'^\.git/config: protected \(rule protected\): .+' \
		'^  replace: refused unless the new bytes are identical or a harmless configuration change' \
		'^  chmod: refused'
	explain "--explain a missing commondir: a protected name" .git/commondir \
		'^\.git/commondir: protected name \(rule protected-name\): .+' \
		'^  type: missing' '^  create: refused \(protected-name \.git/commondir\)' '^  mkdir: refused'
	explain "--explain .vscode/tasks.json with no .vscode: the folder on the way" .vscode/tasks.json \
		'^\.vscode/tasks\.json: \.vscode on the way does not exist; protected name \(rule protected-name\)' \
		'^  mkdir: allowed' '^  create: refused'
	explain "--explain .git: an anchor" .git \
		'^\.git: protected \(rule anchor\)' '^  rename-away: refused \(anchor \.git\)' '^  add-entry: allowed'
	explain "--explain a plain file: not protected" src/main.c \
		'^src/main\.c: not protected$' '^  write: allowed' '^  rename-away: allowed'
	explain "--explain through a symbolic link: the link is explained itself" lnk/main.c \
		'^lnk/main\.c: lnk on the way is a symbolic link, explained itself' '^  type: symbolic link' \
		'not protected$'
	explain "--explain an absolute path inside DIR" "$T/good/.git/config" '^\.git/config: protected \(rule protected\)'
	explain "--explain walks '..' inside the tree" src/../.git/hooks/pre-commit \
		'^src/\.\./\.git/hooks/pre-commit: protected \(rule protected, frozen-dir \.git/hooks\)'
	run "$OZ0FS" --explain --json "$T/good" .git/hooks/pre-commit
	check_eq "--explain --json: rule, frozen folder and the write answer" "protected .git/hooks False" \
		"$(json_get 'j["rule"], j["frozen_in"], j["ops"]["write"]["allowed"]' | tr -d "(),'")"

	mkdir "$T/good/.vscode"
	echo '{}' >"$T/good/.vscode/tasks.json"
	explain "--explain .vscode/tasks.json present: protected" .vscode/tasks.json \
		'^\.vscode/tasks\.json: protected \(rule protected\): .+'
	rm -r "$T/good/.vscode"
}

# --explain answers with the judge the mount asks: what it says of a write
# is what a write through the mount gets.
agrees_with_mount() {
	local m=$T/mnt path said got
	oz_require
	if ! oz_mount "$T/good" "$m"; then
		tap_not_ok "mount the good tree" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	for path in .git/hooks/pre-commit .git/config src/main.c; do
		run "$OZ0FS" --explain --json "$T/good" "$path"
		said=$(json_get 'j["ops"]["write"]["allowed"]')
		if fsop write "$m/$path" 'echo x' >/dev/null 2>&1; then got=True; else got=False; fi
		check_eq "--explain's write answer for $path is the mount's" "$said" "$got"
		said=$(json_get 'j["ops"]["chmod"]["allowed"]')
		# 600, not 755: a chmod of a Git configuration's execute bits alone
		# passes (git init's fileMode probe; README, "What is protected").
		if fsop chmod "$m/$path" 600 >/dev/null 2>&1; then got=True; else got=False; fi
		check_eq "--explain's chmod answer for $path is the mount's" "$said" "$got"
	done
	check "unmount" oz_umount "$m"
}

usage_errors() {
	check_eq "--check with two arguments exits 2" 2 "$(status_of "$OZ0FS" --check a b)"
	check_eq "--check with an unknown option exits 2" 2 "$(status_of "$OZ0FS" --check --bogus)"
	check_eq "--explain without PATH exits 2" 2 "$(status_of "$OZ0FS" --explain "$T/good")"
	check_eq "--explain of a path outside DIR exits 2" 2 "$(status_of "$OZ0FS" --explain "$T/good" /etc/passwd)"
	check_eq "--explain of a path that leaves DIR by '..' exits 2" 2 "$(status_of "$OZ0FS" --explain "$T/good" ../x)"
	check_eq "--check --help exits 0" 0 "$(status_of "$OZ0FS" --check --help)"
}

oz_setup 300
[ -n "${OZ0FS:-}" ] || oz_unavailable "OZ0FS is not set (run through make check)"
oz_require
machine
good_tree
hostile_trees
explain_rules
agrees_with_mount
usage_errors
tap_done
