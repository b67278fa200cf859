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

# through_mount TAG OPTS LABEL: the suite through a fresh mount with OPTS,
# compared with the underlying answers; LABEL prefixes each check's name.
through_mount() {
	local tag=$1 opts=$2 label=$3 status=0
	mkdir "$T/src-$tag"
	if ! oz_mount "$T/src-$tag" "$T/mnt-$tag" "$opts"; then
		tap_not_ok "${label}mount" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	suite "$T/mnt-$tag/run" "$T/$tag.out" || status=$?
	check_eq "${label}the suite runs through the mount" 0 "$status"
	[ "$status" -eq 0 ] || diag "$(tail -n 5 "$T/$tag.out.err")"
	compare_answers "$T/ref.out" "$T/$tag.out" "$label"
	check "${label}unmount" oz_umount "$T/mnt-$tag"
}

oz_setup 600
[ -x "$SUITE" ] || oz_unavailable "no $SUITE (make check builds it)"
mkdir "$T/probe"
oz_start "$T/probe" "$T/pmnt"
check "unmount the first mount" oz_umount "$T/pmnt"
status=0
suite "$T/ref" "$T/ref.out" || status=$?
check_eq "the suite runs on the underlying file system ($(stat -f -c %T "$T"))" 0 "$status"
# The default caching (for a mount the tree is exclusive to), and none at
# all (for trees also changed from outside): the answers must not depend on it.
through_mount default "" ""
through_mount never cache=never "cache=never: "
tap_done
