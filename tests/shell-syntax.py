#!/usr/bin/env python3
"""Our shell parser against dash -n and bash -n: which lines are valid shell.

  shell-syntax.py DUMP SRCDIR [DIR...]

DUMP is tests/shell-dump, SRCDIR the source tree. Every line of the find
table and the corpus, a generated set of malformed lines, the shell fuzzers'
seed corpus and each DIR (the inputs a fuzzing run kept) is read by our
parser and by both shells. Where both shells refuse a line ours must refuse
it, and where both accept it ours must accept it, unless the line is listed
in tests/shell-known-diffs.txt. A line only one shell accepts may go either
way: it is counted, not judged. Prints TAP, one test per set of lines, the
disagreements as diagnostics (and, with OZ0_SHELL_SYNTAX_VERBOSE=1, the
lines one shell reads, with what ours does).
"""
import concurrent.futures
import importlib.util
import os
import subprocess
import sys

# Where a command may stand ('@' is the command), and what may stand there:
# their product is the generated set. Each fragment is malformed somewhere
# (a reserved word out of place, a construct cut short or left empty, an
# operator with nothing on one side), or valid, so both ways are tried.
CONTEXTS = [
    "@", "true; @", "true\n@", "true && @", "true || @", "true | @", "! @", "true & @",
    "{ @; }", "( @ )", "if @; then true; fi", "if true; then @; fi", "if true; then true; else @; fi",
    "if true; then true; elif @; then true; fi", "while @; do true; done", "until true; do @; done",
    "for x in a b; do @; done", "for x; do @; done", "case x in a) @;; esac",
    "case x in (a|b) @ ;; *) true;; esac", "f() { @; }", "echo $(@)", 'echo "$(@)"', "echo `@`",
    "x=1 @", ">x @", "@ >x", "@ &", "@; true", "@ && true", "@ | true", "@\ntrue",
]
FRAGMENTS = [
    "true", "tools/a -v", "", "fi", "then", "else", "elif", "do", "done", "esac", "}", "{", "in", "!",
    "! true", "! !", "if", "if true", "if true; then", "if true; then true", "if then fi",
    "if true; then fi", "if true; fi", "if; then true; fi", "if true; then true; else fi",
    "if true; then true; elif true; then fi", "while do done", "while true; do done",
    "while true; done", "until do done", "for", "for x", "for x in", "for in", "for x in a; do done",
    "for x in a; true; done", "for x in a; do true; done", "case", "case x", "case x in",
    "case x in a)", "case x in a) true", "case in esac", "case x in esac", "case x in ) ;; esac",
    "case x in a) true;; esac", "{ }", "{ ; }", "{ true }", "{ true; }", "( )", "(", ")", "( true )",
    "'", '"', "'a", '"a', "$(", "$(true", "`", "`true", "${", "${x", "$((", "$((1", "$((1)", "&&", "||",
    "|", ";", ";;", "&", "true &&", "true ||", "true |", "true ;;", "true; ;", "f()", "f() fi",
    "f() { }", "f() { true; }", "f() ( )", "function", "<", "true >", "true <<", "true 2>&", "a=b",
    "cat <<EOF\nx\nEOF", "cat <<EOF", "cat <<EOF; fi\nx\nEOF", "echo \\", "time", "[[ -x a ]]",
    "tools/a `fi`", "tools/a `b; fi; c`", "for x in a b do true; done", "case x in esac) true;; esac",
    "true |& fi", "echo ${x#$(fi)}", "function f { true; }", "function -x",
]


def load_commands(src):
    spec = importlib.util.spec_from_file_location("shell_commands", os.path.join(src, "tests", "shell-commands.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def generated(lines):
    """The product of contexts and fragments, and each table and corpus line
    cut short at the last blank before its middle."""
    out = [c.replace("@", f) for c in CONTEXTS for f in FRAGMENTS]
    for line in lines:
        cut = line.rfind(" ", 0, len(line) // 2)
        if cut > 0:
            out.append(line[:cut])
    return [s.encode() for s in dict.fromkeys(out)]


def files_in(dirs):
    out = []
    for d in dirs:
        for root, _, names in os.walk(d):
            for name in sorted(names):
                with open(os.path.join(root, name), "rb") as f:
                    out.append(f.read())
    return out


def ours(dump, records):
    """True where our parser reads the record."""
    p = subprocess.run([dump], input=b"".join(r + b"\0" for r in records), capture_output=True, check=True)
    results = p.stdout.split(b"--\n")[:-1]
    if len(results) != len(records):
        sys.exit("shell-dump answered %d records of %d" % (len(results), len(records)))
    return [not r.startswith(b"error:") for r in results]


def shell_reads(shell, record):
    try:
        p = subprocess.run([shell, "-n", "-c", "--", record], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=20, check=False)
    except subprocess.TimeoutExpired:
        return None
    return p.returncode == 0


def theirs(records):
    """(dash reads it, bash reads it) for each record."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        dash = pool.map(lambda r: shell_reads("dash", r), records)
        bash = pool.map(lambda r: shell_reads("bash", r), records)
        return list(zip(dash, bash))


def known_diffs(src):
    with open(os.path.join(src, "tests", "shell-known-diffs.txt"), "rb") as f:
        return {line.rstrip(b"\n") for line in f if line.strip() and not line.startswith(b"#")}


def show(record):
    """The record as a Python bytes literal's body: every byte can be told back."""
    return repr(record)[2:-1]


def judge(n, name, records, dump, known):
    usable = [r for r in records if b"\0" not in r]
    mine = ours(dump, usable)
    counts = {"accept": 0, "refuse": 0, "mixed": 0, "known": 0}
    wrong = []
    for record, we_read, (dash, bash) in zip(usable, mine, theirs(usable)):
        if dash is None or bash is None:
            wrong.append("a shell timed out on: " + show(record))
        elif dash != bash:
            counts["mixed"] += 1
            if os.environ.get("OZ0_SHELL_SYNTAX_VERBOSE") == "1":
                print("# only %s reads, ours %s: %s" % ("dash" if dash else "bash", "reads" if we_read else "refuses",
                                                      show(record)))
        elif dash == we_read:
            counts["accept" if dash else "refuse"] += 1
        elif record in known:
            counts["known"] += 1
        else:
            wrong.append("dash and bash %s, ours %s: %s" % ("read" if dash else "refuse", "refuses" if dash else
                                                           "reads", show(record)))
    summary = "%s: %d lines, %d read by all, %d refused by all, %d read by one shell only, %d known, %d wrong" % (
        name, len(usable), counts["accept"], counts["refuse"], counts["mixed"], counts["known"], len(wrong))
    if len(usable) != len(records):
        summary += " (%d holding a NUL byte left out)" % (len(records) - len(usable))
    print(("not ok %d - " if wrong or not usable else "ok %d - ") % n + summary)
    for w in wrong:
        print("# " + w)


def main():
    dump, src, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    commands = load_commands(src)
    lines = commands.records(os.path.join(src, "tests", "shell-find.table"),
                             os.path.join(src, "tests", "shell-corpus.txt"))
    fuzz = [os.path.join(src, "tests", "fuzz", "corpus", d) for d in ("shell-parse", "shell-find")]
    sets = [
        ("the find table and the corpus", [s.encode() for s in lines]),
        ("generated malformed lines", generated(lines)),
        ("the shell fuzzers' seed corpus", files_in(fuzz)),
    ] + [(d, files_in([d])) for d in extra]
    known = known_diffs(src)
    print("1..%d" % len(sets))
    for n, (name, records) in enumerate(sets, 1):
        judge(n, name, records, dump, known)


if __name__ == "__main__":
    main()
