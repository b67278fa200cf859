#!/bin/bash
# The settler, seed 000 "Repositories created during a session": a folder
# made a repository by git init or git clone keeps what they make; a hooks
# folder beyond git's samples and a config naming a hooks folder, an include
# or a program are moved aside, a .git file or link naming a git directory
# elsewhere, commondir and config.worktree are removed.
. "$(dirname "$0")/settle-lib.sh"
sl_setup 900

# The person's tree: a folder that is no repository, or one that is.
act_init() {
	git init -q proj
	echo work >proj/work.txt
}
act_init_bare() { git init -q --bare store.git; }
act_clone() { git clone -q "$SRC/lib" proj; }
act_clone_bare() { git clone -q --bare "$SRC/lib" store.git; }

# seed: "A folder can become a Git repository during a session through `git
# init` or `git clone`" ... "A repository left as `git init` or `git clone`
# creates it passes."
sl_row "git init of a plain folder passes" 0 sl_plain act_init
sl_row "git init in a repository's untracked folder passes" 0 sl_repo act_init
sl_row "git init --bare passes" 0 sl_plain act_init_bare
sl_row "git clone of a local repository passes" 0 sl_plain act_clone
sl_row "git clone --bare passes" 0 sl_repo act_clone_bare

# seed: "A `config` that sets a hook folder, include or program is also moved
# aside" - and one that sets nothing of the kind stays.
act_clone_config() {
	git clone -q "$SRC/lib" proj
	git -C proj remote add up "$SRC/other"
	git -C proj fetch -q up
	git -C proj branch -q -u up/main
	git -C proj config user.name Someone
	git -C proj config pull.rebase true
}
sl_row "a clone given remotes, an upstream and a user name passes" 0 sl_plain act_clone_config

# issue 12, decided: "A new `.git` file at a submodule path stays when it
# names a git directory the run made inside DIR for that checkout".
act_clone_recursive() { git -c protocol.file.allow=always clone -q --recurse-submodules "$SRC/outer" proj; }
sl_row "git clone --recurse-submodules passes" 0 sl_plain act_clone_recursive

# issue 12, decided: "Git's samples are the `*.sample` files git's template
# installs; a subset of them, or an empty hooks folder, passes."
act_some_samples() {
	git init -q proj
	rm proj/.git/hooks/pre-commit.sample proj/.git/hooks/update.sample
}
act_no_samples() {
	git init -q proj
	rm proj/.git/hooks/*
}
sl_row "git init, some samples removed, passes" 0 sl_plain act_some_samples
sl_row "git init, every sample removed, passes" 0 sl_plain act_no_samples

# seed: "A hooks folder containing anything beyond Git's samples is moved to
# `<name>.sandbox-refused` for review." ... "The run fails and explains what
# was found." (every line carries a reason: settle-check.py's formats)
act_init_hook() {
	git init -q proj
	sl_hook proj/.git/hooks/pre-commit
}
after_commit_runs_nothing() {
	git -C proj commit -q --allow-empty -m after
	sl_no_pwned
}
sl_row --after after_commit_runs_nothing "git init, then a pre-commit hook" 1 sl_plain act_init_hook \
	moved:proj/.git/hooks
act_clone_hook() {
	git clone -q "$SRC/lib" proj
	sl_hook proj/.git/hooks/post-checkout
}
sl_row "git clone, then a post-checkout hook" 1 sl_plain act_clone_hook moved:proj/.git/hooks
act_bare_hook() {
	git init -q --bare store.git
	sl_hook store.git/hooks/post-receive
}
sl_row "git init --bare, then a post-receive hook" 1 sl_plain act_bare_hook moved:store.git/hooks
act_init_readme() {
	git init -q proj
	echo "not a hook" >proj/.git/hooks/README
}
sl_row "git init, then a file that is no sample beside the samples" 1 sl_plain act_init_readme \
	moved:proj/.git/hooks
act_nested_untracked_hook() {
	git init -q vendor/tool
	sl_hook vendor/tool/.git/hooks/post-merge
}
sl_row "a hook in a repository made in an existing repository's folder" 1 sl_repo act_nested_untracked_hook \
	moved:vendor/tool/.git/hooks
act_nested_new_hook() {
	git init -q a
	git init -q a/b
	sl_hook a/b/.git/hooks/pre-push
}
sl_row "a hook in a new repository inside a new repository" 1 sl_plain act_nested_new_hook moved:a/b/.git/hooks
act_template_hook() {
	sl_hook "$OUTSIDE/template/hooks/post-checkout"
	git init -q --template="$OUTSIDE/template" proj
}
sl_row "git init --template with a hook" 1 sl_plain act_template_hook moved:proj/.git/hooks

# issue 12: "Moving aside means renaming `NAME` to `NAME.sandbox-refused` in
# the same folder (`.sandbox-refused.2`, `.3` if taken); nothing is
# overwritten."
act_hook_taken() {
	act_init_hook
	mkdir proj/.git/hooks.sandbox-refused
	echo earlier >proj/.git/hooks.sandbox-refused/note
}
act_hook_taken_twice() {
	act_hook_taken
	echo earlier >proj/.git/hooks.sandbox-refused.2
}
act_hook_taken_by_link() {
	act_init_hook
	echo outside >"$OUTSIDE/file"
	ln -s "$OUTSIDE" proj/.git/hooks.sandbox-refused
}
sl_row "hooks.sandbox-refused taken: the hooks go to .2" 1 sl_plain act_hook_taken moved2:proj/.git/hooks
sl_row ".sandbox-refused and .2 taken: the hooks go to .3" 1 sl_plain act_hook_taken_twice moved3:proj/.git/hooks
sl_row "hooks.sandbox-refused a link out of the tree: .2, nothing followed" 1 sl_plain act_hook_taken_by_link \
	moved2:proj/.git/hooks

# seed: "A clone using Git LFS, which installs hooks, does not [pass]."
# Written by hand as `git lfs install` writes them (git-lfs is not needed):
# four hooks calling git-lfs, and its filter's three commands in config.
act_clone_lfs() {
	local h
	git clone -q "$SRC/lib" proj
	for h in pre-push post-checkout post-commit post-merge; do
		printf '#!/bin/sh\ncommand -v git-lfs >/dev/null 2>&1 || { echo >&2 "This repository is configured for Git LFS"; exit 2; }\ngit lfs %s "$@"\n' \
			"$h" >"proj/.git/hooks/$h"
		chmod 755 "proj/.git/hooks/$h"
	done
	git -C proj config filter.lfs.clean 'git-lfs clean -- %f'
	git -C proj config filter.lfs.smudge 'git-lfs smudge -- %f'
	git -C proj config filter.lfs.process 'git-lfs filter-process'
	git -C proj config filter.lfs.required true
}
sl_row "a clone whose Git LFS installed hooks and a filter" 1 sl_plain act_clone_lfs \
	moved:proj/.git/hooks moved:proj/.git/config

# seed: "A `config` that sets a hook folder, include or program is also moved
# aside." One row per kind of key of the model's table (seed 000's list of
# keys that run a program).
act_config() {
	git init -q proj
	git -C proj config "$SL_KEY" "$SL_VALUE"
}
after_status_runs_nothing() {
	git -C proj status --short >/dev/null
	sl_no_pwned
}
sl_config_row() {
	SL_KEY=$1 SL_VALUE=$2
	export SL_KEY SL_VALUE
	sl_row "a new repository's config setting $1" 1 sl_plain act_config moved:proj/.git/config
}
sl_config_row core.hooksPath .hooks
sl_config_row include.path ../../shared.cfg
sl_config_row 'includeIf.gitdir:/.path' ../../shared.cfg
sl_config_row core.fsmonitor 'tools/monitor'
sl_config_row core.pager 'tools/pager'
sl_config_row core.editor 'tools/edit'
sl_config_row core.sshCommand 'tools/ssh'
sl_config_row core.askPass 'tools/askpass'
sl_config_row core.gitProxy 'tools/proxy'
sl_config_row sequence.editor 'tools/edit'
sl_config_row filter.x.smudge 'tools/smudge'
sl_config_row filter.x.clean 'tools/clean'
sl_config_row filter.x.process 'tools/process'
sl_config_row diff.x.textconv 'tools/textconv'
sl_config_row diff.external 'tools/diff'
sl_config_row merge.x.driver 'tools/merge %O %A %B'
sl_config_row gpg.program 'tools/gpg'
sl_config_row credential.helper '!tools/cred'
sl_config_row alias.st '!touch pwned'
sl_config_row remote.origin.uploadpack 'tools/upload'
sl_config_row remote.origin.url 'ext::sh -c touch% pwned'
sl_config_row submodule.lib.update '!tools/update'
sl_config_row init.templateDir tmpl
sl_config_row hook.pre-commit.command 'tools/hook'
act_fsmonitor() {
	git init -q proj
	git -C proj config core.fsmonitor "touch $PWNED"
}
sl_row --after after_status_runs_nothing "a new repository's core.fsmonitor, then git status runs nothing" 1 \
	sl_plain act_fsmonitor moved:proj/.git/config
act_config_included() {
	git init -q proj
	printf '[core]\n\tpager = tools/pager\n' >proj/extra.cfg
	git -C proj config include.path ../extra.cfg
}
sl_row "a new repository's config including a file that sets a program" 1 sl_plain act_config_included \
	moved:proj/.git/config

# seed: "A `.git` file or link naming a Git directory elsewhere is removed"
act_separate_init() {
	mkdir store
	git init -q --separate-git-dir="$D/store/proj.git" proj
}
act_separate_clone() {
	mkdir store
	git clone -q --separate-git-dir="$D/store/proj.git" "$SRC/lib" proj
}
act_dotgit_link() {
	git init -q store/real
	mkdir proj
	ln -s ../store/real/.git proj/.git
}
act_dotgit_outside() {
	git init -q --bare "$OUTSIDE/x.git"
	mkdir proj
	echo "gitdir: $OUTSIDE/x.git" >proj/.git
}
act_dotgit_own_repo() {
	mkdir proj
	echo "gitdir: ../.git" >proj/.git
}
sl_row "git init --separate-git-dir: its .git file" 1 sl_plain act_separate_init removed:proj/.git
sl_row "git clone --separate-git-dir: its .git file" 1 sl_plain act_separate_clone removed:proj/.git
sl_row "a .git link to a git directory elsewhere in the tree" 1 sl_plain act_dotgit_link removed:proj/.git
sl_row "a .git file naming a git directory outside the tree" 1 sl_plain act_dotgit_outside removed:proj/.git
sl_row "a new .git file naming the repository's own" 1 sl_repo act_dotgit_own_repo removed:proj/.git

# seed: "... is removed, as are `commondir` and `config.worktree`."
act_commondir() {
	git init -q other
	git init -q proj
	echo ../../other/.git >proj/.git/commondir
}
act_commondir_self() {
	git init -q proj
	echo . >proj/.git/commondir
}
act_config_worktree() {
	git init -q proj
	git -C proj config extensions.worktreeConfig true
	git -C proj config --worktree user.name Someone
	test -f proj/.git/config.worktree
}
act_all_three() {
	git init -q other
	git init -q proj
	sl_hook proj/.git/hooks/post-commit
	git -C proj config core.hooksPath .hooks
	# Last: with a commondir, git would write other's config.
	echo ../../other/.git >proj/.git/commondir
}
sl_row "a new repository's commondir naming another" 1 sl_plain act_commondir removed:proj/.git/commondir
sl_row "a new repository's commondir naming itself" 1 sl_plain act_commondir_self removed:proj/.git/commondir
sl_row "a new repository's config.worktree" 1 sl_plain act_config_worktree removed:proj/.git/config.worktree
sl_row "a hook, a config and a commondir in one new repository" 1 sl_plain act_all_three \
	moved:proj/.git/hooks moved:proj/.git/config removed:proj/.git/commondir

tap_done
