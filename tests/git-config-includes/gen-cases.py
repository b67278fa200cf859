#!/usr/bin/env python3
"""Writes cases/*.sh for run-oracle.sh: each a shell fragment run at the
root of a fresh `git init -b main` repository (the runner gives it `put
FILE` to write stdin to a file). Names: ordinary-*, odd-* (quirks git
accepts), hostile-* (what git refuses or an agent would plant) and refuse-*
(what git reads but our rules refuse). Run it from this folder after a
change; the cases it writes are committed."""
import os
import shutil

cases = {}


def case(name, body):
    assert name not in cases, name
    cases[name] = body.strip() + "\n"


def append_config(text):
    return "cat >>.git/config <<'EOF'\n" + text.strip("\n") + "\nEOF\n"


def put(path, text):
    return "put %s <<'EOF'\n%s\nEOF\n" % (path, text.strip("\n"))


# ---- include.path: paths resolved as git resolves them -------------------
case("ordinary-no-include", "")
case("ordinary-include-beside", append_config("[include]\n\tpath = extra.cfg\n[user]\n\tname = after")
     + put(".git/extra.cfg", "[user]\n\temail = a@b.c"))
case("ordinary-include-before-entries", append_config("[include]\n\tpath = extra.cfg")
     + put(".git/extra.cfg", "[core]\n\teditor = vi\n[alias]\n\tco = checkout"))
case("ordinary-include-in-tree", append_config("[include]\n\tpath = ../tools/git.cfg")
     + put("tools/git.cfg", "[core]\n\thooksPath = .husky/_"))
case("ordinary-include-subfolder", append_config("[include]\n\tpath = conf.d/a.cfg")
     + put(".git/conf.d/a.cfg", "[a]\n\tb = 1\n[include]\n\tpath = b.cfg")
     + put(".git/conf.d/b.cfg", "[a]\n\tc = 2"))
case("ordinary-include-twice", append_config("[include]\n\tpath = x.cfg\n\tpath = x.cfg")
     + put(".git/x.cfg", "[x]\n\ty = z"))
case("ordinary-include-absolute",
     "printf '[include]\\n\\tpath = %s/abs.cfg\\n' \"$PWD\" >>.git/config\n"
     + put("abs.cfg", "[abs]\n\tolute = yes"))
case("ordinary-include-absolute-into-git",
     "printf '[include]\\n\\tpath = %s/.git/abs.cfg\\n' \"$PWD\" >>.git/config\n"
     + put(".git/abs.cfg", "[abs]\n\tolute = yes"))
case("ordinary-nested-three", append_config("[include]\n\tpath = one.cfg")
     + put(".git/one.cfg", "[n]\n\tone = 1\n[include]\n\tpath = sub/two.cfg\n[n]\n\tafter = 1")
     + put(".git/sub/two.cfg", "[n]\n\ttwo = 2\n[include]\n\tpath = ../../three.cfg")
     + put("three.cfg", "[n]\n\tthree = 3"))
case("ordinary-alias-both-forms", append_config("[include]\n\tpath = alias.cfg")
     + put(".git/alias.cfg", "[alias]\n\tst = status\n[alias \"lg\"]\n\tcmd = log"))
case("odd-include-case-insensitive", append_config("[Include]\n\tPATH = x.cfg")
     + put(".git/x.cfg", "[x]\n\ty = 1"))
case("odd-include-subsection-is-no-include", append_config("[include \"x\"]\n\tpath = x.cfg")
     + put(".git/x.cfg", "[x]\n\ty = 1"))
case("odd-include-key-on-header", append_config("[include] path = x.cfg")
     + put(".git/x.cfg", "[x]\n\ty = 1"))
case("odd-include-quoted-path", append_config("[include]\n\tpath = \"sp ace.cfg\"")
     + put(".git/sp ace.cfg", "[x]\n\ty = 1"))
case("odd-include-dot-slash", append_config("[include]\n\tpath = ./x.cfg")
     + put(".git/x.cfg", "[x]\n\ty = 1"))
case("odd-include-dot-dot-back", append_config("[include]\n\tpath = ../.git/x.cfg")
     + put(".git/x.cfg", "[x]\n\ty = 1"))
case("odd-include-double-slash", append_config("[include]\n\tpath = sub//x.cfg")
     + put(".git/sub/x.cfg", "[x]\n\ty = 1"))
case("odd-include-out-and-back", append_config("[include]\n\tpath = ../../repo/x.cfg")
     + put("x.cfg", "[x]\n\tback = 1"))
case("odd-include-continued-value", append_config("[include]\n\tpath = x\\\n.cfg")
     + put(".git/x.cfg", "[x]\n\ty = 1"))
case("odd-include-nul-in-value",
     "printf '[include]\\n\\tpath = x.cfg\\000junk\\n' >>.git/config\n" + put(".git/x.cfg", "[x]\n\ty = 1"))
case("odd-include-escaped-tab-name", append_config("[include]\n\tpath = \"a\\tb.cfg\"")
     + "printf '[x]\\n\\ty = 1\\n' >\"$(printf '.git/a\\tb.cfg')\"\n")
case("odd-include-missing", append_config("[include]\n\tpath = nowhere.cfg\n[x]\n\tafter = 1"))
case("odd-include-missing-folder", append_config("[include]\n\tpath = no/where.cfg"))
case("odd-include-missing-then-up", append_config("[include]\n\tpath = nodir/../x.cfg")
     + put(".git/x.cfg", "[x]\n\tnever = 1"))
case("odd-include-through-file", append_config("[include]\n\tpath = x.cfg/../x.cfg")
     + put(".git/x.cfg", "[x]\n\tnever = 1"))
case("odd-include-trailing-slash-file", append_config("[include]\n\tpath = x.cfg/")
     + put(".git/x.cfg", "[x]\n\tnever = 1"))
case("odd-include-home-outside", append_config("[include]\n\tpath = ~/.gitconfig-extra\n[x]\n\ty = 1"))
case("odd-include-home-in-tree", "touch .home-in-tree\n" + append_config("[include]\n\tpath = ~/work.cfg")
     + put("home/work.cfg", "[home]\n\tk = v"))
case("odd-include-home-in-tree-missing", "touch .home-in-tree\n" + append_config("[include]\n\tpath = ~/none.cfg"))
case("odd-include-prefix", append_config("[include]\n\tpath = %(prefix)/share/oz0-no-such.cfg"))
case("odd-include-root-user", append_config("[include]\n\tpath = ~root/oz0-no-such.cfg"))
case("odd-include-outside-absolute", append_config("[include]\n\tpath = /oz0-no-such/x.cfg"))
case("odd-include-empty-file", append_config("[include]\n\tpath = empty.cfg") + "touch .git/empty.cfg\n")
case("odd-include-only-comments", append_config("[include]\n\tpath = c.cfg") + put(".git/c.cfg", "# nothing\n; here"))
case("odd-include-relative-in-absolute",
     "printf '[include]\\n\\tpath = %s/cfg/a.cfg\\n' \"$PWD\" >>.git/config\n"
     + put("cfg/a.cfg", "[include]\n\tpath = b.cfg") + put("cfg/b.cfg", "[b]\n\tk = v"))
case("hostile-include-no-value", append_config("[include]\n\tpath"))
case("hostile-include-empty-value", append_config("[include]\n\tpath ="))
case("hostile-include-directory", append_config("[include]\n\tpath = adir") + "mkdir .git/adir\n")
case("hostile-include-tree-root", append_config("[include]\n\tpath = .."))
case("hostile-include-no-such-user", append_config("[include]\n\tpath = ~oz0nosuchuser/x.cfg"))
case("hostile-include-bad-line", append_config("[include]\n\tpath = bad.cfg") + put(".git/bad.cfg", "[bad\n"))
case("hostile-include-bad-line-nested", append_config("[include]\n\tpath = a.cfg")
     + put(".git/a.cfg", "[a]\n\tk = 1\n[include]\n\tpath = b.cfg") + put(".git/b.cfg", "[b]\n\tk = \"open"))
case("hostile-include-self", append_config("[include]\n\tpath = config"))
case("hostile-include-cycle-two", append_config("[include]\n\tpath = a.cfg")
     + put(".git/a.cfg", "[include]\n\tpath = b.cfg") + put(".git/b.cfg", "[include]\n\tpath = a.cfg"))
case("hostile-include-cycle-missing-ends",
     append_config("[include]\n\tpath = a.cfg") + put(".git/a.cfg", "[include]\n\tpath = nope.cfg"))


def chain(depth):
    body = append_config("[include]\n\tpath = d1.cfg")
    for i in range(1, depth + 1):
        nxt = "\n[include]\n\tpath = d%d.cfg" % (i + 1) if i < depth else ""
        body += put(".git/d%d.cfg" % i, "[d]\n\tlevel%d = yes%s" % (i, nxt))
    return body


for d in (9, 10):
    case("odd-include-depth-%d" % d, chain(d))
for d in (11, 12):
    case("hostile-include-depth-%d" % d, chain(d))
case("odd-include-depth-11-missing-last", chain(10).replace("\n[d]\n\tlevel10 = yes", "\n[d]\n\tlevel10 = yes\n[include]\n\tpath = d11.cfg"))

# ---- includeIf gitdir: and gitdir/i: -------------------------------------
gitdir_patterns = {
    "abs-exact-slash": ("\"$PWD/.git/\"", True),
    "abs-exact": ("\"$PWD/.git\"", True),
    "abs-tree-slash": ("\"$PWD/\"", True),
    "abs-tree": ("\"$PWD\"", False),
    "abs-star": ("\"$PWD/*\"", True),
    "abs-parent-starstar": ("\"${PWD%/*}/**\"", True),
    "abs-parent-star": ("\"${PWD%/*}/*\"", False),
    "abs-other": ("/oz0-elsewhere/", False),
    "relative-name": ("repo/", True),
    "relative-name-git": ("repo/.git", True),
    "relative-other": ("other/", False),
    "relative-starstar": ("**/repo/**", True),
    "relative-star-repo": ("*/repo/", True),
    "relative-question": ("rep?/", True),
    "relative-class": ("re[a-p]o/", True),
    "relative-class-miss": ("re[q-z]o/", False),
    "relative-class-negated": ("re[!q]o/", True),
    "relative-class-caret": ("re[^p]o/", False),
    "relative-named-class": ("re[[:alpha:]]o/", True),
    "relative-named-class-digit": ("re[[:digit:]]o/", False),
    "relative-bad-named-class": ("re[[:nope:]]o/", False),
    "relative-unclosed-class": ("re[po/", False),
    "relative-escaped": ("r\\\\epo/", True),
    "relative-dotgit": (".git", True),
    "relative-dotgit-slash": (".git/", False),
    "dot-slash": ("./", False),
    "dot-slash-star": ("./*", False),
    "dot-slash-git": ("./../.git", False),
    "dot-slash-sibling": ("./", False),
    "uppercase": ("REPO/", False),
    "starstar-middle": ("**/re**/", True),
    "star-slash": ("*/", True),
    "empty": ("", False),
    "tilde-outside": ("~/", False),
    "trailing-starstar": ("repo/**", True),
    "question-slash": ("repo?.git", False),
}
for name, (pat, _) in gitdir_patterns.items():
    body = "printf '[includeIf \"gitdir:%%s\"]\\n\\tpath = hit.cfg\\n' %s >>.git/config\n" % (pat if pat.startswith('"') else "'%s'" % pat)
    body += put(".git/hit.cfg", "[hit]\n\tgitdir = yes")
    case("odd-gitdir-" + name, body)
for name in ("uppercase", "relative-name", "relative-class", "abs-exact-slash"):
    pat = gitdir_patterns[name][0]
    body = "printf '[includeIf \"gitdir/i:%%s\"]\\n\\tpath = hit.cfg\\n' %s >>.git/config\n" % (pat if pat.startswith('"') else "'%s'" % pat)
    body += put(".git/hit.cfg", "[hit]\n\tgitdir = yes")
    case("odd-gitdir-i-" + name, body)
case("odd-gitdir-i-upper-abs",
     "printf '[includeIf \"gitdir/i:%s/\"]\\n\\tpath = hit.cfg\\n' \"$(printf %s \"$PWD/.GIT\" | tr a-z A-Z)\" >>.git/config\n"
     + put(".git/hit.cfg", "[hit]\n\tgitdir = yes"))
case("odd-gitdir-i-upper-class", append_config("[includeIf \"gitdir/i:RE[P]O/\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[hit]\n\tgitdir = yes"))
case("odd-gitdir-i-upper-range", append_config("[includeIf \"gitdir/i:RE[O-Q]O/\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[hit]\n\tgitdir = yes"))
case("odd-gitdir-i-upper-named", append_config("[includeIf \"gitdir/i:RE[[:upper:]]O/\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[hit]\n\tgitdir = yes"))
case("odd-gitdir-dot-slash-from-tree-file", append_config("[include]\n\tpath = ../conf/a.cfg")
     + put("conf/a.cfg", "[includeIf \"gitdir:./../.git\"]\n\tpath = hit.cfg")
     + put("conf/hit.cfg", "[hit]\n\tdotslash = yes"))
case("odd-gitdir-dot-slash-from-git", append_config("[includeIf \"gitdir:./\"]\n\tpath = hit.cfg\n[includeIf \"gitdir:./../.git\"]\n\tpath = hit2.cfg")
     + put(".git/hit.cfg", "[hit]\n\tone = yes") + put(".git/hit2.cfg", "[hit]\n\ttwo = yes"))
case("odd-gitdir-home-in-tree", "touch .home-in-tree\n" + append_config("[includeIf \"gitdir:~/../\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[hit]\n\thome = yes"))
case("odd-gitdir-home-in-tree-miss", "touch .home-in-tree\n" + append_config("[includeIf \"gitdir:~/\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[hit]\n\thome = yes"))
case("odd-gitdir-uppercase-kind", append_config("[includeIf \"GITDIR:repo/\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[hit]\n\tk = yes"))
case("odd-includeif-unknown", append_config("[includeIf \"whatever:x\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[hit]\n\tk = yes"))
case("odd-includeif-no-condition", append_config("[includeIf]\n\tpath = hit.cfg") + put(".git/hit.cfg", "[hit]\n\tk = yes"))
case("odd-includeif-other-key", append_config("[includeIf \"gitdir:repo/\"]\n\tfile = hit.cfg")
     + put(".git/hit.cfg", "[hit]\n\tk = yes"))
case("odd-includeif-missing-file", append_config("[includeIf \"gitdir:repo/\"]\n\tpath = nowhere.cfg"))
case("odd-includeif-legacy-header", append_config("[includeIf.gitdir:repo/]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[hit]\n\tk = yes"))
case("odd-includeif-dot-in-condition", append_config("[includeIf \"gitdir:re.po/\"]\n\tpath = hit.cfg\n[includeIf \"gitdir:**/repo.git\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[hit]\n\tk = yes"))
case("hostile-includeif-no-value", append_config("[includeIf \"gitdir:repo/\"]\n\tpath"))
case("odd-includeif-false-no-value", append_config("[includeIf \"gitdir:other/\"]\n\tpath"))

# ---- onbranch: -------------------------------------------------------------
branch_setups = {
    "unborn-main": "",
    "commit-main": "git commit -q --allow-empty -m x\n",
    "feature": "git commit -q --allow-empty -m x\ngit checkout -q -b feature/login\n",
    "detached": "git commit -q --allow-empty -m x\ngit checkout -q --detach\n",
    "nested-symref": "git commit -q --allow-empty -m x\ngit symbolic-ref refs/heads/alias refs/heads/main\ngit symbolic-ref HEAD refs/heads/alias\n",
    "head-elsewhere": "git symbolic-ref HEAD refs/remotes/origin/main\n",
}
branch_patterns = ["main", "ma*", "m?in", "feature/", "feature/*", "feature/**", "*", "**", "feat*", "MAIN", "alias", "[lm]ain", ""]
for setup, cmds in branch_setups.items():
    for pat in branch_patterns:
        if setup in ("detached", "head-elsewhere") and pat not in ("main", "*", "**"):
            continue
        if setup == "nested-symref" and pat not in ("main", "alias"):
            continue
        if setup == "unborn-main" and pat in ("feature/", "feature/*", "feature/**", "feat*"):
            continue
        slug = pat.replace("*", "star").replace("?", "q").replace("/", "-slash").replace("[", "cls").replace("]", "") or "empty"
        case("odd-onbranch-%s-%s" % (setup, slug),
             cmds + append_config("[includeIf \"onbranch:%s\"]\n\tpath = hit.cfg" % pat)
             + put(".git/hit.cfg", "[hit]\n\tbranch = yes"))
case("odd-onbranch-long-symref-chain",
     "git commit -q --allow-empty -m x\n"
     + "".join("git symbolic-ref refs/heads/s%d refs/heads/s%d\n" % (i, i + 1) for i in range(1, 6))
     + "git symbolic-ref refs/heads/s6 refs/heads/main\ngit symbolic-ref HEAD refs/heads/s1\n"
     + append_config("[includeIf \"onbranch:*\"]\n\tpath = hit.cfg") + put(".git/hit.cfg", "[hit]\n\tbranch = yes"))
case("odd-onbranch-short-symref-chain",
     "git commit -q --allow-empty -m x\n"
     + "git symbolic-ref refs/heads/s1 refs/heads/s2\ngit symbolic-ref refs/heads/s2 refs/heads/main\n"
     + "git symbolic-ref HEAD refs/heads/s1\n"
     + append_config("[includeIf \"onbranch:main\"]\n\tpath = hit.cfg") + put(".git/hit.cfg", "[hit]\n\tbranch = yes"))
case("odd-onbranch-broken-ref",
     "echo garbage >.git/refs/heads/main\n"
     + append_config("[includeIf \"onbranch:main\"]\n\tpath = hit.cfg") + put(".git/hit.cfg", "[hit]\n\tbranch = yes"))
case("odd-onbranch-in-included-file", append_config("[include]\n\tpath = a.cfg")
     + put(".git/a.cfg", "[includeIf \"onbranch:main\"]\n\tpath = hit.cfg") + put(".git/hit.cfg", "[hit]\n\tbranch = yes"))

# git's wildmatch through onbranch: (branch, pattern) pairs in the spirit of
# git's t3070, matching and not.
wildmatch_pairs = [
    ("foo/bar/baz", "foo/**/baz"), ("foo/baz", "foo/**/baz"), ("foo/bar/baz", "foo/*/baz"),
    ("foo/bar/x/baz", "foo/*/baz"), ("foo/bar/baz", "**/baz"), ("foo/bar/baz", "foo**baz"),
    ("foo/bar/baz", "foo/b*"), ("foo/bar/baz", "f[^a]o/**"), ("foo/bar/baz", "[[:lower:]]oo/**"),
    ("foo/bar/baz", "foo\\/bar/**"), ("foo/bar/baz", "*/bar/*"), ("foo/bar/baz", "**/bar/**"),
    ("foo/bar/baz", "**/bar*"), ("foo/bar/baz", "foo/**/bar/**"), ("foo/bar/baz", "foo/**/**/baz"),
    ("a-b", "a[-]b"), ("a-b", "a[a-]b"), ("a]b", "a[]]b"), ("a]b", "a[!]]b"), ("abc", "a[b-b]c"),
    ("abc", "a[[:alpha:][:digit:]]c"), ("a1c", "a[[:alpha:][:digit:]]c"), ("a_c", "a[[:punct:]]c"),
    ("abc", "a[[:upper:]]c"), ("abc", "a[[:xdigit:]]c"), ("abc", "a[[:xdigit]]c"),
    ("abc", "a[[:spaci:]]c"), ("abc", "a[b"), ("abc", "a\\bc"), ("abc", "a\\"),
    ("abc", "***"), ("abc", "a**"), ("abc", "**c"), ("x/abc", "x**c"), ("x/abc", "x/**c"),
    ("x/y/abc", "x/**/abc/"), ("x/y/abc", "x/**/"), ("release/1.2", "release/[0-9].*"),
    ("release/1.2", "release/?.?"), ("release/1.2", "release/*.?/"),
]
for i, (branch, pat) in enumerate(wildmatch_pairs):
    case("odd-onbranch-wildmatch-%02d" % i,
         "git commit -q --allow-empty -m x\ngit checkout -q -b '%s'\n" % branch
         + append_config("[includeIf \"onbranch:%s\"]\n\tpath = hit.cfg" % pat)
         + put(".git/hit.cfg", "[hit]\n\tbranch = yes"))

# ---- hasconfig:remote.*.url: ------------------------------------------------
remote = "[remote \"origin\"]\n\turl = https://github.com/acme/tool.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*"
url_patterns = {
    "exact": ("https://github.com/acme/tool.git", True),
    "starstar": ("https://github.com/**", True),
    "star-host": ("https://*/acme/tool.git", True),
    "star-stops-at-slash": ("https://github.com/*", False),
    "other": ("git@gitlab.com:**", False),
    "question": ("https://github.com/acm?/**", True),
    "class": ("https://github.com/[a-c]cme/**", True),
    "uppercase": ("https://GITHUB.com/**", False),
}
for name, (pat, _) in url_patterns.items():
    case("odd-hasconfig-" + name,
         append_config(remote + "\n[includeIf \"hasconfig:remote.*.url:%s\"]\n\tpath = hit.cfg" % pat)
         + put(".git/hit.cfg", "[hit]\n\tremote = yes"))
case("odd-hasconfig-url-after-condition",
     append_config("[includeIf \"hasconfig:remote.*.url:https://x.org/**\"]\n\tpath = hit.cfg\n[remote \"late\"]\n\turl = https://x.org/late")
     + put(".git/hit.cfg", "[hit]\n\tremote = yes"))
case("odd-hasconfig-url-in-include",
     append_config("[include]\n\tpath = remotes.cfg\n[includeIf \"hasconfig:remote.*.url:https://x.org/**\"]\n\tpath = hit.cfg")
     + put(".git/remotes.cfg", "[remote \"a\"]\n\turl = https://x.org/a") + put(".git/hit.cfg", "[hit]\n\tremote = yes"))
case("odd-hasconfig-url-without-name",
     append_config("[remote]\n\turl = https://x.org/a\n[includeIf \"hasconfig:remote.*.url:https://x.org/**\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[hit]\n\tremote = yes"))
case("odd-hasconfig-pushurl-not-url",
     append_config("[remote \"a\"]\n\tpushurl = https://x.org/a\n[includeIf \"hasconfig:remote.*.url:https://x.org/**\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[hit]\n\tremote = yes"))
case("odd-hasconfig-two-remotes",
     append_config("[remote \"a\"]\n\turl = https://a.org/a\n[remote \"b\"]\n\turl = https://b.org/b\n[includeIf \"hasconfig:remote.*.url:https://b.org/**\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[hit]\n\tremote = yes"))
case("odd-hasconfig-worktree-config-url",
     append_config("[extensions]\n\tworktreeConfig = true\n[includeIf \"hasconfig:remote.*.url:https://wt.org/**\"]\n\tpath = hit.cfg")
     + put(".git/config.worktree", "[remote \"w\"]\n\turl = https://wt.org/w") + put(".git/hit.cfg", "[hit]\n\tremote = yes"))
case("odd-hasconfig-other-key", append_config(remote + "\n[includeIf \"hasconfig:remote.*.url:https://github.com/**\"]\n\tfoo = bar"))
case("odd-hasconfig-other-pattern-kind", append_config(remote + "\n[includeIf \"hasconfig:remote.origin.url:https://github.com/**\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[hit]\n\tremote = yes"))
case("hostile-hasconfig-file-sets-url",
     append_config(remote + "\n[includeIf \"hasconfig:remote.*.url:https://github.com/**\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[remote \"evil\"]\n\turl = https://evil.org/x"))
case("hostile-hasconfig-false-file-sets-url",
     append_config(remote + "\n[includeIf \"hasconfig:remote.*.url:https://nomatch.org/**\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[remote \"evil\"]\n\turl = https://evil.org/x"))
case("hostile-hasconfig-nested-sets-url",
     append_config(remote + "\n[includeIf \"hasconfig:remote.*.url:https://github.com/**\"]\n\tpath = hit.cfg")
     + put(".git/hit.cfg", "[include]\n\tpath = deeper.cfg") + put(".git/deeper.cfg", "[remote \"evil\"]\n\turl = https://evil.org/x"))
case("hostile-hasconfig-gitdir-file-sets-url",
     append_config(remote + "\n[includeIf \"gitdir:repo/\"]\n\tpath = g.cfg\n[includeIf \"hasconfig:remote.*.url:https://github.com/**\"]\n\tpath = hit.cfg")
     + put(".git/g.cfg", "[remote \"g\"]\n\turl = https://g.org/x") + put(".git/hit.cfg", "[hit]\n\tremote = yes"))
case("odd-hasconfig-gitdir-url-without-hasconfig",
     append_config("[includeIf \"gitdir:repo/\"]\n\tpath = g.cfg") + put(".git/g.cfg", "[remote \"g\"]\n\turl = https://g.org/x"))
# git 2.39 crashes on this one (a NULL URL); we fail with a reason.
case("hostile-hasconfig-url-no-value",
     append_config("[remote \"a\"]\n\turl\n[includeIf \"hasconfig:remote.*.url:x\"]\n\tpath = hit.cfg"))
case("hostile-hasconfig-self-include",
     append_config(remote + "\n[includeIf \"hasconfig:remote.*.url:https://github.com/**\"]\n\tpath = config"))

# ---- config.worktree -----------------------------------------------------------
wt = put(".git/config.worktree", "[wt]\n\tk = v")
case("ordinary-worktree-config", append_config("[extensions]\n\tworktreeConfig = true") + wt)
case("ordinary-worktree-config-v1", "git config core.repositoryformatversion 1\n" + append_config("[extensions]\n\tworktreeConfig = true") + wt)
case("odd-worktree-config-off", append_config("[extensions]\n\tworktreeConfig = false") + wt)
case("odd-worktree-config-unset", wt)
case("odd-worktree-config-implicit-true", append_config("[extensions]\n\tworktreeConfig") + wt)
case("odd-worktree-config-number", append_config("[extensions]\n\tworktreeConfig = 2k") + wt)
case("odd-worktree-config-yes-upper", append_config("[extensions]\n\tworktreeConfig = YES") + wt)
case("odd-worktree-config-empty", append_config("[extensions]\n\tworktreeConfig =") + wt)
case("odd-worktree-config-last-wins", append_config("[extensions]\n\tworktreeConfig = true\n\tworktreeConfig = off") + wt)
case("odd-worktree-config-only-in-include", append_config("[include]\n\tpath = ext.cfg")
     + put(".git/ext.cfg", "[extensions]\n\tworktreeConfig = true") + wt)
case("odd-worktree-config-missing", append_config("[extensions]\n\tworktreeConfig = true"))
case("odd-worktree-config-includes", append_config("[extensions]\n\tworktreeConfig = true")
     + put(".git/config.worktree", "[include]\n\tpath = wt-inc.cfg") + put(".git/wt-inc.cfg", "[wt]\n\tincluded = yes"))
case("hostile-worktree-config-bad-bool", append_config("[extensions]\n\tworktreeConfig = maybe") + wt)
case("hostile-worktree-config-bad-line", append_config("[extensions]\n\tworktreeConfig = true")
     + put(".git/config.worktree", "[wt\n"))
case("hostile-worktree-config-directory", append_config("[extensions]\n\tworktreeConfig = true") + "mkdir .git/config.worktree\n")

# ---- what our rules refuse where git reads --------------------------------------
case("refuse-include-symlink", append_config("[include]\n\tpath = link.cfg")
     + put(".git/real.cfg", "[x]\n\ty = 1") + "ln -s real.cfg .git/link.cfg\n")
case("refuse-include-symlinked-folder", append_config("[include]\n\tpath = linkdir/x.cfg")
     + put(".git/realdir/x.cfg", "[x]\n\ty = 1") + "ln -s realdir .git/linkdir\n")
case("refuse-include-symlink-out-and-in", append_config("[include]\n\tpath = up/x.cfg")
     + put("x.cfg", "[x]\n\ty = 1") + "ln -s .. .git/up\n")
case("refuse-include-fifo", append_config("[include]\n\tpath = fifo.cfg") + "mkfifo .git/fifo.cfg\n")
case("refuse-include-over-1mib", append_config("[include]\n\tpath = big.cfg")
     + "{ echo '[big]'; i=0; while [ $i -lt 40000 ]; do echo \"\tkey$i = 0123456789012345678\"; i=$((i+1)); done; } >.git/big.cfg\n")
case("refuse-config-symlink", "mv .git/config .git/real-config\nln -s real-config .git/config\n")
case("refuse-format-version-2", "git config core.repositoryformatversion 2\n")
case("refuse-include-outside-root-link", append_config("[include]\n\tpath = x.cfg") + "ln -s /etc/hostname .git/x.cfg\n")

os.chdir(os.path.dirname(os.path.abspath(__file__)))
shutil.rmtree("cases", ignore_errors=True)
os.mkdir("cases")
for name, body in sorted(cases.items()):
    with open(os.path.join("cases", name + ".sh"), "w") as f:
        f.write("# generated by gen-cases.py: " + name + "\n" + body)
print(len(cases), "cases")
