#!/bin/bash
# What a repository's configuration names in the tree, through a real mount
# over the tree: core.hooksPath in the tree, an include.path file in the
# tree, core.fsmonitor = tools/fsmon.sh (held in the linked worktree too), an
# alias '!cd scripts && ./x.sh', a filter's clean command run by python3, and
# a rebase the person left stopped at an exec step. Each named object is
# refused and logged; ordinary git work still passes, a rebase the agent
# starts and continues included.
. "$(dirname "$0")/lib.sh"

HELD=(.husky/_ shared.cfg tools/fsmon.sh tools/conv.py tools/check.sh scripts/x.sh wt/tools/fsmon.sh
	.git/rebase-merge)

make_tree() {
	git init -q "$T/src"
	cd "$T/src"
	mkdir -p .husky/_ tools scripts
	printf '#!/bin/sh\nexit 0\n' >.husky/_/pre-commit
	chmod 755 .husky/_/pre-commit
	printf '#!/bin/sh\nexit 0\n' >tools/fsmon.sh
	printf 'import sys\nsys.stdout.write(sys.stdin.read())\n' >tools/conv.py
	printf '#!/bin/sh\nexit 1\n' >tools/check.sh
	printf '#!/bin/sh\necho x\n' >scripts/x.sh
	chmod 755 tools/fsmon.sh tools/check.sh scripts/x.sh
	printf '[user]\n\tname = Shared\n' >shared.cfg
	echo '*.txt filter=conv' >.gitattributes
	echo one >a.txt
	git add -A
	git commit -qm one
	echo two >>a.txt
	git commit -qam two
	echo three >>a.txt
	git commit -qam three
	git worktree add -q wt -b side
	git config core.hooksPath .husky/_
	git config include.path ../shared.cfg
	git config core.fsmonitor tools/fsmon.sh
	git config alias.x '!cd scripts && ./x.sh'
	git config filter.conv.clean 'python3 -W ignore tools/conv.py'
	# The person's rebase, stopped where tools/check.sh failed, with a pick
	# and an exec step to go.
	git rebase -q -x tools/check.sh HEAD~2 >/dev/null 2>&1 || true
	cd /
}

state() {
	snapshot "$T/src" "${HELD[@]}"
}

attacks() {
	refused "create a hook in core.hooksPath" create .husky/_/post-checkout \
		fsop create "$M/.husky/_/post-checkout" evil
	refused "write a hook in core.hooksPath" write .husky/_/pre-commit fsop append "$M/.husky/_/pre-commit" evil
	refused "write the included config" write shared.cfg fsop append "$M/shared.cfg" "[core]"
	refused "write core.fsmonitor's program" write tools/fsmon.sh fsop append "$M/tools/fsmon.sh" evil
	refused "replace core.fsmonitor's program" rename tools/fsmon.sh \
		bash -c "echo evil >'$M/tools/new' && mv '$M/tools/new' '$M/tools/fsmon.sh'"
	refused "write core.fsmonitor's program in the linked worktree" write wt/tools/fsmon.sh \
		fsop append "$M/wt/tools/fsmon.sh" evil
	refused "write the alias's script" write scripts/x.sh fsop append "$M/scripts/x.sh" evil
	refused "create the alias's script where the line starts" create x.sh fsop create "$M/x.sh" evil
	refused "write the filter's script" write tools/conv.py fsop append "$M/tools/conv.py" evil
	refused "move the tools folder aside" rename tools fsop rename "$M/tools" "$M/tools2"
	refused "write the exec step's program" write tools/check.sh fsop append "$M/tools/check.sh" evil
	refused "edit the person's rebase steps" write .git/rebase-merge/git-rebase-todo \
		fsop append "$M/.git/rebase-merge/git-rebase-todo" "exec evil"
	refused "continue the person's rebase" "unlink|rename|create|write|rmdir" .git/rebase-merge \
		git -C "$M" rebase --continue
}

git_work() {
	check "git status" git -C "$M" status --porcelain
	check "the alias runs" git -C "$M" x
	check "commit in the linked worktree" bash -c "echo w >'$M/wt/w' && git -C '$M/wt' add w && git -C '$M/wt' commit -qm w"
	check "git worktree add (a new one)" git -C "$M" worktree add -q "$M/wt2" -b side2 main
	check "a rebase the agent starts and continues" bash -c "
		cd '$M/wt2' && echo b >b && git add b && git commit -qm b &&
		git rebase -q -x false HEAD~1 >/dev/null 2>&1; test -d '$M/.git/worktrees/wt2/rebase-merge' &&
		git rebase --continue >/dev/null 2>&1 || git rebase --continue >/dev/null"
	check "git worktree remove (the new one)" git -C "$M" worktree remove --force "$M/wt2"
}

oz_setup 600
make_tree
M=$T/src
before=$(state)
oz_start "$T/src" "$M"
attacks
check "unmount after the attacks" oz_umount "$M"
check_unchanged "the held objects are untouched" "$before" "$(state)"
git -C "$T/src" rebase --abort
oz_mount "$T/src" "$M" || tap_not_ok "mount again" "$(tail -n 3 "$T/daemon.log")"
git_work
check "unmount" oz_umount "$M"
tap_done
