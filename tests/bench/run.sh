#!/bin/sh
# oz0fs benchmark suite: every workload on native ext4, oz0fs and the FUSE
# peers, in one run, interleaved and repeated. `make bench` runs it.
#
# Environment (all optional):
#   OZ0FS=path        the oz0fs binary (make bench passes the one it built)
#   OZ0FS_NOJUDGE=path oz0fs built with a judge that allows everything without
#                     asking (make bench builds tests/bench/oz0fs-nojudge);
#                     given, it is a target too, for the judge's share
#   OZ0FS_OPTS=...    extra -o options for oz0fs and oz0fs-nojudge
#   JUDGE_BENCH=path  judge-bench, MODEL_BENCH=path model-bench: run after
#   MODEL_BENCH=path  the workloads, their tables appended to the report
#   MODEL_TREE=dir    model-bench's tree (default BENCH_TMP/oz0fs-model-tree,
#                     made by model-tree.sh when missing)
#   BENCH_PARTS="..." which of judge model to run when given (default both)
#   QUICK=1           3 runs, a part of the Linux tree and smaller files
#   RUNS=N            repetitions (default 5, QUICK 3)
#   TARGETS="..."     a subset of: native oz0fs oz0fs-uring oz0fs-nojudge
#                     passthrough_ll bindfs fuse-overlayfs (oz0fs takes its
#                     requests from /dev/fuse, oz0fs-uring through FUSE over
#                     io_uring: the run turns the fuse module's enable_uring
#                     on for it and puts it back as found)
#   BENCH_GROUPS="..." a subset of: tree build meta seq rand (not GROUPS:
#                     bash ignores assignments to that name)
#   BENCH_NOTE=text   a line for the report (why a run was cut short, ...)
#   BENCH_TMP=dir     where the trees live; on the disk native is measured on
#                     (default /var/tmp)
#   RESULTS=dir       where the report goes (default: results/ here)
#   NAME=name         the report's files are NAME.{md,csv,png} (default
#                     latest, QUICK: quick), so a quick look keeps the full run
#   BENCH_COMMAND=... the command the report says reproduces it
#
# `make bench-quick` is QUICK=1 BENCH_GROUPS="tree meta" on native, oz0fs
# both ways and the best peer, without the judge and model parts.
#
# Needs root: it installs packages, mounts, and drops the page cache.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
self="$here/$(basename "$0")"

# ---- The workloads --------------------------------------------------------
# One line each, run in this order within a group. A group runs on one fresh
# mount of one target (QUICK: all its groups on one); its steps share state
# (the untarred tree, the 100k files), so when a step fails the rest of its
# mount's steps are recorded as skipped.
#   mode: time  timed as is
#         warm  run once untimed, then timed; right after the same step ran
#               (its cold run), that run is the warm-up
#         cold  page cache dropped, then timed
#         prep  untimed set-up (recorded only if it fails)
#         rss   daemon's peak RSS (VmHWM) / inodes in the tree, in bytes
#   timeout: seconds for one run of the step, full / QUICK sizes
workloads() {
	cat <<'EOF'
# name          group  mode  step        full quick  what
untar           tree   time  untar        240   60   untar the Linux source tree onto the mount
rss_untar       tree   rss   -              0    0   daemon peak RSS per inode after the untar (bytes)
EOF
	# QUICK commits on the backing folder, untimed: the status that follows
	# needs the index, and committing through the mount would take half the
	# ten minutes.
	if [ "${QUICK:-0}" = 1 ]; then
		echo 'git_commit      tree   prep  commit_back    0   90   git add -A && git commit of the tree, on the backing folder'
	else
		echo 'git_commit      tree   time  git_commit   300   90   git add -A && git commit of the tree'
	fi
	cat <<'EOF'
status_cold     tree   cold  status       120   60   git status, page cache dropped
status_warm     tree   warm  status        60   30   git status, warm
grep_cold       tree   cold  grep         240  120   grep -rF of an absent string over the tree, cold
grep_warm       tree   warm  grep         120   60   grep -rF of an absent string over the tree, warm
find            tree   time  find          60   30   find -type f | wc -l over the tree
build_prep      build  prep  build_prep    60   60   generate the C sources
build           build  time  build        300  120   make -j2 of the generated C files
meta_create     meta   time  meta_create  300  120   create the small files
meta_stat       meta   cold  meta_stat    300  120   stat each file, page cache dropped
meta_rename     meta   time  meta_rename  300  120   rename each file
rss_meta        meta   rss   -              0    0   daemon peak RSS per inode after the small files (bytes)
meta_unlink     meta   time  meta_unlink  300  120   unlink each file
seq_write       seq    time  seq_write    300  120   sequential write, 1 MiB blocks, fsync at the end
seq_read        seq    cold  seq_read     300  120   sequential read, 1 MiB blocks, cold
rand_prep       rand   prep  rand_prep    300  120   lay out the random-I/O file
rand_write      rand   time  rand_write   300  120   random 4 KiB writes, fsync at the end
rand_read       rand   cold  rand_read    300  120   random 4 KiB reads, cold
EOF
}

all_targets="native oz0fs oz0fs-uring oz0fs-nojudge passthrough_ll bindfs fuse-overlayfs"
all_groups="tree build meta seq rand"

# ---- Sizes ----------------------------------------------------------------
# QUICK: a part of the tree (drivers/net, drivers/gpu, include and arch/x86:
# 20k entries), 10k small files, 512 MiB.
if [ "${QUICK:-0}" = 1 ]; then
	runs=${RUNS:-3}
	tree_part="linux-source-6.1/drivers/net linux-source-6.1/drivers/gpu linux-source-6.1/include linux-source-6.1/arch/x86"
	meta_files=10000
	seq_size=512M
	rand_file=256M
	rand_io=32M
	build_files=200
	size_col=quick
else
	runs=${RUNS:-5}
	tree_part=
	meta_files=100000
	seq_size=4G
	rand_file=1G
	rand_io=128M
	build_files=240
	size_col=full
fi
# oz0fs-nojudge is a default target only when its binary is given.
if [ -n "${OZ0FS_NOJUDGE:-}" ]; then
	targets=${TARGETS:-$all_targets}
else
	targets=${TARGETS:-$(echo "$all_targets" | sed 's/ oz0fs-nojudge//')}
fi
groups=${BENCH_GROUPS:-$all_groups}
needle='oz0fs-bench: a string no source file holds'
linux_tarball=/usr/src/linux-source-6.1.tar.xz
hooks=1000

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
now() { date +%s.%N; }

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# ---- Steps ----------------------------------------------------------------
# Each step runs in its own process (`run.sh __step NAME MOUNT BACKING`)
# so that `timeout` can bound it and a hung mount cannot stall the run.
# $tools holds the prepared tarball and helpers.

step_untar() { tar -xf "$tools/tree.tar" -C "$1"; }
step_git_commit() {
	cd "$1"
	git add -A
	# No gc --auto: it would repack in the background, through the mount,
	# while the next workloads run.
	git -c gc.auto=0 commit -q -m bench
}
# On the backing folder (QUICK), then checked through the mount: a target
# that does not see the commit would time another workload. The tree's
# objects are linked in already packed (prepare_tools), so `git add` only
# hashes the files: it neither compresses nor writes 20k loose objects.
step_commit_back() {
	ln "$tools"/seed/.git/objects/pack/* "$2/.git/objects/pack/"
	(step_git_commit "$2")
	[ -z "$(git -C "$1" status --porcelain | head -n 1)" ] || {
		echo "the commit made on the backing folder is not seen through the mount" >&2
		return 1
	}
}
step_status() {
	cd "$1"
	git status --porcelain >/dev/null
}
step_grep() {
	# Exit status 1 is "no match", which is the point: every byte is read.
	rc=0
	grep -rF -- "$needle" "$1/linux-source-6.1" || rc=$?
	[ "$rc" -le 1 ]
}
step_find() {
	n=$(find "$1/linux-source-6.1" -type f | wc -l)
	[ "$n" -gt 0 ]
}
step_build_prep() { sh "$here/gen-build.sh" "$1/build" "$build_files"; }
step_build() { make -s -j2 -C "$1/build"; }
step_meta_create() { "$tools/meta" create "$1/meta" "$meta_files"; }
step_meta_stat() { "$tools/meta" stat "$1/meta" "$meta_files"; }
step_meta_rename() { "$tools/meta" rename "$1/meta" "$meta_files"; }
step_meta_unlink() { "$tools/meta" unlink "$1/meta" "$meta_files"; }

# fio with psync: one syscall per block, as a build or an editor does.
fio_run() {
	fio --output=/dev/null --name=bench --ioengine=psync --filename="$1/fio.dat" "$@"
}
step_seq_write() { fio_run "$1" --rw=write --bs=1M --size="$seq_size" --end_fsync=1; }
step_seq_read() { fio_run "$1" --rw=read --bs=1M --size="$seq_size"; }
step_rand_prep() { fio_run "$1" --rw=write --bs=1M --size="$rand_file" --end_fsync=1; }
step_rand_write() {
	fio_run "$1" --rw=randwrite --bs=4k --size="$rand_file" --io_size="$rand_io" \
		--randrepeat=1 --end_fsync=1
}
step_rand_read() {
	fio_run "$1" --rw=randread --bs=4k --size="$rand_file" --io_size="$rand_io" --randrepeat=1
}

if [ "${1:-}" = __step ]; then
	tools=$5
	"step_$2" "$3" "$4"
	exit 0
fi

# ---- Targets --------------------------------------------------------------
# mount_T BACKING MOUNT: mounts BACKING at MOUNT and returns once it is live.
# native measures BACKING itself (MOUNT is a symlink to it).
# comm_T: the daemon's process name, to find its pid for the RSS figures.

mount_native() { rmdir "$2" && ln -s "$1" "$2"; }
comm_native() { :; }

mount_oz0fs() { "$oz0fs" -o "uring=off${OZ0FS_OPTS:+,$OZ0FS_OPTS}" "$1" "$2"; }
comm_oz0fs() { echo oz0fs; }

# The same oz0fs taking its requests through FUSE over io_uring; a mount
# that came up on /dev/fuse instead fails.
mount_oz0fs_uring() {
	"$oz0fs" -o "uring=auto${OZ0FS_OPTS:+,$OZ0FS_OPTS}" "$1" "$2" || return 1
	pid=$(daemon_pid oz0fs-uring "$2")
	if [ -z "$pid" ] || ! holds_uring "$pid"; then
		unmount oz0fs-uring "$2"
		echo "the daemon does not take requests through io_uring"
		return 1
	fi
}
comm_oz0fs_uring() { echo oz0fs; }
holds_uring() {
	for fd in "/proc/$1/fd/"*; do
		case $(readlink "$fd") in *io_uring*) return 0 ;; esac
	done
	return 1
}

# The same oz0fs, same options, but its judge allows everything unasked.
mount_oz0fs_nojudge() { "$oz0fs_nojudge" -o "uring=off${OZ0FS_OPTS:+,$OZ0FS_OPTS}" "$1" "$2"; }
comm_oz0fs_nojudge() { echo oz0fs-nojudge; }

# passthrough_ll at its fastest: kernel caches kept (cache=always), writeback
# cache, multithreaded with a cloned /dev/fuse fd per thread.
mount_passthrough_ll() {
	"$tools/passthrough_ll" -o "source=$1,cache=always,writeback,clone_fd" "$2"
}
comm_passthrough_ll() { echo passthrough_ll; }

# bindfs is single-threaded unless told otherwise.
mount_bindfs() { bindfs --multithreaded "$1" "$2"; }
comm_bindfs() { echo bindfs; }

# fuse-overlayfs with the tree as its upper layer over an empty lower one:
# every file lives in the upper layer, as after an agent's first writes.
mount_fuse_overlayfs() {
	mkdir -p "$1.lower" "$1.work"
	fuse-overlayfs -o "lowerdir=$1.lower,upperdir=$1,workdir=$1.work" "$2"
}
comm_fuse_overlayfs() { echo fuse-overlayfs; }

fn() { echo "$1" | tr - _; }

# daemon_pid TARGET MOUNT: the pid of the daemon serving MOUNT.
daemon_pid() {
	comm=$("comm_$(fn "$1")")
	[ -n "$comm" ] || return 0
	for p in $(pgrep -x "$comm" || true); do
		if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF -- " $2"; then
			echo "$p"
			return 0
		fi
	done
}

# alive PID: the process runs (a daemon reparented to a subreaper that does
# not reap it lingers as a zombie, which is as good as gone).
alive() {
	state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$state" ] && [ "$state" != Z ]
}

# unmount TARGET MOUNT: lazily if busy; then waits for the daemon we started
# to end, and ends it by its pid if it will not.
unmount() {
	if [ "$1" = native ]; then
		rm -f "$2"
		return 0
	fi
	pid=$(daemon_pid "$1" "$2")
	fusermount3 -u "$2" 2>/dev/null || fusermount3 -uz "$2" 2>/dev/null || true
	if [ -n "$pid" ]; then
		i=0
		while alive "$pid" && [ $i -lt 50 ]; do
			sleep 0.2
			i=$((i + 1))
		done
		kill -9 "$pid" 2>/dev/null || true
	fi
	rmdir "$2" 2>/dev/null || true
}

# fresh_backing DIR: a Git working tree whose .git/hooks holds $hooks files.
# Everything in hooks is protected, so oz0fs's model holds at least $hooks
# protected objects. It is made before mounting, the same for every target;
# none of the names is a hook Git runs.
fresh_backing() {
	rm -rf "$1" "$1.lower" "$1.work"
	mkdir -p "$1"
	git init -q "$1"
	i=1
	while [ $i -le $hooks ]; do
		printf '#!/bin/sh\nexit 0\n' >"$1/.git/hooks/bench-$i"
		i=$((i + 1))
	done
}

# ---- Recording ------------------------------------------------------------
# results.csv: run,target,workload,value,unit,status,error
record() {
	err=$(printf '%s' "$7" | tr '\n,"' '   ' | cut -c1-300)
	printf '%s,%s,%s,%s,%s,%s,"%s"\n' "$1" "$2" "$3" "$4" "$5" "$6" "$err" >>"$csv"
}

# run_step STEP LIMIT MOUNT BACKING: one run of a step, bounded in time;
# its stderr is kept for the record.
run_step() {
	timeout -k 10 "$2" sh "$self" __step "$1" "$3" "$4" "$tools" \
		2>"$work/step.err" >/dev/null
}

# in_groups GROUP SET: GROUP is one of SET, groups joined by "+".
in_groups() {
	case "+$2+" in *"+$1+"*) return 0 ;; esac
	return 1
}

# run_group RUN TARGET GROUPS: one fresh mount, the steps of GROUPS (one
# group, or several joined by "+") in order.
# A group that failed on a target in two runs is not tried again: its steps
# are recorded as skipped at once (a target that cannot untar the tree would
# otherwise spend minutes failing in every run).
run_group() {
	run=$1 target=$2 group=$3
	backing="$work/$target"
	mnt="$work/$target.mnt"
	failed=
	if [ "$(grep -cxF "$target $group" "$work/failures")" -ge 2 ]; then
		failed="skipped: failed in two earlier runs"
		say "run $run: $group on $target $failed"
		workloads | grep -v '^#' | while read -r name grp mode _; do
			in_groups "$grp" "$group" || continue
			[ "$mode" != prep ] || continue
			record "$run" "$target" "$name" "" s failed "$failed"
		done
		return 0
	fi
	fresh_backing "$backing"
	mkdir -p "$mnt"
	if ! out=$("mount_$(fn "$target")" "$backing" "$mnt" 2>&1); then
		failed="mount failed: $out"
		echo "$target $group" >>"$work/failures"
	fi
	last=
	workloads | grep -v '^#' | while read -r name grp mode step tfull tquick _what; do
		in_groups "$grp" "$group" || continue
		if [ -n "$failed" ]; then
			[ "$mode" = prep ] || record "$run" "$target" "$name" "" s failed "$failed"
			continue
		fi
		if [ "$mode" = rss ]; then
			pid=$(daemon_pid "$target" "$mnt")
			if [ -z "$pid" ]; then
				record "$run" "$target" "$name" "" B/inode na "no daemon"
				continue
			fi
			hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
			inodes=$(find "$backing" | wc -l)
			record "$run" "$target" "$name" "$((hwm * 1024 / inodes))" B/inode ok \
				"VmHWM ${hwm} KiB over $inodes inodes"
			continue
		fi
		if [ "$size_col" = quick ]; then limit=$tquick; else limit=$tfull; fi
		rc=0
		case $mode in
		warm) [ "$last" = "$step" ] || run_step "$step" "$limit" "$mnt" "$backing" || rc=$? ;;
		cold) drop_caches ;;
		esac
		last=$step
		if [ $rc -eq 0 ]; then
			t0=$(now)
			run_step "$step" "$limit" "$mnt" "$backing" || rc=$?
			t1=$(now)
		fi
		if [ $rc -eq 0 ]; then
			[ "$mode" = prep ] ||
				record "$run" "$target" "$name" "$(echo "$t1 - $t0" | bc)" s ok ""
		else
			if [ $rc -ge 124 ]; then why="timeout after ${limit}s"; else why="exit $rc"; fi
			why="$why: $(tail -n 2 "$work/step.err")"
			say "$target $name failed: $why"
			record "$run" "$target" "$name" "" s failed "$why"
			failed="skipped: $name failed"
			echo "$target $group" >>"$work/failures"
		fi
	done
	unmount "$target" "$mnt"
	rm -rf "$backing" "$backing.lower" "$backing.work"
}

# ---- Set-up ---------------------------------------------------------------
# install_deps: only what is missing, from Debian.
install_deps() {
	need=
	for pkg in bindfs fuse-overlayfs fuse3 libfuse3-dev linux-source-6.1 fio \
		gnuplot-nox build-essential pkg-config git bc procps psmisc xz-utils; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' ||
			need="$need $pkg"
	done
	[ -z "$need" ] && return 0
	say "installing:$need"
	apt-get update -q
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need
}

# prepare_tools: the helpers and the tarball, built outside the tree. The
# tarball is decompressed ahead of time (xz would dominate the untar), and
# Debian's .gitignore, which ignores the whole top level, loses its Debian
# block so that `git add -A` adds the tree.
prepare_tools() {
	cc -O2 -Wall -o "$tools/meta" "$here/meta.c"
	# The example and its header; Debian may compress either.
	ex=/usr/share/doc/libfuse3-dev/examples
	for f in passthrough_ll.c passthrough_helpers.h; do
		if [ -f "$ex/$f" ]; then cp "$ex/$f" "$tools/"; elif [ -f "$ex/$f.gz" ]; then gzip -dc "$ex/$f.gz" >"$tools/$f"; fi
	done
	if [ -f "$tools/passthrough_ll.c" ]; then
		# shellcheck disable=SC2046 # pkg-config prints a list of flags
		cc -O2 -w -o "$tools/passthrough_ll" "$tools/passthrough_ll.c" $(pkg-config fuse3 --cflags --libs)
	fi
	cache=$tree_cache
	if ! [ -f "$cache" ] || [ -n "$(find "$linux_tarball" -newer "$cache")" ]; then
		say "preparing the Linux tree tarball"
		x="$tools/x"
		mkdir -p "$x"
		# The whole tree, or just the part and the .gitignore.
		# shellcheck disable=SC2086 # tree_part is a list of folders
		if [ -n "$tree_part" ]; then set -- $tree_part linux-source-6.1/.gitignore; else set --; fi
		tar -xJf "$linux_tarball" -C "$x" "$@"
		sed -i '/^# Debian packaging/,$d' "$x/linux-source-6.1/.gitignore"
		tar -cf "$cache.tmp" -C "$x" linux-source-6.1
		mv "$cache.tmp" "$cache"
		rm -rf "$x"
	fi
	ln -s "$cache" "$tools/tree.tar"
	[ "${QUICK:-0}" != 1 ] || seed_objects "$tools/seed"
}

# seed_objects DIR: a repository in DIR holding the tree's commit in one
# pack, and no working files.
seed_objects() {
	git init -q "$1"
	tar -xf "$tools/tree.tar" -C "$1"
	(step_git_commit "$1")
	git -C "$1" repack -adq
	rm -rf "$1/linux-source-6.1"
}

# usable TARGET: 0 if it mounts here; else prints why.
usable() {
	case $1 in
	oz0fs | oz0fs-uring) [ -x "$oz0fs" ] || { echo "no oz0fs binary (set OZ0FS)"; return 1; } ;;
	oz0fs-nojudge) [ -x "$oz0fs_nojudge" ] || { echo "no oz0fs-nojudge binary (set OZ0FS_NOJUDGE)"; return 1; } ;;
	passthrough_ll)
		[ -x "$tools/passthrough_ll" ] || {
			echo "libfuse3-dev ships no passthrough_ll.c example"
			return 1
		}
		;;
	esac
	b="$work/probe-$1"
	m="$b.mnt"
	fresh_backing "$b"
	mkdir -p "$m"
	rc=0
	out=$("mount_$(fn "$1")" "$b" "$m" 2>&1) || rc=$?
	if [ $rc -eq 0 ] && ! [ -d "$m/.git/hooks" ]; then rc=1 out="mounted, but the tree is not visible"; fi
	# oz0fs must judge: a new file among the hooks has to be refused.
	if [ $rc -eq 0 ] && [ "${1%-uring}" = oz0fs ] && touch "$m/.git/hooks/pre-commit" 2>/dev/null; then
		echo "$1 accepted a new .git/hooks/pre-commit: its policy was NOT enforcing in this run" >>"$notes"
	fi
	# ... and oz0fs-nojudge must not, or the judge's share means nothing.
	if [ $rc -eq 0 ] && [ "$1" = oz0fs-nojudge ] && ! touch "$m/.git/hooks/pre-commit" 2>/dev/null; then
		echo "oz0fs-nojudge refused a new .git/hooks/pre-commit: it is not the variant whose judge allows everything" >>"$notes"
	fi
	unmount "$1" "$m"
	rm -rf "$b" "$b.lower" "$b.work"
	[ $rc -eq 0 ] || { echo "$out" | tail -n 1; return 1; }
}

versions() {
	v() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo '?'; }
	echo "- kernel: $(uname -sr)"
	echo "- CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores; $(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM"
	fstype=$(df -T "$BENCH_TMP" | awk 'NR == 2 { print $2 }')
	dev=$(df "$BENCH_TMP" | awk 'NR == 2 { print $1 }')
	# shellcheck disable=SC3045 # dash and bash both have ulimit -n
	echo "- disk: $fstype on a $(lsblk -ndo TYPE "$dev" 2>/dev/null || echo '?') device; open-file limit $(ulimit -n)"
	echo "- oz0fs: ${oz0fs_version:-unavailable}${OZ0FS_OPTS:+ (-o $OZ0FS_OPTS)}"
	echo "- libfuse $(v libfuse3-3) (passthrough_ll example), bindfs $(v bindfs), fuse-overlayfs $(v fuse-overlayfs)"
	echo "- git $(v git), GNU tar $(v tar), grep $(v grep), fio $(v fio), gcc $(v gcc)"
}

# ---- Report ---------------------------------------------------------------
# write_report CSV DURATION: NAME.{csv,md,png} from the runs in CSV.
# `run.sh __report CSV` redraws a report from a kept CSV (e.g. of a run
# stopped early: the runs it finished are all there).
write_report() {
	nruns=$(awk -F, 'NR > 1 { if ($1 > n) n = $1 } END { print n + 0 }' "$1")
	entries=$(tar -tf "$tree_cache" 2>/dev/null | wc -l)
	# Errors name the scratch directory; the committed CSV keeps paths in it
	# relative to it.
	sed "s|$BENCH_TMP/oz0fs-bench\.[A-Za-z0-9]*/||g" "$1" >"$report_base.csv.tmp"
	mv "$report_base.csv.tmp" "$report_base.csv"
	set -- "$report_base.csv" "$2"
	{
		echo "# oz0fs benchmark"
		echo
		echo "$(date -u +%Y-%m-%d), $nruns runs$([ "${QUICK:-0}" = 1 ] && echo ', QUICK sizes'), $2; reproduce with \`${BENCH_COMMAND:-make bench}\`."
		echo
		versions
		echo
		[ ! -s "$notes" ] || { sed 's/.*/**&**/' "$notes"; echo; }
		[ -z "${BENCH_NOTE:-}" ] || { echo "$BENCH_NOTE"; echo; }
		order=$(workloads | grep -v '^#' | awk '{ printf "%s|", $1 }')
		# The targets the runs measured; oz0fs-nojudge has a table of its
		# own below, and no bars in the chart.
		shown=
		for t in $all_targets; do
			[ "$t" = oz0fs-nojudge ] || ! grep -q "^[0-9]*,$t," "$1" || shown="$shown $t"
		done
		sh "$here/report.sh" "$1" "$report_base.dat" "$order" "$shown"
		echo
		echo "Each cell: median (min–max) over the runs, and the ratio of the median to native ext4's."
		echo "Times in seconds; RSS rows in bytes of the daemon's peak RSS (VmHWM) per inode in the tree."
		echo "Sizes: ${tree_part:+$tree_part of }Debian's linux-source-6.1 tree ($entries entries, tarball decompressed beforehand),"
		echo "$build_files generated C files, $meta_files small files, $seq_size sequential, 4 KiB random I/O of $rand_io over $rand_file."
		echo "Trees are Git working trees whose .git/hooks holds $hooks files (made before mounting, the same on every target), so oz0fs judges with at least $hooks protected objects."
		echo "Runs are interleaved (each workload on every target in turn, order rotated each run); other builds shared the 2 cores, so expect noise."
		[ "${QUICK:-0}" != 1 ] || echo "QUICK sizes run the groups one after another on one mount per target and run (so rss_meta is the peak over both, per inode of the whole tree); the QUICK commit is made on the backing folder from packed objects, untimed."
		echo "Every git command runs with the benchmark's own identity and no global or system configuration."
		share=$(sh "$here/report.sh" --judge "$1" "$order")
		if [ -n "$share" ]; then
			echo
			echo "## The judge's share of an operation's time"
			echo
			echo "oz0fs against oz0fs-nojudge, the same build mounted the same way but with a judge that allows every"
			echo "operation without asking (\`OZ0_JUDGE_ALLOWS_ALL\`, built only for the benchmark). Judge share:"
			echo "(oz0fs − oz0fs-nojudge) / oz0fs of the medians, \"within noise\" where the two ranges (min–max) overlap."
			echo
			echo "$share"
		fi
		for part in judge model; do
			f=${work:-/nonexistent}/$part.md
			[ -s "$f" ] || continue
			echo
			# Each part's table is headed "# ..." of its own: one level down here.
			sed 's/^#/##/' "$f"
		done
	} >"$report_base.md"
	gperr=$(mktemp)
	if gnuplot -e "datafile='$report_base.dat'; outfile='$report_base.png'" "$here/chart.gp" 2>"$gperr"; then
		say "chart: $report_base.png"
	else
		say "gnuplot failed: $(tail -n 1 "$gperr")"
	fi
	rm -f "$report_base.dat" "$gperr"
	say "report: $report_base.md"
}

# parts: the judge and the model benchmarks (make bench-judge, bench-model),
# each a program that prints its own Markdown table, kept for the report.
parts() {
	sync
	case " ${BENCH_PARTS-judge model} " in *" judge "*) ;; *) JUDGE_BENCH= ;; esac
	case " ${BENCH_PARTS-judge model} " in *" model "*) ;; *) MODEL_BENCH= ;; esac
	if [ -n "${JUDGE_BENCH:-}" ]; then
		say "judge benchmark"
		# Given a file, judge-bench writes its table there with a heading.
		"$JUDGE_BENCH" "$work/judge.md" >/dev/null 2>"$work/part.err" ||
			echo "judge-bench failed: $(tail -n 1 "$work/part.err")" >>"$notes"
	fi
	if [ -n "${MODEL_BENCH:-}" ]; then
		tree=${MODEL_TREE:-$BENCH_TMP/oz0fs-model-tree}
		if ! [ -d "$tree/.git" ]; then
			say "making the model benchmark's tree in $tree"
			bash "$here/model-tree.sh" "$tree" >/dev/null 2>"$work/part.err" ||
				echo "model-tree.sh failed: $(tail -n 1 "$work/part.err")" >>"$notes"
		fi
		say "model benchmark"
		if table=$("$MODEL_BENCH" "$tree" 2>"$work/part.err"); then
			{
				echo "# The Git model"
				echo
				echo "\`make bench-model\`: the model's build when the mount starts, its refresh after \`git add\`, and a full"
				echo "rebuild, on a tree of 1,000 submodules (200 checked out) and 100,000 index entries (tests/bench/model-tree.sh)."
				echo
				echo "$table"
			} >"$work/model.md"
		else
			echo "model-bench failed: $(tail -n 1 "$work/part.err")" >>"$notes"
		fi
	fi
}

# ---- Main -----------------------------------------------------------------
[ "$(id -u)" = 0 ] || die "run as root: it installs packages, mounts and drops caches"
# The commits are the benchmark's own, whoever runs it and however their
# Git is configured.
export GIT_AUTHOR_NAME=oz0fs-bench GIT_AUTHOR_EMAIL=bench@oz0fs.invalid
export GIT_COMMITTER_NAME=oz0fs-bench GIT_COMMITTER_EMAIL=bench@oz0fs.invalid
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
BENCH_TMP=${BENCH_TMP:-/var/tmp}
RESULTS=${RESULTS:-$here/results}
if [ "${QUICK:-0}" = 1 ]; then name=${NAME:-quick}; else name=${NAME:-latest}; fi
report_base="$RESULTS/$name"
mkdir -p "$RESULTS"
# A part's tarball is named by what it holds, so a changed part is made again.
tree_cache="$BENCH_TMP/oz0fs-bench-tree${tree_part:+-$(echo "$tree_part" | cksum | cut -d' ' -f1)}.tar"
abspath() { [ -z "$1" ] || echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
oz0fs=$(abspath "${OZ0FS:-}")
oz0fs_nojudge=$(abspath "${OZ0FS_NOJUDGE:-}")
[ ! -x "$oz0fs" ] || oz0fs_version=$("$oz0fs" --version 2>/dev/null | head -n 1) || true
if [ "${1:-}" = __report ]; then
	notes=/dev/null
	write_report "$2" "${3:-duration not recorded}"
	exit 0
fi
install_deps
work=$(mktemp -d "$BENCH_TMP/oz0fs-bench.XXXXXX")
tools="$work/tools"
mkdir -p "$tools"
csv="$work/results.csv"
notes="$work/notes"
: >"$notes"
: >"$work/failures"
uring_param=/sys/module/fuse/parameters/enable_uring
uring_was=
cleanup() {
	for t in $all_targets; do unmount "$t" "$work/$t.mnt" 2>/dev/null || true; done
	rm -rf "$work"
	[ -z "$uring_was" ] || echo "$uring_was" >"$uring_param"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
case " $targets " in
*" oz0fs-uring "*)
	if [ -w "$uring_param" ]; then
		uring_was=$(cat "$uring_param")
		echo Y >"$uring_param"
	fi
	;;
esac
prepare_tools
echo 'run,target,workload,value,unit,status,error' >"$csv"

live=
for t in $targets; do
	if why=$(usable "$t"); then
		live="$live $t"
	else
		say "$t unavailable: $why"
		workloads | grep -v '^#' | while read -r name grp mode _; do
			[ "$mode" != prep ] || continue
			case " $groups " in *" $grp "*) record 0 "$t" "$name" "" s failed "unavailable: $why" ;; esac
		done
	fi
done

# Interleave: each group runs on every target in turn, the order rotated
# every run, so that noise from other work on the machine (and the page
# cache's history) falls on all targets alike rather than on the last one.
# QUICK runs its groups on one mount per target and run: a fresh tree and
# mount, and the sync that clears them away, cost about as much as the
# steps of a group at QUICK sizes.
if [ "${QUICK:-0}" = 1 ]; then mounts=$(echo "$groups" | tr ' ' +); else mounts=$groups; fi
started=$(now)
r=1
while [ $r -le "$runs" ]; do
	# shellcheck disable=SC2086 # $live is a list of names
	set -- $live
	k=1
	while [ $k -lt "$r" ] && [ $# -gt 1 ]; do
		first=$1
		shift
		set -- "$@" "$first"
		k=$((k + 1))
	done
	order="$*"
	for g in $mounts; do
		for t in $order; do
			say "run $r/$runs: $g on $t"
			run_group "$r" "$t" "$g"
		done
	done
	r=$((r + 1))
done
parts
elapsed=$(echo "$(now) - $started" | bc | cut -d. -f1)
write_report "$csv" "$((elapsed / 60)) min"
