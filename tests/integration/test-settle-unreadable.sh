#!/bin/bash
# The settler, seed 000 "Unreadable indexes and directories": an index that
# cannot be read whole is moved aside, a folder the run took the owner's
# access from is given it back and settled, and what cannot be settled sends
# every index aside. Also "What `git submodule add` and `git worktree add`
# make passes" (the same section; the ordinary work of test-settle-passes.sh
# besides).
. "$(dirname "$0")/settle-lib.sh"
sl_setup 900


sl_cut_short() { truncate -s "$(($(stat -c %s "$1") / 2))" "$1"; }
sl_flip_last_byte() {
	"$OZ_PY" -c 'import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(-1, 2); b = f.read(1); f.seek(-1, 2); f.write(bytes([b[0] ^ 0xFF]))' "$1"
}
# The version field, bytes 4 to 7: 1, which git no longer writes (nor reads).
sl_index_v1() { printf '\0\0\0\1' | dd of="$1" bs=1 seek=4 conv=notrunc status=none; }

# seed: "An index the node cannot read whole after the run is moved aside to
# `index.sandbox-refused`, so git follows none of its entries into a
# submodule (`git reset` makes a new one from the last commit, without what
# was staged)."
act_index_short() {
	echo staged >staged.txt
	git add staged.txt
	sl_cut_short .git/index
}
act_index_checksum() { sl_flip_last_byte .git/index; }
act_index_v1() { sl_index_v1 .git/index; }
# seed ("Files protected from writes"): an index "recording more than 4,096
# submodules" is one the node cannot read whole.
act_index_4097() {
	local sha i
	sha=$(git -C "$SRC/lib" rev-parse HEAD)
	for ((i = 1; i <= 4097; i++)); do printf '160000 %s\ts%04d\n' "$sha" "$i"; done | git update-index --index-info
}
after_reset_works() {
	git reset -q
	[ -z "$(git diff --cached --name-only)" ]
	git status --short >/dev/null
}
sl_row --pre sl_next_sandbox_refuses --after sl_next_sandbox_starts --after after_reset_works \
	"the repository's index cut short" 1 sl_repo act_index_short moved:.git/index
sl_row --pre sl_next_sandbox_refuses --after sl_next_sandbox_starts --after after_reset_works \
	"the repository's index with a checksum that does not match" 1 sl_repo \
	act_index_checksum moved:.git/index
sl_row --pre sl_next_sandbox_refuses --after sl_next_sandbox_starts --after after_reset_works \
	"the repository's index of version 1" 1 sl_repo act_index_v1 moved:.git/index
sl_row --pre sl_next_sandbox_refuses --after sl_next_sandbox_starts --after after_reset_works \
	"the repository's index recording 4,097 submodules" 1 sl_repo act_index_4097 \
	moved:.git/index
act_lib_index_short() { sl_cut_short .git/modules/lib/index; }
act_wt_index_short() { sl_cut_short .git/worktrees/wt/index; }
act_nested_index_short() { sl_cut_short nested/.git/index; }
act_new_index_short() {
	git clone -q "$SRC/lib" proj
	sl_cut_short proj/.git/index
}
sl_row "a submodule's index cut short" 1 sl_repo_subs act_lib_index_short moved:.git/modules/lib/index
sl_row "a linked worktree's index cut short" 1 sl_repo_wt act_wt_index_short moved:.git/worktrees/wt/index
sl_row "a nested repository's index cut short" 1 sl_nested act_nested_index_short moved:nested/.git/index
sl_row "a new clone's index cut short" 1 sl_repo act_new_index_short moved:proj/.git/index
act_index_short_taken() {
	sl_cut_short .git/index
	echo earlier >.git/index.sandbox-refused
}
sl_row "an index cut short, index.sandbox-refused taken" 1 sl_repo act_index_short_taken moved2:.git/index

# seed: "Git reads a folder it may not write, so a folder the command took the
# node's access from is given that access back, what it holds is settled as
# anywhere else, and the run fails saying so."
fx_docs() {
	sl_repo
	mkdir -p docs/deep
	echo notes >docs/deep/notes.txt
}
act_docs_000() { chmod 000 docs; }
act_docs_500() { chmod 500 docs/deep; }
act_repo_000() {
	git init -q proj
	sl_hook proj/.git/hooks/pre-commit
	chmod 000 proj
}
act_hooks_000() {
	git init -q proj
	sl_hook proj/.git/hooks/pre-commit
	chmod 000 proj/.git/hooks
}
act_module_000() { chmod 000 .git/modules/lib; }
sl_row "a folder of the person's the run made mode 000" 1 fx_docs act_docs_000 access:docs
sl_row "a folder of the person's the run made read-only" 1 fx_docs act_docs_500 access:docs/deep
sl_row "a new repository with a hook, made mode 000" 1 sl_repo act_repo_000 access:proj moved:proj/.git/hooks
sl_row "a new repository's hooks folder with a hook, made mode 000" 1 sl_repo act_hooks_000 \
	access:proj/.git/hooks moved:proj/.git/hooks
sl_row "a submodule's git directory made mode 000" 1 sl_repo_subs act_module_000 access:.git/modules/lib
# The same where the owner is the settler's user and not root, whom no mode
# keeps out.
act_repo_000_nobody() {
	git init -q proj
	sl_hook proj/.git/hooks/pre-commit
	chown -R nobody:"$(id -gn nobody)" proj
	chmod 000 proj
}
sl_row --as nobody --dry-blind proj "as nobody: a new repository with a hook, made mode 000" 1 sl_repo \
	act_repo_000_nobody access:proj moved:proj/.git/hooks

# issue 12, decided: "Access given back is only access the run took away: a
# folder the person made read-only before the run stays as it was."
fx_docs_locked() {
	fx_docs
	mkdir private
	echo secret >private/key
	chmod 555 docs
	chmod 000 private
}
act_work() { echo more >>file1.txt; }
sl_row "folders the person locked before the run stay locked" 0 fx_docs_locked act_work
sl_row --as nobody "as nobody: folders the person locked before the run stay locked" 0 fx_docs_locked act_work

# seed: "A submodule whose `.git` the node still cannot look at, or anything
# that could not be settled, sends every index aside, so git enters nothing
# the run left; the other submodules are settled all the same."
# As nobody, on a tree of nobody's, where the run (as root) left what nobody
# cannot look at or change. With every index aside no path is a submodule's,
# so the new submodule's .git file goes too.
act_lib_hidden() {
	sl_subadd "$SRC/lib" b
	sl_hook .git/modules/b/hooks/post-checkout
	chown -R nobody:"$(id -gn nobody)" .
	chown root:root lib
	chmod 700 lib
}
sl_row --as nobody "as nobody: a submodule the run hid, another given a hook" 1 sl_repo_subs act_lib_hidden \
	couldnot-under:lib moved:.git/index moved:.git/modules/lib/index moved:.git/modules/other/index \
	moved:.git/modules/b/index moved:.git/modules/b/hooks removed:b/.git
act_root_repo_hook() {
	git init -q proj
	sl_hook proj/.git/hooks/pre-commit
}
sl_row --as nobody "as nobody: a hook in a new repository of root's, which cannot be moved" 1 sl_repo \
	act_root_repo_hook couldnot-under:proj moved:.git/index

# seed: "What `git submodule add` and `git worktree add` make passes."
act_submodule_add() {
	sl_subadd "$SRC/lib" newsub
	git commit -qm newsub
}
act_submodule_add_recursive() {
	sl_subadd "$SRC/outer" outer
	git -C outer -c protocol.file.allow=always submodule update -q --init --recursive
	git commit -qm outer
}
act_worktree_add() {
	git worktree add -q wt
	git worktree add -q -b topic wt2 HEAD~1
	git -C wt2 commit -q --allow-empty -m "in the worktree"
}
act_worktree_add_nested() { git -C nested worktree add -q "$D/nwt"; }
sl_row "git submodule add passes" 0 sl_repo act_submodule_add
sl_row "git submodule add of a repository with a submodule, updated recursively, passes" 0 sl_repo \
	act_submodule_add_recursive
sl_row "git submodule add beside existing submodules passes" 0 sl_repo_subs act_submodule_add
sl_row "git worktree add passes" 0 sl_repo act_worktree_add
sl_row "git worktree add in a repository with submodules passes" 0 sl_repo_subs act_worktree_add
sl_row "git worktree add of a nested repository passes" 0 sl_nested act_worktree_add_nested

tap_done
