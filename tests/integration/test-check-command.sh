#!/bin/bash
# oz0fs --check-command: exit 0 allowed, 1 refused with the rule, 2 usage.
set -u
oz0fs=${OZ0FS:?}
n=0
echo "1..27"
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

# expect_rule RULE NAME ARGV...: the check refuses (exit 1) by RULE.
expect_rule() {
	local rule=$1 name=$2 out status
	shift 2
	out=$("$oz0fs" --check-command --json "$@" 2>&1)
	status=$?
	n=$((n + 1))
	if [ "$status" -eq 1 ] && [[ $out == *"\"rule\":\"$rule\""* ]]; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name: exit $status, wanted 1 by $rule"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
}

# A script no shell can run (dash -n and bash -n both refuse it) is refused
# as what cannot be read: fail closed.
expect_rule unreadable-script "sh -c 'if then fi' is refused" -- sh -c 'if then fi'
expect_rule unreadable-script "a loop with an empty body is refused" -- sh -c 'while true; do done'
expect_rule unreadable-script "'for in' is refused" -- bash -c 'for in'
expect_rule unreadable-script "a case without esac is refused" -- sh -c 'case $1 in a) ls;;'
expect_rule unreadable-script "an empty group is refused" -- sh -c '{ }'
expect_rule unreadable-script "'done' where a command belongs is refused" -- sh -c 'ls | done'
expect_rule unreadable-script "an unterminated \$( is refused" -- sh -c 'echo $(ls'
expect_rule unreadable-script "an unterminated quote is refused" -- sh -c "echo 'open"
expect_rule unreadable-script "a script starting with && is refused" -- sh -c '&& ls'
expect_rule unreadable-script "an unreadable nested sh -c line is refused" -- sh -c "bash -c 'if then fi'"
expect 0 "a valid if is allowed" -- sh -c 'if test -f x; then ls; fi'
expect 0 "reserved words as arguments are allowed" -- sh -c 'echo if then fi done'
expect 0 "a backquoted list that fi ends early is read as dash reads it" -- sh -c 'echo `fi`; ls'

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
