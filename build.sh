#!/bin/sh
# The two Quickstart commands:
#   ./build.sh demo    install what is missing, build, and run the demo
#   ./build.sh check   install what is missing, then build and run every suite:
#                      unit and integration tests in a normal build, its
#                      mounts over FUSE over io_uring, and in a sanitizer
#                      (ASan+UBSan) build, its mounts on /dev/fuse; the
#                      fuzzers' corpus replay; the normal build's also tests
#                      the install and the Debian package (tests/package/).
# It ends with one line, "N passed, N failed", over all suites.
set -eu
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
jobs=$(nproc 2>/dev/null || echo 2)

install_deps() {
	sh contrib/install-deps.sh
}

# configure_build DIR [configure options...]: an out-of-tree build in DIR.
configure_build() {
	dir=$1
	shift
	if ! [ -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
		autoreconf -fi >/dev/null
		# automake ships the TAP driver but does not install it by itself.
		cp "$(automake --print-libdir)/tap-driver.sh" build-aux/
	fi
	mkdir -p "$dir"
	if [ ! -f "$dir/Makefile" ] || [ "$dir/config.status" -ot configure ]; then
		(cd "$dir" && "$top/configure" -q "$@")
	fi
	make -s -C "$dir" -j"$jobs"
}

# count_results DIR...: sums automake's per-test results (.trs files); a skip
# counts as a failure, since a suite must never pass by skipping.
count_results() {
	find "$@" -name '*.trs' -exec cat {} + 2>/dev/null | awk '
		/^:test-result: PASS/ { p++ }
		/^:test-result: (FAIL|XPASS|ERROR|SKIP)/ { f++ }
		END { printf "%d %d\n", p, f }'
}

passed=0
failed=0
# tally DIR...: adds the results in DIR... to the totals.
tally() {
	set -- $(count_results "$@")
	passed=$((passed + $1))
	failed=$((failed + $2))
}

# FUSE over io_uring (fs/uring.c) is off until root turns the fuse module's
# enable_uring parameter on.
uring_param=/sys/module/fuse/parameters/enable_uring

# with_uring CMD...: CMD with every mount taking its requests through FUSE
# over io_uring (OZ0_URING=on: tests/integration/lib.sh fails a mount that
# does not use it), the parameter turned on for it and put back as found.
# Needs root and a kernel that has it; says so and runs CMD on /dev/fuse
# otherwise (tests/integration/test-uring.sh fails in CI then).
with_uring() {
	if [ "$(id -u)" -ne 0 ] || ! [ -w "$uring_param" ]; then
		echo "build.sh: FUSE over io_uring needs root and $uring_param: the suite runs on /dev/fuse alone" >&2
		"$@"
		return
	fi
	was=$(cat "$uring_param")
	trap 'echo "$was" >"$uring_param"' EXIT
	trap 'exit 1' INT TERM
	echo Y >"$uring_param"
	r=0
	OZ0_URING=on "$@" || r=$?
	echo "$was" >"$uring_param"
	trap - EXIT INT TERM
	return "$r"
}

run_check() {
	configure_build build
	configure_build build-asan --enable-sanitizers
	status=0
	find build build-asan -name '*.trs' -delete
	# Each mode of the daemon once: the normal build's suites take their
	# requests through FUSE over io_uring, the sanitizer build's from
	# /dev/fuse.
	with_uring make -s -C build -j"$jobs" check || status=1
	OZ0_URING=off make -s -C build-asan -j"$jobs" check || status=1
	tally build build-asan
	if [ -d tests/fuzz ] && ls tests/fuzz/fuzz-*.c >/dev/null 2>&1; then
		CC=clang configure_build build-fuzz --enable-fuzzing
		find build-fuzz -name '*.trs' -delete
		make -s -C build-fuzz -j"$jobs" check-fuzz || status=1
		tally build-fuzz
	fi
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
}

case "${1:-}" in
demo)
	install_deps
	configure_build build
	exec bash contrib/demo.sh "$top/build/oz0fs"
	;;
check)
	install_deps
	run_check
	;;
*)
	echo "usage: $0 demo|check" >&2
	exit 2
	;;
esac
