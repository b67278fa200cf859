#!/bin/bash
# The settler on hostile end states (issue 12: "a FIFO named `config` or
# `index`, a `.git` that is a link, a `gitdir:` with `..` or a NUL byte, a
# 2 MiB config, 300 new git directories, a folder with mode 000, names with
# newlines: settled or refused with a reason, never a hang or a crash, never
# a file of the person's lost"). Where the settler may settle or refuse, a
# row takes any well-formed lines (`any`) that name the place (`mention:`),
# exit 1, and the tree checked as for every row: each line's action done
# exactly, nothing else changed, within $SL_TIMEOUT seconds, no status of
# 128 or more.
. "$(dirname "$0")/settle-lib.sh"
sl_setup 900

# A FIFO named config or index.
act_fifo_config() {
	git init -q proj
	rm proj/.git/config
	mkfifo proj/.git/config
}
act_fifo_index() {
	rm .git/index
	mkfifo .git/index
}
act_fifo_new_index() {
	git clone -q "$SRC/lib" proj
	rm proj/.git/index
	mkfifo proj/.git/index
}
act_fifo_todo() {
	GIT_SEQUENCE_EDITOR="sed -i '1i break'" git rebase -q -i HEAD~2
	rm .git/rebase-merge/git-rebase-todo
	mkfifo .git/rebase-merge/git-rebase-todo
}
act_fifo_dotgit() {
	mkdir proj
	mkfifo proj/.git
}
act_fifo_commondir() {
	git init -q proj
	mkfifo proj/.git/commondir
}
sl_row "a new repository's config a FIFO" 1 sl_plain act_fifo_config any mention:proj/.git/config
sl_row "the repository's index a FIFO" 1 sl_repo act_fifo_index any mention:.git/index
sl_row "a new clone's index a FIFO" 1 sl_plain act_fifo_new_index any mention:proj/.git/index
sl_row "an unfinished rebase's list of steps a FIFO" 1 sl_repo act_fifo_todo any mention:.git/rebase-merge
sl_row "a new .git that is a FIFO" 1 sl_plain act_fifo_dotgit any mention:proj/.git
sl_row "a new repository's commondir a FIFO" 1 sl_plain act_fifo_commondir any mention:proj/.git/commondir

# A .git that is a link.
act_link_to_top() {
	mkdir proj
	ln -s ../.git proj/.git
}
act_link_outside() {
	git init -q --bare "$OUTSIDE/x.git"
	mkdir proj
	ln -s "$OUTSIDE/x.git" proj/.git
}
act_nested_dotgit_link() {
	mv nested/.git nested-git
	ln -s ../nested-git nested/.git
}
act_link_dangling() {
	mkdir proj
	ln -s /nonexistent/.git proj/.git
}
sl_row "a new .git link to the repository's own" 1 sl_repo act_link_to_top removed:proj/.git
sl_row "a new .git link out of the tree" 1 sl_plain act_link_outside removed:proj/.git
sl_row "a dangling new .git link" 1 sl_plain act_link_dangling removed:proj/.git
sl_row "a nested repository's .git folder moved and replaced by a link" 1 sl_nested act_nested_dotgit_link \
	any mention:nested/.git

# A gitdir: with .. or a NUL byte.
act_dotdot_new() {
	mkdir proj
	echo "gitdir: ../.git/modules/../../../outside" >proj/.git
}
act_dotdot_lib() { echo "gitdir: ../.git/modules/lib/../other" >lib/.git; }
act_nul_lib() { printf 'gitdir: ../.git/modules/lib\0/../other\n' >lib/.git; }
act_nul_new() {
	mkdir sub
	printf 'gitdir: ../.git\0modules/sub\n' >sub/.git
}
sl_row "a new .git file whose gitdir: climbs out with .." 1 sl_repo act_dotdot_new any mention:proj/.git
sl_row "a submodule's .git file made to name another through .." 1 sl_repo_subs act_dotdot_lib \
	any mention:lib/.git
sl_row "a submodule's .git file given a NUL byte" 1 sl_repo_subs act_nul_lib any mention:lib/.git
sl_row "a new .git file at a submodule path with a NUL byte" 1 sl_repo_gitlink act_nul_new any mention:sub/.git

# A 2 MiB config (past the 1 MiB a git file is read to), harmless line by
# line; and 2 MiB .git file.
sl_big_config() {
	"$OZ_PY" -c 'import sys
with open(sys.argv[1], "a") as f:
    f.write("[user]\n")
    for i in range(2 << 20 >> 5):
        f.write("\tname = someone %016d\n" % i)' "$1"
}
act_big_config() {
	git init -q proj
	sl_big_config proj/.git/config
	[ "$(stat -c %s proj/.git/config)" -gt $((2 << 20)) ]
}
act_big_module_config() {
	sl_subadd "$SRC/lib" newsub
	sl_big_config .git/modules/newsub/config
}
act_big_dotgit() {
	mkdir sub
	{
		echo "gitdir: ../.git/modules/sub"
		head -c $((2 << 20)) /dev/zero | tr '\0' '\n'
	} >sub/.git
}
sl_row "a new repository's 2 MiB config" 1 sl_plain act_big_config any mention:proj/.git/config
sl_row "a new submodule's 2 MiB config" 1 sl_repo act_big_module_config any mention:.git/modules/newsub
sl_row "a new 2 MiB .git file at a submodule path" 1 sl_repo_gitlink act_big_dotgit any mention:sub/.git

# 300 new git directories: 301 with the tree's own, 45 past the 256.
act_300_repos() {
	local i
	git init -q "$C/template"
	for ((i = 1; i <= 300; i++)); do
		mkdir "r$i"
		cp -a "$C/template/.git" "r$i/.git"
	done
}
sl_row --pre sl_next_sandbox_refuses --after sl_next_sandbox_starts "300 new repositories" 1 sl_repo \
	act_300_repos over:45

# A folder with mode 000.
act_dotgit_000() {
	git init -q proj
	sl_hook proj/.git/hooks/pre-commit
	chmod 000 proj/.git
}
act_modules_000() { chmod 000 .git/modules; }
act_nested_000() {
	sl_hook nested/.git/hooks/pre-commit
	chmod 000 nested/.git
}
sl_row "a new repository's .git made mode 000" 1 sl_plain act_dotgit_000 any mention:proj/.git
sl_row "the repository's .git/modules made mode 000" 1 sl_repo_subs act_modules_000 any mention:.git/modules
sl_row "a nested repository's .git made mode 000" 1 sl_nested act_nested_000 any mention:nested/.git

# Names with newlines (written \012 in settle's lines).
act_newline_repo() {
	git init -q $'new\nline'
	sl_hook $'new\nline/.git/hooks/pre-commit'
}
act_newline_hook() {
	git init -q proj
	sl_hook $'proj/.git/hooks/pre\ncommit'
}
act_newline_worktree() {
	git worktree add -q --detach $'w\nt'
	echo $'a\nb' >$'docs/a\nb'
}
act_newline_sub() {
	sl_subadd "$SRC/lib" $'sub\nmodule'
	sl_hook $'.git/modules/sub\nmodule/hooks/post-checkout'
}
fx_repo_docs() {
	sl_repo
	sl_plain
}
sl_row "a new repository whose name holds a newline, with a hook" 1 sl_plain act_newline_repo \
	'moved:new\012line/.git/hooks'
sl_row "a hook whose name holds a newline" 1 sl_plain act_newline_hook moved:proj/.git/hooks
sl_row "git worktree add of a name with a newline passes" 0 fx_repo_docs act_newline_worktree
sl_row "a new submodule whose name holds a newline, with a hook" 1 sl_repo act_newline_sub \
	'moved:.git/modules/sub\012module/hooks'

# Links where settle would move or read: never followed, what they name untouched.
act_config_link() {
	git init -q proj
	printf '[core]\n\thooksPath = %s\n' "$OUTSIDE" >"$OUTSIDE/config"
	rm proj/.git/config
	ln -s "$OUTSIDE/config" proj/.git/config
}
act_hooks_link() {
	git init -q proj
	sl_hook "$OUTSIDE/hooks/pre-commit"
	rm -r proj/.git/hooks
	ln -s "$OUTSIDE/hooks" proj/.git/hooks
}
act_index_link() {
	cp .git/index "$OUTSIDE/index"
	rm .git/index
	ln -s "$OUTSIDE/index" .git/index
}
sl_row "a new repository's config a link out of the tree" 1 sl_plain act_config_link any mention:proj/.git/config
sl_row "a new repository's hooks a link to hooks out of the tree" 1 sl_plain act_hooks_link any \
	mention:proj/.git/hooks
sl_row "the repository's index a link out of the tree" 1 sl_repo act_index_link any mention:.git/index

# Sizes: a name too long for .sandbox-refused, a deep tree, a crowded hooks folder.
sl_long=$(printf 'x%.0s' {1..250})
act_long_worktree() {
	git init -q other
	git worktree add -q --detach "$sl_long"
	echo ../../../other/.git >".git/worktrees/$sl_long/commondir"
}
act_long_repo() {
	git init -q "$sl_long"
	sl_hook "$sl_long/.git/hooks/pre-commit"
}
act_deep_repo() {
	local p=deep i
	for ((i = 0; i < 500; i++)); do p+=/d; done
	mkdir -p "$p"
	git init -q "$p/proj"
	sl_hook "$p/proj/.git/hooks/pre-commit"
}
act_crowded_hooks() {
	git init -q proj
	sl_hook proj/.git/hooks/pre-commit
	(cd proj/.git/hooks && seq -f 'extra%05g' 10000 | xargs touch)
}
sl_row "a worktree's folder, its name too long to take .sandbox-refused, its commondir elsewhere" 1 sl_repo \
	act_long_worktree any mention:.git/worktrees
sl_row "a new repository with a 250-byte name and a hook" 1 sl_plain act_long_repo "moved:$sl_long/.git/hooks"
sl_row "a hook in a new repository 500 folders deep" 1 sl_plain act_deep_repo any mention:deep
sl_row "a new repository's hooks folder of 10,000 files" 1 sl_plain act_crowded_hooks moved:proj/.git/hooks

tap_done
