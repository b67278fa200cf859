#!/bin/bash
# Each way an agent could plant code in Git metadata or an editor's files is
# refused with EACCES and logged, and the protected objects on the underlying
# tree keep their bytes, modes, owners, inodes and times.
. "$(dirname "$0")/lib.sh"

HOOK=.git/hooks/pre-commit
SAMPLE=.git/hooks/pre-push.sample
# Everything issue 2 protects at the root of a tree whose .git is a folder.
PROTECTED=(.git/hooks .git/config .git/config.worktree .git/commondir
	.claude .codex .cursor .envrc .vscode/tasks.json)

# make_tree: a repository with a hook, an agent folder that exists (.codex),
# a hard link to the hook made before the mount, an xattr on config, and a
# linked worktree (a tree whose .git is a file).
make_tree() {
	one_commit_repo "$T/src" README hello
	cd "$T/src"
	printf '#!/bin/sh\necho checked\n' >"$HOOK"
	chmod 755 "$HOOK"
	mkdir .codex
	echo 'model = "safe"' >.codex/config.toml
	ln "$HOOK" hook-link
	fsop setxattr .git/config user.oz0 kept >/dev/null
	git worktree add -q "$T/wt" -b side
	cd /
}

# state: what must not change, read from the underlying trees.
state() {
	snapshot "$T/src" "${PROTECTED[@]}"
	stat -c '%n %i %a %u:%g' "$T/src/.git"
	snapshot "$T/wt" .git
}

hook_attacks() {
	refused "write a hook" write $HOOK fsop write "$M/$HOOK" evil
	refused "append to a hook" write $HOOK fsop append "$M/$HOOK" evil
	refused "open a hook read-write" write $HOOK fsop rdwr "$M/$HOOK"
	refused "truncate a hook" truncate $HOOK fsop truncate "$M/$HOOK" 0
	refused "open a hook with O_TRUNC" "write|truncate" $HOOK fsop otrunc "$M/$HOOK"
	refused "shell redirection onto a hook" "write|truncate" $HOOK bash -c "echo evil >'$M/$HOOK'"
	refused "fallocate a hook" "write|fallocate" $HOOK fsop fallocate "$M/$HOOK"
	refused "create a new hook" create .git/hooks/post-checkout fsop create "$M/.git/hooks/post-checkout"
	refused "chmod a .sample hook" chmod $SAMPLE fsop chmod "$M/$SAMPLE" 755
	refused "chown a hook" chown $HOOK fsop chown "$M/$HOOK" 65534 65534
	refused "set a hook's times" utimes $HOOK fsop utimes "$M/$HOOK"
	refused "mkdir in hooks" mkdir .git/hooks/dir fsop mkdir "$M/.git/hooks/dir"
	refused "symlink in hooks" symlink .git/hooks/post-merge fsop symlink /bin/true "$M/.git/hooks/post-merge"
	refused "mknod (FIFO) in hooks" mknod .git/hooks/fifo fsop mkfifo "$M/.git/hooks/fifo"
	refused "hard-link a hook elsewhere" link $HOOK fsop link "$M/$HOOK" "$M/new-link"
	refused "write through a hard link made before the mount" write $HOOK fsop append "$M/hook-link" evil
	refused "truncate through a hard link made before the mount" truncate $HOOK fsop truncate "$M/hook-link" 0
	refused "hard-link a file into hooks" link .git/hooks/post-commit fsop link "$M/README" "$M/.git/hooks/post-commit"
	refused "rename a hook inside hooks" rename $HOOK fsop rename "$M/$HOOK" "$M/$HOOK.off"
	refused "move a hook out of hooks" rename $HOOK fsop rename "$M/$HOOK" "$M/moved-hook"
	check "write a plain file" fsop create "$M/evil.sh" '#!/bin/sh'
	refused "move a file into hooks" rename .git/hooks/post-checkout fsop rename "$M/evil.sh" "$M/.git/hooks/post-checkout"
	refused "move a file over a hook" rename $HOOK fsop rename "$M/evil.sh" "$M/$HOOK"
	refused "exchange a file with a hook" exchange $HOOK fsop exchange "$M/evil.sh" "$M/$HOOK"
	refused "rename hooks" rename .git/hooks fsop rename "$M/.git/hooks" "$M/.git/hooks.old"
	refused "unlink a hook" unlink $HOOK fsop unlink "$M/$HOOK"
	refused "unlink a .sample hook" unlink $SAMPLE fsop unlink "$M/$SAMPLE"
	refused "rmdir hooks" rmdir .git/hooks fsop rmdir "$M/.git/hooks"
}

gitdir_attacks() {
	refused "rename .git away" rename .git fsop rename "$M/.git" "$M/git.old"
	refused "rmdir .git" rmdir .git fsop rmdir "$M/.git"
	check "build a new git dir beside .git" bash -c "mkdir -p '$M/newgit/hooks' && echo evil >'$M/newgit/hooks/pre-commit'"
	refused "rename a new git dir over .git" rename .git fsop rename "$M/newgit" "$M/.git"
	refused "exchange a new git dir with .git" exchange .git fsop exchange "$M/newgit" "$M/.git"
}

config_attacks() {
	local cfg=.git/config
	check "create config.lock (git's lock file)" fsop create "$M/.git/config.lock" '[core] hooksPath = /tmp'
	refused "replace config by renaming config.lock over it" rename $cfg fsop rename "$M/.git/config.lock" "$M/$cfg"
	check "remove config.lock" fsop unlink "$M/.git/config.lock"
	check "write a would-be config elsewhere" fsop create "$M/evil.cfg" '[core] hooksPath = /tmp'
	refused "exchange a file with config" exchange $cfg fsop exchange "$M/evil.cfg" "$M/$cfg"
	refused "exchange config with a file" exchange $cfg fsop exchange "$M/$cfg" "$M/evil.cfg"
	refused "write config" write $cfg fsop append "$M/$cfg" evil
	refused "truncate config" truncate $cfg fsop truncate "$M/$cfg" 0
	refused "chmod config" chmod $cfg fsop chmod "$M/$cfg" 666
	refused "chmod config, execute bits and more" chmod $cfg fsop chmod "$M/$cfg" 777
	refused "a legacy remote with an ext:: URL" create .git/branches/x fsop create "$M/.git/branches/x" "ext::sh -c evil"
	check "make the missing legacy remotes folder, empty (as git init does)" fsop mkdir "$M/.git/remotes"
	refused "a legacy remote in it" create .git/remotes/origin fsop create "$M/.git/remotes/origin" "URL: ext::sh"
	refused "unlink config" unlink $cfg fsop unlink "$M/$cfg"
	refused "setxattr on config" setxattr $cfg fsop setxattr "$M/$cfg" user.evil 1
	refused "removexattr on config" removexattr $cfg fsop removexattr "$M/$cfg" user.oz0
	refused "utimensat on config" utimes $cfg fsop utimes "$M/$cfg"
	refused "set config's times to now (UTIME_NOW)" utimes $cfg fsop touch "$M/$cfg"
	refused "touch(1) config" "write|utimes" $cfg touch "$M/$cfg"
	refused "copy_file_range into config" "write|copy-into" $cfg fsop copyinto "$M/evil.cfg" "$M/$cfg"
	check "symlink to .git/config" fsop symlink .git/config "$M/cfg-link"
	refused "write through a symlink to .git/config" write $cfg fsop append "$M/cfg-link" evil
	refused "create config.worktree" create .git/config.worktree fsop create "$M/.git/config.worktree"
	refused "create commondir" create .git/commondir fsop create "$M/.git/commondir" ..
	refused "mkdir commondir" mkdir .git/commondir fsop mkdir "$M/.git/commondir"
	refused "symlink as config.worktree" symlink .git/config.worktree fsop symlink ../evil.cfg "$M/.git/config.worktree"
	refused "rename a file onto commondir" rename .git/commondir fsop rename "$M/evil.cfg" "$M/.git/commondir"
	refused "hard-link a file as config.worktree" link .git/config.worktree fsop link "$M/evil.cfg" "$M/.git/config.worktree"
	refused "git config core.hooksPath x" rename $cfg git -C "$M" config core.hooksPath x
}

tool_attacks() {
	check "mkdir .vscode (a folder on the way)" fsop mkdir "$M/.vscode"
	refused "create .vscode/tasks.json" create .vscode/tasks.json fsop create "$M/.vscode/tasks.json" '{}'
	refused "create .envrc" create .envrc fsop create "$M/.envrc" 'eval evil'
	refused "shell redirection onto .envrc" create .envrc bash -c "echo evil >'$M/.envrc'"
	refused "mkdir .claude" mkdir .claude fsop mkdir "$M/.claude"
	refused "write .claude/settings.json" mkdir .claude bash -c "mkdir -p '$M/.claude' && echo '{}' >'$M/.claude/settings.json'"
	refused "symlink .cursor" symlink .cursor fsop symlink "$T" "$M/.cursor"
	refused "rename a folder to .cursor" rename .cursor fsop rename "$M/newgit" "$M/.cursor"
	refused "write the existing .codex/config.toml" write .codex/config.toml fsop append "$M/.codex/config.toml" evil
	refused "create a file in .codex" create .codex/hooks.json fsop create "$M/.codex/hooks.json"
	refused "rename .codex away" rename .codex fsop rename "$M/.codex" "$M/codex.old"
}

gitfile_attacks() {
	refused "write a .git file" write .git fsop append "$W/.git" evil
	refused "truncate a .git file" truncate .git fsop truncate "$W/.git" 0
	check "write a would-be .git file" fsop create "$W/fake" "gitdir: $T/evil"
	refused "rename a file over a .git file" rename .git fsop rename "$W/fake" "$W/.git"
	refused "exchange a file with a .git file" exchange .git fsop exchange "$W/fake" "$W/.git"
	refused "unlink a .git file" unlink .git fsop unlink "$W/.git"
	refused "rename a .git file away" rename .git fsop rename "$W/.git" "$W/git.old"
}

# Git rewrites config through config.lock even when nothing changes: a rename
# of identical bytes over config succeeds and leaves config untouched.
identical_rename() {
	local ino
	ino=$(stat -c %i "$T/src/.git/config")
	check "copy config to config.lock" cp "$M/.git/config" "$M/.git/config.lock"
	check "identical-bytes rename over config succeeds" fsop rename "$M/.git/config.lock" "$M/.git/config"
	check_eq "config keeps its inode" "$ino" "$(stat -c %i "$T/src/.git/config")"
	check "config.lock is gone" test ! -e "$M/.git/config.lock" -a ! -e "$T/src/.git/config.lock"
	check "copy config to config.lock again" cp "$M/.git/config" "$M/.git/config.lock"
	check "write through an fd on the renamed source" fsop rename-then-write "$M/.git/config.lock" "$M/.git/config" evil
	check "git config rewriting an unchanged value succeeds" git -C "$M" config core.bare false
	check "git branch -D (rewrites config) succeeds" bash -c "git -C '$M' branch -q gone && git -C '$M' branch -q -D gone"
}

oz_setup 600
make_tree
before=$(state)
M=$T/mnt
W=$T/wmnt
oz_start "$T/src" "$M"
oz_mount "$T/wt" "$W" || oz_unavailable "cannot mount the worktree: $(tail -n 3 "$T/daemon.log")"

hook_attacks
gitdir_attacks
config_attacks
tool_attacks
gitfile_attacks
identical_rename

check "unmount the worktree" oz_umount "$W"
check "unmount" oz_umount "$M"
check_unchanged "protected objects unchanged on the underlying trees" "$before" "$(state)"
check "the underlying repository is intact" git -C "$T/src" fsck --no-progress
tap_done
