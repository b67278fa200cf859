#!/bin/bash
# The config reader against git itself. For every file in corpus/, our entry
# list (gitcfg-dump) must equal `git config --file F --list --null` byte for
# byte, and we must fail exactly when git fails, naming git's line. One TAP
# line per file. corpus/ holds ordinary-* files that git itself wrote (init,
# clone, submodule add, worktree, remote, branch, config), odd-* files with
# every quirk git accepts, hostile-* files git rejects, and over-limit-*
# files git reads but our bounds refuse (gitcfg-dump exits 3).
set -u
src=${OZ0_SRCDIR:?}
dump=${OZ0_BUILDDIR:?}/tests/git-config/gitcfg-dump
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# git reads only the file it is given; keep the person's configs out anyway.
export HOME=$scratch GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C

files=("$src"/tests/git-config/corpus/*)
echo "1..${#files[@]}"
n=0
for f in "${files[@]}"; do
	n=$((n + 1))
	name=$(basename "$f")
	git config --file "$f" --list --null >"$scratch/git.out" 2>"$scratch/git.err"
	git_rc=$?
	"$dump" "$f" >"$scratch/our.out" 2>"$scratch/our.err"
	our_rc=$?
	git_line=$(sed -n 's/^fatal: bad config line \([0-9]*\) .*/\1/p' "$scratch/git.err")
	our_line=$(sed -n 's/^bad config line \([0-9]*\):.*/\1/p' "$scratch/our.err")
	case $name in
	over-limit-*) want="git reads it, our bounds refuse it"
		[ "$git_rc" -eq 0 ] && [ "$our_rc" -eq 3 ] ;;
	*) if [ "$git_rc" -eq 0 ]; then
		want="$(tr -cd '\0' <"$scratch/git.out" | wc -c) entries as git lists them"
		[ "$our_rc" -eq 0 ] && cmp -s "$scratch/git.out" "$scratch/our.out"
	else
		want="rejected at line ${git_line:-?} as git rejects it"
		[ "$our_rc" -eq 1 ] && [ -n "$git_line" ] && [ "$git_line" = "$our_line" ]
	fi ;;
	esac
	if [ $? -eq 0 ]; then
		echo "ok $n - $name: $want"
	else
		echo "not ok $n - $name: want $want"
		echo "# git (rc $git_rc): $(tr '\0\n' '|^' <"$scratch/git.out" | head -c 300) $(head -c 200 "$scratch/git.err")"
		echo "# ours (rc $our_rc): $(tr '\0\n' '|^' <"$scratch/our.out" | head -c 300) $(head -c 200 "$scratch/our.err")"
	fi
done
