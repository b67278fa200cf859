#!/bin/bash
# The settler, seed 000 "Cleanup after an interrupted sandbox": nothing is
# repaired before settle runs; a run whose runner was killed is settled
# later from the STATE it left (issue 12: "STATE stays until `settle`
# succeeds"), and what it left is the next record's existing state; the
# check follows the submodules an index records, not those of a commit.
# (Waiting for every process of a sandbox, under bubblewrap, gVisor or
# Seatbelt, is the runner's, not the settler's.)
. "$(dirname "$0")/settle-lib.sh"
sl_setup 600

# seed: "The end-of-run Git checks repair changes only after the sandbox ends.
# Git run outside the sandbox before then can follow a reference the session
# changed."
act_lib_names_other() { echo "gitdir: ../.git/modules/other" >lib/.git; }
pre_git_follows_the_change() { [ "$(git -C lib rev-parse --absolute-git-dir)" = "$D/.git/modules/other" ]; }
after_lib_is_lib() { [ "$(git -C lib rev-parse --absolute-git-dir)" = "$D/.git/modules/lib" ]; }
sl_row --pre pre_git_follows_the_change --after after_lib_is_lib \
	"until settle, git follows a submodule's .git file the run changed" 1 sl_repo_subs act_lib_names_other \
	restored:lib/.git
act_then_person_commits() {
	act_lib_names_other
	echo person >>file1.txt
	git commit -q -m "the person, before settle" file1.txt
}
sl_row "the person's commit between the run and settle stays" 1 sl_repo_subs act_then_person_commits \
	restored:lib/.git

# seed: "A runner killed with `SIGKILL` cannot perform cleanup. Its files
# stay" ... "The stand-in files for missing `commondir` and
# `config.worktree` close that case for those two files": settled later
# from the STATE the killed run left, a new repository's commondir and
# config.worktree are removed all the same.
act_killed_then_later() {
	git init -q proj
	sl_hook proj/.git/hooks/post-checkout
	git -C proj config extensions.worktreeConfig true
	git -C proj config --worktree user.name Someone
	echo ../../elsewhere >proj/.git/commondir
	# The runner is killed here; the person goes on working, and the next
	# start settles.
	echo later >docs/later.txt
}
sl_row "a killed run, settled later" 1 sl_plain act_killed_then_later \
	moved:proj/.git/hooks removed:proj/.git/commondir removed:proj/.git/config.worktree
# A settle killed halfway: the hooks it had moved aside, the config not yet.
act_half_settled() {
	git init -q proj
	sl_hook proj/.git/hooks/post-checkout
	git -C proj config core.hooksPath .hooks
	mv proj/.git/hooks proj/.git/hooks.sandbox-refused
}
sl_row "a settle killed halfway is finished by the next" 1 sl_plain act_half_settled moved:proj/.git/config

# seed: "... and a later sandbox treats them as the repository's existing
# state": recorded after the killed run, its repository and hook are the
# person's.
fx_killed_run() {
	sl_plain
	git init -q proj
	sl_hook proj/.git/hooks/post-checkout
}
sl_row "a killed run's repository is the next record's existing state" 0 fx_killed_run sl_nothing

# seed: "The check follows submodules recorded in the index, not a submodule
# path recorded only in a commit."
act_gitlink_in_a_commit() {
	git checkout -q -b side
	git add vendor
	git commit -qm vendor
	git checkout -q main 2>/dev/null
	[ -z "$(git ls-files vendor)" ]
	[ "$(git ls-tree side vendor | cut -c1-6)" = 160000 ]
}
sl_row "a repository recorded as a submodule only in a commit stays" 0 sl_untracked act_gitlink_in_a_commit

tap_done
