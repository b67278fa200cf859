#!/bin/bash
# The index reader against git itself. Real git makes each fixture below;
# our entry list (gitindex-dump) must equal `git ls-files --stage -z` byte
# for byte, our submodule list (gitindex-dump --submodules, through the
# reading wrapper) must equal its gitlinks, and the index must really have
# the shape the fixture is about (version, extensions, a shared index).
# Where libgit2 1.5 can read the index (SHA-1, not split), its list must
# equal git's too: a second oracle, and a check on the first.
# One TAP line per fixture. With OZ0_INDEX_SEEDS=DIR, each fixture's index
# files are also copied there (how tests/fuzz/corpus/git-index was seeded).
set -u
dump=${OZ0_BUILDDIR:?}/tests/git-index/gitindex-dump
libgit2=$OZ0_BUILDDIR/tests/git-index/gitindex-libgit2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export HOME=$scratch GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
export GIT_AUTHOR_DATE='2020-01-01 00:00:00 +0000' GIT_COMMITTER_DATE='2020-01-01 00:00:00 +0000'

# A repository with a few dozen files in folders, committed.
repo() { # DIR [git init options]
	local dir=$1
	shift
	git init -q "$@" "$dir" && (
		cd "$dir" || exit 1
		mkdir -p src/lib docs 'odd name' deep/a/b/c
		for i in $(seq 1 12); do
			echo "$i" >"src/f$i.c"
			echo "$i" >"src/lib/l$i.h"
			echo "$i" >"docs/d$i.txt"
		done
		echo x >'odd name/tab	and space' && echo y >deep/a/b/c/leaf && echo z >top
		git add -A && git commit -qm one
	)
}

# Gitlinks without cloning anything: the commit id of HEAD under new paths.
add_gitlinks() { # DIR PATH...
	local dir=$1 head
	shift
	head=$(git -C "$dir" rev-parse HEAD)
	for p in "$@"; do
		git -C "$dir" update-index --add --cacheinfo "160000,$head,$p"
	done
}

# Some changes after a split, so the link has replace and delete bits.
change_some() { # DIR
	(
		cd "$1" || exit 1
		echo changed >src/f3.c && echo changed >docs/d7.txt
		git rm -q src/lib/l5.h && echo new >src/new.c
		git add -A
	)
}

conflict() { # DIR
	(
		cd "$1" || exit 1
		git checkout -qb side && echo side >src/f1.c && echo side >docs/d2.txt
		git commit -qam side && git checkout -q - && echo main >src/f1.c && echo main >docs/d2.txt
		git commit -qam main && ! git merge -q side >/dev/null 2>&1
	)
}

fx_v2() { repo "$1" && git -C "$1" update-index --index-version 2; }
fx_v3_intent_to_add() { repo "$1" && echo n >"$1/later.c" && git -C "$1" add -N later.c; }
fx_v3_skip_worktree() { repo "$1" && git -C "$1" update-index --skip-worktree src/f2.c docs/d1.txt; }
fx_v4() { repo "$1" && git -C "$1" update-index --index-version 4; }
fx_split() {
	repo "$1" && git -C "$1" -c splitIndex.maxPercentChange=100 update-index --split-index &&
		change_some "$1" && git -C "$1" -c splitIndex.maxPercentChange=100 update-index --split-index
}
fx_split_v4() { repo "$1" && git -C "$1" update-index --index-version 4 && fx_split_more "$1"; }
fx_split_more() {
	git -C "$1" -c splitIndex.maxPercentChange=100 update-index --split-index && change_some "$1" &&
		git -C "$1" -c splitIndex.maxPercentChange=100 update-index --split-index
}
# A conflict in a split index, one of its two paths resolved (REUC).
fx_split_conflict() {
	repo "$1" && git -C "$1" config splitIndex.maxPercentChange 100 && git -C "$1" config core.splitIndex true &&
		change_some "$1" && git -C "$1" commit -qm two && conflict "$1" &&
		echo resolved >"$1/docs/d2.txt" && git -C "$1" add docs/d2.txt
}
fx_sha256() { repo "$1" --object-format=sha256; }
fx_sha256_v4_split() { repo "$1" --object-format=sha256 && git -C "$1" update-index --index-version 4 && fx_split_more "$1"; }
fx_sha256_submodules() { repo "$1" --object-format=sha256 && add_gitlinks "$1" libs/one 'with space/two'; }
fx_submodules() { repo "$1" && add_gitlinks "$1" libs/one libs/two 'odd name/three' zz; }
fx_submodule_add() {
	repo "$1.sub" && repo "$1" &&
		git -C "$1" -c protocol.file.allow=always submodule -q add "$1.sub" vendor/sub
}
fx_submodules_split_v4() { fx_submodules "$1" && git -C "$1" update-index --index-version 4 && fx_split_more "$1" && add_gitlinks "$1" libs/three; }
fx_conflict() { repo "$1" && conflict "$1"; }
fx_conflict_v4() { repo "$1" && git -C "$1" update-index --index-version 4 && conflict "$1"; }
fx_untracked_cache() {
	repo "$1" && echo u >"$1/untracked" && git -C "$1" update-index --untracked-cache &&
		git -C "$1" -c core.untrackedCache=true status -s >/dev/null
}
fx_cache_tree() { repo "$1" && git -C "$1" read-tree HEAD && git -C "$1" write-tree >/dev/null; }
fx_offset_table() {
	repo "$1" && git -C "$1" -c index.threads=3 -c index.recordOffsetTable=true \
		-c index.recordEndOfIndexEntries=true update-index --force-write-index
}
fx_offset_table_v4() {
	repo "$1" && git -C "$1" update-index --index-version 4 &&
		git -C "$1" -c index.threads=4 -c index.recordOffsetTable=true \
			-c index.recordEndOfIndexEntries=true update-index --force-write-index
}
# Paths of 4,095 and 4,096 bytes: git's 12-bit length field says 0xfff and
# the reader looks for the NUL. (No file needs to exist for --cacheinfo.)
fx_long_paths() {
	local blob dirs
	repo "$1" && blob=$(echo long | git -C "$1" hash-object -w --stdin) &&
		dirs=$(for _ in $(seq 1 19); do printf '%0200d/' 0; done) &&
		git -C "$1" update-index --add --cacheinfo "100644,$blob,$dirs$(printf '%0276d' 0)" &&
		git -C "$1" update-index --add --cacheinfo "160000,$blob,$dirs$(printf '%0277d' 0)"
}
fx_long_paths_v4() { fx_long_paths "$1" && git -C "$1" update-index --index-version 4; }
fx_empty() { git init -q "$1" && echo a >"$1/a" && git -C "$1" add a && git -C "$1" rm -q --cached a; }

# FIXTURE VERSION EXTENSIONS...: what the index must look like.
fixtures=(
	"v2 2 TREE"
	"v3_intent_to_add 3"
	"v3_skip_worktree 3"
	"v4 4"
	"split 2 link"
	"split_v4 4 link"
	"split_conflict 2 link REUC"
	"sha256 2 TREE"
	"sha256_v4_split 4 link"
	"sha256_submodules 2"
	"submodules 2"
	"submodule_add 2"
	"submodules_split_v4 4 link"
	"conflict 2"
	"conflict_v4 4"
	"untracked_cache 2 UNTR"
	"cache_tree 2 TREE"
	"offset_table 2 EOIE IEOT"
	"offset_table_v4 4 EOIE IEOT"
	"long_paths 2"
	"long_paths_v4 4"
	"empty 2"
)

shape_ok() { # GITDIR VERSION EXT...
	local gitdir=$1 version=$2
	shift 2
	[ "$(od -An -tu1 -j7 -N1 "$gitdir/index" | tr -d ' ')" = "$version" ] || return 1
	for ext in "$@"; do
		grep -qa "$ext" "$gitdir/index" || return 1
		if [ "$ext" = link ]; then ls "$gitdir"/sharedindex.* >/dev/null 2>&1 || return 1; fi
	done
}

echo "1..${#fixtures[@]}"
n=0
for spec in "${fixtures[@]}"; do
	read -r name version exts <<<"$spec"
	n=$((n + 1))
	dir=$scratch/$name
	opt=
	case $name in sha256*) opt=--sha256 ;; esac
	if ! "fx_$name" "$dir" >"$scratch/make.log" 2>&1; then
		echo "not ok $n - $name: git could not make the fixture"
		sed 's/^/# /' "$scratch/make.log" | tail -5
		continue
	fi
	if [ -n "${OZ0_INDEX_SEEDS:-}" ]; then
		mkdir -p "$OZ0_INDEX_SEEDS/$name" && cp "$dir"/.git/index "$dir"/.git/sharedindex.* "$OZ0_INDEX_SEEDS/$name/" 2>/dev/null
	fi
	git -C "$dir" ls-files --stage -z >"$scratch/git.out"
	tr '\0' '\n' <"$scratch/git.out" | awk -F'\t' '$1 ~ /^160000 / { print $2 }' | uniq >"$scratch/git.subs"
	"$dump" $opt "$dir/.git" >"$scratch/our.out" 2>"$scratch/our.err"
	rc=$?
	"$dump" $opt --submodules "$dir/.git" >"$scratch/our.subs" 2>>"$scratch/our.err"
	rc_subs=$?
	second=
	# libgit2 1.5 also refuses a version 4 path of 4,095 bytes or more
	# ("invalid entry"), which git reads.
	case $name in sha256* | *split* | long_paths_v4) ;; *)
		second=", libgit2 agrees"
		"$libgit2" "$dir/.git" >"$scratch/libgit2.out" 2>>"$scratch/our.err" &&
			cmp -s "$scratch/git.out" "$scratch/libgit2.out" || second=", but libgit2 disagrees" ;;
	esac
	entries=$(tr -cd '\0' <"$scratch/git.out" | wc -c)
	subs=$(wc -l <"$scratch/git.subs")
	# shellcheck disable=SC2086
	if ! shape_ok "$dir/.git" "$version" $exts; then
		echo "not ok $n - $name: the index git made is not version $version with ${exts:-no extension asked}"
	elif [ $rc -eq 0 ] && [ $rc_subs -eq 0 ] && cmp -s "$scratch/git.out" "$scratch/our.out" &&
		cmp -s "$scratch/git.subs" "$scratch/our.subs" && [ "$second" != ", but libgit2 disagrees" ]; then
		echo "ok $n - $name: $entries entries and $subs submodules as git lists them (version $version${exts:+, $exts}$second)"
	else
		echo "not ok $n - $name: want $entries entries and $subs submodules as git lists them$second"
		echo "# ours (rc $rc/$rc_subs): $(head -c 300 "$scratch/our.err")"
		diff <(tr '\0' '\n' <"$scratch/git.out") <(tr '\0' '\n' <"$scratch/our.out") | head -10 | cut -c1-200 | sed 's/^/# /'
		diff "$scratch/git.subs" "$scratch/our.subs" | head -5 | cut -c1-200 | sed 's/^/# /'
	fi
done
