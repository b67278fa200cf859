#!/bin/bash
# The settler, seed 000 "Bounds on new Git directories": more than 64 new
# git directories below .git/modules, more than 256 in the tree, the indexes
# read at the end, .git files at submodule paths, and new linked worktrees'
# copies of hooks and programs and their .git files.
. "$(dirname "$0")/settle-lib.sh"
sl_setup 1200


# sl_copies N FORMAT: N git directories, copies of the .git one git init
# makes, at the paths FORMAT (printf, given 1..N) names: real git
# directories (HEAD, objects, refs and git's samples), made faster than by N
# git inits.
sl_copies() {
	local i
	[ -d "$C/template" ] || git init -q "$C/template"
	for ((i = 1; i <= $1; i++)); do
		# shellcheck disable=SC2059 # the format is the caller's
		mkdir -p "$(dirname "$(printf "$2" "$i")")"
		# shellcheck disable=SC2059
		cp -a "$C/template/.git" "$(printf "$2" "$i")"
	done
}

# seed: "A run that adds more than 64 git directories below a `.git/modules`
# folder that held none has that folder moved aside whole" ... "the
# repository's index stays where it is." (the run stages a file too: it
# stays staged)
act_modules_65() {
	sl_copies 65 .git/modules/m%02d
	echo staged >staged.txt
	git add staged.txt
}
act_modules_64() { sl_copies 64 .git/modules/m%02d; }
after_staged_stays() { [ "$(git diff --cached --name-only)" = staged.txt ]; }
sl_row --after after_staged_stays --after sl_next_sandbox_starts \
	"65 new git directories below a .git/modules that held none" 1 sl_repo \
	act_modules_65 moved:.git/modules
sl_row "64 new git directories below a .git/modules that held none pass" 0 sl_repo act_modules_64

# seed: "... and one that adds them beside a repository's own submodules has
# each it added removed, so that the next sandbox in the folder still reads
# the repository whole and starts"
removed_65=()
for ((i = 1; i <= 65; i++)); do removed_65+=("removed:.git/modules/m$(printf %02d "$i")"); done
sl_row --after after_staged_stays --after sl_next_sandbox_starts \
	"65 new git directories beside the repository's submodules" 1 sl_repo_subs \
	act_modules_65 "${removed_65[@]}"
sl_row "64 new git directories beside the repository's submodules pass" 0 sl_repo_subs act_modules_64

# seed: "of a run that leaves more git directories than the 256 a sandbox
# reads, a nested repository's included, the ones that were there when the
# run started are read first, those it made past the bound are moved aside
# or removed, and the run fails saying so, so every repository that was
# there keeps its index, what the run staged stays"
fx_ten() {
	local i
	sl_repo
	for i in 1 2 3 4 5 6 7 8 9; do
		git init -q "n$i"
		sl_commits "n$i" 1
	done
}
act_250_repos() {
	sl_copies 250 r%03d/.git
	echo staged >staged.txt
	git add staged.txt
}
sl_row --pre sl_next_sandbox_refuses --after after_staged_stays --after sl_next_sandbox_starts \
	"250 new repositories beside 10 (a nested one's included)" 1 fx_ten \
	act_250_repos over:4

# issue 12, decided: "The 256 git directories count the tree's own."
act_255_repos() { sl_copies 255 r%03d/.git; }
act_256_repos() { sl_copies 256 r%03d/.git; }
sl_row --after sl_next_sandbox_starts "255 new repositories beside the tree's own pass" 0 sl_repo act_255_repos
sl_row --pre sl_next_sandbox_refuses --after sl_next_sandbox_starts \
	"256 new repositories beside the tree's own: one past the bound" 1 sl_repo act_256_repos over:1

# seed: "The indexes read at the end are those of every git directory that
# served a work tree when the sandbox started, a nested repository's own
# among them, so a submodule a command adds under a repository that was
# already checked out is found and settled too."
act_nested_sub_hook() {
	sl_subadd nested "$SRC/lib" deps
	sl_hook nested/.git/modules/deps/hooks/post-merge
}
act_nested_gitlink_repo() {
	git init -q nested/deps
	sl_hook nested/deps/.git/hooks/post-merge
	git -C nested update-index --add --cacheinfo "160000,$(git -C "$SRC/lib" rev-parse HEAD),deps"
}
sl_row "a submodule the run adds to a nested repository, with a hook" 1 sl_nested act_nested_sub_hook \
	moved:nested/.git/modules/deps/hooks
sl_row "a repository the run records in a nested repository's index, with a hook" 1 sl_nested \
	act_nested_gitlink_repo moved:nested/deps/.git/hooks

# seed: "A new `.git` file at a submodule path is removed if it names a Git
# directory that already existed, such as the repository's own or an
# existing submodule's."
fx_gitlink() {
	sl_repo_subs
	sl_gitlink sub
	git commit -qm "sub recorded"
}
act_sub_names_top() {
	mkdir sub
	echo "gitdir: ../.git" >sub/.git
}
act_sub_names_lib() {
	mkdir sub
	echo "gitdir: ../.git/modules/lib" >sub/.git
}
sl_row "a new .git file at a submodule path naming the repository's own" 1 fx_gitlink act_sub_names_top \
	removed:sub/.git
sl_row "a new .git file at a submodule path naming an existing submodule's" 1 fx_gitlink act_sub_names_lib \
	removed:sub/.git

# issue 12, decided: "... it is removed when it names one that existed at the
# start, another checkout's, a plain folder, or anything outside DIR."
act_sub_names_newsub() {
	sl_subadd "$SRC/other" newsub
	mkdir sub
	echo "gitdir: ../.git/modules/newsub" >sub/.git
}
act_sub_names_plain() {
	mkdir plain sub
	echo plain >plain/file
	echo "gitdir: ../plain" >sub/.git
}
act_sub_own_new() {
	git init -q --bare .git/modules/sub
	mkdir sub
	echo "gitdir: ../.git/modules/sub" >sub/.git
}
sl_row "a new .git file at a submodule path naming another checkout's git directory" 1 fx_gitlink \
	act_sub_names_newsub removed:sub/.git
sl_row "a new .git file at a submodule path naming a plain folder" 1 fx_gitlink act_sub_names_plain removed:sub/.git
sl_row "a new .git file at a submodule path naming the git directory the run made for it passes" 0 fx_gitlink \
	act_sub_own_new

# seed: "For a new linked worktree of the repository, or of a nested
# repository present at startup, the check examines any hook folder or
# program named by that Git directory's `config`, `config.worktree` or
# included files. If the command left a copy in the new tree differing from
# the one held in the repository's own worktree, it is moved aside."
# The person's hooks (husky's way) and pager are tracked files; they run
# nothing here.
sl_tracked_hooks() {
	mkdir -p "$1/.husky" "$1/tools"
	printf '#!/bin/sh\nexit 0\n' >"$1/.husky/pre-commit"
	printf '#!/bin/sh\nexec cat\n' >"$1/tools/pager.sh"
	chmod 755 "$1/.husky/pre-commit" "$1/tools/pager.sh"
	git -C "$1" add .husky tools
	git -C "$1" commit -qm hooks
	git -C "$1" config core.hooksPath .husky
	git -C "$1" config core.pager tools/pager.sh
}
fx_husky() {
	sl_repo
	sl_tracked_hooks .
}
act_wt_same() { git worktree add -q wt; }
act_wt_hook_changed() {
	git worktree add -q wt
	sl_hook wt/.husky/pre-commit
}
act_wt_hook_added() {
	git worktree add -q wt
	sl_hook wt/.husky/post-merge
}
act_wt_program_changed() {
	git worktree add -q wt
	sl_hook wt/tools/pager.sh
}
after_wt_commit_runs_nothing() {
	git -C wt commit -q --allow-empty -m after
	sl_no_pwned
}
sl_row "a new linked worktree's copies of the hooks and the pager pass" 0 fx_husky act_wt_same
sl_row --after after_wt_commit_runs_nothing "a new linked worktree's copy of the hooks folder, a hook changed" 1 \
	fx_husky act_wt_hook_changed moved:wt/.husky
sl_row "a new linked worktree's copy of the hooks folder, a hook added" 1 fx_husky act_wt_hook_added moved:wt/.husky
sl_row "a new linked worktree's copy of the pager, changed" 1 fx_husky act_wt_program_changed \
	moved:wt/tools/pager.sh
fx_nested_husky() {
	sl_repo
	git init -q nested
	sl_commits nested 1
	sl_tracked_hooks nested
}
act_nested_wt_hook_changed() {
	git -C nested worktree add -q "$D/nwt"
	sl_hook nwt/.husky/pre-commit
}
sl_row "a nested repository's new worktree's copy of its hooks folder, changed" 1 fx_nested_husky \
	act_nested_wt_hook_changed moved:nwt/.husky
fx_included_hooks() {
	sl_repo
	mkdir .hooks
	printf '#!/bin/sh\nexit 0\n' >.hooks/pre-commit
	chmod 755 .hooks/pre-commit
	printf '[core]\n\thooksPath = .hooks\n' >shared.gitconfig
	git add .hooks shared.gitconfig
	git commit -qm "shared configuration"
	git config include.path ../shared.gitconfig
}
act_wt_included_changed() {
	git worktree add -q wt
	sl_hook wt/.hooks/pre-commit
}
sl_row "a new linked worktree's copy of a hooks folder an included file names, changed" 1 fx_included_hooks \
	act_wt_included_changed moved:wt/.hooks

# seed: "A new linked worktree's `.git` file is removed if it names anything
# other than its own administrative folder."
act_wt_names_top() {
	git worktree add -q wt
	echo "gitdir: $D/.git" >wt/.git
}
act_wt_names_other_wt() {
	git worktree add -q wt
	git worktree add -q wt2
	echo "gitdir: $D/.git/worktrees/wt2" >wt/.git
}
sl_row "a new linked worktree's .git file naming the repository" 1 sl_repo act_wt_names_top removed:wt/.git
sl_row "a new linked worktree's .git file naming another worktree's folder" 1 sl_repo act_wt_names_other_wt \
	removed:wt/.git

tap_done
