#!/bin/bash
# oz0fs --write (seed 000, "ACP file writes" and "Audit file writes before
# applying them"): standard input written to a path of the tree for an
# agent. Every refusal leaves the tree and what lies outside it as they
# were, with an audit line naming the rule; a write is byte-exact and its
# run.file_write line (size, SHA-256, the path in the private part) is in
# the log; a symbolic link swapped in during writes never leads one
# outside; a full audit disk refuses the write. The last part writes
# through an oz0fs mount.
. "$(dirname "$0")/lib.sh"
oz_setup 600
oz_require

O=$T/outside
mkdir -p "$O"
echo victim >"$O/victim"

# The tree: a repository with a submodule, a nested repository, a nested
# one whose git directory lies apart (store/n.git), an unfinished rebase
# and sequence of picks in it, links, a FIFO, a folder.
one_commit_repo "$T/sub" README "sub"
one_commit_repo "$T/tree" README "tree"
W=$T/tree
git -C "$W" -c protocol.file.allow=always submodule add -q "$T/sub" m
git -C "$W" commit -qm m
git init -q "$W/nested"
mkdir "$W/store"
git init -q --separate-git-dir="$W/store/n.git" "$W/apart"
mkdir -p "$W/store/n.git/rebase-merge" "$W/store/n.git/sequencer"
echo pick >"$W/store/n.git/rebase-merge/git-rebase-todo"
echo pick >"$W/store/n.git/sequencer/todo"
mkdir -p "$W/src" "$W/.vscode" "$W/.github/workflows" "$W/secrets"
echo 'int main;' >"$W/src/main.c"
echo '{}' >"$W/.vscode/tasks.json"
echo 'on: push' >"$W/.github/workflows/ci.yml"
echo notes >"$W/notes.txt"
ln -s "$O" "$W/out"                 # a folder link out of the tree
ln -s "$O/victim" "$W/victim"       # a file link out of the tree
ln -s src "$W/srclink"              # a folder link inside the tree
ln "$W/.git/config" "$W/cfg"        # a hard link of .git/config
mkfifo "$W/fifo"
conf=$T/oz0fs.conf
mkdir "$W/.keys" && echo k >"$W/.keys/id"
ln "$W/.keys/id" "$W/key-alias"    # a hard link of a file in a [deny] name's folder
printf '[protect]\npath = .github/workflows\n[deny]\npath = %s/secrets\nname = .keys\nname = .env.agent\n' "$W" >"$conf"
LOG=$T/write.log

# state: everything below the tree and outside it, to tell that nothing changed.
state() { snapshot "$T" tree outside; }

# wr PATH [OPTION...]: writes "agent bytes" to PATH from the tree; the
# status is in $status, stderr in $T/out.
wr() {
	local path=$1
	shift
	status=0
	(cd "$W" && echo 'agent bytes' | timeout 60 "$OZ0FS" --write --config "$conf" --audit "$LOG" "$@" -- "$path") \
		>"$T/out" 2>&1 || status=$?
}

# refused RULE NAME PATH [OPTION...]: exit 1, the stderr line and the last
# audit line name RULE, and nothing changed.
refused() {
	local rule=$1 name=$2 path=$3 before after
	shift 3
	before=$(state)
	wr "$path" "$@"
	after=$(state)
	if [ "$status" -ne 1 ]; then
		tap_not_ok "$name" "exit $status, wanted 1: $path" "$(cat "$T/out")"
	elif ! grep -qF -- ": refused ($rule): " "$T/out"; then
		tap_not_ok "$name" "not refused by $rule: $path" "$(cat "$T/out")"
	elif ! tail -n 1 "$LOG" | grep -qF "\"rule\":\"$rule\""; then
		tap_not_ok "$name" "no audit line for $rule" "$(tail -n 1 "$LOG")"
	elif [ "$before" != "$after" ]; then
		tap_not_ok "$name" "the refused write changed something" "$(diff <(echo "$before") <(echo "$after") || true)"
	else
		tap_ok "$name"
	fi
}

# written NAME PATH: exit 0, PATH (tree-relative, no link) holds the bytes,
# and the last audit line is its run.file_write.
written() {
	local name=$1 path=$2
	wr "$path"
	if [ "$status" -ne 0 ]; then
		tap_not_ok "$name" "exit $status: $path" "$(cat "$T/out")"
	elif [ "$(cat "$W/$path")" != 'agent bytes' ]; then
		tap_not_ok "$name" "$path holds $(head -c 200 "$W/$path")"
	elif ! tail -n 1 "$LOG" | grep -qF '"event":"run.file_write","size":12,'; then
		tap_not_ok "$name" "no run.file_write line" "$(tail -n 1 "$LOG")"
	else
		tap_ok "$name"
	fi
}

# ---- Git's files, by name and by identity --------------------------------
refused git-name "a hook" .git/hooks/pre-commit
refused git-name "a new hook" .git/hooks/post-checkout
refused git-name ".git/config" .git/config
refused git-name "a new file in .git (git's own state)" .git/new-file
refused git-name "a file in .git/rebase-merge" .git/rebase-merge/git-rebase-todo
refused git-name "a file in .git/sequencer" .git/sequencer/todo
refused git-name "a submodule's configuration in .git/modules" .git/modules/m/config
refused git-name "a submodule's hook in .git/modules" .git/modules/m/hooks/pre-commit
refused git-name "a submodule's .git file" m/.git
refused git-name "a file in a submodule's .git" m/.git/x
refused git-name "a nested repository's hook" nested/.git/hooks/pre-commit
refused git-name "a nested repository's configuration" nested/.git/config
refused git-name "a .git file of a repository whose git directory lies apart" apart/.git
refused git-name ".GIT in another case" .GIT/config
refused git-name "'..' back into .git" src/../.git/config
refused git-name "a .git name even past '..'" .git/../notes.txt
refused protected-write "a separate git directory's configuration" store/n.git/config
refused protected-write "a separate git directory's hook" store/n.git/hooks/pre-commit
refused git-dir "any file of a separate git directory" store/n.git/description
refused git-dir "a new file in a separate git directory" store/n.git/new
refused protected-write "a rebase's todo in a separate git directory" store/n.git/rebase-merge/git-rebase-todo
refused protected-write "a new file in rebase-merge" store/n.git/rebase-merge/x
refused protected-write "a file in sequencer" store/n.git/sequencer/todo
refused protected-write "a hard link of .git/config (judged by identity)" cfg

# ---- What the mount protects, and the configuration's roots --------------
refused protected-write ".vscode/tasks.json" .vscode/tasks.json
refused protected-write ".envrc (missing)" .envrc
refused protected-write ".claude (missing)" .claude
refused walk ".claude/settings.json: no folder is made" .claude/settings.json
refused protected-write "a [protect] folder's file" .github/workflows/ci.yml
refused deny "a [deny] root in the tree" secrets/token
refused denied-name "a [deny] name, new" src/.env.agent
refused denied-name "a file in a [deny] name's folder" .keys/id
refused protected-write "a hard link of it (judged by identity)" key-alias

# ---- The walk ---------------------------------------------------------------
refused link "a folder link on the way" out/victim
refused link "a file link as the target (neither followed nor replaced)" victim
refused link "a link inside the tree, on the way" srclink/main.c
refused not-a-file "a FIFO" fifo
refused not-a-file "a folder" src
refused not-a-file "a path ending in '/'" src/new/
refused not-a-file "the tree itself" .
refused walk "a missing folder on the way (no folder is made)" nofolder/x
refused walk "a file on the way" notes.txt/x
refused walk "a missing folder, then '..'" nofolder/../notes.txt
refused outside-tree "'..' out of the tree" ../outside/victim
refused outside-tree "'..' out of the tree from a folder" src/../../outside/victim
refused outside-tree "an absolute path outside the tree" "$O/victim"
refused walk "a PATH with a newline: one stderr line" "$(printf 'no\nfolder/x')"
check_eq "... the newline escaped" 1 "$(grep -c 'no\\x0afolder/x: refused (walk): ' "$T/out")"
before=$(state)
status=0
head -c $((64 * 1024 * 1024 + 1)) /dev/zero | (cd "$W" && "$OZ0FS" --write --audit "$LOG" big.txt) >"$T/out" 2>&1 ||
	status=$?
check_eq "more than 64 MiB of input: refused" "1 too-large" "$status $(tail -n 1 "$LOG" | sed -n 's/.*"rule":"\([a-z-]*\)".*/\1/p')"
check_unchanged "... and nothing written" "$before" "$(state)"
head -c $((64 * 1024 * 1024)) /dev/zero | (cd "$W" && "$OZ0FS" --write --audit "$LOG" big.txt) >"$T/out" 2>&1
check_eq "64 MiB exactly is written" $((64 * 1024 * 1024)) "$(stat -c %s "$W/big.txt")"
rm -f "$W/big.txt"

# ---- A tree whose Git files cannot be read whole ------------------------------
one_commit_repo "$T/bad" README bad
head -c 2000000 /dev/zero | tr '\0' '#' >>"$T/bad/.git/config"
echo keep >"$T/bad/plain.txt"
before=$(snapshot "$T" bad)
status=0
echo x | "$OZ0FS" --write --tree "$T/bad" --audit "$LOG" plain.txt >"$T/said" 2>&1 || status=$?
check_eq "an oversize .git/config refuses every write: exit 1" 1 "$status"
check "... with the model's reason" grep -q 'refused (fail-closed): every write is refused while the tree.s model cannot be built: .*larger than 1 MiB' "$T/said"
check_unchanged "... and nothing written" "$before" "$(snapshot "$T" bad)"
rm -f "$T/bad/.git/config"
mkfifo "$T/bad/.git/config"
before=$(snapshot "$T" bad)
status=0
echo x | "$OZ0FS" --write --tree "$T/bad" --audit "$LOG" plain.txt >"$T/out" 2>&1 || status=$?
check_eq "a FIFO for .git/config refuses every write too" 1 "$status"
check_unchanged "... and nothing written" "$before" "$(snapshot "$T" bad)"

# ---- Writes that are made ---------------------------------------------------------
written "a tracked file" README
written "a file" src/main.c
written "a new file" src/new.c
written "a name that only starts like .git" .github/ISSUE_TEMPLATE.md
written ".vscode/settings.json beside tasks.json" .vscode/settings.json
written "a file beside a separate git directory" store/x
written "a file in a nested repository's work tree" nested/file
written "a file in a submodule's work tree" m/README
status=0
(cd "$W/src" && echo 'agent bytes' | "$OZ0FS" --write --audit "$LOG" --tree "$W" "$W/notes.txt") >"$T/out" 2>&1 || status=$?
check_eq "an absolute path in the tree, --tree given" "0 agent bytes" "$status $(cat "$W/notes.txt")"

head -c 300000 /dev/urandom >"$T/random"
status=0
(cd "$W" && "$OZ0FS" --write --audit "$LOG" bin.dat <"$T/random") >"$T/out" 2>&1 || status=$?
check "any bytes, byte-exact" cmp "$T/random" "$W/bin.dat"
sum=$(sha256sum <"$T/random" | cut -d' ' -f1)
cat >"$T/line.py" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert sorted(d) == ["event", "private", "sha256", "size", "time"], d
assert d["event"] == "run.file_write" and d["size"] == int(sys.argv[2]) and d["sha256"] == sys.argv[3], d
assert d["private"] == {"path": "bin.dat"}, d
PY
check "its run.file_write line: size, SHA-256, the path in the private part" "$OZ_PY" "$T/line.py" "$LOG" 300000 "$sum"
: | (cd "$W" && "$OZ0FS" --write --audit "$LOG" empty.txt) >"$T/out" 2>&1
check_eq "an empty input makes an empty file" "0" "$(stat -c %s "$W/empty.txt")"

chmod 0751 "$W/src/main.c"
wr src/main.c
check_eq "an existing file keeps its mode" "751" "$(stat -c %a "$W/src/main.c")"
chmod 4755 "$W/src/main.c"
wr src/main.c
check_eq "... less its set-user-ID bit" "755" "$(stat -c %a "$W/src/main.c")"
(cd "$W" && umask 027 && echo x | "$OZ0FS" --write --audit "$LOG" masked.txt) >"$T/out" 2>&1
check_eq "a new file is 0644 less the umask" "640" "$(stat -c %a "$W/masked.txt")"
ln "$W/notes.txt" "$O/notes-link"
wr notes.txt
check_eq "a hard link outside keeps its bytes (a new file takes the name)" "agent bytes|agent bytes" \
	"$(cat "$W/notes.txt")|$(cat "$O/notes-link")"
rm -f "$O/notes-link"
check_eq "no temporary file is left behind" "" "$(find "$T" -name '.oz0fs-write-*')"

# ---- The audit sink ------------------------------------------------------------
status=0
(cd "$W" && echo x | "$OZ0FS" --write stderr.txt) >"$T/said" 2>&1 || status=$?
check "no log given: the run.file_write line goes to stderr" grep -q '^{"time":.*"event":"run.file_write","size":2,' "$T/said"
status=0
(cd "$W" && echo x | "$OZ0FS" --write closed.txt 2>&-) || status=$?
check_eq "stderr as the log, closed: refused, nothing written" "1 absent" \
	"$status $([ -e "$W/closed.txt" ] && echo present || echo absent)"
printf '[audit]\nfile = %s/conf-audit.log\n' "$T" >"$T/audit.conf"
(cd "$W" && echo x | "$OZ0FS" --write --config "$T/audit.conf" conf.txt) >"$T/out" 2>&1
check "the configuration's [audit] file" grep -q '"private":{"path":"conf.txt"}' "$T/conf-audit.log"
# no log to say it in: the refusal is on stderr alone (the log's open makes
# the file, then removes it: the folder's times change, nothing else)
wr intree.txt --audit "$W/intree.log"
check_eq "a log inside the tree is refused" "1 1" "$status $(grep -c 'refused (audit): cannot open the audit log .*inside the tree' "$T/out")"
check_eq "... nothing written, the log not left there" "absent absent" \
	"$([ -e "$W/intree.txt" ] && echo present || echo absent) $([ -e "$W/intree.log" ] && echo present || echo absent)"

# A full audit disk: a 64 KiB tmpfs, the log made empty, then filled up.
mkdir -p "$T/alog"
mount -t tmpfs -o size=64k oz0fs-test "$T/alog" || oz_unavailable "cannot mount a tmpfs"
trap 'umount "$T/alog" 2>/dev/null || umount -l "$T/alog" 2>/dev/null || true; oz_cleanup' EXIT
: >"$T/alog/audit.log"
dd if=/dev/zero of="$T/alog/fill" bs=4k 2>/dev/null || true
before=$(state)
status=0
(cd "$W" && echo 'agent bytes' | "$OZ0FS" --write --audit "$T/alog/audit.log" notes.txt) >"$T/said" 2>&1 || status=$?
check_eq "a full audit disk: refused (exit 1)" 1 "$status"
check "... saying the log did not take the line" grep -q 'refused (audit): the audit log did not take the run.file_write line: No space left on device' "$T/said"
status=0
(cd "$W" && echo 'agent bytes' | "$OZ0FS" --write --audit "$T/alog/audit.log" full-new.txt) >"$T/out" 2>&1 || status=$?
check_eq "... a new file too" 1 "$status"
check_unchanged "... and nothing written" "$before" "$(state)"
check_eq "... nor any line in the log" 0 "$(stat -c %s "$T/alog/audit.log")"
check "unmount the audit disk" umount "$T/alog"

# ---- Links swapped in during the writes ---------------------------------------------
# One loop swaps race/t between a file and a link to $O/victim, another
# race2 between a folder and a link to $O, while --write runs again and
# again: what lies outside is never written.
mkdir -p "$W/race" "$W/race2"
before=$(snapshot "$T" outside)
(
	set +e
	while :; do
		ln -sfn "$O/victim" "$W/race/.l" && mv -Tf "$W/race/.l" "$W/race/t"
		echo file >"$W/race/.f" && mv -Tf "$W/race/.f" "$W/race/t"
	done
) >>"$T/swap.log" 2>&1 &
swap1=$!
(
	set +e
	while :; do
		mv -T "$W/race2" "$W/race2.real" && ln -sfn "$O" "$W/race2"
		rm -f "$W/race2" && mv -T "$W/race2.real" "$W/race2"
	done
) >>"$T/swap.log" 2>&1 &
swap2=$!
echo "$swap1" >>"$T/pids"
echo "$swap2" >>"$T/pids"
ok=0 no=0 bad=0
for ((i = 0; i < 150; i++)); do
	for p in race/t race2/t; do
		s=0
		(cd "$W" && echo 'agent bytes' | "$OZ0FS" --write --audit "$LOG" "$p") >/dev/null 2>&1 || s=$?
		case $s in 0) ok=$((ok + 1)) ;; 1) no=$((no + 1)) ;; *) bad=$((bad + 1)) ;; esac
	done
done
alive=0
kill -0 "$swap1" && kill -0 "$swap2" || alive=$?
kill "$swap1" "$swap2" 2>/dev/null || true
wait "$swap1" "$swap2" 2>/dev/null || true
check_eq "the swapping loops ran throughout" 0 "$alive"
[ ! -s "$T/swap.log" ] || diag "the swapping loops said:" "$(sort "$T/swap.log" | uniq -c | head -n 5)"
[ -d "$W/race2.real" ] && { rm -f "$W/race2"; mv -T "$W/race2.real" "$W/race2"; }
diag "swapped links: $ok written, $no refused"
check_eq "every run wrote or refused" 0 "$bad"
check_unchanged "nothing outside the tree was written" "$before" "$(snapshot "$T" outside)"
check_eq "no temporary file is left behind" "" "$(find "$T" -name '.oz0fs-write-*')"

# ---- Usage ---------------------------------------------------------------------------
usage() {
	local name=$1 s=0
	shift
	(cd "$W" && "$OZ0FS" --write "$@" </dev/null) >"$T/out" 2>&1 || s=$?
	check_eq "$name: exit 2" 2 "$s"
}
usage "no PATH"
usage "two PATHs" a b
usage "an unknown option" --bogus a
usage "an empty PATH" ''
usage "an empty --audit" --audit '' a
usage "a configuration that cannot be read" --config "$T/none.conf" a
check "--help is exit 0" "$OZ0FS" --write --help
check "oz0fs --help names --write" sh -c '"$1" --help | grep -q -- "--write \[--tree DIR\]"' sh "$OZ0FS"

# ---- Through an oz0fs mount: the harness writes into a mounted tree ----------
one_commit_repo "$T/msrc" README m
oz_start "$T/msrc" "$T/mnt"
status=0
(cd "$T/mnt" && echo 'agent bytes' | "$OZ0FS" --write --audit "$LOG" README) >"$T/out" 2>&1 || status=$?
check_eq "through the mount: written" "0 agent bytes" "$status $(cat "$T/msrc/README")"
status=0
(cd "$T/mnt" && echo 'agent bytes' | "$OZ0FS" --write --audit "$LOG" new) >"$T/out" 2>&1 || status=$?
check_eq "through the mount: a new file" "0 agent bytes" "$status $(cat "$T/msrc/new")"
check_eq "through the mount: no temporary file is left behind" "" "$(find "$T/msrc" -name '.oz0fs-write-*')"
status=0
(cd "$T/mnt" && echo x | "$OZ0FS" --write --audit "$LOG" .git/config) >"$T/out" 2>&1 || status=$?
check_eq "through the mount: .git/config refused" 1 "$status"
check "unmount; the daemon exits 0" oz_umount "$T/mnt"
tap_done
