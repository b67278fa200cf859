#!/bin/bash
# FUSE passthrough: once oz0fs allowed an open, the kernel reads and writes
# the tree's file itself. What must still hold: the data is the tree's, seen
# alike through the mount and beside it (read, write, append, mmap,
# truncate, O_TMPFILE); an open that cannot pass through (a write beside a
# read-only open, a set-id file) still works and still clears set-id bits
# for an unprivileged writer; protected files stay refused; and
# -o passthrough=off keeps every read in the daemon.
#
# The sign that passthrough is in use is functional: the daemon's request
# trace (-d) shows no READ or WRITE for the file I/O.
. "$(dirname "$0")/lib.sh"

# served OPCODE: how many OPCODE requests the daemon traced so far.
served() {
	grep -c "opcode: $1 (" "$T/daemon.log" || true
}

# granted: the daemon asked the kernel for passthrough in INIT.
granted() {
	grep -q 'passthrough asked' "$T/daemon.log"
}

# as_nobody CMD...: runs CMD as nobody:nogroup with no other groups.
as_nobody() {
	timeout -k 5 "$OZ_CMD_TIMEOUT" setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

data_path() {
	local reads writes
	head -c 4194304 /dev/urandom >"$T/src/data"
	reads=$(served READ)
	check "a file reads back through the mount" cmp "$T/src/data" "$T/mnt/data"
	if granted; then
		check_eq "reads of an allowed open do not reach the daemon" "$reads" "$(served READ)"
	else
		tap_ok "reads go through the daemon: the kernel offers no passthrough here # SKIP"
	fi
	writes=$(served WRITE)
	check "write 2 MiB through the mount" dd if=/dev/urandom of="$T/mnt/w" bs=65536 count=32 status=none
	check "what is written through the mount is the tree's" cmp "$T/src/w" "$T/mnt/w"
	if granted; then
		check_eq "writes of an allowed open do not reach the daemon" "$writes" "$(served WRITE)"
	fi
	check "append through the mount" sh -c "printf tail >>'$T/mnt/w'"
	check_eq "an append lands at the end, seen alike on both sides" "2097156 2097156" \
		"$(stat -c %s "$T/mnt/w") $(stat -c %s "$T/src/w")"
	check_eq "the appended bytes are there" tail "$(tail -c 4 "$T/src/w")"
	check "truncate through the mount" truncate -s 10 "$T/mnt/w"
	check_eq "truncate after passthrough writes" "10 10" "$(stat -c %s "$T/mnt/w") $(stat -c %s "$T/src/w")"
	check "a shared mapping through the mount writes the tree's file" fsop mmap-write "$T/mnt/m" 65536
	check "... which reads back beside the mount" fsop mmap-verify "$T/src/m" 65536
	check "a mapping beside the mount" fsop mmap-write "$T/src/m2" 65536
	check "... reads back through it" fsop mmap-verify "$T/mnt/m2" 65536
}

# rewrite PATH TEXT: writes TEXT at offset 0 of PATH in place (no truncation,
# so the size stays and only the bytes can tell old from new).
rewrite() {
	"$OZ_PY" -c 'import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
os.pwrite(fd, sys.argv[2].encode(), 0)
os.close(fd)' "$1" "$2"
}

# A read-only open of a small file uses the kernel's page cache: a read that
# hits it costs no request, and does not make the kernel forget the atime
# (a read through a backing file does, so the next stat would be a request).
# The cache must never show what a write through a backing file changed.
small_files() {
	local reads getattrs
	printf 'first\n' >"$T/src/small"
	check_eq "a small file reads through the mount" first "$(cat "$T/mnt/small")"
	stat "$T/mnt/small" >/dev/null
	reads=$(served READ) getattrs=$(served GETATTR)
	check_eq "... and again" first "$(cat "$T/mnt/small")"
	stat "$T/mnt/small" >/dev/null
	if granted; then
		check_eq "a second read of a small file does not reach the daemon" "$reads" "$(served READ)"
		check_eq "nor does a stat after it" "$getattrs" "$(served GETATTR)"
	fi
	# The kernel drops the cache when it sees the mtime change: restore it, as
	# cp -p or rsync -t would, and only the daemon knows the cache is stale.
	local mtime
	mtime=$(stat -c %.9Y "$T/src/small")
	check "rewrite the small file in place through a write open (it passes through)" \
		rewrite "$T/mnt/small" FIRST
	check "... and give it back its mtime" touch -m -d "@$mtime" "$T/mnt/small"
	check_eq "a read after it sees the new bytes, not the cached ones" FIRST "$(cat "$T/mnt/small")"
	exec 8<"$T/mnt/small"
	check "rewrite it while a read-only open holds it" rewrite "$T/mnt/small" fIRST
	check_eq "... the reader's cache follows" fIRST "$(cat "$T/mnt/small")"
	exec 8<&-
}

# Opens of one inode that the kernel must serve alike: a write open beside
# a read-only one (whose backing file cannot write), both seeing one file.
mixed_opens() {
	echo start >"$T/src/mixed"
	check "a write open beside a read-only one writes, and the reader sees it" "$OZ_PY" -c '
import os, sys
p = sys.argv[1]
r = os.open(p, os.O_RDONLY)
w = os.open(p, os.O_WRONLY | os.O_APPEND)
os.write(w, b"more\n")
rw = os.open(p, os.O_RDWR)
os.pwrite(rw, b"START", 0)
got = os.pread(r, 64, 0)
for fd in (r, w, rw):
    os.close(fd)
sys.exit(0 if got == b"START\nmore\n" else "read %r" % got)' "$T/mnt/mixed"
	check_eq "... in the tree" "$(printf 'START\nmore')" "$(cat "$T/src/mixed")"
	check "O_TMPFILE: written and read back through the mount" "$OZ_PY" -c '
import os, sys
fd = os.open(sys.argv[1], os.O_TMPFILE | os.O_RDWR, 0o644)
os.write(fd, b"unnamed")
os.lseek(fd, 0, os.SEEK_SET)
got = os.read(fd, 16)
size = os.fstat(fd).st_size
os.close(fd)
sys.exit(0 if (got, size) == (b"unnamed", 7) else "read %r, size %d" % (got, size))' "$T/mnt"
}

# The kernel writes through a backing file as the daemon (root), which keeps
# set-id bits: a set-id file never passes through.
setid() {
	printf 'x' >"$T/src/s"
	chmod 4777 "$T/src/s"
	check "nobody appends to a world-writable set-user-ID file" as_nobody sh -c "printf y >>'$T/mnt/s'"
	check_eq "... which drops the bit" 777 "$(stat -c %a "$T/src/s")"
	# Opened before it became set-id: the inode passes through already.
	printf 'x' >"$T/src/s2"
	chmod 777 "$T/src/s2"
	exec 8<"$T/mnt/s2"
	check "chmod u+s through the mount while it is open" chmod 4777 "$T/mnt/s2"
	check "nobody appends to it while a passthrough open is held" as_nobody sh -c "printf y >>'$T/mnt/s2'"
	check_eq "... which still drops the bit" 777 "$(stat -c %a "$T/src/s2")"
	exec 8<&-
	check_eq "... and wrote" xy "$(cat "$T/src/s2")"
}

protected() {
	local hook=.git/hooks/pre-commit
	refused "a write open of a hook is refused" write $hook fsop write "$T/mnt/$hook" x
	exec 8<"$T/mnt/$hook"
	refused "... also while a read open of it passes through" write $hook fsop rdwr "$T/mnt/$hook"
	exec 8<&-
}

switched_off() {
	local reads
	: >"$T/daemon.log"
	if ! oz_mount "$T/src" "$T/off" "passthrough=off" -d; then
		tap_not_ok "mount with -o passthrough=off" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	check "-o passthrough=off: the daemon does not ask for it" grep -q 'passthrough off' "$T/daemon.log"
	reads=$(served READ)
	check "-o passthrough=off: a file reads back" cmp "$T/src/data" "$T/off/data"
	check "-o passthrough=off: its reads reach the daemon" test "$(served READ)" -gt "$reads"
	check "unmount the passthrough=off mount" oz_umount "$T/off"
	check_fails "-o passthrough=bogus is a usage error" "$OZ0FS" -o passthrough=bogus "$T/src" "$T/never"
}

oz_setup 300
# nobody must reach the directories below $T.
chmod 755 "$T"
one_commit_repo "$T/src" README hello
printf '#!/bin/sh\nexit 0\n' >"$T/src/.git/hooks/pre-commit"
chmod +x "$T/src/.git/hooks/pre-commit"
oz_start "$T/src" "$T/mnt" "" -d
data_path
small_files
mixed_opens
setid
protected
check "unmount; the daemon exits 0" oz_umount "$T/mnt"
switched_off
tap_done
