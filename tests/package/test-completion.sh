#!/bin/bash
# The bash completion (contrib/bash-completion/oz0fs): every option each
# tool's --help names is offered where it applies (so an option added to a
# tool and not to the completion fails here), the values --help lists are the
# ones offered, and words complete as they should (the -o list, files,
# folders, the command after '--'). Completion runs in a fresh bash with
# bash-completion loaded, COMP_WORDS split as bash splits them.
. "$(dirname "$0")/../integration/lib.sh"

oz_setup 300
src=${OZ0_SRCDIR:?}
build=${OZ0_BUILDDIR:?}
file=$src/contrib/bash-completion/oz0fs
helpers=/usr/share/bash-completion/bash_completion
[ -r "$helpers" ] || oz_unavailable "bash-completion is not installed (Debian package bash-completion)"
# A folder and a file to complete, alone in theirs.
C=$T/c
mkdir -p "$C/dir"
: >"$C/file1"

# offered LINE: what completing at the end of LINE offers, one a line,
# sorted. Words split at blanks and around '=' and ':' (bash's
# COMP_WORDBREAKS); a LINE ending in a blank completes a new empty word.
offered() {
	bash --norc --noprofile -c '
		. "$1" && . "$2" || exit 1
		# compopt works only while bash completes for real; what it sets
		# (no space after a word, file names quoted) is not looked at here.
		compopt() { :; }
		line=$3
		COMP_WORDS=()
		read -ra blank_words <<<"$line"
		for w in "${blank_words[@]}"; do
			while [[ $w == *[=:]* ]]; do
				head=${w%%[=:]*}
				[ -n "$head" ] && COMP_WORDS+=("$head")
				COMP_WORDS+=("${w:${#head}:1}")
				w=${w:${#head}+1}
			done
			[ -n "$w" ] && COMP_WORDS+=("$w")
		done
		[[ $line == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$line
		COMP_POINT=${#line}
		spec=$(complete -p "${COMP_WORDS[0]}") || exit 1
		fn=${spec#*-F }
		fn=${fn%% *}
		"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"
	' _ "$helpers" "$file" "$1" 2>"$T/completion.err" | sed '/^$/d' | sort -u
}

# offers NAME LINE WORD...: completing LINE offers every WORD (and maybe more).
offers() {
	local name=$1 line=$2 missing=() w got
	shift 2
	got=$(offered "$line")
	for w; do
		grep -qxF -- "$w" <<<"$got" || missing+=("$w")
	done
	if [ ${#missing[@]} -eq 0 ] && ! [ -s "$T/completion.err" ]; then
		tap_ok "$name"
	else
		tap_not_ok "$name" "completing '$line'" "not offered: ${missing[*]}" "offered: $(echo $got)" \
			"$(cat "$T/completion.err")"
	fi
}

# offers_exactly NAME LINE WORD...
offers_exactly() {
	check_eq "$1" "$(printf '%s\n' "${@:3}" | sort -u)" "$(offered "$2")"
}

# long_options: the --options in standard input, one a line.
long_options() {
	grep -oE -- '--[a-z][a-z-]*' | sort -u
}

# ---- oz0fs -----------------------------------------------------------------
help=$("$OZ0FS" --help)
mount_help=$(sed '/^Other modes/,$d' <<<"$help")
modes=$(sed -n '/^Other modes/,/^$/p' <<<"$help" | grep -oE 'oz0fs --[a-z-]+' | sed 's/^oz0fs //' | sort -u)
check "oz0fs --help names at least four modes" test "$(wc -l <<<"$modes")" -ge 4
# shellcheck disable=SC2046
offers "oz0fs: every option and mode of --help" "oz0fs -" \
	$(grep -oE -- '(^| )-[a-z]' <<<"$mount_help" | tr -d ' ') $(long_options <<<"$mount_help") $modes
for mode in $modes; do
	# Each mode's --help (some print it on stderr, with a usage error).
	# shellcheck disable=SC2046
	offers "oz0fs $mode: every option of its --help" "oz0fs $mode -" \
		$("$OZ0FS" "$mode" --help 2>&1 | long_options | grep -vxF -- "$mode")
done

# The -o options, from --help's table: the first column of each entry, its
# a|b|c values spelt out.
o_options=$(sed -n '/^Options (-o):/,/^$/p' <<<"$help" | sed -n 's/^  \([a-z].*\)/\1/p' |
	sed 's/   .*//; s/  [a-z].*//; s/,$//' | tr ',' '\n' | tr -d ' ' | sed '/^$/d' |
	while IFS= read -r o; do
		case $o in
		*=*'|'*) for v in $(tr '|' ' ' <<<"${o#*=}"); do echo "${o%%=*}=$v"; done ;;
		*=*) echo "${o%%=*}=" ;;
		*) echo "$o" ;;
		esac
	done | sort -u)
check "oz0fs --help lists at least 20 -o options" test "$(wc -l <<<"$o_options")" -ge 20
# shellcheck disable=SC2086
offers "oz0fs -o: every option of --help's table" "oz0fs -o " $o_options
offers_exactly "oz0fs -o cache=auto,pa: the next item of the list" "oz0fs -o cache=auto,pa" \
	auto,passthrough=auto auto,passthrough=off
offers_exactly "oz0fs -o ro,cache=: the values of cache=" "oz0fs -o ro,cache=" never auto always
offers "oz0fs -o audit=: a file" "oz0fs -o audit=$C/fi" "$C/file1"
offers "oz0fs --config: a file" "oz0fs --config $C/fi" "$C/file1"
offers_exactly "oz0fs SOURCE: folders only" "oz0fs $C/" "$C/dir"
offers "oz0fs --check-command -- : the command to judge" "oz0fs --check-command --json -- ech" echo
offers "oz0fs --check-path -- : paths" "oz0fs --check-path --write -- $C/fi" "$C/file1"
offers_exactly "oz0fs --check-path --tree: folders" "oz0fs --check-path --tree $C/" "$C/dir"

# ---- oz0run ----------------------------------------------------------------
help=$("$build/oz0run" --help)
run_help=$(grep -v 'oz0run --check' <<<"$help")
check_help=$(grep 'oz0run --check' <<<"$help")
# shellcheck disable=SC2046
offers "oz0run: every option of --help" "oz0run -" $(long_options <<<"$run_help") --check
# shellcheck disable=SC2046
offers "oz0run --check: every option of its usage" "oz0run --check -" \
	$(long_options <<<"$check_help" | grep -vx -- --check)
# shellcheck disable=SC2046
offers_exactly "oz0run --profile: the profiles of --help" "oz0run --profile " \
	$(grep -oE -- '--profile [a-z|]+' <<<"$help" | head -n 1 | cut -d' ' -f2 | tr '|' ' ')
# shellcheck disable=SC2046
offers_exactly "oz0run --network: the modes of --help" "oz0run --network " \
	$(grep -oE -- '--network [a-z|]+' <<<"$help" | head -n 1 | cut -d' ' -f2 | tr '|' ' ')
offers_exactly "oz0run --tree: folders" "oz0run --tree $C/" "$C/dir"
offers "oz0run -- : the command to run" "oz0run --tree $C -- ech" echo
offers "oz0run -- CMD: the command's own arguments" "oz0run -- cat $C/fi" "$C/file1"

# ---- oz0settle -------------------------------------------------------------
help=$("$build/oz0settle" --help)
commands=$(sed -n 's/.*oz0settle \([a-z]*\) .*/\1/p' <<<"$help" | sort -u)
# shellcheck disable=SC2086
offers "oz0settle: the commands of --help" "oz0settle " $commands
for c in $commands; do
	# shellcheck disable=SC2046
	offers "oz0settle $c: every option of its usage" "oz0settle $c -" \
		$(grep "oz0settle $c " <<<"$help" | long_options)
done
offers_exactly "oz0settle record DIR: folders" "oz0settle record $C/" "$C/dir"
offers "oz0settle record DIR STATE: a file" "oz0settle record $C/dir $C/fi" "$C/file1"

tap_done
