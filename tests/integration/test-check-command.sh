#!/bin/bash
# oz0fs --check-command: exit 0 allowed, 1 refused with the rule, 2 usage.
set -u
oz0fs=${OZ0FS:?}
n=0
echo "1..14"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

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

# The [commands] section of the INI configuration, the options adding to it.
conf=$scratch/oz0fs.conf
printf '[commands]\ndeny = curl\nrm = allow\n' >"$conf"
expect 1 "a name denied in [commands] is refused" --config "$conf" -- sh -c 'curl example.com'
expect 0 "rm = allow in [commands] lets rm run" --config "$conf" -- rm -f build/x
expect 1 "--deny adds to [commands]'s list" --config "$conf" --deny wget -- wget example.com
expect 0 "--config is read, not a default" --config "$conf" -- wget example.com
printf '[commands]\nrm = yes\n' >"$scratch/bad.conf"
expect 2 "a bad configuration is an error" --config "$scratch/bad.conf" -- ls
expect 2 "a missing named configuration is an error" --config "$scratch/none.conf" -- ls
