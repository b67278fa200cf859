#!/bin/bash
# The include-following config reader against git itself. Each case in
# cases/ is a shell fragment that lays out a repository made by `git init`
# (config, included files, HEAD, remotes); we run
# `git config --list --show-origin --includes --null` at its root with no
# system or global configuration, and cfgread-dump, and compare bytes; when
# git fails, we must fail. refuse-* cases are ones git reads (or hangs on)
# and our rules refuse: a link, a FIFO, a file over 1 MiB, a repository
# format git ignores; there we must fail. cfgread-dump exits 4 for a read
# that failed. One TAP line per case.
# cases/ is written by gen-cases.py.
set -u
src=${OZ0_SRCDIR:?}
dump=${OZ0_BUILDDIR:?}/tests/git-config-includes/cfgread-dump
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export GIT_CONFIG_NOSYSTEM=1 LC_ALL=C GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t \
	GIT_COMMITTER_EMAIL=t@t
unset GIT_CONFIG_GLOBAL GIT_DIR GIT_WORK_TREE GIT_COMMON_DIR GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT

# Writes stdin to FILE, making its folders: the cases' one helper.
put() {
	mkdir -p "$(dirname "$1")" && cat >"$1"
}

run_case() { # case-file -> sets git_rc our_rc
	local c=$1 dir=$scratch/case
	rm -rf "$dir" && mkdir -p "$dir/home"
	git init -q -b main "$dir/repo" || return 1
	root=$(cd "$dir/repo" && pwd -P)
	home=$dir/home
	(cd "$root" && . "$c") >"$scratch/setup.log" 2>&1 || { echo "# setup failed: $(head -c 300 "$scratch/setup.log")"; return 1; }
	[ -f "$root/.home-in-tree" ] && home=$root/home && mkdir -p "$home"
	(cd "$root" && HOME=$home XDG_CONFIG_HOME=$home/xdg timeout 10 \
		git config --list --show-origin --includes --null) >"$scratch/git.out" 2>"$scratch/git.err"
	git_rc=$?
	HOME=$home timeout 10 "$dump" "$root" >"$scratch/our.out" 2>"$scratch/our.err"
	our_rc=$?
}

cases=("$src"/tests/git-config-includes/cases/*.sh)
echo "1..${#cases[@]}"
n=0
for c in "${cases[@]}"; do
	n=$((n + 1))
	name=$(basename "$c" .sh)
	git_rc=x our_rc=x
	run_case "$c"
	case $name in
	refuse-*)
		want="git reads it, our rules refuse it"
		[ "$our_rc" = 4 ] && { [ "$git_rc" = 0 ] || [ "$git_rc" = 124 ]; } &&
			grep -qE 'symbolic link|not a regular file|larger than 1 MiB|format version' "$scratch/our.err" ;;
	*)
		if [ "$git_rc" = 0 ]; then
			want="$(tr -cd '\0' <"$scratch/git.out" | wc -c) fields as git lists them"
			[ "$our_rc" = 0 ] && cmp -s "$scratch/git.out" "$scratch/our.out"
		else
			want="a failure, as git fails"
			[ "$our_rc" = 4 ]
		fi ;;
	esac
	if [ $? -eq 0 ]; then
		echo "ok $n - $name: $want"
	else
		echo "not ok $n - $name: want $want"
		echo "# git (rc $git_rc): $(tr '\0\n' '|^' <"$scratch/git.out" | tail -c 400) $(head -c 200 "$scratch/git.err")"
		echo "# ours (rc $our_rc): $(tr '\0\n' '|^' <"$scratch/our.out" | tail -c 400) $(head -c 200 "$scratch/our.err")"
	fi
done
