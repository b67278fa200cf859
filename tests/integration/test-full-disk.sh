#!/bin/bash
# A full tree (issue 11 item 8): on a 20 MiB tmpfs, nobody writes 40 MiB
# through the mount in every cache and passthrough mode. write(2) must say
# ENOSPC once the tree is full, fsync and close must not claim more, and the
# mount must never show data the tree does not hold: its size and bytes are
# the tree's.
. "$(dirname "$0")/lib.sh"

write_filler() {
	cat >"$T/bin/fill.py" <<'EOF2'
import errno, os, sys

mnt, src, name = sys.argv[1], sys.argv[2], sys.argv[3]
fd = os.open(mnt + "/" + name, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
chunk = b"x" * (1 << 20)
err = "none"
for i in range(40):
    try:
        os.write(fd, chunk)
    except OSError as e:
        err = errno.errorcode.get(e.errno, str(e.errno))
        break
print("write: %s" % err)
try:
    os.fsync(fd)
    os.close(fd)
except OSError as e:
    print("late error: %s" % errno.errorcode.get(e.errno, str(e.errno)))
seen = os.stat(mnt + "/" + name).st_size
held = os.stat(src + "/" + name).st_size
print("sizes: %s" % ("same" if seen == held else "mount %d, tree %d" % (seen, held)))
with open(mnt + "/" + name, "rb") as a, open(src + "/" + name, "rb") as b:
    print("bytes: %s" % ("same" if a.read() == b.read() else "differ"))
EOF2
}

oz_setup 300
oz_require
chmod 755 "$T"
write_filler
mkdir -p "$T/small"
mount -t tmpfs -o size=20m,mode=0777 oz0fs-test "$T/small" || oz_unavailable "cannot mount a tmpfs"
# oz_cleanup removes $T: the tmpfs must be gone first.
trap 'oz_cleanup_small' EXIT
oz_cleanup_small() {
	for m in "${OZ_MOUNTS[@]}"; do fusermount3 -uz "$m" 2>/dev/null || true; done
	umount "$T/small" 2>/dev/null || umount -l "$T/small" 2>/dev/null || true
	oz_cleanup
}
for cache in always auto never; do
	for pt in auto off; do
		opts=cache=$cache,passthrough=$pt
		rm -f "$T/small/big"
		if ! oz_mount "$T/small" "$T/mnt-$cache-$pt" "$opts"; then
			tap_not_ok "$opts: mount" "$(tail -n 3 "$T/daemon.log")"
			continue
		fi
		run setpriv --reuid=nobody --regid=nogroup --clear-groups "$OZ_PY" "$T/bin/fill.py" \
			"$T/mnt-$cache-$pt" "$T/small" big || true
		check_eq "$opts: write(2) says ENOSPC when the tree is full" "write: ENOSPC" "$(grep '^write:' "$T/out")"
		check_eq "$opts: the mount shows the size the tree holds" "sizes: same" "$(grep '^sizes:' "$T/out")"
		check_eq "$opts: the mount shows the bytes the tree holds" "bytes: same" "$(grep '^bytes:' "$T/out")"
		check "$opts: unmount; the daemon exits 0" oz_umount "$T/mnt-$cache-$pt"
	done
done
tap_done
