#!/bin/bash
# Ordinary work passes through the mount with the real tools: git from init
# to submodules, tar, make, sqlite3 with two writers, mmap writes and rsync.
. "$(dirname "$0")/lib.sh"

# make_repo DIR: a repository with a few kinds of tracked files, indexed
# outside the mount. The files are dated in the past so that no index entry
# is racily clean: git must trust the stat data it recorded.
make_repo() {
	git init -q "$1"
	cd "$1"
	mkdir -p src/deep
	printf 'int main(void) { return 0; }\n' >src/main.c
	echo deep >src/deep/file.txt
	printf '#!/bin/sh\necho run\n' >run.sh
	chmod 755 run.sh
	ln -s src/main.c link-to-main
	echo base >notes.txt
	touch -h -d '1 hour ago' src/main.c src/deep/file.txt run.sh link-to-main notes.txt
	git add -A
	git commit -qm init
	git status --porcelain >/dev/null
	cd /
}

# tracked_state DIR: inode and mtime of every tracked file, as seen below DIR.
tracked_state() {
	(cd "$1" && git ls-files -z | xargs -0 stat -c '%n %i %.9Y')
}

clean_inside() {
	local before
	check_eq "repository indexed outside is clean inside" "" "$(git -C "$M" status --porcelain 2>&1)"
	before=$(tracked_state "$T/src")
	check "git reset --hard" git -C "$M" reset -q --hard
	check_eq "git reset --hard rewrote nothing" "$before" "$(tracked_state "$T/src")"
}

git_basics() {
	check "git init in the repository (reinitialises it, flipping config's execute bit)" git -C "$M" init -q
	check_fails "chmod config beyond its execute bits" chmod 666 "$M/.git/config"
	check "edit, git add" bash -c "echo more >>'$M/notes.txt' && echo new >'$M/added.txt' && git -C '$M' add notes.txt added.txt"
	check "git commit" git -C "$M" commit -qm second
	check_eq "git status after commit" "" "$(git -C "$M" status --porcelain 2>&1)"
	check "git checkout -b" git -C "$M" checkout -q -b feature
	check "commit on the branch" bash -c "echo f >'$M/feature.txt' && git -C '$M' add feature.txt && git -C '$M' commit -qm feature"
	check "git checkout main" git -C "$M" checkout -q main
	check "commit on main" bash -c "echo m >'$M/main.txt' && git -C '$M' add main.txt && git -C '$M' commit -qm main"
	check "git merge" git -C "$M" merge -q --no-edit feature
	check "merged file present" test -f "$M/feature.txt"
	check "branch for a rebase" bash -c "git -C '$M' checkout -q -b topic main~1 && echo t >'$M/topic.txt' && git -C '$M' add topic.txt && git -C '$M' commit -qm topic"
	check "git rebase" git -C "$M" rebase -q main
	check "rebased onto main" git -C "$M" merge-base --is-ancestor main topic
	check "git checkout main after rebase" git -C "$M" checkout -q main
	check "git stash" bash -c "echo dirty >>'$M/notes.txt' && git -C '$M' stash -q"
	check_eq "clean after stash" "" "$(git -C "$M" status --porcelain 2>&1)"
	check "git stash pop" git -C "$M" stash pop -q
	check "stashed change back" grep -q dirty "$M/notes.txt"
	check "commit the change" git -C "$M" commit -qam stashed
	check "git gc" git -C "$M" gc -q
	check "git fsck after gc" git -C "$M" fsck --no-progress
	check "git init in a subfolder" bash -c "git init -q '$M/nested' && echo n >'$M/nested/n' && git -C '$M/nested' add n && git -C '$M/nested' commit -qm n"
}

git_worktree() {
	check "git worktree add" git -C "$M" worktree add -q "$M/wt" -b wtbranch
	check "commit in the worktree" bash -c "echo w >'$M/wt/w.txt' && git -C '$M/wt' add w.txt && git -C '$M/wt' commit -qm wt"
	check "git worktree list" bash -c "git -C '$M' worktree list | grep -q wtbranch"
	check "git worktree remove" git -C "$M" worktree remove "$M/wt"
}

# The submodule's source is a local repository outside the mount.
git_submodule() {
	one_commit_repo "$T/subsrc" lib.c lib
	check "git submodule add" git -C "$M" -c protocol.file.allow=always submodule add -q "$T/subsrc" lib
	check "commit the submodule" git -C "$M" commit -qm "add lib"
	check "git submodule update" git -C "$M" -c protocol.file.allow=always submodule update
	check "git clone inside the mount" git clone -q "$M" "$M/clone"
	check "git submodule update --init in the clone" git -C "$M/clone" -c protocol.file.allow=always submodule update --init -q
	check "submodule checked out in the clone" test -f "$M/clone/lib/lib.c"
	check "git status in the clone" test -z "$(git -C "$M/clone" status --porcelain 2>&1)"
}

fresh_tree() {
	local f=$T/fmnt
	if ! oz_mount "$T/fresh" "$f"; then
		tap_not_ok "mount an empty tree" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	check "git init at the root of a fresh tree" git init -q "$f"
	check "commit in the fresh tree" bash -c "echo a >'$f/a' && git -C '$f' add a && git -C '$f' commit -qm a"
	check_eq "fresh tree clean" "" "$(git -C "$f" status --porcelain 2>&1)"
	check "unmount the fresh tree" oz_umount "$f"
}

# make_sample DIR: files of several kinds for tar and rsync.
make_sample() {
	mkdir -p "$1/a/b/c" "$1/empty"
	echo one >"$1/a/one"
	head -c 300000 /dev/urandom >"$1/a/b/random"
	printf 'x%.0s' {1..5000} >"$1/a/b/c/text"
	chmod 640 "$1/a/one"
	chmod 2755 "$1/a/b"
	ln -s b/random "$1/a/link"
	ln "$1/a/one" "$1/a/hard"
	truncate -s 10M "$1/sparse"
	touch -h -d '2 days ago' "$1/a/one" "$1/a/link" "$1/a/b/c/text"
}

tools() {
	make_sample "$T/sample"
	tar -C "$T/sample" -cf "$T/sample.tar" .
	check "tar x" bash -c "mkdir '$M/untar' && tar -C '$M/untar' -xpf '$T/sample.tar'"
	check "untarred tree equals the original" diff -r --no-dereference "$T/sample" "$M/untar"
	check "tar c" tar -C "$M/untar" -cf "$T/again.tar" .
	check_eq "tar c lists what tar x got" "$(tar -tvf "$T/sample.tar" | sort)" "$(tar -tvf "$T/again.tar" | sort)"

	mkdir "$M/build"
	printf '#include <stdio.h>\nint main(void) { puts("built"); return 0; }\n' >"$M/build/hello.c"
	printf 'hello: hello.o\n\t$(CC) -o $@ hello.o\n' >"$M/build/Makefile"
	check "make" make -s -C "$M/build"
	check_eq "the program runs" built "$("$M/build/hello" 2>&1)"
	check "make: up to date afterwards" make -q -C "$M/build"

	check "rsync -a into the mount" rsync -a "$T/sample/" "$M/rsync/"
	check_eq "rsync -a: nothing left to change" "" "$(rsync -ani "$T/sample/" "$M/rsync/" 2>&1)"
	check "rsync -a out of the mount" rsync -a "$M/rsync/" "$T/rsync-back/"
	check "rsync round trip equal" diff -r --no-dereference "$T/sample" "$T/rsync-back"

	check "mmap writes" fsop mmap-write "$M/mapped" 1048576
	check "mmap writes read back through the mount" fsop mmap-verify "$M/mapped" 1048576
	check "mmap writes reached the underlying file" fsop mmap-verify "$T/src/mapped" 1048576
}

# sqlite_writers MODE: two sqlite3 processes insert 200 rows each, one
# transaction per row, at the same time; their locks must keep the database
# whole.
sqlite_writers() {
	local mode=$1 db=$M/$1.db w
	check "sqlite3 ($mode): create a database" sqlite3 "$db" "PRAGMA journal_mode=$mode; CREATE TABLE t(w INTEGER, i INTEGER);"
	for w in 1 2; do
		{
			echo ".timeout 20000"
			for ((i = 0; i < 200; i++)); do
				echo "BEGIN IMMEDIATE; INSERT INTO t VALUES($w, $i); COMMIT;"
			done
		} >"$T/writer$w.sql"
	done
	check "sqlite3 ($mode): two writers at once" bash -c "
		sqlite3 '$db' <'$T/writer1.sql' & a=\$!
		sqlite3 '$db' <'$T/writer2.sql' & b=\$!
		wait \$a && wait \$b"
	check_eq "sqlite3 ($mode): every row there" 400 "$(sqlite3 "$db" 'SELECT count(*) FROM t' 2>&1)"
	check_eq "sqlite3 ($mode): integrity" ok "$(sqlite3 "$db" 'PRAGMA integrity_check' 2>&1)"
}

oz_setup 900
make_repo "$T/src"
mkdir "$T/fresh"
M=$T/mnt
oz_start "$T/src" "$M"

clean_inside
git_basics
git_worktree
git_submodule
fresh_tree
tools
sqlite_writers delete
sqlite_writers wal
check "git fsck at the end" git -C "$M" fsck --no-progress
check "unmount" oz_umount "$M"
tap_done
