#!/bin/bash
# oz0run --check (issue 13 item 6): the cgroup mode a run would use and why
# the ones before it are not used (this machine: v1, no delegated v2
# subtree, no systemd scope), read-protected credential paths, rootless
# readiness, the ceiling in force; exit non-zero where a run would refuse.
# oz0fs --check shares the probes.
. "$(dirname "$0")/run-lib.sh"
rl_setup 300
rl_require_cgroups

# has RUN NAME PATTERN: one TAP line, ok when RUN's stdout has a line
# matching the extended regular expression PATTERN.
has() {
	rl_ok "$2" grep -qiE -- "$3" "$T/$1.out"
}

rl_cg_before
rl_raw check --check
rl_status "--check on this machine exits 0" 0
has check "it says the cgroup mode is v1" '^cgroup[^:]*: v1\b'
has check "it says why a delegated cgroup v2 subtree is not used" '^cgroup[^:]*: .*\bv2\b'
has check "it says why a systemd scope is not used" '^cgroup[^:]*: .*(scope|systemd)'
has check "credential read-protection is on" '^Read-protected credential paths: on\b'
has check "it says whether rootless runs are ready" '^rootless[^:]*: (on|off)\b'
has check "it says the ceiling in force" '^ceiling[^:]*: '
rl_ok "every line is on stdout, stderr is empty" test ! -s "$T/check.err"
rl_ok "--check leaves no cgroup behind" rl_cg_same

rl_raw json --check --json
rl_status "--check --json exits 0" 0
rl_ok "--check --json is one JSON object naming v1" "$OZ_PY" -c '
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(not (isinstance(j, dict) and "v1" in json.dumps(j)))' "$T/json.out"

mkdir "$T/conf"
printf '[ceiling]\nmemory_mb = 512\npids = 100\ncpus = 1\n' >"$T/conf/ceiling.ini"
rl_raw ceiling --check --config "$T/conf/ceiling.ini"
rl_status "--check with a ceiling exits 0" 0
has ceiling "it says the ceiling's memory" '^ceiling[^:]*: .*\b512\b'
has ceiling "it says the ceiling's pids" '^ceiling[^:]*: .*\b100\b'

printf '[ceiling]\nfile = %s\n' "$T/conf/no-such-ceiling.ini" >"$T/conf/lost.ini"
rl_raw lost --check --config "$T/conf/lost.ini"
rl_ok "--check with a ceiling file that cannot be read exits non-zero (exit $rl_rc)" test "$rl_rc" -ne 0 -a "$rl_rc" -lt 124
rl_ok "... and names the file" grep -qF no-such-ceiling.ini "$T/lost.out" "$T/lost.err"
rl_raw noconf --check --config "$T/conf/no-such.ini"
rl_ok "--check with a configuration that cannot be read exits non-zero (exit $rl_rc)" test "$rl_rc" -ne 0 -a "$rl_rc" -lt 124

good=$T/good
rl_repo "$good"
rl_raw good --check "$good"
rl_status "--check DIR on a good repository exits 0" 0
bad=$T/bad
rl_repo "$bad"
mkdir "$T/elsewhere"
rm -r "$bad/.git/hooks"
ln -s "$T/elsewhere" "$bad/.git/hooks"
rl_raw bad --check "$bad"
rl_ok "--check DIR on a tree that would not mount exits non-zero (exit $rl_rc)" test "$rl_rc" -ne 0 -a "$rl_rc" -lt 124
rl_ok "... and says why" grep -qF '.git/hooks' "$T/bad.out" "$T/bad.err"

timeout -k 5 60 "$OZ0FS" --check >"$T/oz0fs.out" 2>&1 || true
rl_ok "oz0fs --check says credential read-protection is on too" \
	grep -qE '^Read-protected credential paths: on\b' "$T/oz0fs.out"
rl_ok "oz0fs --check says the same cgroup mode" grep -qiE '^cgroup[^:]*: v1\b' "$T/oz0fs.out"
tap_done
