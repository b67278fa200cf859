#!/bin/bash
# Mounting and unmounting: over the source itself, in the foreground and as a
# daemon, SIGTERM, mounts side by side, cache=never, and start-up errors.
. "$(dirname "$0")/lib.sh"

# daemon_pid MOUNTPOINT: the oz0fs process serving MOUNTPOINT (its last
# argument), for a daemon the test did not start itself.
daemon_pid() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/exe" 2>/dev/null)" = "$(realpath "$OZ0FS")" ] || continue
		tr '\0' '\n' <"$p/cmdline" 2>/dev/null | tail -n 1 | grep -qxF "$1" && echo "${p#/proc/}"
	done
	return 0
}

over_itself() {
	local d=$T/self ino
	mkdir "$d"
	echo before >"$d/old"
	ino=$(stat -c %i "$d/old")
	if ! oz_mount "$d" "$d"; then
		tap_not_ok "mount a directory over itself" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	tap_ok "mount a directory over itself"
	check_eq "files under the mount point are seen through it" before "$(cat "$d/old" 2>&1)"
	check_eq "stat reports the underlying inode number" "$ino" "$(stat -c %i "$d/old")"
	check "write through the mount" fsop create "$d/new" written
	check "-f: the daemon runs until unmounted" kill -0 "$OZ_PID"
	check "unmount with fusermount3 -u; the -f daemon exits 0" oz_umount "$d"
	check_eq "the write reached the directory" written "$(cat "$d/new" 2>&1)"
}

daemonised() {
	local src=$T/dsrc mnt=$T/dmnt pid status=0
	mkdir -p "$src" "$mnt"
	OZ_MOUNTS+=("$mnt")
	# A daemon that never leaves the foreground must not stall the test.
	timeout -k 5 "$OZ_MOUNT_TIMEOUT" "$OZ0FS" -o "audit=$OZ_AUDIT" "$src" "$mnt" >"$T/out" 2>&1 || status=$?
	check_eq "without -f: the command returns 0" 0 "$status"
	check "without -f: the mount is live when the command returns" oz_is_mounted "$mnt"
	pid=$(daemon_pid "$mnt")
	if [ -n "$pid" ]; then
		echo "$pid" >>"$T/pids"
		OZ_PIDS+=("$pid")
	fi
	check "without -f: a daemon serves the mount" test -n "$pid"
	check "write through the daemonised mount" fsop create "$mnt/file" data
	check_eq "the write reached the source" data "$(cat "$src/file" 2>&1)"
	[ -n "$pid" ] || return 0
	kill -TERM "$pid"
	check "SIGTERM: the daemon ends" oz_wait_exit "$pid"
	check "SIGTERM: the mount is gone" oz_not_mounted "$mnt"
	check "SIGTERM: the mount point is usable again" stat "$mnt"

	mkdir -p "$T/tsrc"
	if oz_mount "$T/tsrc" "$T/tmnt"; then
		kill -TERM "$OZ_PID"
		status=0
		wait "$OZ_PID" || status=$?
		check_eq "SIGTERM with -f: exit status 0" 0 "$status"
		check "SIGTERM with -f: the mount is gone" oz_not_mounted "$T/tmnt"
	else
		tap_not_ok "mount for SIGTERM with -f" "$(tail -n 3 "$T/daemon.log")"
	fi
}

side_by_side() {
	mkdir -p "$T/a" "$T/b"
	if ! oz_mount "$T/a" "$T/ma" || ! oz_mount "$T/b" "$T/mb"; then
		tap_not_ok "two mounts side by side" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	tap_ok "two mounts side by side"
	check "write through the first" fsop create "$T/ma/x" first
	check "write through the second" fsop create "$T/mb/x" second
	check_eq "each write reached its own source" "first,second" "$(cat "$T/a/x" 2>&1),$(cat "$T/b/x" 2>&1)"
	check "unmount the first" oz_umount "$T/ma"
	check_eq "the second still works" second "$(cat "$T/mb/x" 2>&1)"
	check "unmount the second" oz_umount "$T/mb"
}

cache_never() {
	local src=$T/csrc mnt=$T/cmnt
	mkdir -p "$src"
	echo one >"$src/f"
	echo gone >"$src/old"
	if ! oz_mount "$src" "$mnt" cache=never; then
		tap_not_ok "mount with -o cache=never" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	check_eq "cache=never: first read" one "$(cat "$mnt/f" 2>&1)"
	ls "$mnt" >/dev/null
	echo two >"$src/f"
	check_eq "cache=never: a same-size change outside is seen" two "$(cat "$mnt/f" 2>&1)"
	echo "a longer line" >"$src/f"
	check_eq "cache=never: a longer file outside is seen whole" "a longer line" "$(cat "$mnt/f" 2>&1)"
	check_eq "cache=never: its new size is seen" "$(stat -c %s "$src/f")" "$(stat -c %s "$mnt/f" 2>&1)"
	echo new >"$src/added"
	rm "$src/old"
	check_eq "cache=never: entries added and removed outside are seen" "added f" "$(ls "$mnt" | tr '\n' ' ' | sed 's/ $//')"
	check "cache=never: a removed file is gone" test ! -e "$mnt/old"
	check "unmount the cache=never mount" oz_umount "$mnt"
}

# start_fails NAME EXPECT ARGS...: oz0fs ARGS must fail at once with one line
# on stderr that contains EXPECT, and mount nothing.
start_fails() {
	local name=$1 expect=$2 status=0
	shift 2
	timeout -k 5 "$OZ_MOUNT_TIMEOUT" "$OZ0FS" "$@" >"$T/out.stdout" 2>"$T/out" || status=$?
	if [ "$status" -eq 0 ] || [ "$status" -ge 124 ]; then
		tap_not_ok "$name" "exit status $status" "$(cat "$T/out")"
	elif [ "$(wc -l <"$T/out")" -ne 1 ] || ! grep -qF -- "$expect" "$T/out"; then
		tap_not_ok "$name" "expected one line with '$expect' on stderr, got:" "$(head -n 5 "$T/out")"
	elif oz_is_mounted "$T/never"; then
		tap_not_ok "$name" "exit status $status, but mounted"
	else
		tap_ok "$name"
	fi
}

bad_start() {
	mkdir -p "$T/esrc" "$T/never"
	OZ_MOUNTS+=("$T/never")
	start_fails "a bad option: one-line error" bogus -o bogus "$T/esrc" "$T/never"
	start_fails "a bad cache value: one-line error" sometimes -o cache=sometimes "$T/esrc" "$T/never"
	start_fails "a missing source: one-line error" "$T/missing" "$T/missing" "$T/never"
	start_fails "a missing mount point: one-line error" "$T/nowhere" "$T/esrc" "$T/nowhere"
	start_fails "a missing --config file: one-line error" "$T/no.conf" --config "$T/no.conf" "$T/esrc" "$T/never"
	printf '[protect]\npath = .mcp.json\nthis line is not ini\n' >"$T/syntax.conf"
	start_fails "a config syntax error names FILE:LINE" "$T/syntax.conf:3" --config "$T/syntax.conf" "$T/esrc" "$T/never"
	printf '[protect]\npath = ../outside\n' >"$T/escape.conf"
	start_fails "a config path leaving the tree names FILE:LINE" "$T/escape.conf:2" --config "$T/escape.conf" "$T/esrc" "$T/never"
	printf '[protect]\npath = .mcp.json\n[nonsense]\nkey = 1\n' >"$T/section.conf"
	start_fails "an unknown config section names FILE:LINE" "$T/section.conf:3" --config "$T/section.conf" "$T/esrc" "$T/never"
}

good_config() {
	mkdir -p "$T/gsrc"
	printf '; extra paths\n[protect]\npath = .mcp.json\n[unprotect]\npath = .envrc\n' >"$T/good.conf"
	if ! oz_mount "$T/gsrc" "$T/gmnt" "" --config "$T/good.conf"; then
		tap_not_ok "mount with a good --config" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	tap_ok "mount with a good --config"
	refused "[protect] path refused" create .mcp.json fsop create "$T/gmnt/.mcp.json" '{}'
	check "[unprotect] path allowed" fsop create "$T/gmnt/.envrc" 'export A=1'
	check "unmount the configured mount" oz_umount "$T/gmnt"
}

oz_setup 300
mkdir "$T/probe"
oz_start "$T/probe" "$T/pmnt"
check "unmount the first mount" oz_umount "$T/pmnt"
over_itself
daemonised
side_by_side
cache_never
bad_start
good_config
tap_done
