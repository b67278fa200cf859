#!/bin/bash
# The live model through a real mount: repositories the agent makes during the
# mount (git init, git clone, git submodule add, git worktree add, a bare
# layout written by hand, .git files) are tracked for the settler, and each
# dangerous change in them (a hook, core.hooksPath, a program-valued key, a
# commondir, a .git file leading elsewhere) is written to the audit log when
# it happens, once. What was there at start stays protected, and git works.
. "$(dirname "$0")/lib.sh"

# event KIND PATH [TEXT]: the audit log holds an event KIND for PATH (whose
# reason holds TEXT), or does within 5 s. The kernel sends the RELEASE of a
# file git wrote after close(2) has returned, and the daemon may handle it
# beside git's next requests (with FUSE over io_uring, on another entry), so
# what the release tells the model can land just after git exits.
event() {
	local i
	for ((i = 0; i < 100; i++)); do
		grep -F "\"event\":\"$1\",\"path\":\"$2\"" "$OZ_AUDIT" | grep -qF -- "${3:-}" && return 0
		sleep 0.05
	done
	return 1
}

# events KIND PATH TEXT: how many such lines.
events() {
	grep -F "\"event\":\"$1\",\"path\":\"$2\"" "$OZ_AUDIT" | grep -cF -- "$3" || true
}

# no_event PATH-PREFIX: no event names a path that begins so.
no_event() {
	! grep -qF "\"path\":\"$1" "$OZ_AUDIT"
}

oz_setup 600
oz_git_env
one_commit_repo "$T/src" a.txt one
one_commit_repo "$T/origin" o.txt origin
M=$T/mnt
oz_start "$T/src" "$M"
cd "$M"

# A repository made by git init, and what the agent then puts in it.
check "git init sub" git init -q sub
check "its git directory is tracked" event new-git-dir sub/.git "made during the mount"
check "git config core.hooksPath" git -C sub config core.hooksPath hooks2
check "... is said when it happens" event dangerous-change sub/.git "core.hookspath = hooks2"
check "a hook written into it" bash -c "printf '#!/bin/sh\n' >sub/.git/hooks/pre-commit"
check "... is said" event dangerous-change sub/.git/hooks/pre-commit "git runs it"
check "a sample copied stays quiet" bash -c "cp sub/.git/hooks/pre-push.sample sub/.git/hooks/x.sample &&
	! grep -qF 'hooks/x.sample' '$OZ_AUDIT'"
check "a program key written in place (>>)" bash -c "printf '[core]\n\tfsmonitor = ./fs.sh\n' >>sub/.git/config"
check "... is said" event dangerous-change sub/.git "core.fsmonitor = ./fs.sh"
check "an alias by git config" git -C sub config alias.y '!./y.sh'
check "... is said" event dangerous-change sub/.git "alias.y = !./y.sh"
check_eq "each danger is said once" 1 "$(events dangerous-change sub/.git core.hookspath)"
check "git works in it" bash -c "git -C sub -c core.hooksPath=/dev/null commit -q --allow-empty -m s &&
	git -C sub log --oneline | grep -q s"

# Git directories added to the repository that was there at start.
check "git submodule add" git -c protocol.file.allow=always submodule add -q "$T/origin" subm
check "the submodule's git directory is tracked" event new-git-dir .git/modules/subm "submodule"
check "its .git file is tracked, resolved through the mount point" event new-git-file subm/.git \
	"names .git/modules/subm"
check "... and never called outside the tree" bash -c "! grep -F '\"path\":\"subm/.git\"' '$OZ_AUDIT' |
	grep -qF 'outside the tree'"
check "the new gitlink is said when the index lands" event new-submodule .git/index "records the submodule subm"
check "git worktree add" git worktree add -q wt -b side
check "the worktree's folder is tracked" event new-git-dir .git/worktrees/wt "linked worktree"
check "its .git file is tracked" event new-git-file wt/.git "names .git/worktrees/wt"
check "a commondir sent elsewhere" bash -c "echo ../../elsewhere >.git/worktrees/wt/commondir"
check "... is said" event dangerous-change .git/worktrees/wt/commondir "commondir names ../../elsewhere"
check "git clone into the tree" git clone -q "$T/origin" cloned
check "the clone is tracked" event new-git-dir cloned/.git

# Repositories made by hand.
check "a bare layout by hand" bash -c "mkdir -p bare/objects bare/refs && echo 'ref: refs/heads/main' >bare/HEAD"
check "... is tracked" event new-git-dir bare "bare repository"
check "a .git file naming the repository's own" bash -c "mkdir evil && echo 'gitdir: ../.git' >evil/.git"
check "... is said" event dangerous-change evil/.git "there at start"
check "a .git file naming a folder outside" bash -c "mkdir out && echo 'gitdir: /tmp/elsewhere' >out/.git"
check "... is said" event dangerous-change out/.git "outside the tree"
check "a .git link" bash -c "mkdir lnk && ln -s ../.git lnk/.git"
check "... is said" event dangerous-change lnk/.git "symbolic link"

# A removed repository's inode numbers come back for other folders: they are
# not taken for its hooks or git directory.
check "a repository made and removed" bash -c "git init -q gone && rm -rf gone"
check "new folders and files afterwards" bash -c "for i in \$(seq 1 40); do mkdir n\$i && echo x >n\$i/pre-push &&
	echo x >n\$i/config; done"
check "... stay quiet" no_event n

# A new repository renamed is known by its new name from then on.
check "a repository made, then renamed" bash -c "git init -q before && mv before after"
check "a hook planted after the rename" bash -c "echo evil >after/.git/hooks/post-checkout"
check "... is said under the new path" event dangerous-change after/.git/hooks/post-checkout "git runs it"
check "... and not under the old one" bash -c "! grep -F '\"event\":\"dangerous-change\",\"path\":\"before/' '$OZ_AUDIT'"
# git init --separate-git-dir moves .git aside and leaves a .git file there.
check "git init --separate-git-dir of a new repository" bash -c "git init -q sep &&
	git init -q --separate-git-dir='$M/sep.git' sep"
check "... is said as what happened" event new-git-file sep/.git "sep.git"
check "... with no configuration it cannot read" bash -c "! grep -F 'Not a directory' '$OZ_AUDIT'"
# Git replaces files by renaming a lock over them, and the file system gives
# the replaced file's number to the next object made, a folder here: the
# model forgets a file it followed once its last name goes, so each new
# folder is followed as what it is.
check "20 more made and moved aside so" bash -c "for i in \$(seq 1 20); do git init -q s\$i &&
	git init -q --separate-git-dir=\"$M/s\$i.git\" s\$i || exit 1; done"
said=0
for i in $(seq 1 20); do event new-git-file "s$i/.git" "s$i.git" && said=$((said + 1)); done
check_eq "... each is said" 20 "$said"

# 10,000 repositories made and removed one after another: each gives its
# place back, so the last one is followed as the first was. Folders made
# between them take the inode numbers the removed ones free, as the many
# other folders of a long run do.
check "10,000 repositories made and removed" "$OZ_PY" -c "
import os, shutil
os.makedirs('$M/churn/keep')
for i in range(10000):
    os.makedirs('$M/churn/r/.git/hooks')
    shutil.rmtree('$M/churn/r')
    for j in range(3):
        os.mkdir('$M/churn/keep/%d.%d' % (i, j))
"
check "... leave the model following" bash -c "! grep -F '\"untracked\"' '$OZ_AUDIT'"
check "a hook in the next repository" bash -c "git init -q last && echo evil >last/.git/hooks/pre-commit"
check "... is still said" event dangerous-change last/.git/hooks/pre-commit "git runs it"

# What was there at start stays protected.
refused "a hook of the repository there at start" create .git/hooks/pre-commit fsop create "$M/.git/hooks/pre-commit" x
check "git status" git status --porcelain
check "git add and commit" bash -c "echo two >>a.txt && git add a.txt && git commit -qm two"
cd /
check "unmount" oz_umount "$M"

# What the agent left (a .git link among it) refuses the next mount, with
# the reason.
check "the tree left so refuses to mount, saying why" bash -c "! '$OZ0FS' -f '$T/src' '$M' 2>'$T/refusal' &&
	grep -q \"lnk/.git' is a symbolic link\" '$T/refusal'"

# A sandbox binds the mount at /workspace: the paths git writes there name it.
one_commit_repo "$T/src2" a.txt two
oz_mount "$T/src2" "$M" seen_as=/workspace || tap_not_ok "mount with seen_as" "$(tail -n 3 "$T/daemon.log")"
check "a .git file naming /workspace/..." bash -c "git init -q --bare '$M/inner.git' && mkdir '$M/co' &&
	echo 'gitdir: /workspace/inner.git' >'$M/co/.git'"
check "... resolves in the tree" event new-git-file co/.git "names inner.git"
check "a wrong seen_as is refused" bash -c "! '$OZ0FS' -f -o seen_as=relative '$T/src' '$T/mnt2' 2>/dev/null"
check "unmount (seen_as)" oz_umount "$M"
tap_done
