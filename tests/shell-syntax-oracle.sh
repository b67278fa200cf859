#!/bin/bash
# Our shell parser against dash -n and bash -n, over the find table, the
# corpus, a generated set of malformed lines and the shell fuzzers' seeds
# (tests/shell-syntax.py says how). Extra arguments are folders of further
# inputs, such as those a fuzzing run kept: each is one more test.
set -u
src=${OZ0_SRCDIR:-$(dirname "$0")/..}
build=${OZ0_BUILDDIR:-.}
for shell in dash bash; do
	if ! command -v "$shell" >/dev/null; then
		echo "1..0 # SKIP $shell is not installed (Debian package $shell)"
		exit 0
	fi
done
exec python3 "$src/tests/shell-syntax.py" "$build/tests/shell-dump" "$src" "$@"
