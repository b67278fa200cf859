#!/bin/bash
# The settler lets ordinary work be (issue 12, "What passes: ordinary work
# (commits, branches, stashes, rebases that ran no chosen `exec`), `git
# submodule add`, `git worktree add`, a plain `git init` or `git clone`"):
# each run leaves the tree byte for byte as it was, and settle exits 0
# without a line. (git init, clone, submodule add and worktree add have
# their rows beside the seed sentences they answer.)
. "$(dirname "$0")/settle-lib.sh"
sl_setup 900

act_commits() {
	echo edit >>file1.txt
	git commit -qam edit
	echo new >new.txt
	git add new.txt
	git commit -q --amend -m "edit and new"
	echo staged >staged.txt
	git add staged.txt
	echo unstaged >>file2.txt
}
act_branches() {
	git checkout -q -b topic
	sl_commits . 2
	git tag -a -m v1 v1
	git tag light
	git checkout -q main
	git branch -q old topic~1
	git branch -q -D old
	git switch -q -c other HEAD~1
}
act_stash() {
	echo one >>file1.txt
	git stash -q
	echo two >>file2.txt
	git stash -q
	git stash pop -q
	echo untracked >u.txt
	git stash -q -u
}
act_rebase_done() {
	GIT_SEQUENCE_EDITOR="sed -i '2s/^pick/fixup/'" git rebase -q -i HEAD~2
	[ ! -d .git/rebase-merge ]
	git checkout -q -b topic HEAD~1
	echo topic >topic.txt
	git add topic.txt
	git commit -qm topic
	git rebase -q main
	git checkout -q main
}
act_merge_pick_revert() {
	git checkout -q -b side
	sl_commits . 1
	git checkout -q main
	echo main >main.txt
	git add main.txt
	git commit -qm main
	git merge -q --no-ff -m merge side
	git cherry-pick side~0 2>/dev/null || git cherry-pick --abort
	git revert --no-edit HEAD~1 >/dev/null 2>&1 || git revert --abort
}
act_conflict_stopped() {
	git checkout -q -b side HEAD~1
	echo side >file3.txt
	git add file3.txt
	git commit -qm side
	git checkout -q main
	git merge -q side && exit 1
	test -f .git/MERGE_HEAD
}
act_maintenance() {
	git gc -q
	git repack -q -a -d
	git remote add src "$SRC/lib"
	git fetch -q src
	git pack-refs --all
	git notes add -m note HEAD
	git reflog expire --expire=now --all
}
act_files() {
	git mv file1.txt moved.txt
	git rm -q file2.txt
	echo junk >junk.txt
	git clean -q -f
}
act_reinit() { git init -q; }
act_bisect() {
	git bisect start HEAD HEAD~2 >/dev/null
	git bisect good >/dev/null
}
act_submodule_work() {
	git -C lib checkout -q -b work
	echo sub >lib/sub.txt
	git -C lib add sub.txt
	git -C lib commit -qm sub
	git add lib
	git commit -qm "lib moved on"
	git submodule -q foreach 'git status --short >/dev/null'
	git -c protocol.file.allow=always submodule update -q --init
	git submodule -q sync
}
fx_deinit() {
	sl_repo_subs
	git submodule -q deinit -f lib
	rm -rf .git/modules/lib
}
act_update_init() { git -c protocol.file.allow=always submodule update -q --init lib; }
act_worktree_work() {
	git worktree add -q -b topic wt
	echo wt >wt/wt.txt
	git -C wt add wt.txt
	git -C wt commit -qm wt
	git worktree add -q --detach wt2 HEAD~1
	git worktree remove wt2
	git worktree lock wt
	git worktree prune
}
act_config_harmless() {
	git config user.name Someone
	git config pull.rebase true
	git remote add up "$SRC/other"
	git fetch -q up
	git branch -q -u up/main
}

sl_row "commits, an amend, staged and unstaged changes pass" 0 sl_repo act_commits
sl_row "branches, tags and switches pass" 0 sl_repo act_branches
sl_row "stashes pass" 0 sl_repo act_stash
sl_row "rebases that ran no exec pass" 0 sl_repo act_rebase_done
sl_row "merges, cherry-picks and reverts pass" 0 sl_repo act_merge_pick_revert
sl_row "a merge stopped by a conflict passes" 0 sl_repo act_conflict_stopped
sl_row "gc, repack, fetch, notes and reflog expiry pass" 0 sl_repo act_maintenance
sl_row "git mv, rm and clean pass" 0 sl_repo act_files
sl_row "git init in the repository itself passes" 0 sl_repo act_reinit
sl_row "a bisect in progress passes" 0 sl_repo act_bisect
sl_row "work in a submodule, recorded, passes" 0 sl_repo_subs act_submodule_work
sl_row "git submodule update --init of a deinitialised submodule passes" 0 fx_deinit act_update_init
sl_row "work in linked worktrees, one added and removed, passes" 0 sl_repo act_worktree_work
sl_row "remotes, an upstream and a user name in the repository's config pass" 0 sl_repo act_config_harmless

tap_done
