#!/usr/bin/env python3
"""The shfmt side of the shell differential, and the corpus reader.

  shell-commands.py records TABLE CORPUS   prints every command line of the
      find table ('line:' and 'line+:' keys) and of the corpus (one per line,
      '#' comments and blank lines skipped), each ended by a NUL byte
  shell-commands.py shfmt                  reads NUL-ended records on stdin and
      prints, for each, the commands in shfmt's tree in tests/shell-dump's
      format: "cmd\\tWORD..." per simple command, '?' for a dynamic word, "--"

A word is static when it is made only of literal and quoted text: no
expansion, no unquoted glob character opening a pattern, no tilde prefix,
the same rule as policy/shell/parse.c's shell_word_static().
"""
import json
import re
import subprocess
import sys

NAME_EQ = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\+|\[[^]]*\])?=")


def records(table, corpus):
    out = []
    with open(table, encoding="utf-8") as f:
        for raw in f:
            if raw.startswith("line: "):
                out.append(raw[len("line: "):].rstrip("\n"))
            elif raw.startswith("line+: "):
                out[-1] += "\n" + raw[len("line+: "):].rstrip("\n")
    with open(corpus, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line and not line.startswith("#"):
                out.append(line)
    return out


def unescape_unquoted(s):
    s = s.replace("\\\n", "")
    return re.sub(r"\\(.)", r"\1", s, flags=re.S)


def unescape_dquoted(s):
    s = s.replace("\\\n", "")
    return re.sub(r'\\([$`"\\])', r"\1", s)


ANSI = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
        "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def unescape_ansi(s):
    def one(m):
        e = m.group(1)
        if e[0] in ANSI and len(e) == 1:
            return ANSI[e]
        if e[0] in "01234567":
            return chr(int(e, 8)) if int(e, 8) else ""
        if e[0] == "x":
            return chr(int(e[1:], 16)) if int(e[1:], 16) else ""
        return "\\" + e
    return re.sub(r"\\([0-7]{1,3}|x[0-9a-fA-F]{1,2}|.)", one, s, flags=re.S)


def lit_is_static(raw, first, assignment):
    """An unquoted literal is dynamic when it holds a glob or a tilde prefix."""
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\":
            i += 2
            continue
        if c in "*?":
            return False
        if c == "[" and "]" in raw[i + 1:]:
            return False
        if c == "~" and ((first and i == 0) or (assignment and i > 0 and raw[i - 1] in "=:")):
            return False
        i += 1
    return True


def word_value(word):
    """The static value of a shfmt Word, or None."""
    value = ""
    parts = word.get("Parts") or []
    for n, part in enumerate(parts):
        t = part["Type"]
        if t == "Lit":
            assignment = n == 0 and NAME_EQ.match(part.get("Value", "")) is not None
            if not lit_is_static(part.get("Value", ""), n == 0, assignment or NAME_EQ.match(value) is not None):
                return None
            value += unescape_unquoted(part.get("Value", ""))
        elif t == "SglQuoted":
            value += unescape_ansi(part.get("Value", "")) if part.get("Dollar") else part.get("Value", "")
        elif t == "DblQuoted":
            inner = part.get("Parts") or []
            if any(p["Type"] != "Lit" for p in inner):
                return None
            value += "".join(unescape_dquoted(p.get("Value", "")) for p in inner)
        else:
            return None
    return value


def render(value):
    if value is None:
        return "?"
    out = '"'
    for c in value:
        if c in '"\\':
            out += "\\" + c
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out += "\\u%04x" % ord(c)
        else:
            out += c
    return out + '"'


def assign_word(assign):
    """A declaration's argument as the one word the shell read."""
    if assign.get("Naked"):
        if assign.get("Name"):
            return render(assign["Name"]["Value"])
        return render(word_value(assign["Value"]))
    value = word_value(assign["Value"]) if assign.get("Value") else ""
    op = "+=" if assign.get("Append") else "="
    return render(None if value is None else assign["Name"]["Value"] + op + value)


def walk(node, out):
    """Visits every node; prints each call and declaration after the
    commands nested in its words, as tests/shell-dump does."""
    if isinstance(node, list):
        for n in node:
            walk(n, out)
        return
    if not isinstance(node, dict):
        return
    t = node.get("Type")
    for key, child in node.items():
        if key not in ("Pos", "End"):
            walk(child, out)
    if t == "CallExpr" and node.get("Args"):
        out.append("cmd\t" + "\t".join(render(word_value(w)) for w in node["Args"]))
    elif t == "DeclClause":
        words = [render(node["Variant"]["Value"])] + [assign_word(a) for a in node.get("Args") or []]
        out.append("cmd\t" + "\t".join(words))


def shfmt_main():
    data = sys.stdin.buffer.read().decode("utf-8")
    for record in data.split("\0")[:-1]:
        p = subprocess.run(["shfmt", "-ln", "bash", "--to-json"], input=record.encode(),
                           capture_output=True, check=False)
        if p.returncode != 0:
            print("error: " + p.stderr.decode(errors="replace").strip().replace("\n", " "))
        else:
            out = []
            walk(json.loads(p.stdout), out)
            for line in out:
                print(line)
        print("--")


def main():
    if sys.argv[1] == "records":
        for r in records(sys.argv[2], sys.argv[3]):
            sys.stdout.write(r + "\0")
    elif sys.argv[1] == "shfmt":
        shfmt_main()
    else:
        sys.exit("usage: shell-commands.py records TABLE CORPUS | shfmt")


if __name__ == "__main__":
    main()
