#!/bin/bash
# Makes the tree the model benchmark reads (issue 4): one repository whose
# index records 100,000 files and 1,000 submodules, with every file checked
# out in 1,000 folders, the 1,000 submodules' git directories below
# .git/modules, and 200 of them checked out with a .git file (each a git
# directory the model reads: 201 in all, under the 256 it reads).
#   model-tree.sh DIR [FILES] [SUBMODULES] [CHECKED_OUT]
set -euo pipefail

dir=$1 files=${2:-100000} subs=${3:-1000} out=${4:-200}
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
git init -q .
git config user.name bench
git config user.email bench@example.invalid
blob=$(echo x | git hash-object -w --stdin)

# The files: 100 per folder, written by one awk (fast), indexed from a list.
awk -v n="$files" 'BEGIN { for (i = 0; i < n; i++) printf "d%03d/f%05d.c\n", i % 1000, i }' >"$dir/.files"
cut -d/ -f1 "$dir/.files" | sort -u | xargs mkdir -p
xargs -a "$dir/.files" -n 2000 sh -c 'for f; do echo x >"$f"; done' sh
awk -v b="$blob" '{ printf "100644 %s\t%s\n", b, $0 }' "$dir/.files" >"$dir/.info"

# The submodules: a gitlink each, a minimal git directory each below
# .git/modules, and the first CHECKED_OUT with a .git file naming it.
head=$(git hash-object -t commit -w --stdin <<<"tree $(git mktree </dev/null)
author b <b@b> 0 +0000
committer b <b@b> 0 +0000

s")
for ((i = 0; i < subs; i++)); do
	name=$(printf 's%04d' "$i")
	printf '160000 %s\tsub/%s\n' "$head" "$name" >>"$dir/.info"
	m=.git/modules/$name
	mkdir -p "$m/objects" "$m/refs/heads"
	echo "$head" >"$m/HEAD"
	printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ../../../sub/%s\n' "$name" >"$m/config"
	if ((i < out)); then
		mkdir -p "sub/$name"
		echo "gitdir: ../../.git/modules/$name" >"sub/$name/.git"
	fi
done
git update-index --index-info <"$dir/.info"
rm -f "$dir/.files" "$dir/.info"
git commit -qm bench
