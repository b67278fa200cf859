#!/bin/bash
# [deny] names on a real mount (seed 004 layer B, opt-in): ".env.agent" and
# ".keys" are refused anywhere in the tree, to reads and writes, with EACCES
# and an audit line; by identity, so a hard link made before the mount, a
# link through a symbolic link or a rename cannot reach them; in every cache
# mode. Git still works around them, and nothing is denied by default.
. "$(dirname "$0")/lib.sh"

make_tree() {
	git init -q "$T/src"
	cd "$T/src"
	mkdir -p a/b .keys/sub c
	echo secret >a/b/.env.agent
	echo key >.keys/id
	echo deep >.keys/sub/x
	echo plain >plain.txt
	ln a/b/.env.agent alias
	ln .keys/id key-alias
	ln -s .keys/id keylink
	ln -s ../plain.txt c/.env.agent
	git add plain.txt
	git commit -qm one
	cd /
	printf '[deny]\nname = .env.agent\nname = .keys\n' >"$T/deny.conf"
}

# The reads, in cache mode $1.
reads_refused() {
	local mode=$1
	refused "$mode: read a denied file" open a/b/.env.agent fsop read "$M/a/b/.env.agent"
	refused "$mode: read it through a hard link made before the mount" open a/b/.env.agent fsop read "$M/alias"
	refused "$mode: list a denied folder" opendir .keys fsop list "$M/.keys"
	refused "$mode: read a file in a denied folder" lookup .keys fsop read "$M/.keys/id"
	refused "$mode: read deeper in it" lookup .keys fsop read "$M/.keys/sub/x"
	refused "$mode: read a file of it through a hard link" open .keys/id fsop read "$M/key-alias"
	refused "$mode: read it through a symbolic link" lookup .keys fsop read "$M/keylink"
	refused "$mode: readlink of a denied link" readlink c/.env.agent fsop readlink "$M/c/.env.agent"
	refused "$mode: read through a denied link" readlink c/.env.agent fsop read "$M/c/.env.agent"
	refused "$mode: cat a denied file" open a/b/.env.agent cat "$M/a/b/.env.agent"
	refused "$mode: grep -r meets the denied file" open a/b/.env.agent grep -r secret "$M/a"
	check "$mode: read a plain file" fsop read "$M/plain.txt"
	check "$mode: a denied file still shows in its folder" bash -c "ls -a '$M/a/b' | grep -qx .env.agent"
	check "$mode: stat of a denied file answers" stat "$M/a/b/.env.agent"
	check "$mode: readlink of a link to a denied file answers" fsop readlink "$M/keylink"
}

writes_refused() {
	refused "read an xattr of a denied file" getxattr a/b/.env.agent fsop getxattr "$M/alias" user.x
	refused "list the xattrs of a denied folder" listxattr .keys getfattr -d "$M/.keys"
	for p in a/b/.env.agent .keys plain.txt; do
		check_eq "user.oz0fs.why of $p is --explain's answer" \
			"$("$OZ0FS" --explain --config "$T/deny.conf" "$T/src" "$p" 2>&1)" \
			"$(getfattr --absolute-names --only-values -n user.oz0fs.why "$M/$p" 2>&1)"
	done
	check "--explain names the rule of a denied file" \
		bash -c "'$OZ0FS' --explain --config '$T/deny.conf' '$T/src' a/b/.env.agent | grep -q denied-name"
	check "--explain names the rule of a denied name nowhere yet" \
		bash -c "'$OZ0FS' --explain --config '$T/deny.conf' '$T/src' src/new/.env.agent | grep -q denied-name"
	refused "write a denied file" "open|write" a/b/.env.agent fsop write "$M/a/b/.env.agent" x
	refused "write it through a hard link" "open|write" a/b/.env.agent fsop append "$M/alias" x
	refused "truncate it" truncate a/b/.env.agent fsop truncate "$M/alias" 0
	refused "chmod it" chmod a/b/.env.agent fsop chmod "$M/alias" 600
	refused "set its times" utimes a/b/.env.agent fsop utimes "$M/alias"
	refused "set an xattr on it" setxattr a/b/.env.agent fsop setxattr "$M/alias" user.x y
	refused "remove it" unlink a/b/.env.agent fsop unlink "$M/a/b/.env.agent"
	refused "rename it away" rename a/b/.env.agent fsop rename "$M/a/b/.env.agent" "$M/a/b/env.txt"
	refused "give it another name" link a/b/.env.agent fsop link "$M/alias" "$M/alias2"
	refused "create a denied name at the root" create .env.agent fsop create "$M/.env.agent" x
	refused "create a denied name in a folder" create .env.agent fsop create "$M/a/.env.agent" x
	refused "mkdir a denied name" mkdir .keys fsop mkdir "$M/a/.keys"
	refused "symlink with a denied name" symlink .env.agent fsop symlink plain.txt "$M/.env.agent"
	refused "rename a file to a denied name" rename .env.agent fsop rename "$M/plain.txt" "$M/a/.env.agent"
	refused "hard-link a file to a denied name" link .env.agent fsop link "$M/plain.txt" "$M/.env.agent"
	refused "create in a denied folder" "lookup|create" .keys fsop create "$M/.keys/new" x
	refused "rename a denied folder" rename .keys fsop rename "$M/.keys" "$M/keys-old"
	refused "rm -rf a denied folder" "lookup|opendir|rmdir|unlink" .keys rm -rf "$M/.keys"
	refused "move a plain file into a denied folder" "lookup|rename" .keys \
		fsop rename "$M/plain.txt" "$M/.keys/plain.txt"
}

git_around() {
	check "git status works with denied files in the tree" git -C "$M" status --porcelain
	check "git commits a plain change" bash -c "echo two >>'$M/plain.txt' && git -C '$M' commit -qam two"
	refused "git add of a denied file is refused" open a/b/.env.agent git -C "$M" add a/b/.env.agent
}

oz_setup 600
make_tree
M=$T/mnt
before=$(snapshot "$T/src" a/b/.env.agent .keys alias c)
oz_start "$T/src" "$M" "" --config "$T/deny.conf"
reads_refused auto
writes_refused
git_around
check "unmount" oz_umount "$M"
check_unchanged "denied objects unchanged on the underlying tree" "$before" \
	"$(snapshot "$T/src" a/b/.env.agent .keys alias c)"

for mode in always never; do
	check "mount with cache=$mode" oz_mount "$T/src" "$M" "cache=$mode" --config "$T/deny.conf"
	reads_refused "$mode"
	check "unmount (cache=$mode)" oz_umount "$M"
done

check "mount without a configuration" oz_mount "$T/src" "$M"
check "nothing is denied by default: read" fsop read "$M/a/b/.env.agent"
check "nothing is denied by default: list" fsop list "$M/.keys"
check "nothing is denied by default: create" fsop create "$M/a/.env.agent" x
check "unmount the plain mount" oz_umount "$M"
check "the underlying repository is intact" git -C "$T/src" fsck --no-progress
tap_done
