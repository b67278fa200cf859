#!/bin/bash
# What git really runs or reads, in the spellings a hand-written
# configuration uses, held on a real mount. Each case is first proved by git
# itself before the mount (the program leaves a mark in $T/ran when it runs,
# or `git config --show-origin` names the file), then written through the
# mount: refused with EACCES and an audit line, while a decoy beside it stays
# writable.
#
#  - aliases spelt [alias "x"] y and [alias.Y] z (git x.y, git y.z);
#  - an includeIf whose condition does not hold now (another branch): its
#    file and the program it names (diff.external);
#  - credential helpers named without a path: git runs git credential-VALUE
#    through the shell, so tools/cred is git-credential-tools/cred at the
#    top, and "x; ./cred2.sh" runs cred2.sh; remote.<name>.vcs = tools/rh
#    runs git-remote-tools/rh;
#  - a .git file whose gitdir: leaves the tree and comes back in, by its own
#    name or through a link outside the tree;
#  - submodules nested nine deep: the tree mounts, the deep part read-only;
#  - an include outside the tree that includes a file back inside it, and an
#    include named by the mount point's path (where git sees the tree);
#  - a configured line that is not valid sh to its end: sh runs its complete
#    commands before the error, and nothing after it.
. "$(dirname "$0")/lib.sh"

# mark NAME: a script body that leaves the mark NAME when it runs.
mark() {
	printf '#!/bin/sh\necho "$0 $*" >>"%s/ran/%s"\n' "$T" "$1"
}

# proved NAME CMD...: CMD, run before the mount, makes git leave the mark NAME.
proved() {
	local name=$1
	shift
	rm -f "$T/ran/$name"
	run "$@" || true
	if [ -s "$T/ran/$name" ]; then
		tap_ok "git runs it before the mount: $name"
	else
		tap_not_ok "git runs it before the mount: $name" "$*" "$(tail -n 5 "$T/out")"
	fi
}

# names_origin NAME KEY FILE [GIT ARGS...]: git reads KEY from FILE.
names_origin() {
	local name=$1 key=$2 file=$3
	shift 3
	run git "$@" config --show-origin --get "$key" || true
	if grep -qF "file:$file" "$T/out"; then
		tap_ok "git reads it: $name"
	else
		tap_not_ok "git reads it: $name" "want file:$file" "$(cat "$T/out")"
	fi
}

executable() {
	mkdir -p "$(dirname "$1")"
	mark "$2" >"$1"
	chmod 755 "$1"
}

make_aliases() {
	executable al1.sh alias-subsection
	executable al2.sh alias-legacy
	executable al-decoy.sh decoy
	printf '[alias "x"]\n\ty = !./al1.sh\n[alias.Y]\n\tz = !./al2.sh\n' >>.git/config
	proved alias-subsection git x.y
	proved alias-legacy git y.z
}

make_dormant_include() {
	executable dext.sh dormant-diff
	printf '[diff]\n\texternal = ./dext.sh\n' >dormant.cfg
	printf '[includeIf "onbranch:other"]\n\tpath = ../dormant.cfg\n' >>.git/config
	git branch other
	git checkout -q other
	echo changed >a.txt
	proved dormant-diff git diff
	names_origin "the dormant include, on its branch" diff.external .git/../dormant.cfg
	git checkout -q a.txt
	git checkout -q main
}

make_helpers() {
	executable git-credential-tools/cred credential-dashed
	executable tools/cred decoy
	executable cred2.sh credential-shell
	executable git-remote-tools/rh remote-helper
	git config credential.helper tools/cred
	git config --add credential.helper 'x; ./cred2.sh'
	proved credential-dashed sh -c 'printf "protocol=https\nhost=example.invalid\n\n" | git credential fill'
	proved credential-shell sh -c 'printf "protocol=https\nhost=example.invalid\n\n" | git credential fill'
	git remote add rh https://example.invalid/r
	git config remote.rh.vcs tools/rh
	proved remote-helper git fetch -q rh
}

# An alias and core.sshCommand whose second line is a syntax error: sh runs
# the first line, then stops.
make_invalid_lines() {
	executable inv-alias.sh invalid-alias
	executable inv-ssh.sh invalid-ssh
	executable inv-never.sh never
	printf '[alias]\n\tinv = "!./inv-alias.sh\\nif then fi\\n./inv-never.sh"\n' >>.git/config
	printf '[core]\n\tsshCommand = "./inv-ssh.sh\\n{ }"\n' >>.git/config
	proved invalid-alias git inv
	proved invalid-ssh git ls-remote ssh://example.invalid/r
	if [ -e "$T/ran/never" ]; then
		tap_not_ok "sh stops at the error" "$(cat "$T/ran/never")"
	else
		tap_ok "sh stops at the error"
	fi
}

# A repository whose .git file leaves the tree and comes back: by name
# (../../src/gd from back/) and through a link outside ($T/way-in -> src).
make_out_and_back() {
	git init -q --bare gd
	git init -q --bare gd2
	mkdir back back2
	echo "gitdir: ../../src/gd" >back/.git
	ln -s src "$T/way-in"
	echo "gitdir: $T/way-in/gd2" >back2/.git
	git -C back config x.y by-name
	git -C back2 config x.y by-link
	# git names the git dir by its physical path
	names_origin "the git dir reached by name" x.y "$T/src/gd/config" -C back
	names_origin "the git dir reached through a link" x.y "$T/src/gd2/config" -C back2
}

make_outside_include() {
	executable back.sh outside-back
	printf '[include]\n\tpath = %s/src/back.cfg\n' "$T" >"$T/home/out.cfg"
	printf '[alias]\n\tbk = !./back.sh\n' >back.cfg
	git config --add include.path "$T/home/out.cfg"
	names_origin "the file an outside include names" alias.bk "$T/src/back.cfg"
	proved outside-back git bk
}

# r0 holds r1 as submodule m, which holds r2 ... down to r9.
make_deep_submodules() {
	local i
	for i in 9 8 7 6 5 4 3 2 1 0; do
		git init -q "$T/r$i"
		echo "$i" >"$T/r$i/f"
		git -C "$T/r$i" add f
		[ "$i" -eq 9 ] || git -C "$T/r$i" -c protocol.file.allow=always submodule add -q ../r$((i + 1)) m \
			>/dev/null 2>&1
		git -C "$T/r$i" commit -qm "c$i"
	done
	git -c protocol.file.allow=always clone -q --recurse-submodules "$T/r0" "$T/deep" >/dev/null 2>&1
}

DEEP_GIT=.git/modules/m/modules/m/modules/m/modules/m/modules/m/modules/m/modules/m/modules/m/modules/m
DEEP_CHECKOUT=m/m/m/m/m/m/m/m/m

attacks() {
	refused "[alias \"x\"] y's script" write al1.sh fsop append "$M/al1.sh" evil
	refused "[alias.Y] z's script" write al2.sh fsop append "$M/al2.sh" evil
	refused "the include of another branch" write dormant.cfg fsop append "$M/dormant.cfg" "[core]"
	refused "the program the dormant include names" write dext.sh fsop append "$M/dext.sh" evil
	refused "the dashed credential helper git runs" write git-credential-tools/cred \
		fsop append "$M/git-credential-tools/cred" evil
	refused "a program the credential helper's line runs" write cred2.sh fsop append "$M/cred2.sh" evil
	refused "the remote helper of remote.rh.vcs" write git-remote-tools/rh \
		fsop append "$M/git-remote-tools/rh" evil
	refused "the git dir a .git file reaches out and back by name" write gd/config \
		fsop append "$M/gd/config" "[core]"
	refused "a hook there" create gd/hooks/pre-commit fsop create "$M/gd/hooks/pre-commit" evil
	refused "the git dir a .git file reaches through a link outside" write gd2/config \
		fsop append "$M/gd2/config" "[core]"
	refused "the file an outside include names back in the tree" write back.cfg \
		fsop append "$M/back.cfg" "[core]"
	refused "the program that file names" write back.sh fsop append "$M/back.sh" evil
	refused "the program before an alias's syntax error" write inv-alias.sh fsop append "$M/inv-alias.sh" evil
	refused "the program before core.sshCommand's syntax error" write inv-ssh.sh \
		fsop append "$M/inv-ssh.sh" evil
	check "the program after the error, which sh never runs" fsop append "$M/inv-never.sh" ok
	check "a decoy beside the aliases" fsop append "$M/al-decoy.sh" ok
	check "the nearby tools/cred, which git does not run" fsop append "$M/tools/cred" ok
	check "a decoy beside the git dirs" fsop create "$M/gd-decoy" ok
}

# The mount point's own path in an include: git on the mount reads it there.
seen_as_include() {
	local m=$T/m
	printf '[i]\n\tk = v\n' >"$T/src/inc.cfg"
	git -C "$T/src" config --add include.path "$m/inc.cfg"
	oz_mount "$T/src" "$m" || tap_not_ok "mount at another point" "$(tail -n 3 "$T/daemon.log")"
	names_origin "the include at the mount point's path, on the mount" i.k "$m/inc.cfg" -C "$m"
	refused "the include named by the mount point's path" write inc.cfg fsop append "$m/inc.cfg" "[core]"
	check "unmount the second mount" oz_umount "$m"
}

deep() {
	local m=$T/deep-mnt
	if ! oz_mount "$T/deep" "$m"; then
		tap_not_ok "submodules nested nine deep mount" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	tap_ok "submodules nested nine deep mount"
	refused "the ninth submodule's configuration" write "$DEEP_GIT/config" \
		fsop append "$m/$DEEP_GIT/config" "[core]"
	refused "a file in the deep part of .git/modules" create "$DEEP_GIT/evil" fsop create "$m/$DEEP_GIT/evil" x
	refused "the ninth checkout's .git file" write "$DEEP_CHECKOUT/.git" \
		fsop append "$m/$DEEP_CHECKOUT/.git" x
	refused "the first submodule's configuration" write .git/modules/m/config \
		fsop append "$m/.git/modules/m/config" "[core]"
	check "a file of the ninth checkout" fsop append "$m/$DEEP_CHECKOUT/f" ok
	check "git status on the deep tree" git -C "$m" status --porcelain
	check "unmount the deep tree" oz_umount "$m"
}

oz_setup 600
export GIT_TERMINAL_PROMPT=0
mkdir -p "$T/ran"
one_commit_repo "$T/src" a.txt one
cd "$T/src"
make_aliases
make_dormant_include
make_helpers
make_invalid_lines
make_out_and_back
make_outside_include
make_deep_submodules
cd /
M=$T/src
oz_start "$T/src" "$M"
attacks
check "unmount" oz_umount "$M"
seen_as_include
deep
tap_done
