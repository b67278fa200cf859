#!/bin/bash
# Start-up under bad input (issue 11, items 1-6 and the configuration's part
# of 10). A mount point spelt with '.' or '..' mounts and serves, where the
# daemon used to hang on its own mount; everything else here is refused with
# one line on stderr (what is wrong, what to do), exit 1 (2 for a usage
# error), and nothing mounted. Every start runs under a timeout, so that a
# return of a hang fails the test instead of stalling the suite.
. "$(dirname "$0")/lib.sh"

OZ0FS_EXE=$(realpath "$OZ0FS")

# our_daemons: the oz0fs processes of this test that run now (their command
# lines name $T).
our_daemons() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/exe" 2>/dev/null)" = "$OZ0FS_EXE" ] || continue
		tr '\0' '\n' <"$p/cmdline" 2>/dev/null | grep -qF "$T/" && echo "${p#/proc/}"
	done
	return 0
}

# adopt_daemons: a daemonised start leaves its daemon unknown to the
# cleanup and the watchdog, which must end it should it hang.
adopt_daemons() {
	local pid
	for pid in $(our_daemons); do
		grep -qx "$pid" "$T/pids" && continue
		echo "$pid" >>"$T/pids"
		OZ_PIDS+=("$pid")
	done
}

# reap MOUNTPOINT: after a failure, ends every daemon of this test at once (a
# hung one too: a FUSE daemon waiting on its own mount dies only by SIGKILL)
# and detaches what is mounted on MOUNTPOINT.
reap() {
	local pid mnt
	mnt=$(realpath -m "$1")
	for pid in $(our_daemons); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	while oz_is_mounted "$mnt"; do
		umount -l "$mnt" 2>/dev/null || break
	done
}

# start ARGS...: oz0fs ARGS, daemonised, under a timeout (and the command in
# START_WRAP, when set); sets START_STATUS, stderr is in $T/err.
START_WRAP=()
start() {
	START_STATUS=0
	timeout -k 2 "$OZ_MOUNT_TIMEOUT" ${START_WRAP[@]+"${START_WRAP[@]}"} "$OZ0FS" "$@" >"$T/out" 2>"$T/err" ||
		START_STATUS=$?
	adopt_daemons
}

# start_refused NAME STATUS EXPECT MOUNTPOINT ARGS...: oz0fs ARGS must exit
# STATUS at once, with one line on stderr that holds EXPECT, and leave
# MOUNTPOINT unmounted.
start_refused() {
	local name=$1 status=$2 expect=$3 mnt=$4
	shift 4
	OZ_MOUNTS+=("$mnt")
	start "$@"
	if [ "$START_STATUS" -ne "$status" ]; then
		tap_not_ok "$name" "exit status $START_STATUS, expected $status" "$(head -n 5 "$T/err")"
	elif [ "$(wc -l <"$T/err")" -ne 1 ] || ! grep -qF -- "$expect" "$T/err"; then
		tap_not_ok "$name" "expected one line with '$expect' on stderr, got:" "$(head -n 5 "$T/err")"
	elif oz_is_mounted "$mnt"; then
		tap_not_ok "$name" "refused, but $mnt is mounted"
	else
		tap_ok "$name"
	fi
	if oz_is_mounted "$mnt"; then reap "$mnt"; fi
}

# served MOUNTPOINT: the mount answers (a hung one fails after 10 s).
served() {
	timeout -k 2 10 stat "$1/.git" >/dev/null
}

# stop MOUNTPOINT: unmounts, and every daemon of this test has ended.
stop() {
	local pid
	timeout -k 2 "$OZ_MOUNT_TIMEOUT" fusermount3 -u "$1" || return 1
	for pid in $(our_daemons); do
		oz_wait_exit "$pid" || return 1
	done
}

# Item 1: after mount(2), libfuse resolved "m/." once more, inside the mount
# it was not serving yet: the start never returned. The last is "DIR DIR",
# on a tree of its own, so that a hung mount there spoils no other check.
dot_spellings() {
	local spelling src
	git init -q "$T/self"
	for spelling in m/. m/../m ./m/ self/.; do
		src=$T/src
		[ "$spelling" != self/. ] || src=$T/self
		start -o "audit=$T/audit.log" "$src" "$T/$spelling"
		OZ_MOUNTS+=("$T/$spelling")
		check_eq "'oz0fs src $spelling' returns 0, the mount live" 0 "$START_STATUS"
		check "'$spelling' is served" served "$T/$spelling"
		check "'$spelling' unmounts and its daemon exits" stop "$T/$spelling"
		reap "$T/$spelling" # nothing left, unless a check failed
	done
	if oz_mount "$T/src" "$T/m/."; then
		check "-f with 'm/.': served" served "$T/m"
		check "-f with 'm/.': unmounts, the daemon exits 0" oz_umount "$T/m/."
	else
		tap_not_ok "-f with 'm/.': mounts" "$(tail -n 3 "$T/daemon.log")"
	fi
	reap "$T/m"
}

# Item 2: the kernel mounts on a regular file, and every stat there is EIO.
not_directories() {
	: >"$T/file"
	mkfifo "$T/fifo-point"
	start_refused "a regular file as the mount point" 1 \
		"cannot mount on '$T/file': it is a regular file: the mount point must be a directory" \
		"$T/file" "$T/src" "$T/file"
	start_refused "a FIFO as the mount point" 1 "it is a FIFO: the mount point must be a directory" \
		"$T/fifo-point" "$T/src" "$T/fifo-point"
	start_refused "a regular file as the source" 1 \
		"cannot mount '$T/file': it is a regular file: the source must be the tree's folder" \
		"$T/m" "$T/file" "$T/m"
}

# Item 3: open() of a FIFO waits for a reader that never comes.
audit_not_regular() {
	mkfifo "$T/fifo"
	ln -s "$T/elsewhere.log" "$T/link.log"
	start_refused "-o audit=FIFO: refused at once" 1 \
		"cannot open the audit log '$T/fifo': not a regular file: name a regular file" \
		"$T/m" -o "audit=$T/fifo" "$T/src" "$T/m"
	printf '[audit]\nfile = %s\n' "$T/fifo" >"$T/fifo.conf"
	start_refused "[audit] file = FIFO: refused at once" 1 \
		"cannot open the audit log '$T/fifo': not a regular file" \
		"$T/m" --config "$T/fifo.conf" "$T/src" "$T/m"
	start_refused "-o audit=SYMLINK: refused" 1 \
		"cannot open the audit log '$T/link.log': it is a symbolic link: name the file itself" \
		"$T/m" -o "audit=$T/link.log" "$T/src" "$T/m"
	check "the link's target was not made" test ! -e "$T/elsewhere.log"
}

# Item 4: a configuration in the tree could be edited ([unprotect] added)
# through the mount, an audit log in it truncated.
files_inside_the_tree() {
	local inside="inside the tree being mounted, where the agent could change it through the mount"
	mkdir "$T/src/sub" "$T/bind"
	printf '[protect]\npath = .mcp.json\n' >"$T/src/sub/oz.conf"
	ln -s "$T/src/sub/oz.conf" "$T/link.conf"
	start_refused "--config inside the tree: refused" 1 \
		"oz0fs: $T/src/sub/oz.conf: $inside: keep the configuration outside the tree" \
		"$T/m" --config "$T/src/sub/oz.conf" "$T/src" "$T/m"
	start_refused "--config: a link to a file inside the tree: refused" 1 "$T/link.conf: $inside" \
		"$T/m" --config "$T/link.conf" "$T/src" "$T/m"
	# A bind mount of a subfolder shows it elsewhere: made in a mount
	# namespace of oz0fs's own, which goes with it.
	printf '#!/bin/sh\nmount --bind "$1" "$2" && shift 2 && exec "$@"\n' >"$T/bin/bind-then"
	chmod 755 "$T/bin/bind-then"
	START_WRAP=(unshare -m --propagation private bind-then "$T/src/sub" "$T/bind")
	start_refused "--config through a bind mount of a subfolder: refused" 1 "$T/bind/oz.conf: $inside" \
		"$T/m" --config "$T/bind/oz.conf" "$T/src" "$T/m"
	START_WRAP=()
	ln "$T/src/sub/oz.conf" "$T/hard.conf"
	start_refused "--config: a hard link of a file inside the tree: refused" 1 \
		"$T/hard.conf: a hard link: another of its names on the tree's file system may lie inside the tree" \
		"$T/m" --config "$T/hard.conf" "$T/src" "$T/m"
	rm "$T/hard.conf"
	start_refused "-o audit= inside the tree: refused" 1 \
		"cannot open the audit log '$T/src/audit.log': $inside: keep it outside the tree" \
		"$T/m" -o "audit=$T/src/audit.log" "$T/src" "$T/m"
	check "the refused audit log was not left in the tree" test ! -e "$T/src/audit.log"
	printf '[audit]\nfile = %s\n' "$T/src/sub/audit.log" >"$T/audit-in.conf"
	start_refused "[audit] file inside the tree: refused" 1 "'$T/src/sub/audit.log': $inside" \
		"$T/m" --config "$T/audit-in.conf" "$T/src" "$T/m"
	rm -r "$T/src/sub"
}

# Item 5: the tree would contain itself; fusermount3 -u answered EBUSY, the
# daemon never exited, and rm -rf of that folder deleted through the mount.
mount_point_inside() {
	mkdir "$T/src/inner"
	ln -s "$T/src/inner" "$T/inner-link"
	start_refused "a mount point inside the source: refused" 1 \
		"cannot mount on '$T/src/inner': it lies inside the source '$T/src', so the tree would contain itself" \
		"$T/src/inner" "$T/src" "$T/src/inner"
	start_refused "a link to a folder inside the source: refused" 1 "it lies inside the source" \
		"$T/inner-link" "$T/src" "$T/inner-link"
	rmdir "$T/src/inner"
}

# Item 6: a second mount on the first hid it, and its daemon went on serving
# nobody.
already_mounted() {
	mkdir -p "$T/src2"
	if ! oz_mount "$T/src" "$T/m"; then
		tap_not_ok "mount for the stacking checks" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	start_refused "a second oz0fs on an oz0fs mount: refused" 1 \
		"cannot mount on '$T/m': it is already an oz0fs mount: unmount it first (fusermount3 -u '$T/m')" \
		"$T/nothing" "$T/src2" "$T/m"
	start_refused "'oz0fs DIR DIR' on a DIR oz0fs serves: refused" 1 "it is already an oz0fs mount" \
		"$T/nothing" "$T/m" "$T/m"
	check_eq "one mount on m, not two" 1 "$(grep -c " $T/m " /proc/self/mountinfo)"
	check "the first daemon still serves" served "$T/m"
	check "the first mount unmounts; its daemon exits 0" oz_umount "$T/m"
}

# Item 10: inih (INI_MAX_LINE 200) cut a [protect] path past 190 bytes.
config_edges() {
	local long
	long=$(printf 'folder-%03d/' $(seq 1 271))protected.json
	printf '[protect]\npath = %s   ; the agent must not write it\n' "$long" >"$T/long.conf"
	if oz_mount "$T/src" "$T/ml" "" --config "$T/long.conf"; then
		tap_ok "a [protect] path of ${#long} bytes is accepted"
		run mkdir -p "$T/ml/$(dirname "$long")"
		refused "the long [protect] path is protected" create "$long" fsop create "$T/ml/$long" '{}'
		check "unmount the long-path mount" oz_umount "$T/ml"
	else
		tap_not_ok "a [protect] path of ${#long} bytes is accepted" "$(tail -n 3 "$T/daemon.log")"
	fi
	start_refused "--config '': a usage error naming the problem" 2 \
		"oz0fs: --config '': an empty file name: name the configuration file" \
		"$T/m" --config "" "$T/src" "$T/m"
	start "--check" --config "" "$T/src"
	check_eq "--check --config '': exit 2" 2 "$START_STATUS"
	check "--check --config '': says why" grep -qF -- "--config '': an empty file name" "$T/err"
}

oz_setup 600
oz_require
git init -q "$T/src"
mkdir "$T/m"
dot_spellings
not_directories
audit_not_regular
files_inside_the_tree
mount_point_inside
already_mounted
config_edges
tap_done
