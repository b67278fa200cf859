#!/bin/bash
# FUSE over io_uring (fs/uring.c): with fuse's enable_uring parameter off, a
# mount takes its requests through /dev/fuse and --check says how to turn it
# on; with it on, a mount starts one queue per possible CPU, serves every
# request of a workload through them (the daemon counts them at exit), -o
# uring=off keeps /dev/fuse, and a daemon ended by a signal with its rings
# live exits cleanly. The test turns the parameter on as root and puts it
# back as it found it.
. "$(dirname "$0")/lib.sh"

PARAM=/sys/module/fuse/parameters/enable_uring

# The queues the kernel expects: one per possible CPU.
possible_cpus() {
	"$OZ_PY" -c 'import sys
n = 0
for part in open("/sys/devices/system/cpu/possible").read().strip().split(","):
    a, _, b = part.partition("-")
    n += int(b or a) - int(a) + 1
print(n)'
}

set_param() {
	echo "$1" >"$PARAM"
}

# A workload with a known floor of requests that must reach the daemon: 200
# files made, renamed and removed (a CREATE, a RENAME and an UNLINK each),
# read back and listed, and an O_TMPFILE linked in.
workload() {
	"$OZ_PY" -c '
import ctypes, os, sys
d = sys.argv[1] + "/w"
os.mkdir(d)
for i in range(200):
    p = "%s/f%d" % (d, i)
    with open(p, "w") as f:
        f.write("%d\n" % i)
    with open(p) as f:
        if f.read() != "%d\n" % i:
            sys.exit("%s read back wrong" % p)
    os.rename(p, p + ".r")
if len(os.listdir(d)) != 200:
    sys.exit("listed %d entries" % len(os.listdir(d)))
for i in range(200):
    os.unlink("%s/f%d.r" % (d, i))
fd = os.open(d, os.O_TMPFILE | os.O_RDWR, 0o600)
os.write(fd, b"tmp\n")
AT_FDCWD, AT_EMPTY_PATH = -100, 0x1000
libc = ctypes.CDLL(None, use_errno=True)
if libc.linkat(fd, b"", AT_FDCWD, (d + "/from-tmp").encode(), AT_EMPTY_PATH) != 0:
    sys.exit("linkat of the O_TMPFILE: %s" % os.strerror(ctypes.get_errno()))
os.close(fd)
if open(d + "/from-tmp").read() != "tmp\n":
    sys.exit("the O_TMPFILE did not read back")' "$1"
}

# cpu_ticks PID: the user and system time of all its threads, in ticks.
cpu_ticks() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# idle_costs_nothing: once the workload is over, the ring threads' short
# spin ends and they sleep in the kernel (fs/uring.h). A thread that kept
# looking for requests would use a whole CPU: 100 ticks a second.
idle_costs_nothing() {
	sleep 0.5
	local before after
	check "parameter Y: the daemon still runs after the workload" test -r "/proc/$OZ_PID/stat" || return 0
	before=$(cpu_ticks "$OZ_PID")
	sleep 2
	after=$(cpu_ticks "$OZ_PID")
	check "parameter Y: idle, the daemon takes no CPU (ticks in 2 s: $((after - before)))" \
		test $((after - before)) -le 10
}

# served_requests: the count in the last daemon's exit line, or "none".
served_requests() {
	sed -n 's/^oz0fs: fuse over io_uring: served \([0-9]*\) requests.*/\1/p' "$T/daemon.log" | tail -n 1 |
		grep . || echo none
}

param_off() {
	set_param N
	"$OZ0FS" --check >"$T/check.out" 2>&1 || true
	check "--check, parameter N: io_uring off, and how to turn it on" \
		grep -qE "^FUSE over io_uring: off — .*is N.*echo Y > $PARAM" "$T/check.out"
	: >"$T/daemon.log"
	oz_mount "$T/src" "$T/mnt-off" || tap_not_ok "mount with the parameter N" "$(tail -n 3 "$T/daemon.log")"
	check "parameter N: the workload runs" workload "$T/mnt-off"
	check "parameter N: unmount" oz_umount "$T/mnt-off"
	check_eq "parameter N: no io_uring queue started" 0 "$(oz_uring_starts)"
}

param_on() {
	set_param Y
	"$OZ0FS" --check >"$T/check.out" 2>&1 || true
	check "--check, parameter Y: io_uring on" \
		grep -qE "^FUSE over io_uring: on — the kernel offered it" "$T/check.out"
	: >"$T/daemon.log"
	rm -rf "$T/src/w"
	oz_mount "$T/src" "$T/mnt-on" || tap_not_ok "mount with the parameter Y" "$(tail -n 3 "$T/daemon.log")"
	check "parameter Y: the daemon starts its queues" oz_wait_uring 0
	check "parameter Y: one queue per possible CPU" \
		grep -q "^oz0fs: fuse over io_uring: $(possible_cpus) queues of" "$T/daemon.log"
	check "parameter Y: the workload runs" workload "$T/mnt-on"
	idle_costs_nothing
	check "parameter Y: unmount; the daemon exits 0" oz_umount "$T/mnt-on"
	local served
	served=$(served_requests)
	check "the queues served the workload's 600 requests or more (served: $served)" \
		test "$served" != none -a "${served/none/0}" -ge 600
	check "the exit line counts each queue" \
		grep -qE "^oz0fs: fuse over io_uring: served [0-9]+ requests \(queue 0: [0-9]+" "$T/daemon.log"
}

uring_off_option() {
	: >"$T/daemon.log"
	rm -rf "$T/src/w"
	oz_mount "$T/src" "$T/mnt-opt" uring=off || tap_not_ok "mount with -o uring=off" "$(tail -n 3 "$T/daemon.log")"
	check "-o uring=off: the workload runs" workload "$T/mnt-opt"
	check "-o uring=off: unmount" oz_umount "$T/mnt-opt"
	check_eq "-o uring=off: no io_uring queue started" 0 "$(oz_uring_starts)"
	check_fails "-o uring=sometimes is refused" "$OZ0FS" -f -o uring=sometimes "$T/src" "$T/mnt-bad"
}

# SIGTERM while mounted and the rings live: the daemon unmounts and exits 0.
signal_stop() {
	: >"$T/daemon.log"
	rm -rf "$T/src/w"
	oz_mount "$T/src" "$T/mnt-sig" || tap_not_ok "mount to signal" "$(tail -n 3 "$T/daemon.log")"
	check "served before the signal" ls "$T/mnt-sig"
	kill -TERM "$OZ_PID"
	local status=0
	oz_wait_exit "$OZ_PID" && wait "$OZ_PID" || status=$?
	check_eq "SIGTERM with the rings live: the daemon exits 0" 0 "$status"
	check "... and the mount is gone" oz_not_mounted "$T/mnt-sig"
}

oz_setup 300
oz_require
[ "$(id -u)" -eq 0 ] || oz_unavailable "turning fuse's enable_uring on needs root"
[ -w "$PARAM" ] || oz_unavailable "this kernel has no FUSE over io_uring ($PARAM missing)"
ORIGINAL=$(cat "$PARAM")
trap 'oz_cleanup; set_param "$ORIGINAL"' EXIT
mkdir -p "$T/src"
OZ0_URING=
param_off
param_on
uring_off_option
signal_stop
set_param "$ORIGINAL"
check_eq "the parameter is back as it was" "$ORIGINAL" "$(cat "$PARAM")"
tap_done
