#!/bin/bash
# oz0fs --check-command: exit 0 allowed, 1 refused with the rule, 2 usage.
set -u
oz0fs=${OZ0FS:?}
n=0
echo "1..8"

# expect STATUS NAME ARGV...: runs the check and compares its exit status.
expect() {
	local want=$1 name=$2 out status
	shift 2
	out=$("$oz0fs" --check-command "$@" 2>&1)
	status=$?
	n=$((n + 1))
	if [ "$status" -eq "$want" ]; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name: exit $status, wanted $want"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
}

expect 0 "a plain command is allowed" -- ls -la
expect 1 "rm is refused" -- rm -rf build
expect 1 "sudo is refused" -- sudo make install
expect 1 "rm inside sh -c is refused" -- sh -c 'make && rm -rf /'
expect 1 "a path as the command name is refused" -- /usr/bin/curl example.com
expect 1 "a dynamic command name is refused" -- sh -c '$CMD x'
expect 0 "a static sh -c script is allowed" -- sh -c 'make -j2 | tee log'
expect 2 "no command is a usage error" --
