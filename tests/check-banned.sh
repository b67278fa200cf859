#!/bin/bash
# Functions that overflow or hide errors are banned from our C sources
# (as in git's banned.h). One TAP line per banned function.
set -u
cd "${OZ0_SRCDIR:-$(dirname "$0")/..}" || exit 1
banned=(strcpy strcat sprintf vsprintf strtok atoi gets)
echo "1..${#banned[@]}"
n=0
for f in "${banned[@]}"; do
	n=$((n + 1))
	hits=$(git ls-files -co --exclude-standard -- '*.c' '*.h' 2>/dev/null |
		xargs -r grep -nE "(^|[^_a-z0-9])$f[[:space:]]*\(" -- 2>/dev/null)
	if [ -z "$hits" ]; then
		echo "ok $n - $f is not used"
	else
		echo "not ok $n - $f is used"
		printf '%s\n' "$hits" | sed 's/^/# /'
	fi
done
