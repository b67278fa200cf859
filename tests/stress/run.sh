#!/bin/bash
# `make check-stress`: the mount driven hard in every cache and passthrough
# mode, with the checkers' own verification as the judge. Not part of `make
# check` (about 5 minutes). Per mode:
#   - stress-ng's file-system stressors side by side with --verify (a stressor
#     that reads back what it did not write fails the run);
#   - fio's CRC32C-verifying jobs (tests/stress/verify.fio);
#   - a writer that fsyncs numbered records while the daemon is killed with
#     SIGKILL: every record whose fsync returned must be in the tree, intact;
#   - and the daemon alive and exiting 0 after all but the last.
# fsx and fsstress (xfstests) are not packaged in Debian bookworm, so these
# stand in for them. As root; TAP, then one line per mode with its time.
. "$(dirname "$0")/../integration/lib.sh"

STRESS_DIR=$(cd "$(dirname "$0")" && pwd)
# Seconds the stressors run in each mode.
STRESS_SECONDS=${STRESS_SECONDS:-30}
# Seconds the fsync writer runs before the daemon is killed.
KILL_AFTER=2

# One worker each, side by side; sizes that leave the time to the requests.
STRESSORS=(hdd link dentry dir rename fallocate mmap seek sync-file)
STRESSOR_OPTIONS=(--hdd-bytes 64m --fallocate-bytes 64m --mmap-file --mmap-bytes 8m --seek-size 16m
	--sync-file-bytes 32m)

# stress DIR: stress-ng in DIR; fails on its exit status, a failure it
# reports (a verification's among them), or a stressor that did nothing.
stress() {
	local name workers=()
	for name in "${STRESSORS[@]}"; do
		workers+=("--$name" 1)
	done
	(cd "$1" && stress-ng --temp-path "$1" --verify --timeout "$STRESS_SECONDS" --metrics-brief \
		"${workers[@]}" "${STRESSOR_OPTIONS[@]}") 2>&1 || return 1
	grep -q 'successful run completed' "$T/out" || return 1
	! grep -Eq 'stress-ng: fail:|(failed|skipped|untrustworthy): [1-9]' "$T/out" || return 1
	for name in "${STRESSORS[@]}"; do
		grep -Eq "metrc: \[[0-9]+\] $name +[1-9][0-9]* " "$T/out" || {
			echo "$name did no work"
			return 1
		}
	done
}

# fio_verify DIR: fio's jobs in DIR; every one must end with err=0.
fio_verify() {
	fio --directory="$1" "$STRESS_DIR/verify.fio" || return 1
	! grep -Eq 'err= *[1-9]|verify: bad' "$T/out"
}

# killed_writer MODE: a new mount in MODE; the writer fsyncs records until
# the daemon is killed with SIGKILL; then each record it reported is checked
# in the tree itself.
killed_writer() {
	local mode=$1 mnt="$T/kill-${1//[,=]/-}" last
	if ! oz_mount "$T/src" "$mnt" "$mode"; then
		tap_not_ok "$mode: mount for the kill test" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	"$OZ_PY" "$STRESS_DIR/fsync-writer.py" write "$mnt/records" >"$T/records.out" 2>&1 &
	local writer=$!
	sleep "$KILL_AFTER"
	kill -KILL "$OZ_PID"
	wait "$writer" || true
	wait "$OZ_PID" 2>/dev/null || true
	unset "OZ_PID_OF[$mnt]"
	fusermount3 -uz "$mnt" 2>/dev/null || umount -l "$mnt"
	last=$(tail -n 1 "$T/records.out")
	if ! [[ "$last" =~ ^[0-9]+$ ]]; then
		tap_not_ok "$mode: the writer fsynced records before the kill" "$(tail -n 3 "$T/records.out")"
		return
	fi
	check "$mode: after kill -9 of the daemon, all $((last + 1)) fsynced records are in the tree" \
		"$OZ_PY" "$STRESS_DIR/fsync-writer.py" check "$T/src/records" "$last"
	rm -f "$T/src/records"
}

# one_mode CACHE PASSTHROUGH
one_mode() {
	local mode="cache=$1,passthrough=$2" mnt="$T/mnt-$1-$2" start status
	start=$(date +%s)
	if ! oz_mount "$T/src" "$mnt" "$mode"; then
		tap_not_ok "$mode: mount" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	mkdir "$mnt/stress-ng" "$mnt/fio"
	status=0
	run stress "$mnt/stress-ng" || status=$?
	tap_result "$mode: stress-ng ${STRESS_SECONDS}s with --verify" "$status" "$(grep -E 'fail|skip|metrc|passed' "$T/out" | tail -n 25)"
	diag "$(grep -E 'metrc: \[[0-9]+\] [a-z-]+ +[0-9]+ ' "$T/out" | sed 's/.*metrc: \[[0-9]*\] //')"
	check "$mode: the daemon is alive after stress-ng" kill -0 "$OZ_PID"
	check "$mode: fio's CRC32C-verified jobs" fio_verify "$mnt/fio"
	check "$mode: the daemon is alive after fio" kill -0 "$OZ_PID"
	rm -rf "$mnt/stress-ng" "$mnt/fio"
	check "$mode: unmount; the daemon exits 0" oz_umount "$mnt"
	killed_writer "$mode"
	TIMES+=("$mode: $(($(date +%s) - start)) s")
}

command -v stress-ng >/dev/null || oz_unavailable "stress-ng is missing (contrib/install-deps.sh installs it)"
command -v fio >/dev/null || oz_unavailable "fio is missing (contrib/install-deps.sh installs it)"
oz_setup 3600
OZ_CMD_TIMEOUT=$((STRESS_SECONDS + 300))
mkdir "$T/src"
git init -q "$T/src"
oz_require
TIMES=()
for cache in always auto never; do
	for passthrough in auto off; do
		one_mode "$cache" "$passthrough"
	done
done
diag "${TIMES[@]}"
tap_done
