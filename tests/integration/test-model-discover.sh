#!/bin/bash
# The git directories reached from the root's .git, through a real mount:
# submodules two levels deep (their git directories below .git/modules), a
# linked worktree in the tree with extensions.worktreeConfig, and a tree
# whose .git is a file naming a git directory elsewhere in it, and a
# repository kept untracked in the tree. Each named
# object is refused and logged; ordinary git work still passes. The mounts
# lie over their trees, as in use: git writes absolute paths in .git files
# and a worktree's gitdir, and those must lead through the mount.
. "$(dirname "$0")/lib.sh"

FILE_OK="protocol.file.allow=always"

# make_sources: the submodules' upstreams, outside the tree.
make_sources() {
	one_commit_repo "$T/inner" i i
	one_commit_repo "$T/mid" m m
	git -C "$T/mid" -c "$FILE_OK" submodule add -q "$T/inner" inner
	git -C "$T/mid" commit -qm inner
}

# make_tree: a repository with submodules two levels deep and a linked
# worktree (wt) inside the tree with its own config.worktree.
make_tree() {
	one_commit_repo "$T/src" README hello
	cd "$T/src"
	git -c "$FILE_OK" submodule add -q "$T/mid" mid
	git commit -qm mid
	git -c "$FILE_OK" submodule update -q --init --recursive
	git config extensions.worktreeConfig true
	git worktree add -q wt -b side
	git -C wt config --worktree core.bare false
	# A repository kept untracked in the tree.
	git init -q vendor/tool
	echo t >vendor/tool/t
	git -C vendor/tool add t
	git -C vendor/tool commit -qm t
	cd /
}

MODS=.git/modules/mid
NESTED=$MODS/modules/inner
ADMIN=.git/worktrees/wt

state() {
	snapshot "$T/src" $MODS/hooks $MODS/config $NESTED/hooks $NESTED/config \
		$ADMIN/commondir $ADMIN/gitdir $ADMIN/config.worktree wt/.git vendor/tool/.git/hooks vendor/tool/.git/config
}

submodule_attacks() {
	refused "create a hook in a submodule's git directory" create $MODS/hooks/pre-commit \
		fsop create "$M/$MODS/hooks/pre-commit" evil
	refused "write a submodule's config" write $MODS/config fsop append "$M/$MODS/config" evil
	refused "git config core.fsmonitor in a submodule" "write|rename|create" $MODS/config \
		git -C "$M/mid" config core.fsmonitor "$T/evil.sh"
	refused "create a hook two levels down" create $NESTED/hooks/post-checkout \
		fsop create "$M/$NESTED/hooks/post-checkout" evil
	refused "git config core.hooksPath two levels down" "write|rename|create" $NESTED/config \
		git -C "$M/mid/inner" config core.hooksPath "$T/evil-hooks"
	refused "create a commondir in a submodule's git directory" create $NESTED/commondir \
		fsop create "$M/$NESTED/commondir" ..
	refused "create config.worktree in a submodule's git directory" create $MODS/config.worktree \
		fsop create "$M/$MODS/config.worktree" "[core]"
	refused "move a submodule's git directory aside" rename $MODS fsop rename "$M/$MODS" "$M/.git/modules/old"
	refused "remove a submodule's hooks" "rmdir|unlink" $MODS/hooks rm -rf "$M/$MODS/hooks"
}

worktree_attacks() {
	refused "write a linked worktree's commondir" write $ADMIN/commondir fsop append "$M/$ADMIN/commondir" x
	refused "write a linked worktree's gitdir" write $ADMIN/gitdir fsop append "$M/$ADMIN/gitdir" x
	refused "git config --worktree core.pager in the worktree" "write|rename|create" $ADMIN/config.worktree \
		git -C "$M/wt" config --worktree core.pager "$T/evil.sh"
	refused "write the worktree's .git file" write wt/.git fsop append "$M/wt/.git" x
	refused "create a hook in an untracked nested repository" create vendor/tool/.git/hooks/pre-commit \
		fsop create "$M/vendor/tool/.git/hooks/pre-commit" evil
	refused "git config core.editor in it" "write|rename|create" vendor/tool/.git/config \
		git -C "$M/vendor/tool" config core.editor "$T/evil.sh"
	refused "replace the worktree's .git file" rename wt/.git \
		bash -c "echo 'gitdir: $T' >'$M/wt/g' && mv '$M/wt/g' '$M/wt/.git'"
}

git_work() {
	check "git status --recurse-submodules" git -C "$M" status --porcelain
	check "git submodule update --recursive" git -C "$M" -c "$FILE_OK" submodule update -q --recursive
	check "git submodule sync --recursive" git -C "$M" submodule sync -q --recursive
	check "commit in a submodule" bash -c "echo n >>'$M/mid/m' && git -C '$M/mid' commit -qam n"
	check "commit two levels down" bash -c "echo n >>'$M/mid/inner/i' && git -C '$M/mid/inner' commit -qam n"
	check "commit in the linked worktree" bash -c "echo w >'$M/wt/w' && git -C '$M/wt' add w && git -C '$M/wt' commit -qm w"
	check "git worktree add (a new one)" git -C "$M" worktree add -q "$M/wt2" -b side2
	# mkdir .vscode makes the model rebuild: what the agent made stays its own.
	check "mkdir .vscode (the model rebuilds)" mkdir "$M/.vscode"
	refused "tasks.json is held after the rebuild" create .vscode/tasks.json fsop create "$M/.vscode/tasks.json" "{}"
	check "commit in the new worktree" bash -c "echo v >'$M/wt2/v' && git -C '$M/wt2' add v && git -C '$M/wt2' commit -qm v"
	check "git worktree remove (the new one)" git -C "$M" worktree remove "$M/wt2"
	check "git submodule add (a new one)" git -C "$M" -c "$FILE_OK" submodule add -q "$T/inner" inner2
	check "commit the new submodule" git -C "$M" commit -qm inner2
	check "git gc in a submodule" git -C "$M/mid" gc -q
	check "commit in the nested repository" bash -c "echo u >>'$M/vendor/tool/t' && git -C '$M/vendor/tool' commit -qam u"
	check "git fsck" git -C "$M" fsck --no-progress
}

# A tree whose .git is a file naming a git directory elsewhere in it.
separate_git_dir() {
	local s=$T/sep m=$T/sep
	mkdir -p "$s/meta"
	git init -q --separate-git-dir="$s/meta/repo.git" "$s"
	echo a >"$s/a"
	git -C "$s" add a
	git -C "$s" commit -qm a
	if ! oz_mount "$s" "$m"; then
		tap_not_ok "mount a tree whose .git is a file" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	refused "create a hook in the git directory .git names" create meta/repo.git/hooks/pre-commit \
		fsop create "$m/meta/repo.git/hooks/pre-commit" evil
	refused "git config core.editor there" "write|rename|create" meta/repo.git/config \
		git -C "$m" config core.editor "$T/evil.sh"
	refused "move the git directory aside" rename meta fsop rename "$m/meta" "$m/meta2"
	check "commit through the .git file" bash -c "echo b >'$m/b' && git -C '$m' add b && git -C '$m' commit -qm b"
	check "unmount the separate-git-dir tree" oz_umount "$m"
}

# Submodules the index records with a .git folder of their own (as git did
# before .git/modules), two levels deep, in a SHA-256 repository.
own_git_folders() {
	local o=$T/own m=$T/own
	git init -q --object-format=sha256 "$o"
	echo a >"$o/a"
	git -C "$o" add a
	git -C "$o" commit -qm a
	git init -q --object-format=sha256 "$o/sub"
	echo s >"$o/sub/s"
	git init -q --object-format=sha256 "$o/sub/deeper"
	echo d >"$o/sub/deeper/d"
	git -C "$o/sub/deeper" add d
	git -C "$o/sub/deeper" commit -qm d
	git -C "$o/sub" add s deeper 2>/dev/null
	git -C "$o/sub" commit -qm s
	git -C "$o" add sub 2>/dev/null
	git -C "$o" commit -qm sub
	if ! oz_mount "$o" "$m"; then
		tap_not_ok "mount a tree with own-.git submodules" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	refused "create a hook in a submodule's own .git" create sub/.git/hooks/pre-commit \
		fsop create "$m/sub/.git/hooks/pre-commit" evil
	refused "git config core.sshCommand in it" "write|rename|create" sub/.git/config \
		git -C "$m/sub" config core.sshCommand "$T/evil.sh"
	refused "create a hook two levels down" create sub/deeper/.git/hooks/post-merge \
		fsop create "$m/sub/deeper/.git/hooks/post-merge" evil
	refused "move the submodule's .git aside" rename sub/.git fsop rename "$m/sub/.git" "$m/sub/old-git"
	check "commit in the own-.git submodule" bash -c "echo t >>'$m/sub/s' && git -C '$m/sub' commit -qam t"
	check "commit the new submodule state" bash -c "git -C '$m' add sub && git -C '$m' commit -qm bump"
	check "unmount the own-.git tree" oz_umount "$m"
}

# Hostile trees refuse the mount with the reason, and never hang.
refuses_mount() {
	local name=$1 src=$2 reason=$3 m=$T/refused
	if oz_mount "$src" "$m"; then
		tap_not_ok "$name" "the mount started"
		oz_umount "$m" >/dev/null
	elif ! grep -qF -- "$reason" "$T/daemon.log"; then
		tap_not_ok "$name" "no '$reason' in: $(tail -n 2 "$T/daemon.log")"
	else
		tap_ok "$name"
	fi
}

hostile() {
	local h=$T/hostile
	git init -q "$h/link-module"
	mkdir -p "$h/link-module/.git/modules" "$h/elsewhere/x"
	touch "$h/elsewhere/x/HEAD"
	ln -s "$h/elsewhere/x" "$h/link-module/.git/modules/x"
	refuses_mount "a symlinked .git/modules/x refuses the mount" "$h/link-module" "'.git/modules/x' is a symbolic link"
	mkdir -p "$h/dotdot"
	printf 'gitdir: meta/../../x\n' >"$h/dotdot/.git"
	refuses_mount "a gitdir: with '..' refuses the mount" "$h/dotdot" "it has a '..' after a folder name"
	mkdir -p "$h/nul"
	printf 'gitdir: me\0ta\n' >"$h/nul/.git"
	refuses_mount "a gitdir: with a NUL byte refuses the mount" "$h/nul" "it holds a NUL byte"
	git init -q "$h/many"
	mkdir -p "$h/many/.git/worktrees"
	(cd "$h/many/.git/worktrees" && mkdir $(seq -f 'w%g' 256))
	refuses_mount "257 git directories refuse the mount" "$h/many" "past the 256 that oz0fs reads"
	git init -q "$h/badindex"
	echo a >"$h/badindex/a"
	git -C "$h/badindex" add a
	# the checksum's last byte made another one than it is (an 'X' may be what it was)
	local idx=$h/badindex/.git/index last
	last=$(tail -c 1 "$idx" | od -An -tu1 | tr -d ' ')
	printf "\\$(printf %o $(((last + 1) % 256)))" |
		dd of="$idx" bs=1 seek=$(($(stat -c %s "$idx") - 1)) conv=notrunc 2>/dev/null
	refuses_mount "an index with a bad checksum refuses the mount" "$h/badindex" "cannot read the index '.git/index'"
	git init -q "$h/fifo"
	rm "$h/fifo/.git/config"
	mkfifo "$h/fifo/.git/config"
	refuses_mount "a FIFO named config refuses the mount" "$h/fifo" "'.git/config' is a FIFO"
	git init -q "$h/big"
	head -c $((2 << 20)) /dev/zero | tr '\0' '#' >>"$h/big/.git/config"
	refuses_mount "a 2 MiB config refuses the mount" "$h/big" ".git/config"
}

oz_setup 600
make_sources
make_tree
M=$T/src
before=$(state)
oz_start "$T/src" "$M"
submodule_attacks
worktree_attacks
check "unmount after the attacks" oz_umount "$M"
check_unchanged "the protected objects are untouched" "$before" "$(state)"
oz_mount "$T/src" "$M" || tap_not_ok "mount again" "$(tail -n 3 "$T/daemon.log")"
git_work
check "unmount" oz_umount "$M"
separate_git_dir
own_git_folders
hostile
tap_done
