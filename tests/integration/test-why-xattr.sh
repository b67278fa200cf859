#!/bin/bash
# user.oz0fs.why: from inside the mount, getxattr on a file or folder says
# what `oz0fs --explain DIR PATH` says of it, byte for byte: every object of
# a tree with hooks, configuration, the editor and agent files, a submodule,
# a linked worktree, a nested repository and a [protect] folder, and plain
# ones. It cannot be set or removed, is never listed, answers its size as
# getxattr wants, and keeps naming the right object through renames.
. "$(dirname "$0")/lib.sh"
oz_setup 600

# ---- The tree ------------------------------------------------------------
one_commit_repo "$T/sub" README sub
one_commit_repo "$T/tree" README tree
W=$T/tree
M=$T/mnt
git -C "$W" -c protocol.file.allow=always submodule add -q "$T/sub" sub
git -C "$W" commit -qm sub
git -C "$W" worktree add -q wt -b side     # a linked worktree inside the tree
git init -q "$W/vendor/tool"                # a nested repository
printf '#!/bin/sh\nexit 0\n' >"$W/.git/hooks/pre-commit"
chmod 755 "$W/.git/hooks/pre-commit"
mkdir -p "$W/.vscode" "$W/.claude" "$W/.github/workflows" "$W/src" "$W/race/a"
echo '{}' >"$W/.vscode/tasks.json"
echo '{}' >"$W/.vscode/settings.json"
echo '{}' >"$W/.claude/settings.json"
echo 'use nix' >"$W/.envrc"
echo 'on: push' >"$W/.github/workflows/ci.yml"
echo 'int main;' >"$W/src/main.c"
echo notes >"$W/notes.txt"
ln "$W/notes.txt" "$W/notes-link"           # two names, one object
ln -s src "$W/srclink"
mkfifo "$W/fifo"
echo racing >"$W/race/a/f"
# A name no file of the mount may hold, set on the underlying file before
# the mount, beside one it may.
echo old >"$W/stale.txt"
setfattr -n user.oz0fs.why -v stale "$W/stale.txt"
setfattr -n user.kept -v 1 "$W/stale.txt"
conf=$T/oz0fs.conf
printf '[protect]\npath = .github/workflows\n' >"$conf"

oz_start "$W" "$M" "" --config "$conf"

# explain REL: what --explain prints for REL of the underlying tree.
explain() {
	"$OZ0FS" --explain --config "$conf" "$W" "$1"
}

# why PATH [getfattr options]: the attribute's value through the mount.
why() {
	local path=$1
	shift
	getfattr "$@" --absolute-names --only-values -n user.oz0fs.why -- "$path"
}

# fails_with NAME TEXT CMD...: one TAP line, ok when CMD fails saying TEXT.
fails_with() {
	local name=$1 text=$2 status=0
	shift 2
	run "$@" || status=$?
	if [ "$status" -ne 0 ] && [ "$status" -lt 124 ] && grep -qF -- "$text" "$T/out"; then
		tap_ok "$name"
	else
		tap_not_ok "$name" "exit $status, wanted a failure saying '$text': $*" "$(tail -n 5 "$T/out")"
	fi
}

# ---- Every object: the same bytes as --explain -------------------------------
declare -A first_line=()
compare_all() {
	local path rel kind links
	while IFS= read -r -d '' path; do
		rel=${path#"$W"}
		rel=${rel#/}
		rel=${rel:-.}
		read -r links kind < <(stat -c '%h %F' "$path")
		case $kind in
		"regular file" | "regular empty file" | directory) ;;
		*) continue ;; # below: the kernel answers for these
		esac
		[ "$kind" = directory ] || [ "$links" -eq 1 ] || continue # below: two names
		if ! explain "$rel" >"$T/want" 2>"$T/err"; then
			tap_not_ok "$rel: --explain answers" "$(cat "$T/err")"
		elif ! why "$M/$rel" >"$T/got" 2>"$T/err"; then
			tap_not_ok "$rel: user.oz0fs.why answers" "$(cat "$T/err")"
		elif cmp -s "$T/want" "$T/got"; then
			tap_ok "$rel: user.oz0fs.why is --explain's answer"
			first_line[$rel]=$(head -n 1 "$T/got")
		else
			tap_not_ok "$rel: user.oz0fs.why is --explain's answer" "$(diff "$T/want" "$T/got" || true)"
		fi
	done < <(find "$W" -print0 | sort -z)
	diag "compared ${#first_line[@]} files and folders"
}
compare_all

# Each kind of protected object was among them, and protected.
for rel in . .git .git/config .git/hooks .git/hooks/pre-commit .git/hooks/pre-push.sample .git/branches \
	.git/info .git/modules/sub .git/modules/sub/config .git/modules/sub/hooks sub sub/.git \
	.git/worktrees/wt .git/worktrees/wt/gitdir .git/worktrees/wt/commondir wt wt/.git \
	vendor/tool/.git vendor/tool/.git/config vendor/tool/.git/hooks \
	.vscode .vscode/tasks.json .claude .claude/settings.json .envrc .github/workflows .github/workflows/ci.yml; do
	case ${first_line[$rel]:-} in
	"$rel: protected "*) tap_ok "$rel was compared, and is protected" ;;
	*) tap_not_ok "$rel was compared, and is protected" "first line: ${first_line[$rel]:-(not compared)}" ;;
	esac
done
for rel in src src/main.c .vscode/settings.json README .gitmodules race/a/f; do
	check_eq "$rel was compared, and is not protected" "$rel: not protected" "${first_line[$rel]:-(not compared)}"
done

# Two names of one object: the daemon knows the object, and answers with
# the name it met it by; --explain says the same of that name.
why "$M/notes-link" >"$T/got"
explain notes.txt >"$T/want1"
explain notes-link >"$T/want2"
check "a file with two names: the answer is --explain's for one of them" \
	bash -c "cmp -s '$T/got' '$T/want1' || cmp -s '$T/got' '$T/want2'"

# ---- What carries no user.oz0fs.why ---------------------------------------------
# The kernel keeps user.* names to regular files and folders: it answers
# ENODATA for a link or a FIFO itself without asking the mount.
for rel in srclink fifo sub/README; do
	[ -L "$W/$rel" ] || [ -p "$W/$rel" ] || continue
	fails_with "$rel: a $(stat -c %F "$W/$rel") carries no user.* attribute: ENODATA (the kernel's rule)" \
		'No such attribute' why "$M/$rel" -h
done
why "$M/srclink" >"$T/got"
explain src >"$T/want"
check "through a link, the attribute is that of what it names" cmp "$T/want" "$T/got"
# A missing protected name has no inode to carry an attribute: --explain
# alone can say why it may not be made.
for rel in .git/commondir .git/config.worktree .cursor .codex; do
	fails_with "$rel (missing): nothing to ask" 'No such file or directory' why "$M/$rel"
	explain "$rel" >"$T/want"
	check "... and --explain calls it a protected name" grep -q "^$rel: protected name (rule protected-name)" "$T/want"
done

# ---- Read-only and unlisted --------------------------------------------------------
before=$(audit_lines)
for rel in src/main.c .git/config .git/hooks .; do
	fails_with "setfattr user.oz0fs.why on $rel: EPERM" 'Operation not permitted' \
		setfattr -n user.oz0fs.why -v mine "$M/$rel"
	fails_with "setfattr -x user.oz0fs.why on $rel: EPERM" 'Operation not permitted' \
		setfattr -x user.oz0fs.why "$M/$rel"
done
check_eq "no audit line: a reserved name, not a judgement of the object" "$before" "$(audit_lines)"
check_fails "the underlying file holds no user.oz0fs.why" getfattr -n user.oz0fs.why "$W/src/main.c"
check "another user.* name may still be set and read on a plain file" \
	bash -c "setfattr -n user.mine -v 1 '$M/src/main.c' && getfattr -n user.mine '$M/src/main.c' | grep -q 'user.mine=\"1\"'"

check "getfattr -d lists user.kept of a file that holds user.oz0fs.why below the mount" \
	bash -c "getfattr -d '$M/stale.txt' | grep -q '^user.kept='"
check_fails "... and not user.oz0fs.why" bash -c "getfattr -d -m - '$M/stale.txt' | grep -qF user.oz0fs.why"
check_fails "a plain file lists no user.oz0fs.why" bash -c "getfattr -d -m - '$M/src/main.c' | grep -qF user.oz0fs.why"
check_fails "nor does a protected one" bash -c "getfattr -d -m - '$M/.git/config' | grep -qF user.oz0fs.why"
why "$M/stale.txt" >"$T/got"
explain stale.txt >"$T/want"
check "the mount answers its own value, not the underlying one" cmp "$T/want" "$T/got"

# ---- Sizes, files without a name, renames ------------------------------------------
cat >"$T/probe.py" <<'PY'
import ctypes, os, sys, threading
NAME = b"user.oz0fs.why"
libc = ctypes.CDLL(None, use_errno=True)
libc.getxattr.restype = ctypes.c_ssize_t
libc.listxattr.restype = ctypes.c_ssize_t

def get(path, size):
    buf = ctypes.create_string_buffer(max(size, 1))
    n = libc.getxattr(os.fsencode(path), NAME, buf if size else None, ctypes.c_size_t(size))
    return (n, ctypes.get_errno()) if n < 0 else (n, buf.raw[:n] if size else None)

def sizes(path, want):
    want = open(want, "rb").read()
    n, _ = get(path, 0)
    assert n == len(want), (n, len(want))
    r, err = get(path, n - 1)
    assert r == -1 and err == 34, (r, err)  # ERANGE
    r, value = get(path, n)
    assert r == n and value == want, value
    r, value = get(path, n + 100)
    assert r == n and value == want, value
    # listxattr: the size it asks may count the hidden name; the list never.
    n = libc.listxattr(os.fsencode(path), None, ctypes.c_size_t(0))
    buf = ctypes.create_string_buffer(n)
    r = libc.listxattr(os.fsencode(path), buf, ctypes.c_size_t(n))
    assert 0 <= r <= n, (r, n)
    assert NAME not in buf.raw[:r].split(b"\0"), buf.raw[:r]

def why_fd(fd):
    return os.getxattr("/proc/self/fd/%d" % fd, NAME).decode()

def unnamed(folder, removed):
    fd = os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o600)
    print(why_fd(fd), end="")
    fd = os.open(removed, os.O_RDONLY)
    os.unlink(removed)
    print(why_fd(fd), end="")

def renamed(old, new):
    fd = os.open(old, os.O_RDONLY)
    os.rename(old, new)
    print(why_fd(fd), end="")

def race(mnt_file, under_a, under_b, want_a, want_b, rounds):
    # Renames the underlying folder back and forth while asking through an
    # fd: each answer is one name's, or says the rename outran it.
    wants = {open(want_a).read(): "a", open(want_b).read(): "b"}
    fd = os.open(mnt_file, os.O_RDONLY)
    stop = threading.Event()
    def mover():
        while not stop.is_set():
            os.rename(under_a, under_b)
            os.rename(under_b, under_a)
    t = threading.Thread(target=mover)
    t.start()
    seen = {"a": 0, "b": 0, "outran": 0}
    try:
        for _ in range(int(rounds)):
            got = why_fd(fd)
            if got in wants:
                seen[wants[got]] += 1
                continue
            first, _, rest = got.partition("\n")
            ok = any(first == "(race/%s/f, its name, leads elsewhere now: renamed while asked, or covered; "
                              "judged by its identity alone): not protected" % x for x in "ab")
            assert ok and rest == "  type: file\n  write: allowed\n  chmod: allowed\n", got
            seen["outran"] += 1
    finally:
        stop.set()
        t.join()
    print(" ".join("%s=%d" % kv for kv in sorted(seen.items())))

{"sizes": sizes, "unnamed": unnamed, "renamed": renamed, "race": race}[sys.argv[1]](*sys.argv[2:])
PY

explain .git/config >"$T/want"
check "getxattr: the size first, ERANGE when too small, then the bytes; listxattr lists it not" \
	"$OZ_PY" "$T/probe.py" sizes "$M/.git/config" "$T/want"
explain stale.txt >"$T/want"
check "... on a file whose underlying copy holds the name too" "$OZ_PY" "$T/probe.py" sizes "$M/stale.txt" "$T/want"
explain . >"$T/want"
check "... on the tree itself" "$OZ_PY" "$T/probe.py" sizes "$M" "$T/want"

echo bye >"$W/src/removed.c"
cat >"$T/want" <<'TXT'
(no name in the tree: made with O_TMPFILE, or removed while open; judged by its identity alone): not protected
  type: file
  write: allowed
  chmod: allowed
(no name in the tree: made with O_TMPFILE, or removed while open; judged by its identity alone): not protected
  type: file
  write: allowed
  chmod: allowed
TXT
"$OZ_PY" "$T/probe.py" unnamed "$M/src" "$M/src/removed.c" >"$T/got" 2>&1 || true
check "an O_TMPFILE and a file removed while open: no name, judged by identity" cmp "$T/want" "$T/got"

echo moving >"$W/src/before.c"
"$OZ_PY" "$T/probe.py" renamed "$M/src/before.c" "$M/src/after.c" >"$T/got" 2>&1 || true
explain src/after.c >"$T/want"
check "a file renamed while open (through the mount): the answer names where it is now" cmp "$T/want" "$T/got"

explain race/a/f >"$T/want-a"
mv "$W/race/a" "$W/race/b"
explain race/b/f >"$T/want-b"
mv "$W/race/b" "$W/race/a"
check "a folder renamed back and forth while asked: every answer names the object or says it was outran" \
	"$OZ_PY" "$T/probe.py" race "$M/race/a/f" "$W/race/a" "$W/race/b" "$T/want-a" "$T/want-b" 300
diag "answers: $(cat "$T/out")"

# ---- The running mount's model -------------------------------------------------------
# A repository made during the mount is the agent's (the settler judges it
# when the run ends): the mount lets its files be written, and says so,
# where --explain, which builds the model a new mount would, protects them.
check "git init through the mount" git init -q "$M/fresh"
why "$M/fresh/.git/config" >"$T/got"
check "user.oz0fs.why of its config: the running mount's answer, a write allowed" \
	grep -qx '  write: allowed' "$T/got"
check "... and so a write is" bash -c "echo '# x' >>'$M/fresh/.git/config'"
check "... where a new mount would protect it (--explain)" \
	bash -c "'$OZ0FS' --explain --config '$conf' '$W' fresh/.git/config | grep -q '^fresh/.git/config: protected '"

check "unmount" oz_umount "$M"
tap_done
