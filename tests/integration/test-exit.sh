#!/bin/bash
# The daemon ends promptly when its mount goes. After fusermount3 -u of a
# mount whose kernel holds 100,000 inodes, the kernel's unmount evicts them
# all (the FORGETs it queues meanwhile are dropped unread once it is done) and
# the daemon must then exit within EXIT_BOUND: its own teardown is the inode
# table, the descriptor cache and the model. On SIGTERM the daemon unmounts
# itself at once: it once looked for the signal's flag only every 200 ms.
. "$(dirname "$0")/lib.sh"

DIRS=100
PER_DIR=1000
# Seconds from fusermount3 -u's return until the daemon has exited (a
# sanitizer build checks its heap for leaks on the way out).
EXIT_BOUND=1.0
# Milliseconds from SIGTERM until the mount is gone, on an idle mount (1-3
# here; a stop looked for on a 200 ms tick took 150 and more).
SIGNAL_BOUND_MS=100
SIGNAL_TRIES=3

# make_files DIR: DIRS folders of PER_DIR empty files, made directly.
make_files() {
	"$OZ_PY" - "$1" "$DIRS" "$PER_DIR" <<'EOF'
import os, sys
root, dirs, per_dir = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for d in range(dirs):
    os.mkdir("%s/d%d" % (root, d))
    for f in range(per_dir):
        os.close(os.open("%s/d%d/f%d" % (root, d, f), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
EOF
}

# look_up_all DIR: lstat of every file through the mount, twice (the second
# pass is answered by the kernel's cache); prints how many.
look_up_all() {
	"$OZ_PY" - "$1" <<'EOF'
import os, sys
for _ in range(2):
    n = 0
    for top, _, files in os.walk(sys.argv[1]):
        for f in files:
            os.lstat(os.path.join(top, f))
            n += 1
print(n)
EOF
}

# fuse_inodes: the kernel's FUSE inodes, every mount's.
fuse_inodes() {
	awk '$1 == "fuse_inode" { print $2 }' /proc/slabinfo 2>/dev/null || echo "?"
}

now_ns() {
	date +%s%N
}

# seconds NS: nanoseconds as seconds with three decimals.
seconds() {
	printf '%d.%03d' $(($1 / 1000000000)) $(($1 / 1000000 % 1000))
}

# signal_unmount_ms PID MOUNTPOINT: one request, then a quarter of a second
# idle (the daemon asleep in poll(2): a stop looked for every 200 ms was seen
# 150 ms late here), then SIGTERM to PID; prints the milliseconds until
# MOUNTPOINT is no longer mounted (at most 10 s).
signal_unmount_ms() {
	"$OZ_PY" - "$1" "$(realpath "$2")" <<'EOF'
import os, signal, sys, time
pid, mnt = int(sys.argv[1]), sys.argv[2]
def mounted():
    with open("/proc/self/mountinfo") as f:
        return any(line.split()[4] == mnt for line in f)
os.stat(mnt + "/.")
time.sleep(0.25)
start = time.monotonic()
os.kill(pid, signal.SIGTERM)
while mounted() and time.monotonic() - start < 10:
    time.sleep(0.0005)
print(round((time.monotonic() - start) * 1000))
EOF
}

oz_setup 900
OZ_CMD_TIMEOUT=600
mkdir "$T/src"
make_files "$T/src"
oz_start "$T/src" "$T/mnt"
before=$(fuse_inodes)
run look_up_all "$T/mnt" || true
check_eq "$((DIRS * PER_DIR)) files looked up through the mount" "$((DIRS * PER_DIR))" "$(tail -n 1 "$T/out")"
diag "kernel FUSE inodes: $before before the lookups, $(fuse_inodes) after"

pid=$OZ_PID
status=0
start=$(now_ns)
timeout -k 2 "$OZ_MOUNT_TIMEOUT" fusermount3 -u "$T/mnt" || status=$?
unmounted=$(now_ns)
check_eq "fusermount3 -u of the loaded mount" 0 "$status"
# The daemon's end, not a timeout's: the watchdog bounds the wait.
wait "$pid" || status=$?
exited=$(now_ns)
check_eq "the daemon exits 0" 0 "$status"
diag "fusermount3 -u took $(seconds $((unmounted - start))) s (the kernel's eviction of the inodes);" \
	"the daemon was gone $(seconds $((exited - unmounted))) s after"
check "the daemon exited within ${EXIT_BOUND}s of the unmount" \
	"$OZ_PY" -c "import sys; sys.exit(not $((exited - unmounted)) / 1e9 <= $EXIT_BOUND)"

# SIGTERM: the mount goes at once, every time.
mkdir "$T/small"
slow=0
times=
for ((k = 0; k < SIGNAL_TRIES; k++)); do
	if ! oz_mount "$T/small" "$T/small-mnt$k"; then
		tap_not_ok "mount $T/small" "$(tail -n 3 "$T/daemon.log")"
		continue
	fi
	ms=$(signal_unmount_ms "$OZ_PID" "$T/small-mnt$k")
	times="$times ${ms}ms"
	[ "$ms" -le "$SIGNAL_BOUND_MS" ] || slow=$((slow + 1))
	status=0
	wait "$OZ_PID" || status=$?
	check_eq "SIGTERM: the daemon exits 0 (try $((k + 1)))" 0 "$status"
done
check "SIGTERM unmounts within ${SIGNAL_BOUND_MS} ms, $SIGNAL_TRIES times of $SIGNAL_TRIES (took$times)" \
	test "$slow" -eq 0
tap_done
