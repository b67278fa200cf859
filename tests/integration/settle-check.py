#!/usr/bin/python3
"""The settler's tests' judge (tests/integration/settle-lib.sh runs it).

  settle-check.py fp DIR
      a fingerprint of every object below DIR, one line each, sorted: the
      path (escaped as oz0settle escapes it), its type, mode and content
      (SHA-256 of a file, a link's target). Two equal fingerprints mean
      nothing below DIR was changed, moved or lost.

  settle-check.py lines OUT EXPECT BEFORE
      OUT's lines (oz0settle's actions) against EXPECT, one expected action
      a line, "KIND<TAB>PATH[<TAB>PATH]" (see settle-lib.sh's sl_row);
      BEFORE is the tree as recorded, to tell new git directories from old.

  settle-check.py tree OUT BEFORE RAN AFTER
      the tree AFTER settling against RAN (as the run left it): each action
      OUT says it took is checked on the tree (moved with every byte, removed
      only where the seed lets the settler remove, restored to BEFORE's
      bytes, exec steps commented out and nothing else, the owner's access
      given back and no other bit), and every other object is unchanged.

Each prints what is wrong, one problem a line, and exits 1 when anything is.
"""
import hashlib
import os
import re
import stat
import sys
sys.setrecursionlimit(20000)

REFUSED = re.compile(rb"^(.*)\.sandbox-refused(\.([2-9]|[1-9][0-9]+))?$")
MOVED = re.compile(rb"^moved aside: (.+?) -> (.+?): (.+)$")
OTHER = re.compile(rb"^(removed|restored|commented out exec steps|gave the owner access back|"
                   rb"could not settle): (.+?): (.+)$")
KIND_OF_VERB = {
    b"removed": "removed",
    b"restored": "restored",
    b"commented out exec steps": "execs",
    b"gave the owner access back": "access",
    b"could not settle": "couldnot",
}
EXEC_STEP = re.compile(rb"^[ \t]*(exec|x)([ \t]|$)")
# What the seed lets the settler delete: a .git file or link, a new git
# directory's commondir and config.worktree, and git directories past the
# bounds.
REMOVABLE_FILES = {b".git", b"commondir", b"config.worktree"}


def escape(path):
    """PATH's bytes as oz0settle writes them: printable ASCII as it is,
    everything else as \\ooo."""
    return "".join(chr(b) if 0x20 <= b < 0x7F else "\\%03o" % b for b in path)


def unescape(text):
    out, i = bytearray(), 0
    while i < len(text):
        if text[i:i + 1] == b"\\" and re.fullmatch(rb"[0-7]{3}", text[i + 1:i + 4]):
            out.append(int(text[i + 1:i + 4], 8) & 0xFF)
            i += 4
        else:
            out += text[i:i + 1]
            i += 1
    return bytes(out)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fingerprint(root):
    """{relative path (bytes): (type, mode, content)} of everything below
    ROOT, ROOT itself excluded; no link is followed, no FIFO opened."""
    root = os.fsencode(root)
    prints = {}

    def walk(rel):
        try:
            entries = list(os.scandir(os.path.join(root, rel) if rel else root))
        except OSError as e:
            if rel:
                prints[rel] = prints[rel][:2] + ("unreadable: %s" % e.strerror,)
            else:
                prints[b"."] = ("dir", 0, "unreadable: %s" % e.strerror)
            return
        for entry in entries:
            path = os.path.join(rel, entry.name) if rel else entry.name
            st = entry.stat(follow_symlinks=False)
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISDIR(st.st_mode):
                prints[path] = ("dir", mode, "")
                walk(path)
            elif stat.S_ISREG(st.st_mode):
                prints[path] = ("file", mode, sha256(entry.path))
            elif stat.S_ISLNK(st.st_mode):
                prints[path] = ("link", mode, escape(os.readlink(entry.path)))
            elif stat.S_ISFIFO(st.st_mode):
                prints[path] = ("fifo", mode, "")
            else:
                prints[path] = ("other", mode, "%o" % st.st_mode)

    walk(b"")
    return prints


def parse_lines(out_file):
    """OUT's actions as [(kind, path, new path or None)], and the problems
    with its lines."""
    actions, problems = [], []
    with open(out_file, "rb") as f:
        text = f.read()
    lines = text.split(b"\n") if text else []
    if text.endswith(b"\n"):
        lines.pop()
    for line in lines:
        m = MOVED.match(line)
        if m:
            actions.append(("moved", unescape(m.group(1)), unescape(m.group(2))))
            continue
        m = OTHER.match(line)
        if m:
            actions.append((KIND_OF_VERB[m.group(1)], unescape(m.group(2)), None))
            continue
        problems.append("a line not in any of the action formats (or with no reason): %r" % line)
    if text and not text.endswith(b"\n"):
        problems.append("the last line has no newline")
    return actions, problems


def under(path, prefix):
    return path == prefix or path.startswith(prefix + b"/")


def subtree(prints, top):
    """The entries below TOP (TOP's own as b""), keyed relative to it."""
    return {p[len(top) + 1:] if p != top else b"": v for p, v in prints.items() if under(p, top)}


def is_git_dir(prints, path):
    return prints.get(path, ("",))[0] == "dir" and path + b"/HEAD" in prints


# ---- lines -----------------------------------------------------------------


def read_expect(expect_file):
    wanted = []
    with open(expect_file, "rb") as f:
        for line in f.read().split(b"\n"):
            if line:
                kind, *paths = line.split(b"\t")
                wanted.append((kind.decode(), [unescape(p) for p in paths]))
    return wanted


def refused_name(path, new):
    return new if new is not None else path + b".sandbox-refused"


def take(actions, match):
    """Removes and returns the actions MATCH accepts."""
    hit = [a for a in actions if match(a)]
    for a in hit:
        actions.remove(a)
    return hit


def check_lines(out_file, expect_file, before_dir):
    actions, problems = parse_lines(out_file)
    before = fingerprint(before_dir)
    left = list(actions)
    wanted = read_expect(expect_file)
    for kind, paths in wanted:
        if kind == "moved":
            new = refused_name(paths[0], paths[1] if len(paths) > 1 else None)
            hit = take(left, lambda a: a == ("moved", paths[0], new))
            want = "moved aside: %s -> %s" % (escape(paths[0]), escape(new))
        elif kind == "couldnot-under":
            hit = take(left, lambda a: a[0] == "couldnot" and under(a[1], paths[0]))
            want = "could not settle: (something below) %s" % escape(paths[0])
        elif kind == "mention":
            if not any(under(a[1], paths[0]) or under(paths[0], a[1]) for a in actions):
                problems.append("no line names %s or a folder it is in" % escape(paths[0]))
            continue
        elif kind == "any":
            continue
        elif kind == "over":
            count = int(paths[0])
            hit = take(left, lambda a: a[0] in ("moved", "removed") and a[1] not in before)
            if len(hit) != count:
                problems.append("%d new git directories moved aside or removed past the bound, expected %d"
                                % (len(hit), count))
            continue
        elif kind.startswith("maybe-"):
            take(left, lambda a: a == (kind[len("maybe-"):], paths[0], None))
            continue
        else:
            hit = take(left, lambda a: a == (kind, paths[0], None))
            want = "%s: %s" % (kind, escape(paths[0]))
        if not hit:
            problems.append("missing: %s" % want)
    for a in left if ("any", []) not in wanted else []:
        problems.append("not expected: %s %s%s" % (a[0], escape(a[1]), " -> " + escape(a[2]) if a[2] else ""))
    return problems


# ---- tree ------------------------------------------------------------------


class TreeCheck:
    def __init__(self, before_dir, ran_dir, after_dir):
        self.ran_dir, self.after_dir = os.fsencode(ran_dir), os.fsencode(after_dir)
        self.before, self.ran, self.after = (fingerprint(d) for d in (before_dir, ran_dir, after_dir))
        self.done_ran, self.done_after = set(), set()
        self.mode_free = set()  # paths (of RAN) whose owner bits may have changed
        self.moves = []
        self.problems = []

    def bad(self, text):
        self.problems.append(text)

    def moved(self, path, new):
        m = REFUSED.match(os.path.basename(new))
        if not m or m.group(1) != os.path.basename(path) or os.path.dirname(new) != os.path.dirname(path):
            return self.bad("%s moved to %s: not NAME.sandbox-refused[.N] beside it" % (escape(path), escape(new)))
        if path not in self.ran:
            return self.bad("moved %s, which the run did not leave" % escape(path))
        if new in self.ran:
            return self.bad("moved %s onto %s, which was there" % (escape(path), escape(new)))
        if path in self.after:
            return self.bad("%s is still there after it was moved aside" % escape(path))
        self.moves.append((path, new))

    def check_moves(self):
        for path, new in self.moves:
            old, now = subtree(self.ran, path), subtree(self.after, new)
            free = {p[len(path):].lstrip(b"/") for p in self.mode_free if under(p, path)}
            for rel in sorted(set(old) | set(now)):
                a, b = old.get(rel), now.get(rel)
                if a and b and rel in free:
                    a, b = (a[0], a[2]), (b[0], b[2])
                if a != b:
                    self.bad("%s moved aside to %s, but %s is %s there (was %s)"
                             % (escape(path), escape(new), escape(rel) or ".", b or "missing", a or "absent"))
            self.done_ran.update(os.path.join(path, r) if r else path for r in old)
            self.done_after.update(os.path.join(new, r) if r else new for r in now)

    def removed(self, path):
        kind = self.ran.get(path, ("absent",))[0]
        name = os.path.basename(path)
        if not ((name in REMOVABLE_FILES and kind in ("file", "link", "fifo", "other")) or is_git_dir(self.ran, path)):
            return self.bad("removed %s (%s): not a .git file or link, commondir, config.worktree "
                            "or git directory" % (escape(path), kind))
        if path in self.after:
            return self.bad("%s is still there after it was removed" % escape(path))
        self.done_ran.update(p for p in self.ran if under(p, path))

    def restored(self, path):
        was, now, ran = self.before.get(path), self.after.get(path), self.ran.get(path)
        if not was or was[0] != "file":
            return self.bad("restored %s, which was no file when recorded" % escape(path))
        if not now or (now[0], now[2]) != (was[0], was[2]):
            return self.bad("%s restored, but it is %s, recorded %s" % (escape(path), now, was))
        if ran and (ran[0], ran[2]) == (was[0], was[2]):
            self.bad("restored %s, which the run had not changed" % escape(path))
        if any(under(p, path) and p != path for p in self.ran):
            self.bad("restored %s over a folder the run left there, and what it held" % escape(path))
        self.done_ran.update(p for p in self.ran if under(p, path))
        self.done_after.add(path)

    def execs(self, path):
        try:
            with open(os.path.join(self.ran_dir, path), "rb") as f:
                ran = f.read().split(b"\n")
            with open(os.path.join(self.after_dir, path), "rb") as f:
                after = f.read().split(b"\n")
        except OSError as e:
            return self.bad("%s: %s" % (escape(path), e))
        if len(ran) != len(after):
            return self.bad("%s has %d lines after, %d before" % (escape(path), len(after), len(ran)))
        steps = 0
        for i, (a, b) in enumerate(zip(ran, after), 1):
            if EXEC_STEP.match(a):
                steps += 1
                if not b.lstrip().startswith(b"#") or a.strip() not in b:
                    self.bad("%s line %d: exec step %r is now %r, not commented out" % (escape(path), i, a, b))
            elif a != b:
                self.bad("%s line %d: %r changed to %r" % (escape(path), i, a, b))
        if steps == 0:
            self.bad("%s held no exec step" % escape(path))
        self.done_ran.add(path)
        self.done_after.add(path)

    def access(self, path):
        self.mode_free.add(path)
        ran = self.ran.get(path)
        target = path
        for old, new in self.moves:
            if under(path, old):
                target = new + path[len(old):]
        now = self.after.get(target)
        if not ran or ran[0] != "dir" or not now or now[0] != "dir":
            return self.bad("gave access back to %s, which is no folder (%s, now %s)" % (escape(path), ran, now))
        if now[1] & 0o700 != 0o700 or now[1] & ~0o700 != ran[1] & ~0o700:
            self.bad("%s: mode %o after giving the owner access back, %o before" % (escape(path), now[1], ran[1]))
        if target == path:
            self.done_ran.add(path)
            self.done_after.add(path)

    def rest_unchanged(self):
        for path in sorted(set(self.ran) - self.done_ran):
            if path not in self.after:
                self.bad("lost: %s (%s)" % (escape(path), self.ran[path][0]))
            elif self.after[path] != self.ran[path]:
                self.bad("changed: %s: %s, was %s" % (escape(path), self.after[path], self.ran[path]))
        for path in sorted(set(self.after) - set(self.ran) - self.done_after):
            self.bad("appeared: %s" % escape(path))


def check_tree(out_file, before_dir, ran_dir, after_dir):
    actions, problems = parse_lines(out_file)
    t = TreeCheck(before_dir, ran_dir, after_dir)
    for kind, path, new in actions:
        if kind == "moved":
            t.moved(path, new)
    for kind, path, new in actions:
        if kind == "access":
            t.access(path)
    t.check_moves()
    for kind, path, new in actions:
        if kind in ("removed", "restored", "execs"):
            getattr(t, kind)(path)
    t.rest_unchanged()
    return problems + t.problems


def main(argv):
    if len(argv) == 3 and argv[1] == "fp":
        for path, (kind, mode, content) in sorted(fingerprint(argv[2]).items()):
            sys.stdout.write("%s %s %o %s\n" % (escape(path), kind, mode, content))
        return 0
    if len(argv) == 5 and argv[1] == "lines":
        problems = check_lines(*argv[2:])
    elif len(argv) == 6 and argv[1] == "tree":
        problems = check_tree(*argv[2:])
    else:
        sys.stderr.write(__doc__)
        return 2
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
