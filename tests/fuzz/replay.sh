#!/bin/bash
# Replays every fuzzer's seed corpus: one TAP line per harness
# tests/fuzz/fuzz-NAME.c. Only a replay, so the answer depends on the code and
# the corpus alone; fuzzing proper is `make fuzz`.
set -u
src=${OZ0_SRCDIR:?}
build=${OZ0_BUILDDIR:?}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

harnesses=("$src"/tests/fuzz/fuzz-*.c)
echo "1..${#harnesses[@]}"
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
done
