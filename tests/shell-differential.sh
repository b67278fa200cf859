#!/bin/bash
# Our shell parser against shfmt (mvdan.cc/sh, the parser seed 002 names):
# for every line of the find table and the corpus, the commands and their
# static words must be the same. One TAP line per command line. Lines both
# refuse agree; a line only one refuses is listed in shell-known-diffs.txt
# with its reason, or fails.
set -u
src=${OZ0_SRCDIR:-$(dirname "$0")/..}
build=${OZ0_BUILDDIR:-.}
dump=$build/tests/shell-dump
if ! command -v shfmt >/dev/null; then
	echo "1..0 # SKIP shfmt is not installed (Debian package shfmt)"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

python3 "$src/tests/shell-commands.py" records "$src/tests/shell-find.table" "$src/tests/shell-corpus.txt" >"$tmp/records"
"$dump" <"$tmp/records" >"$tmp/ours" || exit 1
python3 "$src/tests/shell-commands.py" shfmt <"$tmp/records" >"$tmp/theirs" || exit 1

# split_results FILE PREFIX: one file per record, commands sorted, since the
# order in which the two walks meet nested commands is not the point.
split_results() {
	awk -v p="$2" 'BEGIN { n = 1 } /^--$/ { close(f); n++; next } { f = sprintf("%s%05d", p, n); print > f }' "$1"
}
split_results "$tmp/ours" "$tmp/o."
split_results "$tmp/theirs" "$tmp/t."

total=$(tr -cd '\0' <"$tmp/records" | wc -c)
echo "1..$total"
for ((i = 1; i <= total; i++)); do
	n=$(printf '%05d' "$i")
	line=$(tr '\0\n' '\n ' <"$tmp/records" | sed -n "${i}p")
	ours=$(sort "$tmp/o.$n" 2>/dev/null)
	theirs=$(sort "$tmp/t.$n" 2>/dev/null)
	# both refusing is agreement, whatever the words of the two messages
	if [[ $ours == error:* && $theirs == error:* ]] || [ "$ours" = "$theirs" ]; then
		echo "ok $i - $line"
	elif grep -qxF -- "$line" "$src/tests/shell-known-diffs.txt" 2>/dev/null; then
		echo "ok $i - $line # known difference, see tests/shell-known-diffs.txt"
	else
		echo "not ok $i - $line"
		diff <(echo "$theirs") <(echo "$ours") | sed 's/^/# /'
	fi
done
