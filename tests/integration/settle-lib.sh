# shellcheck shell=bash
# Shared by the settler's tests (test-settle-*.sh): a table of cases, each
# a fixture built with the real git, `oz0settle record`, the run's actions
# (with the real git, or by hand where git would not), `oz0settle settle`,
# and the exact tree checked afterwards. No mount: the settler works on the
# tree itself, after the run.
#
#   . "$(dirname "$0")/settle-lib.sh"
#   sl_setup 600
#   sl_row [OPTIONS] NAME EXIT FIXTURE ACT [EXPECT...]
#   tap_done
#
# FIXTURE and ACT are functions, run in the case's tree ($D) in a subshell
# under `set -e`, so that a git command that fails fails the case's first
# TAP line (the fixture's self-check) instead of testing a tree that is not
# the one meant. Besides $D they see $C (the case's folder, outside the
# tree), $OUTSIDE (a folder outside the tree they may use), $PWNED (a file a
# planted hook or program creates when it runs) and $SRC (source
# repositories: lib, other, outer with its submodule inner).
#
# EXIT is settle's expected status. Each EXPECT is one action settle must
# print, paths relative to the tree and written as settle writes them
# (bytes other than printable ASCII as \ooo):
#   moved:PATH          moved aside to PATH.sandbox-refused
#   moved2:PATH         ... to PATH.sandbox-refused.2 (moved3: .3)
#   removed:PATH  restored:PATH  execs:PATH  access:PATH  couldnot:PATH
#   couldnot-under:PATH one "could not settle" line or more, below PATH
#   over:N              N new git directories moved aside or removed
#   maybe-removed:PATH  PATH may be removed (where the seed leaves it open)
#   mention:PATH        some line names PATH or a folder it is in
#   any                 other lines may come too (hostile end states, whose
#                       exact settling is the settler's choice)
# Without `any`, settle must print exactly these lines, in any order.
#
# OPTIONS: --pre FN (a check on the tree as the run left it, before settle),
# --after FN (a check with git on the settled tree, last), each a TAP line
# and either given more than once; --as USER (record and settle run as
# USER, the case's folder given to USER first); --dry-blind PATH (the dry
# run, not root, cannot look below PATH, whose access settle gives back); --seen-as PATH (given to
# record and settle: where git saw the tree during the run).
#
# Every case then checks, one TAP line each: the fixture and the run were
# built (record changed nothing); settle's status and lines; a dry run says
# the same and changes nothing; the tree is exactly as the lines say
# (settle-check.py), every other object byte for byte, STATE and $OUTSIDE
# untouched; a second settle finds nothing more.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SL_BIN=${OZ0SETTLE:-${OZ0_BUILDDIR:-.}/oz0settle}
OZ0FS=${OZ0FS:-${OZ0_BUILDDIR:-.}/oz0fs}
SL_OZ0FS=$OZ0FS
SL_TIMEOUT=${SL_TIMEOUT:-60}
sl_cases=0

# sl_setup SECONDS: scratch space, git's identity and the source repositories.
sl_setup() {
	oz_setup "$1"
	# Cases run as nobody reach their folder through $T.
	chmod 711 "$T"
	# Cases hand a tree to nobody and still run git on it as root.
	git config --global safe.directory '*'
	SRC=$T/src
	sl_try "$T" sl_sources || {
		tap_not_ok "the source repositories are built with git" "$(tail -n 15 "$T/src.log")"
		tap_done
	}
}

sl_sources() {
	local r
	for r in lib other inner; do
		git init -q "$SRC/$r"
		sl_commits "$SRC/$r" 3
	done
	git init -q "$SRC/outer"
	sl_commits "$SRC/outer" 2
	sl_subadd "$SRC/outer" "$SRC/inner" inner
	git -C "$SRC/outer" commit -qm inner
}

# sl_try DIR FN [ARGS...]: FN in DIR, in a subshell under set -e, output in
# $T/src.log or the case's log. Waited for in the background, for a subshell
# whose status is tested would run without set -e.
sl_try() {
	local dir=$1 log=${C:-$T/src}.log
	shift
	(
		set -e
		cd "$dir"
		"$@"
	) >>"$log" 2>&1 </dev/null &
	wait "$!"
}

# ---- Fixture helpers (each in the current folder unless given one) ---------

# sl_commits DIR N: N commits, each adding a file.
sl_commits() {
	local i
	for ((i = 1; i <= $2; i++)); do
		echo "$i $RANDOM" >"$1/file$i.txt"
		git -C "$1" add "file$i.txt"
		git -C "$1" commit -qm "file $i"
	done
}

# sl_repo: the tree a repository with three commits.
sl_repo() {
	git init -q .
	sl_commits . 3
}

# sl_subadd [DIR] URL PATH: git submodule add of a local repository.
sl_subadd() {
	local dir=.
	[ $# -eq 2 ] || { dir=$1; shift; }
	git -C "$dir" -c protocol.file.allow=always submodule add -q "$1" "$2"
}

# sl_repo_subs: the tree a repository with two submodules, lib and other.
sl_repo_subs() {
	sl_repo
	sl_subadd "$SRC/lib" lib
	sl_subadd "$SRC/other" other
	git commit -qm submodules
}

# sl_plain: the tree a folder of the person's that is no repository.
sl_plain() {
	mkdir docs
	echo notes >docs/notes.txt
}

# sl_nested: a repository with an untracked repository of three commits in
# it, nested.
sl_nested() {
	sl_repo
	git init -q nested
	sl_commits nested 3
}

# sl_repo_wt: a repository with a linked worktree wt (on branch wtb).
sl_repo_wt() {
	sl_repo
	git worktree add -q -b wtb wt
}

# sl_repo_gitlink: a repository whose index records a submodule at sub,
# never checked out.
sl_repo_gitlink() {
	sl_repo
	sl_gitlink sub
	git commit -qm "sub recorded"
}

# sl_untracked: a repository with an untracked repository in it, vendor,
# whose own pre-commit hook is the person's.
sl_untracked() {
	sl_repo
	git init -q vendor
	sl_commits vendor 1
	printf '#!/bin/sh\nexit 0\n' >vendor/.git/hooks/pre-commit
	chmod 755 vendor/.git/hooks/pre-commit
}

# sl_nothing: a run that does nothing.
sl_nothing() { :; }

# sl_hook FILE: a hook (or any program) that leaves $PWNED when it runs.
sl_hook() {
	mkdir -p "$(dirname "$1")"
	printf '#!/bin/sh\ntouch %q\n' "$PWNED" >"$1"
	chmod 755 "$1"
}

# sl_gitlink PATH: the index records PATH as a submodule at lib's HEAD
# (what `git submodule add` records), without checking anything out.
sl_gitlink() {
	git update-index --add --cacheinfo "160000,$(git -C "$SRC/lib" rev-parse HEAD),$1"
}

# sl_rebase_exec [DIR] [STEP]: an interactive rebase of DIR's last two
# commits stopped at its first step (break), with STEP (default "exec touch
# $PWNED") last in the list of steps still to run.
sl_rebase_exec() {
	local dir=${1:-.} step=${2:-exec touch $PWNED} todo
	GIT_SEQUENCE_EDITOR="sed -i -e '1i break' -e '\$a $step'" git -C "$dir" rebase -q -i HEAD~2
	todo=$(git -C "$dir" rev-parse --git-path rebase-merge/git-rebase-todo)
	[ "${todo#/}" != "$todo" ] || todo=$dir/$todo
	grep -q "^$step\$" "$todo"
}

# sl_no_pwned: nothing planted ran.
sl_no_pwned() {
	[ ! -e "$PWNED" ]
}

# sl_next_sandbox_starts, sl_next_sandbox_refuses: whether a mount of the
# tree would start (oz0fs --check builds its model as a mount does), as the
# seed's bounds promise: "the next sandbox in the folder starts".
sl_next_sandbox_starts() { sl_mount_would on; }
sl_next_sandbox_refuses() { sl_mount_would off; }
sl_mount_would() {
	"$SL_OZ0FS" --check . >"$C/check.out" 2>&1 || true
	grep -q "^Mount on the tree: $1 " "$C/check.out" || {
		grep '^Mount on the tree' "$C/check.out" || tail -n 3 "$C/check.out"
		false
	}
}

# ---- The table's rows -----------------------------------------------------------

# sl_expect_file EXPECT...: the expectations in settle-check.py's form.
sl_expect_file() {
	local e kind path
	for e; do
		kind=${e%%:*}
		path=${e#*:}
		case $kind in
		moved) printf 'moved\t%s\n' "$path" ;;
		moved[0-9]) printf 'moved\t%s\t%s.sandbox-refused.%s\n' "$path" "$path" "${kind#moved}" ;;
		any) printf 'any\n' ;;
		*) printf '%s\t%s\n' "$kind" "$path" ;;
		esac
	done
}

# sl_bin NAME ARGS...: oz0settle ARGS as the case's user, bounded in time;
# $C/NAME.out and .err, the status in $sl_rc.
sl_bin() {
	local name=$1
	shift
	sl_rc=0
	if [ -n "$sl_as" ]; then
		timeout -k 5 "$SL_TIMEOUT" setpriv --reuid="$sl_as" --regid="$(id -gn "$sl_as")" --clear-groups \
			"$SL_BIN" "$@" >"$C/$name.out" 2>"$C/$name.err" || sl_rc=$?
	else
		timeout -k 5 "$SL_TIMEOUT" "$SL_BIN" "$@" >"$C/$name.out" 2>"$C/$name.err" || sl_rc=$?
	fi
}

# sl_sane NAME: what went wrong with oz0settle's run NAME beyond its
# status (a hang, a crash, a sanitizer's report), or nothing.
sl_sane() {
	if [ "$sl_rc" -eq 124 ] || [ "$sl_rc" -eq 137 ]; then
		echo "oz0settle $1 hung: killed after ${SL_TIMEOUT}s"
	elif [ "$sl_rc" -ge 128 ]; then
		echo "oz0settle $1 crashed: exit status $sl_rc"
	elif grep -qE 'Sanitizer|runtime error:' "$C/$1.err"; then
		echo "oz0settle $1: a sanitizer's report"
	fi
}

sl_fp() {
	"$OZ_PY" "$OZ_LIB_DIR/settle-check.py" fp "$1"
}

# sl_same WHAT BEFORE-FILE DIR: nothing, or what changed below DIR.
sl_same() {
	sl_fp "$3" >"$C/fp.now"
	cmp -s "$2" "$C/fp.now" || {
		echo "$1 changed the tree:"
		diff "$2" "$C/fp.now" | head -n 20
	}
}

sl_show() {
	local f
	for f; do
		[ -s "$C/$f" ] && echo "$f:" && head -c 3000 "$C/$f"
	done
}

# sl_check_fn NAME FN: one TAP line, ok when FN succeeds in the tree.
sl_check_fn() {
	local st=0
	sl_try "$D" "$2" || st=$?
	tap_result "$1" "$st" "$(tail -n 15 "$C.log")"
}

sl_row() {
	local name want fixture act
	sl_as='' sl_pre=() sl_after=() sl_seen=() sl_dry_blind=''
	while [ "${1#--}" != "$1" ]; do
		case $1 in
		--dry-blind)
			sl_dry_blind=$2
			;;
		--pre) sl_pre+=("$2") ;;
		--after) sl_after+=("$2") ;;
		--as) sl_as=$2 ;;
		--seen-as) sl_seen=(--seen-as "$2") ;;
		esac
		shift 2
	done
	name=$1 want=$2 fixture=$3 act=$4
	shift 4
	sl_cases=$((sl_cases + 1))
	C=$T/case$sl_cases
	D=$C/tree OUTSIDE=$C/outside PWNED=$C/pwned
	mkdir -p "$D" "$OUTSIDE"
	export C D OUTSIDE PWNED SRC
	sl_expect_file "$@" >"$C/expect"
	sl_row_steps "$name" "$want" "$fixture" "$act"
	unset C
}

sl_row_steps() {
	local name=$1 want=$2 fixture=$3 act=$4 problems state_sum st fn
	if ! sl_try "$D" "$fixture"; then
		tap_not_ok "$name: the fixture is built with git" "$(tail -n 15 "$C.log")"
		return
	fi
	cp -a "$D" "$C/before"
	sl_fp "$D" >"$C/fp.before"
	if ! [ -x "$SL_BIN" ]; then
		# The run's commands are still checked, on the unrecorded tree.
		st=0
		sl_try "$D" "$act" || st=$?
		tap_result "$name: the fixture and the run are built with git" $st "$(tail -n 15 "$C.log")"
		tap_not_ok "$name: settled" "no oz0settle binary at $SL_BIN"
		return
	fi
	[ -z "$sl_as" ] || chown -R "$sl_as:$(id -gn "$sl_as")" "$C"
	sl_bin record record "${sl_seen[@]}" "$D" "$C/state"
	problems=$(sl_sane record; sl_same "record" "$C/fp.before" "$D") || true
	if [ "$sl_rc" -ne 0 ] || [ -n "$problems" ]; then
		tap_not_ok "$name: record" "exit status $sl_rc" "$problems" "$(sl_show record.out record.err)"
		return
	fi
	state_sum=$(sha256sum <"$C/state")
	if ! sl_try "$D" "$act"; then
		tap_not_ok "$name: the run's commands work" "$(tail -n 15 "$C.log")"
		return
	fi
	tap_ok "$name: fixture, record and the run's commands"
	for fn in "${sl_pre[@]}"; do sl_check_fn "$name: before settling, $fn" "$fn"; done
	cp -a "$D" "$C/ran"
	sl_fp "$D" >"$C/fp.ran"
	sl_fp "$OUTSIDE" >"$C/fp.outside"

	sl_bin dry settle --dry-run "${sl_seen[@]}" "$D" "$C/state"
	local dry_rc=$sl_rc
	{ sl_sane dry; sl_same "the dry run" "$C/fp.ran" "$D"; } >"$C/dry.problems" || true
	sl_bin settle settle "${sl_seen[@]}" "$D" "$C/state"
	local rc=$sl_rc
	problems=$(
		sl_sane settle
		[ "$rc" -eq "$want" ] || echo "exit status $rc, expected $want"
		"$OZ_PY" "$OZ_LIB_DIR/settle-check.py" lines "$C/settle.out" "$C/expect" "$C/before"
	) || true
	tap_result "$name: settle exits $want, saying what it did" "$([ -z "$problems" ]; echo $?)" \
		"$problems" "$(sl_show settle.out settle.err)"

	problems=$(
		cat "$C/dry.problems"
		if [ -n "$sl_dry_blind" ]; then
			# Not root, a dry run cannot look into a folder it would give
			# access back to: it says settle's lines but those below it.
			grep -v "^[^:]*: $sl_dry_blind/" "$C/settle.out" >"$C/settle.seen" || true
		else
			cp "$C/settle.out" "$C/settle.seen"
		fi
		cmp -s "$C/dry.out" "$C/settle.seen" || { echo "its lines differ:"; diff "$C/dry.out" "$C/settle.seen"; }
		[ "$dry_rc" -eq "$rc" ] || echo "its exit status is $dry_rc, settle's $rc"
	) || true
	tap_result "$name: --dry-run says the same and changes nothing" "$([ -z "$problems" ]; echo $?)" \
		"$problems" "$(sl_show dry.err)"

	problems=$(
		"$OZ_PY" "$OZ_LIB_DIR/settle-check.py" tree "$C/settle.out" "$C/before" "$C/ran" "$D"
		sl_same "settle (outside the tree)" "$C/fp.outside" "$OUTSIDE"
		[ "$(sha256sum <"$C/state" 2>&1)" = "$state_sum" ] || echo "STATE was changed or removed"
	) || true
	tap_result "$name: the tree is as settle says, every other object byte for byte" \
		"$([ -z "$problems" ]; echo $?)" "$problems"

	# Nothing is left to do: a second settle may only say again what the
	# first could not settle (exit 1 then), and changes nothing.
	sl_fp "$D" >"$C/fp.settled"
	sl_bin again settle "${sl_seen[@]}" "$D" "$C/state"
	problems=$(
		sl_sane again
		[ "$sl_rc" -eq "$([ -s "$C/again.out" ] && echo 1 || echo 0)" ] || echo "exit status $sl_rc"
		grep -vxF -f <(grep '^could not settle: ' "$C/settle.out") "$C/again.out" |
			sed 's/^/it says what the first did not fail at: /' || true
		sl_same "the second settle" "$C/fp.settled" "$D"
	) || true
	tap_result "$name: a second settle finds nothing more" "$([ -z "$problems" ]; echo $?)" "$problems"

	for fn in "${sl_after[@]}"; do sl_check_fn "$name: afterwards, $fn" "$fn"; done
}
