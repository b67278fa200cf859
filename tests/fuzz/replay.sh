#!/bin/bash
# Replays every fuzzer's seed corpus, then fuzzes from it for a few seconds
# (FUZZ_REPLAY_SECONDS, default 5) in a scratch directory, so the committed
# corpus is never changed. Two TAP lines per harness tests/fuzz/fuzz-NAME.c.
set -u
src=${OZ0_SRCDIR:?}
build=${OZ0_BUILDDIR:?}
seconds=${FUZZ_REPLAY_SECONDS:-5}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

harnesses=("$src"/tests/fuzz/fuzz-*.c)
echo "1..$((2 * ${#harnesses[@]}))"
n=0
for c in "${harnesses[@]}"; do
	name=$(basename "$c" .c)
	name=${name#fuzz-}
	bin=$build/tests/fuzz/fuzz-$name
	corpus=$src/tests/fuzz/corpus/$name
	log=$scratch/$name.log
	inputs=$(find "$corpus" -type f 2>/dev/null | wc -l)

	n=$((n + 1))
	if [ "$inputs" -gt 0 ] && [ -x "$bin" ] && "$bin" -runs=0 "$corpus" >"$log" 2>&1; then
		echo "ok $n - $name: $inputs seed inputs replayed"
	else
		echo "not ok $n - $name: replay of $inputs seed inputs failed"
		sed 's/^/# /' "$log" 2>/dev/null | tail -40
	fi

	n=$((n + 1))
	mkdir -p "$scratch/$name"
	opts=(-max_total_time="$seconds" -print_final_stats=1)
	dict=$src/tests/fuzz/fuzz-$name.dict
	[ -f "$dict" ] && opts+=(-dict="$dict")
	if [ -x "$bin" ] && "$bin" "${opts[@]}" \
		"$scratch/$name" "$corpus" >"$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "ok $n - $name: ${runs:-?} executions in ${seconds}s without a finding"
	else
		echo "not ok $n - $name: fuzzing for ${seconds}s found a crash or failed"
		sed 's/^/# /' "$log" 2>/dev/null | tail -60
	fi
done
