#!/bin/bash
# oz0fs --check-path: a table of paths, each judged for a read or a write
# against the denied roots and the tree's model (no mount: the model is
# built as a mount would build it). Exit 0 allowed, 1 refused, 2 usage.
. "$(dirname "$0")/lib.sh"
oz_setup 300
[ -x "${OZ0FS:-}" ] || oz_unavailable "no oz0fs binary at ${OZ0FS:-(OZ0FS unset)}"

# The home (HOME=$T/home, see oz_setup) with its key folders and credentials.
H=$T/home
mkdir -p "$H/.ssh" "$H/.gnupg" "$H/.config/solana" "$H/.aws" "$H/.kube" "$H/secret" "$T/srv/keys" "$T/elsewhere"
echo key >"$H/.ssh/id_ed25519"
echo '[default]' >"$H/.aws/credentials"
echo machine >"$H/.netrc"
ln -s "$T/elsewhere" "$H/.docker" # a link on the way to a credential path

# The tree: a repository with a submodule, a [protect] path and links out.
one_commit_repo "$T/sub" README "sub"
one_commit_repo "$T/tree" README "tree"
git -C "$T/tree" -c protocol.file.allow=always submodule add -q "$T/sub" sub
git -C "$T/tree" commit -qm sub
W=$T/tree
mkdir -p "$W/src" "$W/.vscode" "$W/.github/workflows"
echo 'int main;' >"$W/src/main.c"
echo '{}' >"$W/.vscode/tasks.json"
echo 'use nix' >"$W/.envrc"
echo 'on: push' >"$W/.github/workflows/ci.yml"
ln -s "$H/.ssh" "$W/keys"              # a folder link into a denied root
ln -s "$H/.ssh/id_new" "$W/newkey"     # a dangling link into a denied root
ln -s "$H/.ssh/id_ed25519" "$W/key"    # a file link into a denied root
ln -s src "$W/srclink"                 # a link inside the tree
ln -s .git "$W/gitlink"                # a link to the tree's git directory
ln -s "$T/elsewhere" "$W/out"          # a link out of the tree, to nowhere denied
ln -s "$W/src" "$H/work"               # a home link into the tree
ln -s loop "$W/loop"                   # a loop of links
echo notes >"$W/notes.txt"
mkdir "$W/.keys" && echo k >"$W/.keys/id" # a [deny] name
ln -s .keys/id "$W/keyalias"               # a link into it
: >"$T/empty.conf"
conf=$T/oz0fs.conf
printf '[protect]\npath = .github/workflows\n[deny]\npath = ~/secret\npath = %s/srv/keys\nname = .keys\nname = .env.agent\n' \
	"$T" >"$conf"

# expect STATUS RULE NAME ARGS...: runs --check-path ARGS from the tree;
# STATUS is its exit status, RULE the rule of the (first) refusal or "-".
expect() {
	local want=$1 rule=$2 name=$3 status=0 got
	shift 3
	(cd "$W" && "$OZ0FS" --check-path --config "$conf" "$@") >"$T/out" 2>&1 || status=$?
	got=$(sed -n 's/^.*: refused (\([a-z-]*\)).*$/\1/p' "$T/out" | head -n 1)
	if [ "$status" -ne "$want" ]; then
		tap_not_ok "$name" "exit $status, wanted $want: $*" "$(cat "$T/out")"
	elif [ "$rule" != - ] && [ "$got" != "$rule" ]; then
		tap_not_ok "$name" "refused by '$got', wanted '$rule': $*" "$(cat "$T/out")"
	else
		tap_ok "$name"
	fi
}
allowed() { expect 0 - "$@"; }
refused() { local rule=$1 name=$2; shift 2; expect 1 "$rule" "$name" "$@"; }

# ---- Plain files and folders --------------------------------------------
allowed "a tracked file may be written" -- src/main.c
allowed "a new file may be written" -- src/new.c
allowed "a new file in a new folder may be written" -- docs/a/b.md
allowed "an absolute path in the tree may be written" -- "$W/notes.txt"
allowed "several plain paths: exit 0" -- notes.txt src/main.c README
allowed "a path outside the tree and the roots may be written" -- "$T/elsewhere/x"
allowed "a plain file may be read" --read -- src/main.c
allowed "--write is the default and may be said" --write -- notes.txt
allowed "a link inside the tree to a plain folder" -- srclink/x.c
allowed "a link out of the tree to nowhere denied" -- out/x
allowed "a home link into the tree, through ~" -- '~/work/main.c'
allowed ".vscode/settings.json beside the protected tasks.json" -- .vscode/settings.json
allowed "a name that only starts like .git" -- .github/ISSUE_TEMPLATE.md
allowed "~/.sshd is not ~/.ssh" -- '~/.sshd/x'
allowed "the tree's own README.md in a new folder" -- src/README.md

# ---- The tree's model: every protected object of the fixtures ----------
refused protected-write "a hook is refused" -- .git/hooks/pre-commit
refused protected-write "a new hook is refused" -- .git/hooks/post-checkout
refused protected-write ".git/config is refused" -- .git/config
refused protected-write ".git/config.worktree is refused (missing name)" -- .git/config.worktree
refused protected-write ".git/commondir is refused (missing name)" -- .git/commondir
allowed "a new file in .git is git's own, as on the mount" -- .git/new-file
refused protected-write ".vscode/tasks.json is refused" -- .vscode/tasks.json
refused protected-write ".envrc is refused" -- .envrc
refused protected-write ".claude (missing) is refused" -- .claude/settings.json
refused protected-write ".codex (missing) is refused" -- .codex/config.toml
refused protected-write ".cursor (missing) is refused" -- .cursor/rules
refused protected-write "a submodule's git dir config is refused" -- .git/modules/sub/config
refused protected-write "a submodule's git dir hook is refused" -- .git/modules/sub/hooks/pre-commit
refused protected-write "a submodule's .git file is refused" -- sub/.git
refused protected-write "a [protect] folder's file is refused" -- .github/workflows/ci.yml
refused protected-write "a new file in a [protect] folder is refused" -- .github/workflows/evil.yml
refused protected-write "the tree's folder takes no new entry where it is anchored" -- .github/workflows
allowed "protected objects may be read" --read -- .git/config .git/hooks/pre-commit .envrc .vscode/tasks.json

# ---- '..' walks -------------------------------------------------------
refused protected-write "'..' back into .git" -- src/../.git/config
refused protected-write "'..' past a missing folder into .git" -- missing/../.git/hooks/x
refused protected-write "many '..' and '.' into .git" -- ./src/./a/../../.git/./config
refused denied-root "'..' out of the tree into ~/.ssh" -- ../home/.ssh/id_ed25519
refused denied-root "'..' out of the tree into ~/.ssh, for a read" --read -- ../home/.ssh/id_ed25519
refused denied-root "'..' from ~ into a denied sibling" -- '~/.aws/../.ssh/config'
refused denied-root "'..' above / stays at /" -- "../../../../../../../../..$H/.ssh/x"
refused protected-write "an absolute path with '..' into .git" -- "$W/src/../.git/config"

# ---- '~' forms ---------------------------------------------------------
refused denied-root "~/.ssh itself" --read -- '~/.ssh'
refused denied-root "~/.ssh/ with a final slash" --read -- '~/.ssh/'
refused denied-root "~/.gnupg" --read -- '~/.gnupg/pubring.kbx'
refused denied-root "~/.config/solana" --read -- '~/.config/solana/id.json'
refused denied-root "~/.oms, missing" --read -- '~/.oms/state'
refused credential-path "~/.aws/credentials" --read -- '~/.aws/credentials'
refused credential-path "~/.netrc" --read -- '~/.netrc'
refused credential-path "~/.kube/config" --read -- '~/.kube/config'
refused credential-path "~/.config/gcloud, missing" --read -- '~/.config/gcloud/x'
refused credential-path "~/.git-credentials, missing" -- '~/.git-credentials'
refused credential-path "~/.npmrc for a write" -- '~/.npmrc'
refused credential-path "~/.docker/config.json through the home's link" -- '~/.docker/config.json'
refused credential-path "the home link's target reached directly" -- "$T/elsewhere/config.json"
refused denied-root "the home spelled out" --read -- "$H/.ssh/id_ed25519"
refused fail-closed "~user is not expanded" -- '~root/.ssh/id'
allowed "a name that starts with ~ inside a folder is a name" -- './~/x'

# ---- Links -------------------------------------------------------------
refused denied-root "a folder link into ~/.ssh" --read -- keys/id_ed25519
refused denied-root "a file link into ~/.ssh" --read -- key
refused denied-root "a missing file below a link into ~/.ssh" -- keys/new_key
refused denied-root "a dangling link into ~/.ssh" -- newkey
refused denied-root "a missing tail below a link into ~/.ssh" -- keys/a/b/c
refused protected-write "a link to .git, then its config" -- gitlink/config
refused protected-write "a link inside the tree, '..', then .git" -- srclink/../.git/config
refused denied-root "'..' after a link climbs where the link leads" -- keys/../.ssh/x
refused denied-root "the folder link itself, as a read" --read -- keys

# ---- Case --------------------------------------------------------------
# This volume tells two spellings apart (the unit test asks it); so ~/.SSH
# and .GIT are other names, and lower-cased spellings are not judged.
allowed "~/.SSH is another folder on a case-sensitive volume" -- '~/.SSH/id'
allowed ".GIT/config is another file on a case-sensitive volume" -- .GIT/config
allowed ".ENVRC is another name on a case-sensitive volume" -- .ENVRC

# ---- [deny] ------------------------------------------------------------
refused deny "a ~/ [deny] root" --read -- '~/secret/token'
refused deny "an absolute [deny] root" --read -- "$T/srv/keys/k"
refused deny "an absolute [deny] root through '..'" --read -- "$T/srv/x/../keys"
allowed "a sibling of a [deny] root" --read -- "$T/srv/keys2"
refused denied-name "a [deny] name's folder, read" --read -- .keys
refused denied-name "a file in a [deny] name's folder, read" --read -- .keys/id
refused denied-name "a file in a [deny] name's folder, write" -- .keys/new
refused denied-name "a missing file of a [deny] name, anywhere" -- src/deep/.env.agent
refused denied-name "a link into a [deny] name's folder" --read -- keyalias
allowed "a [deny] name only passed through with '..' (the mount allows it too)" --read -- .keys/../notes.txt
allowed "a name that only starts like a [deny] name" -- src/.env.agent2
allowed "a [deny] name as part of a component" -- src/my.keys
allowed "without the configuration, .keys is a folder like any" --config "$T/empty.conf" --read -- .keys/id
allowed "without the configuration, ~/secret is a folder like any" --config "$T/empty.conf" -- '~/secret/token'

# ---- Fail closed ---------------------------------------------------------
refused fail-closed "an empty path" -- ''
refused fail-closed "a file on the way" -- notes.txt/x
refused fail-closed "a loop of links" -- loop/x
refused fail-closed "a tree whose model cannot be built" --tree "$T/none" -- "$T/none/x"
refused denied-root "one refusal among allowed paths: exit 1" -- notes.txt keys/x src/main.c

# ---- Usage ---------------------------------------------------------------
expect 2 - "no '--' is a usage error" notes.txt
expect 2 - "no PATH is a usage error" --
expect 2 - "--read and --write together" --read --write -- x
expect 2 - "an unknown option" --bogus -- x
expect 2 - "a configuration that cannot be read" --config "$T/none.conf" -- x
expect 2 - "an empty --tree" --tree '' -- x
cp "$conf" "$W/agent.conf"
expect 2 - "a configuration inside the tree (the agent's to change) is refused" --config "$W/agent.conf" -- x
rm -f "$W/agent.conf"

# ---- The output ----------------------------------------------------------
(cd "$W" && "$OZ0FS" --check-path -- notes.txt .git/config) >"$T/text" 2>&1 || true
check_eq "one line per PATH, allowed first" "notes.txt: allowed" "$(sed -n 1p "$T/text")"
check "a refusal names its rule and reason" grep -qx '.git/config: refused (protected-write): the mount refuses a write of .git/config (protected .git/config: .*)' "$T/text"
(cd "$W" && "$OZ0FS" --check-path --json --config "$conf" -- notes.txt keys/id '~/secret/x' '') >"$T/json" 2>&1 || true
cat >"$T/verdicts.py" <<'PY'
import json, sys
tree, home = sys.argv[2], sys.argv[3]
d = json.load(open(sys.argv[1]))
assert d["access"] == "write", d
assert d["tree"] == tree, d["tree"]
assert d["allowed"] is False, d
p = d["paths"]
assert [x["path"] for x in p] == ["notes.txt", "keys/id", "~/secret/x", ""], p
assert p[0]["allowed"] is True and p[0]["rule"] is None and p[0]["reason"] is None, p[0]
assert [f["path"] for f in p[0]["forms"]] == [tree + "/notes.txt"], p[0]
assert p[1]["rule"] == "denied-root" and not p[1]["allowed"], p[1]
assert [f["path"] for f in p[1]["forms"]] == [tree + "/keys/id", home + "/.ssh/id"], p[1]
assert all(f["folds_case"] is False for f in p[1]["forms"]), p[1]
assert p[2]["rule"] == "deny" and "[deny]" in p[2]["reason"], p[2]
assert p[3]["rule"] == "fail-closed" and p[3]["forms"] == [], p[3]
PY
check "--json: one object with each path's verdict and spellings" "$OZ_PY" "$T/verdicts.py" "$T/json" "$(realpath "$W")" "$(realpath "$H")"
(cd "$W" && "$OZ0FS" --check-path --read --json -- notes.txt) >"$T/json" 2>&1 || true
check "--json --read: allowed" "$OZ_PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["access"]=="read" and d["allowed"] is True, d' "$T/json"
check "--help is exit 0" "$OZ0FS" --check-path --help
tap_done
