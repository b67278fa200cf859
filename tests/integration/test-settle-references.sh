#!/bin/bash
# The settler, seed 000 "Submodules, worktrees and unfinished rebases": .git
# files restored or removed, exec steps commented out in every git
# directory, git directories added to an existing repository checked as new
# ones, and a linked worktree's folder sent elsewhere moved aside.
. "$(dirname "$0")/settle-lib.sh"
sl_setup 900


# seed: "It restores an existing `.git` file that the sandbox did not hold if
# it now names another Git directory."
act_lib_names_other() { echo "gitdir: ../.git/modules/other" >lib/.git; }
act_lib_names_top() { echo "gitdir: ../.git" >lib/.git; }
act_lib_names_outside() {
	git init -q --bare "$OUTSIDE/x.git"
	echo "gitdir: $OUTSIDE/x.git" >lib/.git
}
act_lib_link() {
	rm lib/.git
	ln -s ../.git/modules/other lib/.git
}
act_lib_names_new() {
	git init -q --bare evil.git
	sl_hook evil.git/hooks/post-checkout
	echo "gitdir: ../evil.git" >lib/.git
}
after_lib_is_lib() { [ "$(git -C lib rev-parse --absolute-git-dir)" = "$D/.git/modules/lib" ]; }
sl_row --after after_lib_is_lib "a submodule's .git file made to name another submodule's" 1 sl_repo_subs \
	act_lib_names_other restored:lib/.git
sl_row "a submodule's .git file made to name the repository's own" 1 sl_repo_subs act_lib_names_top restored:lib/.git
sl_row "a submodule's .git file made to name a git directory outside the tree" 1 sl_repo_subs \
	act_lib_names_outside restored:lib/.git
sl_row "a submodule's .git file replaced by a link" 1 sl_repo_subs act_lib_link restored:lib/.git
sl_row "a submodule's .git file made to name a new repository, which is checked too" 1 sl_repo_subs \
	act_lib_names_new restored:lib/.git moved:evil.git/hooks
act_wt_names_top() { echo "gitdir: $D/.git" >wt/.git; }
sl_row "a linked worktree's .git file made to name the repository" 1 sl_repo_wt act_wt_names_top restored:wt/.git

# issue 12, decided: "An existing `.git` file rewritten to name the same git
# directory in another spelling (absolute for relative) stays."
act_lib_absolute() { echo "gitdir: $D/.git/modules/lib" >lib/.git; }
act_wt_relative() { echo "gitdir: ../.git/worktrees/wt" >wt/.git; }
sl_row "a submodule's .git file naming its own git directory by its absolute path stays" 0 sl_repo_subs \
	act_lib_absolute
sl_row "a linked worktree's .git file naming its own folder by a relative path stays" 0 sl_repo_wt act_wt_relative

# seed: "It removes a new `.git` file if it names a directory other than its
# own."
act_new_names_lib() {
	mkdir x
	echo "gitdir: ../.git/modules/lib" >x/.git
}
act_new_names_plain() {
	mkdir plain x
	echo plain >plain/file
	echo "gitdir: ../plain" >x/.git
}
sl_row "a new .git file naming a submodule's git directory" 1 sl_repo_subs act_new_names_lib removed:x/.git
sl_row "a new .git file naming a plain folder" 1 sl_repo act_new_names_plain removed:x/.git

# seed: "It comments out `exec` steps in unfinished rebases or sequences of
# picks, so continuing them runs nothing the command chose."
act_rebase_exec() { sl_rebase_exec; }
# git writes the long names; an x a command wrote by hand runs all the same.
act_rebase_x() {
	act_rebase_plain
	echo "x touch $PWNED" >>.git/rebase-merge/git-rebase-todo
}
act_rebase_dash_x() {
	GIT_SEQUENCE_EDITOR="sed -i '1i break'" git rebase -q -i -x "touch $PWNED" HEAD~2
	grep -q '^exec ' .git/rebase-merge/git-rebase-todo
}
act_rebase_plain() { GIT_SEQUENCE_EDITOR="sed -i '1i break'" git rebase -q -i HEAD~2; }
after_continue_runs_nothing() {
	git rebase --continue
	sl_no_pwned
}
rb=.git/rebase-merge/git-rebase-todo
sl_row --after after_continue_runs_nothing "an exec step in the repository's rebase" 1 sl_repo act_rebase_exec execs:$rb
sl_row --after after_continue_runs_nothing "an x step in the repository's rebase" 1 sl_repo act_rebase_x execs:$rb
sl_row --after after_continue_runs_nothing "git rebase -x's steps" 1 sl_repo act_rebase_dash_x execs:$rb
sl_row "an unfinished rebase without exec steps passes" 0 sl_repo act_rebase_plain

# A sequence of picks stopped by a conflict, an exec step added to its list
# by hand (git cherry-pick writes none, but continuing would run one).
fx_picks() {
	sl_repo
	git checkout -q -b side
	echo side >file1.txt
	git commit -qam "side: file1"
	echo more >more.txt
	git add more.txt
	git commit -qm "side: more"
	git checkout -q main
	echo main >file1.txt
	git commit -qam "main: file1"
}
act_picks_exec() {
	git cherry-pick side~1 side && exit 1
	test -f .git/sequencer/todo
	echo "exec touch $PWNED" >>.git/sequencer/todo
}
after_picks_continue() {
	git checkout -q --theirs file1.txt
	git add file1.txt
	GIT_EDITOR=true git cherry-pick --continue || true
	sl_no_pwned
}
sl_row --after after_picks_continue "an exec step in a sequence of picks" 1 fx_picks act_picks_exec \
	execs:.git/sequencer/todo

# issue 12, decided: "A list of rebase steps identical to the one recorded at
# the start is the person's and stays as it is."
fx_person_rebase() {
	sl_repo
	sl_rebase_exec . "exec make check"
}
act_more_exec() { echo "exec touch $PWNED" >>"$rb"; }
sl_row "the person's unfinished rebase with an exec step, unchanged, stays" 0 fx_person_rebase sl_nothing
fx_person_rebase_plain() {
	sl_repo
	act_rebase_plain
}
sl_row "the person's unfinished rebase given an exec step" 1 fx_person_rebase_plain act_more_exec execs:$rb

# seed: "This covers the repository's Git directory, submodules, linked
# worktrees, and every nested directory reached through a submodule path."
act_lib_rebase() { sl_rebase_exec lib; }
act_wt_rebase() { sl_rebase_exec wt; }
fx_outer() {
	sl_repo
	sl_subadd "$SRC/outer" outer
	git -C outer -c protocol.file.allow=always submodule update -q --init
	git commit -qm outer
}
act_inner_rebase() { sl_rebase_exec outer/inner; }
act_nested_rebase() { sl_rebase_exec nested; }
sl_row "an exec step in a submodule's rebase" 1 sl_repo_subs act_lib_rebase \
	execs:.git/modules/lib/rebase-merge/git-rebase-todo
sl_row "an exec step in a linked worktree's rebase" 1 sl_repo_wt act_wt_rebase \
	execs:.git/worktrees/wt/rebase-merge/git-rebase-todo
sl_row "an exec step in a nested submodule's rebase" 1 fx_outer act_inner_rebase \
	execs:.git/modules/outer/modules/inner/rebase-merge/git-rebase-todo
sl_row "an exec step in a nested repository's rebase" 1 sl_nested act_nested_rebase \
	execs:nested/.git/rebase-merge/git-rebase-todo

# seed: "That includes submodules with their own `.git` folder and those whose
# `.git` file names a directory elsewhere inside the working tree, whether
# present at startup or created by the command."
fx_own_dotgit() {
	sl_repo
	git clone -q "$SRC/lib" vend
	sl_subadd "$SRC/lib" vend
	test -d vend/.git
	git commit -qm vend
}
fx_elsewhere() {
	sl_repo
	mkdir store
	git clone -q --separate-git-dir="$D/store/lib.git" "$SRC/lib" sublib
	sl_subadd "$SRC/lib" sublib
	git commit -qm sublib
}
act_vend_rebase() { sl_rebase_exec vend; }
act_sublib_rebase() { sl_rebase_exec sublib; }
act_new_sub_rebase() {
	sl_subadd "$SRC/lib" newsub
	sl_rebase_exec newsub
}
act_new_own_dotgit_rebase() {
	git clone -q "$SRC/lib" vend2
	sl_subadd "$SRC/lib" vend2
	sl_rebase_exec vend2
}
act_new_elsewhere_rebase() {
	mkdir store
	git clone -q --separate-git-dir="$D/store/new.git" "$SRC/lib" newlib
	sl_subadd "$SRC/lib" newlib
	sl_rebase_exec newlib
}
sl_row "an exec step in the rebase of a submodule with its own .git folder" 1 fx_own_dotgit act_vend_rebase \
	execs:vend/.git/rebase-merge/git-rebase-todo
sl_row "an exec step in the rebase of a submodule whose git directory is elsewhere in the tree" 1 fx_elsewhere \
	act_sublib_rebase execs:store/lib.git/rebase-merge/git-rebase-todo
sl_row "an exec step in the rebase of a submodule the run added" 1 sl_repo act_new_sub_rebase \
	execs:.git/modules/newsub/rebase-merge/git-rebase-todo
sl_row "an exec step in the rebase of a submodule the run added with its own .git folder" 1 sl_repo \
	act_new_own_dotgit_rebase execs:vend2/.git/rebase-merge/git-rebase-todo
sl_row "an exec step in the rebase of a submodule the run added, its git directory elsewhere" 1 sl_repo \
	act_new_elsewhere_rebase execs:store/new.git/rebase-merge/git-rebase-todo

# seed: "Git directories added to an existing repository receive the same
# checks as repositories created during the session." - "A submodule's new
# Git directory below `.git/modules`."
act_new_sub_hook() {
	sl_subadd "$SRC/lib" newsub
	sl_hook .git/modules/newsub/hooks/post-checkout
}
act_new_sub_config() {
	sl_subadd "$SRC/lib" newsub
	git -C newsub config core.fsmonitor tools/monitor
}
act_hand_module() {
	git init -q --bare .git/modules/hand
	sl_hook .git/modules/hand/hooks/pre-commit
}
sl_row "a hook in a submodule's new git directory" 1 sl_repo act_new_sub_hook moved:.git/modules/newsub/hooks
sl_row "a program in a submodule's new git directory's config" 1 sl_repo act_new_sub_config \
	moved:.git/modules/newsub/config
sl_row "a hook in a git directory made by hand below .git/modules" 1 sl_repo_subs act_hand_module \
	moved:.git/modules/hand/hooks

# seed: "A repository created at a path the index records as a submodule, such
# as `git init sub` followed by the index entry."
act_init_then_gitlink() {
	git init -q sub
	sl_hook sub/.git/hooks/post-checkout
	sl_gitlink sub
}
act_init_at_gitlink() {
	git init -q sub
	sl_hook sub/.git/hooks/post-checkout
}
sl_row "git init sub, a hook, then sub's index entry" 1 sl_repo act_init_then_gitlink moved:sub/.git/hooks
sl_row "git init at a path the index recorded, then a hook" 1 sl_repo_gitlink act_init_at_gitlink moved:sub/.git/hooks

# seed: "A Git directory inside the working tree named by a new `.git` file at
# such a path, or by an unchanged file when the command created that
# directory." (issue 12, decided: that .git file stays, its git directory
# gets the usual checks)
act_store_and_dotgit() {
	git init -q --bare store/sub.git
	sl_hook store/sub.git/hooks/post-checkout
	mkdir sub
	echo "gitdir: ../store/sub.git" >sub/.git
}
fx_dangling_dotgit() {
	sl_repo_gitlink
	mkdir sub
	echo "gitdir: ../store/sub.git" >sub/.git
}
act_store_only() {
	git init -q --bare store/sub.git
	sl_hook store/sub.git/hooks/post-checkout
}
sl_row "a git directory named by a new .git file at a submodule path" 1 sl_repo_gitlink act_store_and_dotgit \
	moved:store/sub.git/hooks
sl_row "a git directory the run made, named by an unchanged .git file" 1 fx_dangling_dotgit act_store_only \
	moved:store/sub.git/hooks

# seed: "A repository someone kept untracked in the working tree if the
# command records it as a submodule."
act_record_vendor() { git add vendor; }
act_ignore_vendor() { echo edit >>file1.txt; }
sl_row "an untracked repository the run records as a submodule" 1 sl_untracked act_record_vendor \
	moved:vendor/.git/hooks
sl_row "an untracked repository the run leaves untracked stays" 0 sl_untracked act_ignore_vendor

# seed: "A `.git` file at that path that names a folder outside the working
# tree is removed."
act_gitlink_outside() {
	git init -q --bare "$OUTSIDE/sub.git"
	mkdir sub
	echo "gitdir: $OUTSIDE/sub.git" >sub/.git
}
sl_row "a new .git file at a submodule path naming a folder outside the tree" 1 sl_repo_gitlink act_gitlink_outside \
	removed:sub/.git

# seed: "A linked worktree's new administrative folder whose `commondir` does
# not name the repository's own common directory is moved aside whole."
# (The worktree's .git file then names nothing: the seed leaves it open
# whether it is removed too.)
act_wt_commondir_other() {
	git init -q other
	git worktree add -q wt
	echo ../../../other/.git >.git/worktrees/wt/commondir
}
act_hand_worktree() {
	git init -q --bare "$OUTSIDE/x.git"
	mkdir -p .git/worktrees/evil
	git rev-parse HEAD >.git/worktrees/evil/HEAD
	echo "$OUTSIDE/x.git" >.git/worktrees/evil/commondir
	echo "$D/evil/.git" >.git/worktrees/evil/gitdir
}
act_wt_commondir_absolute() {
	git worktree add -q wt
	echo "$D/.git" >.git/worktrees/wt/commondir
}
act_nested_wt_commondir() {
	git -C nested worktree add -q "$D/nwt"
	echo "$D/.git" >nested/.git/worktrees/nwt/commondir
}
sl_row "a new linked worktree's commondir naming another repository" 1 sl_repo act_wt_commondir_other \
	moved:.git/worktrees/wt maybe-removed:wt/.git
sl_row "a linked worktree's folder made by hand, its commondir outside the tree" 1 sl_repo act_hand_worktree \
	moved:.git/worktrees/evil
sl_row "a nested repository's new worktree, its commondir naming the outer repository" 1 sl_nested \
	act_nested_wt_commondir moved:nested/.git/worktrees/nwt maybe-removed:nwt/.git
sl_row "a new linked worktree's commondir naming its own common directory absolutely passes" 0 sl_repo \
	act_wt_commondir_absolute

# oz0settle --seen-as (README, "The settler"): where git saw the tree during
# the run, which the absolute paths it wrote into .git files name. Here the
# run's git worked at /workspace, a sandbox's bind of the mount.
sl_as_workspace() { sed -i "s|$D|/workspace|g" "$@"; }
act_wt_at_workspace() {
	git worktree add -q wt
	sl_as_workspace wt/.git .git/worktrees/wt/gitdir
	grep -q '^gitdir: /workspace/.git/worktrees/wt$' wt/.git
}
act_lib_at_workspace() { echo "gitdir: /workspace/.git/modules/lib" >lib/.git; }
sl_row --seen-as /workspace "a new worktree whose .git file names its folder as git saw it (--seen-as) passes" 0 \
	sl_repo act_wt_at_workspace
sl_row "a new worktree whose .git file names a folder outside the tree (no --seen-as)" 1 sl_repo \
	act_wt_at_workspace removed:wt/.git
sl_row --seen-as /workspace "a submodule's .git file naming its git directory as git saw it (--seen-as) stays" 0 \
	sl_repo_subs act_lib_at_workspace
sl_row "a submodule's .git file naming a git directory outside the tree (no --seen-as)" 1 sl_repo_subs \
	act_lib_at_workspace restored:lib/.git

tap_done
