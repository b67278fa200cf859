#!/bin/bash
# `make bench-settle`: how long oz0settle takes on a large repository (issue
# 12's target: under 1 s for 1,000 submodules, 200 checked out, and 100,000
# index entries). Builds the tree once in a scratch folder, records it, then
# times record and settle (nothing to settle, and a run's new repository)
# with farm-bench-like repeats: the median of RUNS.
set -eu
settle=${OZ0SETTLE:?the oz0settle binary}
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree=$work/tree
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b

echo "building: 100,000 files, 1,000 submodules (200 checked out)" >&2
git init -q -b main "$tree"
python3 - "$tree" <<'EOF'
import os, sys
top = sys.argv[1]
for d in range(1000):
    os.makedirs(f"{top}/src/d{d}", exist_ok=True)
    for f in range(100):
        with open(f"{top}/src/d{d}/f{f}.c", "w") as fh:
            fh.write(f"int f{d}_{f};\n")
EOF
git -C "$tree" add -A
commit=$(git -C "$tree" commit-tree "$(git -C "$tree" mktree </dev/null)" -m empty)
for i in $(seq 1000); do
	echo "160000 commit $commit	mods/m$i"
done | git -C "$tree" update-index --index-info
git -C "$tree" commit -q -m all
for i in $(seq 1000); do
	mkdir -p "$tree/.git/modules/m$i/objects" "$tree/.git/modules/m$i/refs"
	echo "$commit" >"$tree/.git/modules/m$i/HEAD"
	printf '[core]\n\trepositoryformatversion = 0\n\tworktree = ../../../mods/m%s\n' "$i" >"$tree/.git/modules/m$i/config"
	if [ "$i" -le 200 ]; then
		mkdir -p "$tree/mods/m$i"
		echo "gitdir: ../../.git/modules/m$i" >"$tree/mods/m$i/.git"
	fi
done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { # command... -> milliseconds of one run
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null || [ $? -eq 1 ]
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

state=$work/state
"$settle" record "$tree" "$state"
rec=$(for _ in $(seq "$runs"); do ms "$settle" record "$tree" "$state"; done | median)
quiet=$(for _ in $(seq "$runs"); do ms "$settle" settle "$tree" "$state"; done | median)
git init -q "$tree/new"
echo run >"$tree/new/.git/hooks/pre-commit"
acted=$(for _ in $(seq "$runs"); do ms "$settle" settle --dry-run "$tree" "$state"; done | median)
printf '| oz0settle, 100k entries, 1,000 submodules | median of %s |\n|---|---|\n' "$runs"
printf '| record | %s ms |\n| settle, nothing to do | %s ms |\n| settle --dry-run, a new repository | %s ms |\n' \
	"$rec" "$quiet" "$acted"
