#!/bin/bash
# 100,000 files created, listed, statted, renamed and removed through one
# mount: no EMFILE (the open-file limit here is 20,000 and cannot be raised),
# the daemon's open fds stay bounded, and its memory returns once the files
# are gone.
. "$(dirname "$0")/lib.sh"

DIRS=100
PER_DIR=1000
# The daemon may cache fds, but far fewer than it has inodes.
MAX_FDS=10000
# KiB the daemon's RSS may stay above its start once every file is gone.
RSS_SLACK=$((32 * 1024))

# One phase over every file; prints its outcome ("ok" or the errno and the
# path), a count (entries listed), and the most fds the daemon held, sampled
# after each directory.
write_phases() {
	cat >"$T/bin/phase.py" <<'EOF'
import errno, os, sys

phase, root, pid, dirs, per_dir = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
most = count = 0
outcome = "ok"
try:
    for d in range(dirs):
        top = "%s/d%d" % (root, d)
        if phase == "create":
            os.mkdir(top)
        for f in range(per_dir):
            name = "%s/f%d" % (top, f)
            if phase == "create":
                fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                os.write(fd, b"x")
                os.close(fd)
            elif phase == "stat":
                if os.lstat(name).st_size != 1:
                    raise OSError(errno.EIO, "wrong size", name)
            elif phase == "rename":
                os.rename(name, "%s/r%d" % (top, f))
            elif phase == "remove":
                os.unlink("%s/r%d" % (top, f))
        if phase == "list":
            count += len(os.listdir(top))
        elif phase == "remove":
            os.rmdir(top)
        most = max(most, len(os.listdir("/proc/%s/fd" % pid)))
except OSError as e:
    outcome = "%s at %s" % (errno.errorcode.get(e.errno, e.errno), e.filename)
print(outcome)
print(count)
print(most)
EOF
}

rss_kib() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$OZ_PID/status"
}

# phase NAME: runs one phase as a TAP line; keeps the daemon's fd peak.
phase() {
	local name=$1 outcome
	run "$OZ_PY" "$T/bin/phase.py" "$name" "$T/mnt" "$OZ_PID" "$DIRS" "$PER_DIR" || true
	outcome=$(sed -n 1p "$T/out")
	check_eq "$name $((DIRS * PER_DIR)) files" ok "$outcome"
	LISTED=$(sed -n 2p "$T/out")
	local most
	most=$(sed -n 3p "$T/out")
	[ -z "$most" ] || [ "$most" -le "$FD_PEAK" ] || FD_PEAK=$most
	diag "$name: daemon fds at most $most, RSS $(rss_kib) KiB"
}

drop_caches() {
	sync
	echo 2 >/proc/sys/vm/drop_caches
}

# Under AddressSanitizer freed memory waits in a quarantine and is not given
# back to the system, so the RSS would say nothing; a small quarantine and a
# prompt release make it mean what it means in a normal build (which ignores
# this variable).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1:allocator_release_to_os_interval_ms=50"
oz_setup 1800
# One phase touches every file; a slow mount may take minutes, not hours.
OZ_CMD_TIMEOUT=600
write_phases
mkdir "$T/src"
oz_start "$T/src" "$T/mnt"
FD_PEAK=0
drop_caches
rss_start=$(rss_kib)
diag "start: daemon fds $(find "/proc/$OZ_PID/fd" -mindepth 1 | wc -l), RSS $rss_start KiB, open-file limit $(ulimit -n)"

phase create
phase list
check_eq "every entry listed" $((DIRS * PER_DIR)) "$LISTED"
drop_caches
phase stat
phase rename
check_eq "no entry left under an old name" "" "$(find "$T/src" -name 'f*' -print -quit)"
phase remove
check_eq "the source is empty again" "" "$(ls -A "$T/src")"
check "daemon fds stayed bounded (peak $FD_PEAK <= $MAX_FDS)" test "$FD_PEAK" -le "$MAX_FDS"
check "no EMFILE in the daemon's log" bash -c "! grep -q 'Too many open files\|EMFILE' '$T/daemon.log'"
drop_caches
sleep 1
rss_end=$(rss_kib)
check "daemon RSS back near its start ($rss_start -> $rss_end KiB)" test "$rss_end" -le $((rss_start + RSS_SLACK))
check "the daemon is alive" kill -0 "$OZ_PID"
check "unmount" oz_umount "$T/mnt"
tap_done
