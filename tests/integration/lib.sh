# shellcheck shell=bash
# Shared by the integration tests, which mount oz0fs for real and print TAP.
#
#   . "$(dirname "$0")/lib.sh"
#   oz_setup 600                 # scratch dir $T, a watchdog, cleanup on exit
#   oz_start "$T/src" "$T/mnt"   # mount, or skip (fail when CI=true)
#   check "name" cmd...          # one TAP line per check
#   tap_done
#
# The tests find the binary in $OZ0FS and built test programs below
# $OZ0_BUILDDIR (Makefile.am's AM_TESTS_ENVIRONMENT sets both).
set -eu

OZ_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Debian's python3, not whatever a user's PATH prefers: the tests also run it
# as nobody, who cannot reach a per-user interpreter in /root.
OZ_PY=/usr/bin/python3
[ -x "$OZ_PY" ] || OZ_PY=$(command -v python3)
# Seconds one command may take before it counts as hung.
OZ_CMD_TIMEOUT=${OZ_CMD_TIMEOUT:-120}
# Seconds a mount or unmount may take.
OZ_MOUNT_TIMEOUT=${OZ_MOUNT_TIMEOUT:-15}

tap_count=0
OZ_PIDS=()
OZ_MOUNTS=()
# The daemon (a child of the test) serving each mount point.
declare -A OZ_PID_OF=()
OZ_WATCHDOG=

# ---- TAP -------------------------------------------------------------------

# diag TEXT...: each line of each TEXT as a TAP comment.
diag() {
	local text line
	for text; do
		while IFS= read -r line; do
			printf '# %s\n' "$line"
		done <<<"$text"
	done
}

tap_ok() {
	tap_count=$((tap_count + 1))
	printf 'ok %d - %s\n' "$tap_count" "$1"
}

# tap_not_ok NAME [DETAIL...]
tap_not_ok() {
	tap_count=$((tap_count + 1))
	printf 'not ok %d - %s\n' "$tap_count" "$1"
	shift
	[ $# -eq 0 ] || diag "$@"
}

# tap_result NAME STATUS [DETAIL...]: ok when STATUS is 0.
tap_result() {
	local name=$1 status=$2
	shift 2
	if [ "$status" -eq 0 ]; then
		tap_ok "$name"
	else
		tap_not_ok "$name" "$@"
	fi
}

# The plan comes last, so a script need not count its checks in advance.
tap_done() {
	printf '1..%d\n' "$tap_count"
	exit 0
}

# oz_unavailable REASON: the suite cannot run here. Outside CI that is a skip
# (which the project's summary still counts as a failure); in CI a failure.
oz_unavailable() {
	if [ "${CI:-}" = true ]; then
		tap_not_ok "oz0fs usable on this machine" "$1"
		printf '1..%d\n' "$tap_count"
		exit 1
	fi
	printf '1..0 # SKIP %s\n' "$1"
	exit 0
}

# ---- Running commands --------------------------------------------------------

# run CMD...: runs CMD with a timeout; its output (both streams) is in $T/out.
# A shell function runs as it is: timeout cannot call it, and ours bound their
# own waits.
run() {
	if declare -F "$1" >/dev/null; then
		"$@" >"$T/out" 2>&1
	else
		timeout -k 5 "$OZ_CMD_TIMEOUT" "$@" >"$T/out" 2>&1
	fi
}

# check NAME CMD...: one TAP line, ok when CMD succeeds.
check() {
	local name=$1 status=0
	shift
	run "$@" || status=$?
	tap_result "$name" "$status" "exit status $status: $*" "$(tail -n 15 "$T/out")"
}

# check_fails NAME CMD...: one TAP line, ok when CMD fails (not by timeout).
check_fails() {
	local name=$1 status=0
	shift
	run "$@" || status=$?
	if [ "$status" -ne 0 ] && [ "$status" -lt 124 ]; then
		tap_ok "$name"
	else
		tap_not_ok "$name" "exit status $status, expected a failure: $*" "$(tail -n 15 "$T/out")"
	fi
}

# check_eq NAME EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_not_ok "$1" "expected: $2" "got:      $3"
	fi
}

# ---- Scratch space and the watchdog --------------------------------------------

# oz_setup SECONDS: makes the scratch dir $T and the audit log path, installs
# the cleanup, and starts a watchdog that ends the whole test after SECONDS.
oz_setup() {
	local limit=$1
	T=$(mktemp -d "${TMPDIR:-/tmp}/oz0fs-test.XXXXXX")
	OZ_AUDIT=$T/audit.log
	# fsop (one file-system call, see fsop.py) as a command, so that run,
	# timeout and other users can call it too.
	mkdir -p "$T/bin" "$T/home"
	{ echo "#!$OZ_PY"; tail -n +2 "$OZ_LIB_DIR/fsop.py"; } >"$T/bin/fsop"
	chmod 755 "$T/bin" "$T/bin/fsop"
	export PATH="$T/bin:$PATH"
	oz_git_env
	: >"$T/pids"
	trap oz_cleanup EXIT
	trap 'exit 1' TERM INT
	# A hung FUSE request blocks its caller until the daemon answers or dies,
	# and bash runs no trap while it waits for a child: so the watchdog kills
	# the daemons first (every waiter then gets ENOTCONN), then the test. Its
	# sleep must not hold the test's stdout open once the test has ended, or
	# the TAP reader would wait for it.
	(
		trap 'kill "$nap" 2>/dev/null; exit 0' TERM
		sleep "$limit" >/dev/null 2>&1 &
		nap=$!
		wait "$nap"
		echo "Bail out! timed out after ${limit}s"
		xargs -r kill -KILL <"$T/pids" 2>/dev/null
		kill -TERM $$
	) </dev/null 2>/dev/null &
	OZ_WATCHDOG=$!
}

oz_cleanup() {
	local m p i
	cd /
	for m in "${OZ_MOUNTS[@]}"; do
		# Detach every layer left (a failed test may stack mounts), without
		# waiting on a daemon that may be broken.
		for ((i = 0; i < 10; i++)); do
			oz_is_mounted "$m" || break
			fusermount3 -uz "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || break
		done
	done
	for p in "${OZ_PIDS[@]}"; do
		# A sanitizer build reports leaks as it exits: give it the time.
		oz_wait_exit "$p" || kill -KILL "$p" 2>/dev/null || true
	done
	kill "$OZ_WATCHDOG" 2>/dev/null || true
	# Never delete through a mount that is still there.
	for m in "${OZ_MOUNTS[@]}"; do
		if oz_is_mounted "$m"; then
			echo "# left $T in place: $m is still mounted"
			return
		fi
	done
	rm -rf "$T"
}

# ---- Mounting --------------------------------------------------------------------

# oz_is_mounted DIR: DIR is itself a FUSE mount point.
oz_is_mounted() {
	findmnt -rn -o FSTYPE -M "$(realpath -m "$1")" | grep -q '^fuse'
}

# oz_wait_mounted DIR PID: waits until DIR is mounted; fails if the daemon PID
# ends first or the timeout passes.
oz_wait_mounted() {
	local dir=$1 pid=$2 i
	for ((i = 0; i < OZ_MOUNT_TIMEOUT * 20; i++)); do
		oz_is_mounted "$dir" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# oz_not_mounted DIR
oz_not_mounted() {
	! oz_is_mounted "$1"
}

# How many daemons of this test have started their io_uring queues (each
# says so once in its log, fs/uring.c).
oz_uring_starts() {
	local n
	n=$(grep -c '^oz0fs: fuse over io_uring: .* queues' "$T/daemon.log" 2>/dev/null) || true
	echo "${n:-0}"
}

# oz_wait_uring BEFORE: waits until more daemons than BEFORE have started
# their queues; fails if none does in time.
oz_wait_uring() {
	local before=$1 i
	for ((i = 0; i < OZ_MOUNT_TIMEOUT * 20; i++)); do
		[ "$(oz_uring_starts)" -gt "$before" ] && return 0
		sleep 0.05
	done
	echo "OZ0_URING=on, but the daemon does not take requests through io_uring" >>"$T/daemon.log"
	return 1
}

# oz_mount SOURCE MOUNTPOINT [OPTS [ARGS...]]: runs oz0fs -f in the
# background, logging refusals to $OZ_AUDIT and its own output to
# $T/daemon.log, and waits for the mount. Sets OZ_PID. Returns non-zero if
# the mount did not come up.
#
# OZ0_URING=on makes every mount take its requests through io_uring (the
# suite must have turned fuse's enable_uring parameter on) and fails a mount
# that does not; OZ0_URING=off keeps them on /dev/fuse; unset, the daemon's
# default decides.
oz_mount() {
	local src=$1 mnt=$2 opts="audit=$OZ_AUDIT${3:+,$3}" uring_before=0
	shift $(($# > 3 ? 3 : $#))
	case "${OZ0_URING:-}" in
	on) uring_before=$(oz_uring_starts) ;;
	off) opts="$opts,uring=off" ;;
	esac
	mkdir -p "$mnt"
	"$OZ0FS" -f -o "$opts" "$@" "$src" "$mnt" >>"$T/daemon.log" 2>&1 &
	OZ_PID=$!
	echo "$OZ_PID" >>"$T/pids"
	OZ_PIDS+=("$OZ_PID")
	OZ_MOUNTS+=("$mnt")
	OZ_PID_OF[$mnt]=$OZ_PID
	oz_wait_mounted "$mnt" "$OZ_PID" || return 1
	[ "${OZ0_URING:-}" != on ] || oz_wait_uring "$uring_before"
}

# oz_umount MOUNTPOINT: unmounts and waits for the mount to go (falling back
# to a lazy unmount, so that a broken daemon cannot leave the test hanging);
# then, for a daemon oz_mount started, waits for it to exit and fails unless
# it exited 0 (a sanitizer build's findings make it exit non-zero).
oz_umount() {
	local mnt=$1 pid=${OZ_PID_OF[$1]:-} i status=0
	timeout -k 2 "$OZ_MOUNT_TIMEOUT" fusermount3 -u "$mnt" 2>/dev/null || true
	for ((i = 0; i < OZ_MOUNT_TIMEOUT * 20; i++)); do
		oz_is_mounted "$mnt" || break
		sleep 0.05
	done
	if oz_is_mounted "$mnt"; then
		echo "still mounted after ${OZ_MOUNT_TIMEOUT}s"
		fusermount3 -uz "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
		return 1
	fi
	[ -n "$pid" ] || return 0
	unset "OZ_PID_OF[$mnt]"
	if ! oz_wait_exit "$pid"; then
		echo "the daemon still runs ${OZ_MOUNT_TIMEOUT}s after the unmount"
		return 1
	fi
	wait "$pid" || status=$?
	if [ "$status" -ne 0 ]; then
		echo "the daemon exited with status $status; its log ends:"
		tail -n 20 "$T/daemon.log"
		return 1
	fi
}

# oz_wait_exit PID: waits for a daemon to end; fails on timeout.
oz_wait_exit() {
	local pid=$1 i
	for ((i = 0; i < OZ_MOUNT_TIMEOUT * 20; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}

# oz_require: skips (or fails in CI) when FUSE or the binary is missing.
oz_require() {
	[ -n "${OZ0FS:-}" ] || oz_unavailable "OZ0FS is not set (run through make check)"
	[ -x "$OZ0FS" ] || oz_unavailable "no oz0fs binary at $OZ0FS"
	[ -c /dev/fuse ] || oz_unavailable "no /dev/fuse"
	if ! [ -r /dev/fuse ] || ! [ -w /dev/fuse ]; then
		oz_unavailable "/dev/fuse is not usable by $(id -un)"
	fi
	command -v fusermount3 >/dev/null || oz_unavailable "fusermount3 is missing (Debian package fuse3)"
}

# oz_start SOURCE MOUNTPOINT [OPTS]: the first mount of a test; if it fails,
# the suite cannot run here.
oz_start() {
	oz_require
	oz_mount "$@" || oz_unavailable "cannot mount oz0fs: $(tail -n 3 "$T/daemon.log" 2>/dev/null | tr '\n' ' ')"
}

# ---- Refusals and the protected state ----------------------------------------------

# audit_lines: how many lines the audit log holds now.
audit_lines() {
	if [ -f "$OZ_AUDIT" ]; then wc -l <"$OZ_AUDIT"; else echo 0; fi
}

# refused NAME OPS PATH CMD...: CMD must fail with EACCES ("Permission
# denied") and the audit log must gain a line for one of OPS ("a|b") that names
# PATH (tree-relative). One TAP line.
refused() {
	local name=$1 ops=$2 path=$3 before status=0
	shift 3
	before=$(audit_lines)
	run "$@" || status=$?
	if [ "$status" -eq 0 ]; then
		tap_not_ok "$name" "succeeded, expected EACCES: $*" "$(tail -n 5 "$T/out")"
	elif ! grep -qE 'EACCES|Permission denied' "$T/out"; then
		tap_not_ok "$name" "failed without EACCES (exit $status): $*" "$(tail -n 5 "$T/out")"
	elif ! fsop audit "$OZ_AUDIT" "$before" "$ops" "$path" >"$T/audit.out" 2>&1; then
		tap_not_ok "$name" "EACCES but not logged: $(cat "$T/audit.out")"
	else
		tap_ok "$name"
	fi
}

# compare_answers REF GOT [LABEL]: for each "name: answer" line of REF, ok
# when GOT gives the same answer for that name; then every name GOT has and
# REF lacks fails. LABEL prefixes the names of the TAP lines.
compare_answers() {
	local -A got=() seen=()
	local line name label=${3:-}
	while IFS= read -r line; do
		got[${line%: *}]=${line##*: }
	done <"$2"
	while IFS= read -r line; do
		name=${line%: *}
		if [ -z "${got[$name]+set}" ]; then
			tap_not_ok "$label$name" "underlying: ${line##*: }" "mount:      (no answer)"
		else
			check_eq "$label$name" "${line##*: }" "${got[$name]}"
			seen[$name]=1
		fi
	done <"$1"
	for name in "${!got[@]}"; do
		[ -n "${seen[$name]+set}" ] || tap_not_ok "$label$name" "only on the mount: ${got[$name]}"
	done
}

# snapshot DIR PATH...: the state of each PATH below DIR, recursively: type,
# mode, owner, inode, size, mtime, ctime and SHA-256 of every object, or
# "absent". Two equal snapshots mean nothing was touched.
snapshot() {
	local dir=$1 p
	shift
	(
		cd "$dir"
		for p in "$@"; do
			if [ -e "$p" ] || [ -L "$p" ]; then
				find "$p" -print0 | sort -z | xargs -0 stat -c '%n %F %a %u:%g %i %s %.9Y %.9Z'
				find "$p" -type f -print0 | sort -z | xargs -0 -r sha256sum
			else
				echo "$p absent"
			fi
		done
	)
}

# check_unchanged NAME BEFORE AFTER: one TAP line comparing two snapshots.
check_unchanged() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_not_ok "$1" "$(diff <(echo "$2") <(echo "$3") || true)"
	fi
}

# one_commit_repo DIR NAME TEXT: a new repository whose one commit holds the
# file NAME with TEXT.
one_commit_repo() {
	git init -q "$1"
	echo "$3" >"$1/$2"
	git -C "$1" add "$2"
	git -C "$1" commit -qm "$2"
}

# oz_git_env: git with a fixed identity and neither the user's nor the
# system's configuration, so that the tests see the same git everywhere.
oz_git_env() {
	export HOME=$T/home GIT_CONFIG_NOSYSTEM=1
	export GIT_AUTHOR_NAME=Test GIT_AUTHOR_EMAIL=test@example.invalid
	export GIT_COMMITTER_NAME=Test GIT_COMMITTER_EMAIL=test@example.invalid
	git config --global init.defaultBranch main
	git config --global advice.detachedHead false
}
