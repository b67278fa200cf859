#!/bin/bash
# oz0run hides home credentials (issue 13 item 3; seed 000 "Credential files
# outside the working directory"): the node user's home is hidden; in a home
# the sandbox would still see (--home DIR, a workspace inside a home), each
# credential path that exists reads as empty, a folder empty and read-only,
# a file empty; a missing one is left alone; a link the sandbox could write
# is not followed; nothing inside the working tree is hidden.
. "$(dirname "$0")/run-lib.sh"
rl_setup 300

# credprobe PATH...: run inside the sandbox; one JSON line per PATH: its
# kind (dir, file, missing, or the errno's name), a folder's entries and
# whether an entry can be made in it, a file's text (or the errno's name).
cat >"$T/bin/credprobe" <<EOF
#!$OZ_PY
import errno, json, os, stat, sys
def err(e):
    return errno.errorcode.get(e.errno, str(e.errno))
print(json.dumps({"path": "HOME", "kind": "env", "content": os.environ.get("HOME")}))
for p in sys.argv[1:]:
    r = {"path": p}
    try:
        st = os.stat(p)
    except OSError as e:
        r["kind"] = "missing" if e.errno == errno.ENOENT else err(e)
    else:
        if stat.S_ISDIR(st.st_mode):
            r["kind"] = "dir"
            try:
                r["entries"] = sorted(os.listdir(p))
            except OSError as e:
                r["entries"] = err(e)
            try:
                os.mkdir(os.path.join(p, "oz0run-probe"))
                os.rmdir(os.path.join(p, "oz0run-probe"))
                r["mkdir"] = "ok"
            except OSError as e:
                r["mkdir"] = err(e)
        else:
            r["kind"] = "file"
            try:
                with open(p, "rb") as f:
                    r["content"] = f.read(4096).decode("utf-8", "replace")
            except OSError as e:
                r["content"] = err(e)
    print(json.dumps(r))
EOF
chmod 755 "$T/bin/credprobe"

# seen RUN PATH EXPR: EXPR over the probe's answer for PATH in RUN (as r).
seen() {
	"$OZ_PY" -c 'import json, sys
rows = {}
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    rows[r["path"]] = r
r = rows.get(sys.argv[2])
print("no answer" if r is None else eval(sys.argv[3]))' "$T/$1.out" "$2" "$3"
}

# folder_hidden RUN PATH: the probe saw PATH as an empty folder it cannot add to.
folder_hidden() {
	rl_is "$1: $2 reads as an empty, read-only folder" "dir [] refused" \
		"$(seen "$1" "$2" '"%s %s %s" % (r["kind"], r.get("entries"), "ok" if r.get("mkdir") == "ok" else "refused")')"
}

# file_empty RUN PATH: the probe read PATH as an empty file.
file_empty() {
	rl_is "$1: $2 reads as an empty file" "file ''" "$(seen "$1" "$2" '"%s %r" % (r["kind"], r.get("content"))')"
}

# as_is RUN PATH TEXT: the probe read PATH's TEXT (a file) or its one entry TEXT (a folder).
as_is() {
	rl_is "$1: $2 reads as it is" "$3" "$(seen "$1" "$2" 'r.get("content") if r["kind"] == "file" else " ".join(r.get("entries") or []) if r["kind"] == "dir" else r["kind"]')"
}

# no_secret RUN: nothing the run printed holds a planted secret.
no_secret() {
	rl_ok "$1: no planted secret reached the command" sh -c "! grep -n 'SECRET' '$T/$1.out'"
}

# plant DIR REL...: each REL below DIR, a file holding SECRET-REL.
plant() {
	local dir=$1 rel
	shift
	for rel; do
		mkdir -p "$(dirname "$dir/$rel")"
		echo "SECRET-$rel" >"$dir/$rel"
	done
}

tree=$T/tree
rl_repo "$tree"
echo "//registry.example/:_authToken=in-the-tree" >"$tree/.npmrc"
mkdir "$tree/.ssh"
echo "tree-key" >"$tree/.ssh/id_rsa"

# ---- --home DIR: every credential path in it reads as empty ------------------------------

H=$T/agent-home
plant "$H" .ssh/id_rsa .ssh/config .aws/credentials .config/gcloud/credentials.db .azure/accessTokens.json \
	.kube/config .gnupg/private-keys-v1.d/key.key .config/gh/hosts.yml .docker/config.json \
	.netrc .git-credentials .npmrc .pypirc
echo notes >"$H/notes.txt"
echo other >"$H/.docker/other.txt"
echo settings >"$H/.config/editor.conf"
# What is in DIR (not DIR itself, in which the probe tries to make a folder).
in_home() {
	local names
	mapfile -t names < <(ls -A "$H")
	snapshot "$H" "${names[@]}"
}
home_before=$(in_home)
rl_go home --tree "$tree" --home "$H" -- credprobe "$H" "$H/.ssh" "$H/.ssh/id_rsa" "$H/.aws" "$H/.aws/credentials" \
	"$H/.config/gcloud" "$H/.azure" "$H/.kube" "$H/.gnupg" "$H/.config/gh" "$H/.docker/config.json" \
	"$H/.netrc" "$H/.git-credentials" "$H/.npmrc" "$H/.pypirc" "$H/notes.txt" "$H/.docker/other.txt" \
	"$H/.config/editor.conf"
rl_status "home: the probe runs with --home DIR, exit 0" 0
rl_is "home: HOME is DIR" "$H" "$(seen home HOME 'r["content"]')"
for d in .ssh .aws .config/gcloud .azure .kube .gnupg .config/gh; do
	folder_hidden home "$H/$d"
done
for f in .docker/config.json .netrc .git-credentials .npmrc .pypirc; do
	file_empty home "$H/$f"
done
rl_ok "home: .ssh/id_rsa cannot be read" \
	test "$(seen home "$H/.ssh/id_rsa" 'r["kind"] != "file" or r.get("content") == ""')" = True
as_is home "$H/notes.txt" notes
as_is home "$H/.docker/other.txt" other
as_is home "$H/.config/editor.conf" settings
no_secret home
rl_is "home: what DIR holds is untouched outside" "$home_before" "$(in_home)"

# ---- The node user's home is hidden; the default home is new and empty --------------------

plant "$HOME" .ssh/id_rsa secret-notes.txt
rl_go nodehome --tree "$tree" -- credprobe "$HOME" "$HOME/secret-notes.txt" "$HOME/.ssh/id_rsa"
rl_status "nodehome: the probe runs without --home, exit 0" 0
rl_ok "nodehome: HOME is another folder than the node user's" \
	test "$(seen nodehome HOME 'r["content"]')" != "$HOME" -a "$(seen nodehome HOME 'r["content"]')" != None
folder_hidden nodehome "$HOME"
no_secret nodehome

# A missing credential path is left alone: the session makes its own.
rl_go ownssh --tree "$tree" -- sh -c 'echo "entries=$(ls -A "$HOME" | wc -l)"; echo "home=$HOME"
	mkdir "$HOME/.ssh" && echo mine >"$HOME/.ssh/id_rsa" && cat "$HOME/.ssh/id_rsa"'
rl_status "ownssh: exits 0" 0
rl_is "ownssh: the default home starts empty" "entries=0" "$(sed -n 1p "$T/ownssh.out")"
rl_is "ownssh: the session makes and reads its own ~/.ssh" mine "$(sed -n 3p "$T/ownssh.out")"
own_home=$(sed -n 's/^home=//p' "$T/ownssh.out")
rl_ok "ownssh: the default home is gone afterwards ($own_home)" test -n "$own_home" -a ! -e "$own_home"

# ---- Links in a home the sandbox can write are not followed ---------------------------------

H2=$T/linked-home
mkdir -p "$H2" "$tree/kubetests" "$T/shared"
echo kube-tests >"$tree/kubetests/data.txt"
echo shared >"$T/shared/data.txt"
ln -s "$tree/kubetests" "$H2/.kube"
rl_go planted --tree "$tree" --home "$H2" -- sh -c 'ln -s "$0" "$HOME/.aws"' "$T/shared"
rl_status "planted: a session links ~/.aws to a folder outside its tree, exit 0" 0
rl_go links --tree "$tree" --home "$H2" -- credprobe "$tree/kubetests" "$tree/kubetests/data.txt" \
	"$T/shared" "$T/shared/data.txt"
rl_status "links: the next run, exit 0" 0
as_is links "$tree/kubetests" data.txt
as_is links "$tree/kubetests/data.txt" kube-tests
as_is links "$T/shared" data.txt
as_is links "$T/shared/data.txt" shared

# ---- Nothing inside the tree is hidden -------------------------------------------------------

rl_go intree --tree "$tree" -- credprobe .npmrc .ssh .ssh/id_rsa
rl_status "intree: exit 0" 0
as_is intree .npmrc "//registry.example/:_authToken=in-the-tree"
as_is intree .ssh id_rsa
as_is intree .ssh/id_rsa tree-key
rl_go treehome --tree "$tree" --home "$tree" -- credprobe "$tree/.npmrc" "$tree/.ssh/id_rsa"
rl_status "treehome: --home the tree itself, exit 0" 0
as_is treehome "$tree/.npmrc" "//registry.example/:_authToken=in-the-tree"
as_is treehome "$tree/.ssh/id_rsa" tree-key

# A workspace inside the node user's home: the home's credentials stay out
# of reach, the tree's own are read as they are.
NH=$T/node-home
rl_repo "$NH/proj"
echo "in-proj" >"$NH/proj/.npmrc"
plant "$NH" .ssh/id_rsa .netrc .aws/credentials
HOME=$NH rl_go inhome --tree "$NH/proj" -- credprobe . .npmrc "$NH/.ssh" "$NH/.ssh/id_rsa" "$NH/.netrc" \
	"$NH/.aws/credentials"
rl_status "inhome: a tree inside the node user's home, exit 0" 0
as_is inhome .npmrc in-proj
rl_ok "inhome: the tree is there" test "$(seen inhome . '"file1.txt" in r.get("entries", [])')" = True
no_secret inhome
tap_done
