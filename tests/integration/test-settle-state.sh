#!/bin/bash
# oz0settle's command line and its STATE (issue 12, "The command"): usage
# errors, and a STATE missing, cut short, garbage, a FIFO, a link, changed,
# of another version or shape, or recorded for another DIR, each exit 2
# with a reason and nothing changed; record refuses a STATE inside DIR;
# settle never deletes STATE.
. "$(dirname "$0")/settle-lib.sh"
sl_setup 600

C=$T/cli
D=$C/tree OUTSIDE=$C/outside PWNED=$C/pwned
mkdir -p "$D" "$OUTSIDE"
export C D OUTSIDE PWNED SRC
sl_as=''

# The tree has something to settle after the record, so that a STATE taken
# when it should be refused shows as a hooks folder moved.
act_init_hook() {
	git init -q proj
	sl_hook proj/.git/hooks/pre-commit
}
if ! sl_try "$D" sl_repo || ! sl_try "$D" act_init_hook; then
	tap_not_ok "the fixture is built with git" "$(tail -n 15 "$C.log")"
	tap_done
fi
if ! [ -x "$SL_BIN" ]; then
	tap_not_ok "oz0settle's command line" "no oz0settle binary at $SL_BIN"
	tap_done
fi
rm -rf "$D/proj"
sl_bin record record "$D" "$C/state"
check_eq "record exits 0" 0 "$sl_rc"
sl_try "$D" act_init_hook
sl_fp "$D" >"$C/fp.tree"
cp -a "$D" "$C/pristine"

# sl_put_back: the tree as recorded and run again, in the same folder, after
# an oz0settle that should have refused changed it (so that one failure
# does not fail every check after it).
sl_put_back() {
	find "$D" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
	cp -a "$C/pristine/." "$D/"
}

# issue 12 / state.h: 'one header line, "oz0settle-state <version>
# sha256:<hex of the body>\n", then the body'.
header=$(head -n 1 "$C/state")
body_sum=$(tail -n +2 "$C/state" | sha256sum | cut -d' ' -f1)
check_eq "STATE's header names version 1 and its body's SHA-256" "oz0settle-state 1 sha256:$body_sum" "$header"

# sl_refused NAME STATUS ARGS...: oz0settle ARGS exits STATUS with nothing on
# stdout and a reason on stderr, in time, and the tree is unchanged.
sl_refused() {
	local name=$1 want=$2 problems
	shift 2
	sl_bin refused "$@"
	problems=$(
		sl_sane refused
		[ "$sl_rc" -eq "$want" ] || echo "exit status $sl_rc, expected $want"
		[ ! -s "$C/refused.out" ] || echo "it printed: $(head -c 2000 "$C/refused.out")"
		[ -s "$C/refused.err" ] || echo "it said nothing on stderr"
		sl_same "it" "$C/fp.tree" "$D"
	) || true
	tap_result "$name" "$([ -z "$problems" ]; echo $?)" "$problems" "$(sl_show refused.err)"
	[ -z "$problems" ] || sl_put_back
}

# The good STATE is taken: the refusals below are the STATEs', not every one.
sl_bin dry settle --dry-run "$D" "$C/state"
check_eq "the STATE recorded is taken (a dry run finds the hook)" 1 "$sl_rc"

# issue 12: "2 a usage error"
sl_refused "no arguments" 2
sl_refused "an unknown command" 2 frobnicate "$D" "$C/state"
sl_refused "record without STATE" 2 record "$D"
sl_refused "settle without STATE" 2 settle "$D"
sl_refused "settle with an argument too many" 2 settle "$D" "$C/state" extra
sl_refused "settle with an unknown option" 2 settle --frobnicate "$D" "$C/state"
sl_refused "record --dry-run" 2 record --dry-run "$D" "$C/elsewhere"
sl_refused "a relative --seen-as" 2 settle --seen-as workspace "$D" "$C/state"

# issue 12: "or STATE missing, unreadable or not for DIR (nothing is changed)"
bad=$C/bad
mkdir "$bad"
sl_refused "a missing STATE" 2 settle "$D" "$bad/none"
sl_refused "a missing STATE, dry run" 2 settle --dry-run "$D" "$bad/none"
: >"$bad/empty"
sl_refused "an empty STATE" 2 settle "$D" "$bad/empty"
head -c "$(($(stat -c %s "$C/state") / 2))" "$C/state" >"$bad/short"
sl_refused "a STATE cut short" 2 settle "$D" "$bad/short"
sl_refused "a STATE cut short, dry run" 2 settle --dry-run "$D" "$bad/short"
head -c -1 "$C/state" >"$bad/last-byte"
sl_refused "a STATE without its last byte" 2 settle "$D" "$bad/last-byte"
head -c 4096 /dev/urandom >"$bad/garbage"
sl_refused "a STATE of random bytes" 2 settle "$D" "$bad/garbage"
{
	echo "$header"
	echo '{ "version": 1'
} >"$bad/json-cut"
sl_refused "a STATE whose JSON is cut short" 2 settle "$D" "$bad/json-cut"
mkfifo "$bad/fifo"
sl_refused "a STATE that is a FIFO (no one writing it)" 2 settle "$D" "$bad/fifo"
ln -s "$C/state" "$bad/link"
sl_refused "a STATE that is a link to a good one" 2 settle "$D" "$bad/link"
mkdir "$bad/dir"
sl_refused "a STATE that is a folder" 2 settle "$D" "$bad/dir"
truncate -s 65M "$bad/huge"
sl_refused "a STATE of 65 MiB" 2 settle "$D" "$bad/huge"

# issue 12: "STATE carries a version and an integrity check"
"$OZ_PY" -c 'import sys
data = bytearray(open(sys.argv[1], "rb").read())
start = data.find(b"\n") + 1
at = start + (len(data) - start) // 2
data[at] ^= 0x01
open(sys.argv[2], "wb").write(data)' "$C/state" "$bad/flipped"
sl_refused "a STATE with one bit of its body changed" 2 settle "$D" "$bad/flipped"
{
	echo "oz0settle-state 7 sha256:$body_sum"
	tail -n +2 "$C/state"
} >"$bad/version7"
sl_refused "a STATE of version 7, its checksum right" 2 settle "$D" "$bad/version7"
sl_state_of_body() {
	printf 'oz0settle-state 1 sha256:%s\n%s' "$(printf '%s' "$1" | sha256sum | cut -d' ' -f1)" "$1"
}
sl_state_of_body '{}' >"$bad/empty-object"
sl_refused "a STATE whose body is {}, its checksum right" 2 settle "$D" "$bad/empty-object"
sl_state_of_body '[]' >"$bad/array"
sl_refused "a STATE whose body is [], its checksum right" 2 settle "$D" "$bad/array"
sl_state_of_body "$(tail -n +2 "$C/state")garbage" >"$bad/trailing"
sl_refused "a STATE with bytes after its JSON, its checksum right" 2 settle "$D" "$bad/trailing"

# issue 12: "recorded for another DIR is refused": a copy of the tree, and
# the tree made anew at its own path (state.h: "and its identity").
cp -a "$D" "$C/copy"
sl_fp "$C/copy" >"$C/fp.copy"
sl_bin copy settle "$C/copy" "$C/state"
problems=$(
	[ "$sl_rc" -eq 2 ] || echo "exit status $sl_rc"
	sl_same "it" "$C/fp.copy" "$C/copy"
) || true
tap_result "a STATE recorded for another DIR (a copy of it)" "$([ -z "$problems" ]; echo $?)" "$problems" \
	"$(sl_show copy.out copy.err)"
mv "$D" "$C/tree.old"
cp -a "$C/tree.old" "$D"
sl_refused "a STATE recorded for DIR's path, DIR made anew there" 2 settle "$D" "$C/state"
rm -rf "$D"
mv "$C/tree.old" "$D"
sl_refused "a missing DIR" 2 settle "$C/none" "$C/state"
sl_refused "a DIR that is a file" 2 settle "$D/file1.txt" "$C/state"

# issue 12: "writes STATE (outside DIR; refused inside it)"
sl_record_refused() {
	local name=$1 problems
	shift
	sl_bin inside record "$D" "$1"
	problems=$(
		sl_sane inside
		{ [ "$sl_rc" -ne 0 ] && [ "$sl_rc" -lt 124 ]; } || echo "exit status $sl_rc"
		[ -s "$C/inside.err" ] || echo "it said nothing on stderr"
		sl_same "it" "$C/fp.tree" "$D"
	) || true
	tap_result "$name" "$([ -z "$problems" ]; echo $?)" "$problems" "$(sl_show inside.err)"
	[ -z "$problems" ] || sl_put_back
}
sl_record_refused "record with STATE inside DIR is refused" "$D/state"
sl_record_refused "record with STATE inside DIR's .git is refused" "$D/.git/settle-state"
ln -s "$D" "$C/into-tree"
sl_record_refused "record with STATE reached through a link into DIR is refused" "$C/into-tree/state"

# state.h: "A link at FILE is not followed."
echo "the person's" >"$OUTSIDE/target"
ln -s "$OUTSIDE/target" "$C/linked-state"
sl_bin linked record "$D" "$C/linked-state"
check_eq "record to a STATE that is a link leaves what it names alone" "the person's" "$(cat "$OUTSIDE/target")"

# README, "The settler": a DIR that an oz0fs mount covers is refused (exit 2):
# the settler works on the tree itself, once the mount has ended.
cp -a "$C/pristine" "$C/mounted-src"
if oz_mount "$C/mounted-src" "$C/mnt"; then
	sl_fp "$C/mounted-src" >"$C/fp.mounted"
	for cmd in record settle; do
		sl_bin mounted "$cmd" "$C/mnt" "$C/mounted-state"
		check_eq "$cmd of a DIR an oz0fs mount covers exits 2" 2 "$sl_rc"
	done
	oz_umount "$C/mnt"
	sl_fp "$C/mounted-src" >"$C/fp.now"
	check "the tree below the mount is unchanged" cmp "$C/fp.mounted" "$C/fp.now"
else
	tap_not_ok "an oz0fs mount to settle through" "$(tail -n 5 "$T/daemon.log")"
fi

# issue 12: "`settle` never deletes STATE"
sl_bin good settle "$D" "$C/state"
check_eq "settle acts on the good STATE" 1 "$sl_rc"
check "settle leaves STATE in place" test -f "$C/state"
sl_bin good settle "$D" "$C/state"
check_eq "settle again finds nothing" "0 " "$sl_rc $(cat "$C/good.out")"

tap_done
