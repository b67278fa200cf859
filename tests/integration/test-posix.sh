#!/bin/bash
# The POSIX semantics suite (tests/posix/posix-suite) gives the same answers
# through the mount as on the file system below it: one TAP line per check.
. "$(dirname "$0")/lib.sh"

SUITE=${OZ0_BUILDDIR:-.}/tests/posix/posix-suite

# suite DIR OUT: runs the suite in the empty directory DIR.
suite() {
	mkdir -p "$1"
	timeout -k 5 "$OZ_CMD_TIMEOUT" "$SUITE" "$1" >"$2" 2>"$2.err"
}

oz_setup 600
[ -x "$SUITE" ] || oz_unavailable "no $SUITE (make check builds it)"
mkdir "$T/src"
oz_start "$T/src" "$T/mnt"
status=0
suite "$T/ref" "$T/ref.out" || status=$?
check_eq "the suite runs on the underlying file system ($(stat -f -c %T "$T"))" 0 "$status"
status=0
suite "$T/mnt/run" "$T/mnt.out" || status=$?
check_eq "the suite runs through the mount" 0 "$status"
[ "$status" -eq 0 ] || diag "$(tail -n 5 "$T/mnt.out.err")"
compare_answers "$T/ref.out" "$T/mnt.out"
check "unmount" oz_umount "$T/mnt"
tap_done
