#!/bin/bash
# Lookups stay bound to the right object while names are renamed over and
# removed under a storm of them (issue: a known inode needs no new handle,
# since one holding a descriptor cannot have its number reused): writers on
# the underlying tree and on the mount itself, readers on the mount, every
# cache mode; each read must give the name it was opened by.
. "$(dirname "$0")/lib.sh"

oz_setup 300
# A small fd cache (a quarter of the limit): the names outnumber it, so
# inodes lose their descriptors and are told apart by handle again.
ulimit -n 64
mkdir -p "$T/src"
M=$T/mnt
SECONDS_EACH=${OZ_STORM_SECONDS:-6}

storm() {
	local name=$1 wdir=$2 out status=0
	out=$("$OZ_PY" "$OZ_LIB_DIR/lookup-storm.py" "$wdir" "$M" "$SECONDS_EACH" 2>&1) || status=$?
	# A storm that read almost nothing proved nothing.
	if [ "$status" -eq 0 ] && [ "$(sed -n 's/^reads: \([0-9]*\) matched.*/\1/p' <<<"$out")" -lt 1000 ]; then
		status=3
	fi
	tap_result "$name" "$status" "$out"
}

first=1
for mode in never auto always; do
	if [ "$first" = 1 ]; then
		oz_start "$T/src" "$M" "cache=$mode"
		first=0
	else
		check "mount with cache=$mode" oz_mount "$T/src" "$M" "cache=$mode"
	fi
	if [ "$mode" != always ]; then # cache=always is for a tree changed only through the mount
		storm "cache=$mode: renames on the underlying tree" "$T/src"
	fi
	storm "cache=$mode: renames through the mount" "$M"
	check "cache=$mode: the daemon is alive" kill -0 "${OZ_PID_OF[$M]}"
	check "unmount (cache=$mode)" oz_umount "$M"
done
tap_done
