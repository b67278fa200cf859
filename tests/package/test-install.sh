#!/bin/bash
# make install DESTDIR=...: exactly the files an install must hold, in the
# folders configure chose; the commands run from there; the units name the
# installed commands; the completion's links; the man pages as written; and
# make uninstall takes it all away again.
. "$(dirname "$0")/../integration/lib.sh"

oz_setup 600
build=${OZ0_BUILDDIR:?}
src=${OZ0_SRCDIR:?}
dest=$T/dest

# What `make install` must install, one path a line.
expected_files() {
	local c
	for c in oz0fs oz0run oz0settle; do
		echo "$OZ0_BINDIR/$c"
		echo "$OZ0_COMPLETIONDIR/$c"
	done
	printf '%s\n' "$OZ0_MANDIR/man1/oz0fs.1" "$OZ0_MANDIR/man1/oz0run.1" "$OZ0_MANDIR/man1/oz0settle.1" \
		"$OZ0_MANDIR/man5/oz0fs.conf.5" "$OZ0_DOCDIR/README.md" "$OZ0_DOCDIR/examples/oz0fs.conf.example"
	if [ -n "$OZ0_UNITDIR" ]; then
		printf '%s\n' "$OZ0_UNITDIR/oz0fs@.service" "$OZ0_UNITDIR/oz0run-node.service"
	fi
}

# installed_files: what DEST holds, files and links, as absolute paths.
installed_files() {
	(cd "$dest" 2>/dev/null && find . -type f -o -type l) | sed 's|^\.||' | sort
}

# exec_commands UNIT: the programs its Exec*= lines run.
exec_commands() {
	sed -n 's/^Exec[A-Za-z]*=[-@!+:]*\([^ ]*\).*/\1/p' "$1" | sort -u
}

check "make install DESTDIR=..." make -s -C "$build" install DESTDIR="$dest"
check_unchanged "the files installed are these and no others" "$(expected_files | sort)" "$(installed_files)"
diag "installed:" "$(installed_files)"

version=$("$OZ0FS" --version)
for c in oz0fs oz0run; do
	check_eq "the installed $c runs: $c --version" "${version/oz0fs/$c}" "$("$dest$OZ0_BINDIR/$c" --version 2>&1)"
done
check "the installed oz0settle runs: oz0settle --help" "$dest$OZ0_BINDIR/oz0settle" --help
for c in oz0fs oz0run oz0settle; do
	check_eq "$c is installed mode 755" 755 "$(stat -c %a "$dest$OZ0_BINDIR/$c" 2>&1)"
done

for page in man1/oz0fs.1 man1/oz0run.1 man1/oz0settle.1 man5/oz0fs.conf.5; do
	check "$page is the page written" cmp "$src/contrib/${page#*/}" "$dest$OZ0_MANDIR/$page"
done
check "the example configuration is installed as written" cmp "$src/contrib/oz0fs.conf.example" \
	"$dest$OZ0_DOCDIR/examples/oz0fs.conf.example"

if [ -n "$OZ0_UNITDIR" ]; then
	check_eq "oz0fs@.service runs the installed oz0fs" "$OZ0_BINDIR/oz0fs" \
		"$(exec_commands "$dest$OZ0_UNITDIR/oz0fs@.service")"
	check_eq "oz0run-node.service runs the installed oz0run" "$OZ0_BINDIR/oz0run" \
		"$(exec_commands "$dest$OZ0_UNITDIR/oz0run-node.service")"
	check_fails "no @placeholder@ is left in the units" grep -n '@[a-z]*@' "$dest$OZ0_UNITDIR"/*.service
fi

check "the completion file is what bash-completion loads for oz0fs" cmp "$src/contrib/bash-completion/oz0fs" \
	"$dest$OZ0_COMPLETIONDIR/oz0fs"
for c in oz0run oz0settle; do
	check_eq "the completion for $c is a link to oz0fs's" oz0fs "$(readlink "$dest$OZ0_COMPLETIONDIR/$c")"
done

check "make uninstall DESTDIR=..." make -s -C "$build" uninstall DESTDIR="$dest"
check_unchanged "make uninstall leaves no file" "" "$(installed_files)"

tap_done
