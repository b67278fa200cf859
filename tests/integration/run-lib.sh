# shellcheck shell=bash
# Shared by the runner's tests (test-run-*.sh): oz0run for real, on trees
# the real git made, through a real FUSE mount, under real cgroups.
#
#   . "$(dirname "$0")/run-lib.sh"
#   rl_setup 300                  # scratch $T, the state dir; FUSE must work
#   rl_require_cgroups            # v1 memory, pids and cpu, or skip (fail in CI)
#   rl_repo "$T/tree"             # a repository with three commits
#   rl_go NAME ARGS... -- ARGV... # oz0run ARGS, with --report and --audit
#   rl_raw NAME ARGS...           # oz0run with exactly ARGS
#   tap_done
#
# A run NAME leaves $T/NAME.out (stdout) and .err (stderr), and
# $RL_OUT/NAME.json (the report) and .audit (the mount's audit file), RL_OUT
# being $T unless a test sets it; its status is $rl_rc and its time in
# milliseconds $rl_ms. Set RL_AS=USER (and RL_HOME, a folder USER may write
# as RL_OUT) to run oz0run as USER. rl_at_exit CMD runs CMD at the end.
#
# $T lies outside /tmp, since the sandbox's /tmp is its own: what a test
# gives the command (fsop, source repositories) stays where it can read it.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OZ0RUN=${OZ0RUN:-${OZ0_BUILDDIR:-.}/oz0run}
OZ0FS=${OZ0FS:-${OZ0_BUILDDIR:-.}/oz0fs}
RL_PROBE=$OZ_LIB_DIR/run-probe.py
# Seconds one run may take before it counts as hung.
RL_TIMEOUT=${RL_TIMEOUT:-60}
rl_rc=0 rl_ms=0 rl_name=
RL_AS=
RL_HOME=
RL_AT_EXIT=()

# rl_setup SECONDS: scratch space, the state dir, a working FUSE mount.
rl_setup() {
	local base=/var/tmp
	[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
	TMPDIR=$base oz_setup "$1"
	RL_OUT=$T
	trap rl_cleanup EXIT
	# Runs as nobody reach their folders through $T.
	chmod 711 "$T"
	mkdir -m 700 "$T/state"
	export OZ0RUN_STATE_DIR=$T/state
	# The command's PATH: the system's and fsop, never a per-user
	# interpreter below the home the sandbox hides.
	RL_PATH=$T/bin:/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin
	git config --global safe.directory '*'
	oz_require
	if ! [ -x "$OZ0RUN" ]; then
		tap_not_ok "oz0run is built" "no oz0run binary at $OZ0RUN"
		tap_done
	fi
	# FUSE itself works here: what fails from now on is oz0run's.
	mkdir "$T/fuse-src"
	oz_start "$T/fuse-src" "$T/fuse-mnt"
	oz_umount "$T/fuse-mnt" >/dev/null || oz_unavailable "cannot unmount a plain oz0fs mount"
}

# rl_at_exit CMD...: CMD (one shell word list, eval'd) runs when the test
# ends, before the scratch space goes.
rl_at_exit() {
	RL_AT_EXIT+=("$*")
}

rl_cleanup() {
	local c
	for c in "${RL_AT_EXIT[@]}"; do
		eval "$c" || true
	done
	oz_cleanup
}

# rl_require_cgroups: the v1 hierarchies this machine limits with.
rl_require_cgroups() {
	local c
	for c in memory pids cpu; do
		"$OZ_PY" "$RL_PROBE" cgself | grep -q "^$c " ||
			oz_unavailable "no cgroup v1 $c hierarchy (this suite is for a cgroup v1 machine)"
	done
}

# ---- Trees -----------------------------------------------------------------

# rl_repo DIR: a repository with three commits (file1.txt .. file3.txt).
rl_repo() {
	local i
	git init -q "$1"
	for i in 1 2 3; do
		echo "$i" >"$1/file$i.txt"
		git -C "$1" add "file$i.txt"
		git -C "$1" commit -qm "file $i"
	done
}

# ---- Running oz0run ------------------------------------------------------------

# rl_raw NAME ARGS...: oz0run ARGS, bounded in time, stdin empty.
rl_raw() {
	local name=$1 start
	shift
	rl_name=$name rl_rc=0
	start=$(date +%s%N)
	if [ -n "$RL_AS" ]; then
		timeout -k 5 "$RL_TIMEOUT" setpriv --reuid="$RL_AS" --regid="$(id -gn "$RL_AS")" --clear-groups \
			env HOME="$RL_HOME" PATH="$RL_PATH" OZ0RUN_STATE_DIR="$OZ0RUN_STATE_DIR" "$OZ0RUN" "$@" \
			>"$T/$name.out" 2>"$T/$name.err" </dev/null || rl_rc=$?
	else
		timeout -k 5 "$RL_TIMEOUT" env PATH="$RL_PATH" "$OZ0RUN" "$@" \
			>"$T/$name.out" 2>"$T/$name.err" </dev/null || rl_rc=$?
	fi
	rl_ms=$((($(date +%s%N) - start) / 1000000))
	# timeout's own 124 (or 137) is not oz0run's: a hung run is -1.
	if [ "$rl_rc" -ge 124 ] && [ "$rl_ms" -ge $((RL_TIMEOUT * 1000)) ]; then
		rl_rc=-1
	fi
}

# rl_go NAME ARGS...: rl_raw with --report and --audit in $RL_OUT.
rl_go() {
	local name=$1
	shift
	rl_raw "$name" --report "$RL_OUT/$name.json" --audit "$RL_OUT/$name.audit" "$@"
}

# rl_detail: what the last run said, for a failed check.
rl_detail() {
	if [ "$rl_rc" -eq -1 ]; then
		echo "oz0run hung: killed after ${RL_TIMEOUT}s (run $rl_name); stderr:"
	else
		echo "oz0run exit status $rl_rc after $rl_ms ms (run $rl_name); stderr:"
	fi
	tail -n 8 "$T/$rl_name.err" 2>/dev/null
	if [ -s "$T/$rl_name.out" ]; then
		echo "stdout:"
		head -n 8 "$T/$rl_name.out" | cut -c 1-200
	fi
}

# rl_is NAME EXPECTED ACTUAL: one TAP line, the last run's output on failure.
rl_is() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_not_ok "$1" "expected: $2" "got:      $3" "$(rl_detail)"
	fi
}

# rl_ok NAME CMD...: one TAP line, ok when CMD succeeds.
rl_ok() {
	local name=$1 st=0
	shift
	"$@" >"$T/rl_ok.out" 2>&1 || st=$?
	tap_result "$name" "$st" "$(cat "$T/rl_ok.out")" "$(rl_detail)"
}

# rl_status NAME WANT: the last run exited WANT.
rl_status() {
	rl_is "$1" "exit status $2" "exit status $rl_rc"
}

# rl_json RUN EXPR: the Python expression EXPR over RUN's report (as j).
rl_json() {
	"$OZ_PY" -c 'import json, sys
try:
    j = json.load(open(sys.argv[1]))
except OSError:
    print("no report"); sys.exit(0)
except ValueError:
    print("invalid JSON"); sys.exit(0)
try:
    print(eval(sys.argv[2]))
except Exception as e:
    print("%s: %s" % (type(e).__name__, e))' "$RL_OUT/$1.json" "$2"
}

# rl_err_has RUN PATTERN: RUN's stderr has a line matching PATTERN (ERE).
rl_err_has() {
	grep -qE -- "$2" "$T/$1.err"
}

# rl_one_line RUN: RUN's stderr is exactly one line, oz0run's, and its
# stdout is empty.
rl_one_line() {
	local n
	n=$(wc -l <"$T/$1.err")
	[ "$n" -eq 1 ] || { echo "stderr has $n lines"; return 1; }
	grep -q '^oz0run: ' "$T/$1.err" || { echo "stderr does not start with 'oz0run: '"; return 1; }
	[ ! -s "$T/$1.out" ] || { echo "stdout is not empty"; return 1; }
}

# rl_mark N: a word no other process holds, which is also a duration for
# sleep of N and a fraction seconds: the watcher finds the command by it.
rl_mark() {
	printf '%d.%05d%d' "$1" "$RANDOM" "$$"
}

# ---- Looking from outside ------------------------------------------------------

# rl_watch RUN MARK: starts the watcher for the command holding the word
# MARK (run-probe.py watch), before the run; rl_watched waits for it.
rl_watch() {
	"$OZ_PY" "$RL_PROBE" watch "$2" "$T/$1.watch" "$RL_TIMEOUT" "$OZ0RUN" "$OZ0FS" </dev/null &
	rl_watcher=$!
	echo "$rl_watcher" >>"$T/pids"
	rl_at_exit "kill $rl_watcher 2>/dev/null"
}

rl_watched() {
	wait "$rl_watcher" || true
}

# rl_go_watched RUN MARK ARGS...: rl_go RUN ARGS, watched for MARK.
rl_go_watched() {
	local name=$1 mark=$2
	shift 2
	rl_watch "$name" "$mark"
	rl_go "$name" "$@"
	rl_watched
}

# rl_w RUN KEY: a value the watcher wrote.
rl_w() {
	sed -n "s/^$2=//p" "$T/$1.watch" 2>/dev/null | head -n 1
}

# rl_seen RUN: the watcher saw the command (else says so).
rl_seen() {
	[ "$(rl_w "$1" seen)" = 1 ] || { echo "the watcher never saw the command"; return 1; }
}

# rl_gone RUN: no process the watcher saw, nor the daemon the report names,
# is alive half a second after oz0run exited.
rl_gone() {
	local pids left i
	rl_seen "$1" || return 1
	[ "$(rl_w "$1" end)" = 1 ] || { echo "the watcher still saw processes of the run"; return 1; }
	pids="$(rl_w "$1" procs) $(rl_w "$1" daemon) $(rl_json "$1" 'j["daemon_pid"]' | grep -E '^[0-9]+$')"
	for ((i = 0; i < 10; i++)); do
		# shellcheck disable=SC2086 # a list of pids
		left=$("$OZ_PY" "$RL_PROBE" alive $pids)
		[ -n "$left" ] || return 0
		sleep 0.05
	done
	echo "still alive: $left"
	ps -o pid,ppid,stat,args -p "${left// /,}" 2>/dev/null || true
	return 1
}

# rl_cg_before: the cgroup folders below ours, before a run.
rl_cg_before() {
	"$OZ_PY" "$RL_PROBE" cgdirs >"$T/cg.before"
}

# rl_cg_same [RUN]: no cgroup folder is left that was not there before
# rl_cg_before; and the folders the watcher saw RUN's command in are gone.
rl_cg_same() {
	local left c d
	left=$("$OZ_PY" "$RL_PROBE" cgleft "$T/cg.before")
	[ -z "$left" ] || { echo "left: $left"; return 1; }
	[ -n "${1:-}" ] || return 0
	for c in memory pids cpu cpuacct; do
		d=$(rl_w "$1" "cg.$c")
		[ -z "$d" ] || [ ! -e "$d" ] || { echo "the sandbox's $c cgroup $d is still there"; return 1; }
	done
}

# rl_mounts: the mount points in our namespace below $T (and any extra
# folders given in RL_MOUNT_ROOTS).
rl_mounts() {
	local root
	for root in "$T" ${RL_MOUNT_ROOTS:-}; do
		awk -v r="$root" 'index($5, r) == 1 { print $5 }' /proc/self/mountinfo
	done | sort
}

# rl_mounts_before, rl_mounts_same: nothing is mounted after a run that was
# not before.
rl_mounts_before() {
	rl_mounts >"$T/mounts.before"
}
rl_mounts_same() {
	rl_mounts | diff "$T/mounts.before" - || { echo "mounted now, not before (or gone)"; return 1; }
}
