#!/bin/bash
# oz0run refuses to start (issue 13, "Exit status" 125 and "Details that
# tools around it rely on"; seed 000 "Set resource ceilings"): every bad
# option and value, a tree that is missing or does not mount, a
# configuration or a ceiling file that cannot be read, a command the
# [commands] rules refuse. Each is exit 125 with one line on stderr, and
# nothing ran: no file made, no state left, nothing mounted.
. "$(dirname "$0")/run-lib.sh"
rl_setup 300

tree=$T/tree
rl_repo "$tree"
cd "$tree"
rl_mounts_before
n=0

# refused [--exact] NAME ARGS...: oz0run ARGS -- touch ran-K (K counting
# up; with --exact, oz0run ARGS alone) exits 125 with one stderr line, and
# ran-K is never made, in whatever tree it was given.
refused() {
	local name problems exact=
	[ "$1" != --exact ] || { exact=1; shift; }
	name=$1
	shift
	n=$((n + 1))
	if [ -n "$exact" ]; then
		rl_raw "refusal$n" "$@"
	else
		rl_raw "refusal$n" "$@" -- touch "ran-$n"
	fi
	problems=$(
		[ "$rl_rc" -eq 125 ] || echo "exit status $rl_rc, expected 125"
		rl_one_line "refusal$n"
		[ -z "$(find "$T" -name "ran-$n")" ] || echo "the command ran"
	) || true
	if [ -z "$problems" ]; then
		tap_ok "$name: 125, one line"
	else
		tap_not_ok "$name: 125, one line" "$problems" "$(rl_detail)"
	fi
}

# ---- Bad options and values ---------------------------------------------------------------

for v in 0 -1 abc 1.5 "" "1 " 99999999999999999999999; do
	refused "--memory-mb '$v'" --memory-mb "$v"
done
for v in 0 -5 x 2.5; do
	refused "--pids '$v'" --pids "$v"
done
for v in 0 -1 abc "" 0.0; do
	refused "--cpus '$v'" --cpus "$v"
done
for v in 0 1.5 -3 x; do
	refused "--timeout '$v'" --timeout "$v"
done
refused "--profile nope" --profile nope
refused "--network maybe" --network maybe
refused "an unknown option" --frobnicate
refused "an unknown option after good ones" --pids 10 --frobnicate
refused --exact "no -- before the command" touch "ran-$((n + 1))"
refused --exact "-- and no command" --
refused --exact "nothing at all"
refused --exact "--pids missing its value at the end" --pids

# ---- The tree ------------------------------------------------------------------------------

refused "--tree a folder that does not exist" --tree "$T/no-such-tree"
echo file >"$T/a-file"
refused "--tree a file" --tree "$T/a-file"
bad=$T/bad-tree
rl_repo "$bad"
mkdir "$T/elsewhere"
rm -r "$bad/.git/hooks"
ln -s "$T/elsewhere" "$bad/.git/hooks"
refused "--tree whose .git/hooks is a link (it does not mount)" --tree "$bad"
rl_ok "... and the line says why" grep -qi 'hooks' "$T/refusal$n.err"

# ---- Configuration and ceiling -----------------------------------------------------------------

mkdir "$T/conf"
refused "--config a file that does not exist" --config "$T/conf/no-such.ini"
refused "--config a folder" --config "$T/conf"
printf '[ceiling]\nmemory_mb = lots\n' >"$T/conf/bad-value.ini"
refused "--config with a ceiling that is no number" --config "$T/conf/bad-value.ini"
printf '[ceiling]\nfile = %s\n' "$T/conf/no-such-ceiling.ini" >"$T/conf/lost-ceiling.ini"
refused "a ceiling file that cannot be read" --config "$T/conf/lost-ceiling.ini"
rl_ok "... and the line names the file" grep -qF "no-such-ceiling.ini" "$T/refusal$n.err"
mkdir "$T/conf/ceiling-dir"
printf '[ceiling]\nfile = %s\n' "$T/conf/ceiling-dir" >"$T/conf/dir-ceiling.ini"
refused "a ceiling file that is a folder" --config "$T/conf/dir-ceiling.ini"
printf '[ceiling]\nmemory_mb = 512\n' >"$T/conf/ok-ceiling.ini"
refused "a good ceiling but a bad --pids" --config "$T/conf/ok-ceiling.ini" --pids 0

printf '[commands]\ndeny = touch\n' >"$T/conf/deny.ini"
refused "a command [commands] refuses" --config "$T/conf/deny.ini"
refused --exact "a command [commands] refuses inside sh -c" --config "$T/conf/deny.ini" -- sh -c "touch ran-$((n + 1))"
rl_ok "... and the line names the rule or the command" grep -qiE 'touch|denied' "$T/refusal$n.err"
rl_go allowed --config "$T/conf/deny.ini" -- sh -c 'echo allowed'
rl_is "a command [commands] allows runs under that configuration" "exit 0 allowed" "exit $rl_rc $(cat "$T/allowed.out")"

rl_ok "no refusal left a state file" sh -c "! ls '$OZ0RUN_STATE_DIR'/*.state 2>/dev/null"
rl_ok "no refusal left anything mounted" rl_mounts_same
tap_done
