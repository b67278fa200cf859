#!/bin/bash
# The request loop (fs/loop.c): one thread reads requests at a time, so what
# must hold is that a request that blocks in the daemon holds up no other
# caller, that many callers at once are all served right, and that the spin
# can be set or switched off.
. "$(dirname "$0")/lib.sh"

# A request the daemon cannot finish until the test says so: its open of a
# file on which the test holds a write lease waits for the lease to go (the
# test ignores the kernel's request to give it up). Meanwhile lookups through
# the mount must be answered.
blocked_open() {
	echo leased >"$T/src/leased"
	check "a request blocked in the daemon holds up no other caller" "$OZ_PY" -c '
import fcntl, os, signal, subprocess, sys, time
src, mnt = sys.argv[1], sys.argv[2]
signal.signal(signal.SIGIO, signal.SIG_IGN)
fd = os.open(src + "/leased", os.O_RDONLY)
fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
opener = subprocess.Popen(["cat", mnt + "/leased"], stdout=subprocess.DEVNULL)
time.sleep(0.5)
start = time.monotonic()
for i in range(50):
    try:
        os.stat("%s/absent-%d" % (mnt, i))
    except FileNotFoundError:
        pass
with open(mnt + "/other", "w") as f:
    f.write("served")
took = time.monotonic() - start
held = opener.poll() is None
fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
status = opener.wait(timeout=30)
if not held:
    sys.exit("the blocked open finished before the lease went: nothing was tested")
if took > 3 or status != 0:
    sys.exit("lookups took %.2f s beside the blocked open; its cat exited %d" % (took, status))' "$T/src" "$T/mnt"
	check_eq "... whose write landed" served "$(cat "$T/src/other")"
}

# 8 processes at once, each making, reading back, renaming and
# removing its own files.
many_callers() {
	check "8 callers at once: every file reads back as written" "$OZ_PY" -c '
import os, sys
from concurrent.futures import ProcessPoolExecutor
mnt = sys.argv[1]
def work(k):
    d = "%s/w%d" % (mnt, k)
    os.mkdir(d)
    for i in range(300):
        p = "%s/f%d" % (d, i)
        data = ("%d:%d\n" % (k, i)).encode() * (i % 7 + 1)
        with open(p, "wb") as f:
            f.write(data)
        os.stat(p)
        with open(p, "rb") as f:
            if f.read() != data:
                return "%s read back wrong" % p
        os.rename(p, p + ".r")
        if i % 2:
            os.unlink(p + ".r")
    return None if len(os.listdir(d)) == 150 else "%s holds %d" % (d, len(os.listdir(d)))
with ProcessPoolExecutor(8) as ex:
    errors = [e for e in ex.map(work, range(8)) if e]
sys.exit("; ".join(errors) if errors else 0)' "$T/mnt"
}

oz_setup 300
mkdir -p "$T/src"
oz_start "$T/src" "$T/mnt"
blocked_open
many_callers
check "unmount; the daemon exits 0" oz_umount "$T/mnt"
if oz_mount "$T/src" "$T/nospin" "spin=0"; then
	check "-o spin=0: the mount serves" test -f "$T/nospin/w0/f0.r"
	check "unmount the spin=0 mount" oz_umount "$T/nospin"
else
	tap_not_ok "mount with -o spin=0" "$(tail -n 3 "$T/daemon.log")"
fi
check_fails "-o spin=-1 is a usage error" "$OZ0FS" -o spin=-1 "$T/src" "$T/never"
check_fails "-o spin=x is a usage error" "$OZ0FS" -o spin=x "$T/src" "$T/never"
tap_done
