#!/usr/bin/env python3
"""A lookup storm beside renames, for test-lookup-race.sh.

    lookup-storm.py WRITE_DIR READ_DIR SECONDS

Writers put files named a0..a7 in WRITE_DIR, each holding its own name, by
writing a temporary file and renaming it over the name, and now and then
remove the name, so that inode numbers are freed and reused. Readers open
the same names in READ_DIR (the mount) and read them: every read must give
the name it was opened by, or the name must be missing. A lookup that bound
a name to another object (a stale entry whose inode number came back for
another file) reads another name, or fails with ESTALE. Prints the counts; exits 1 on a mismatch.
"""

import os
import sys
import time
from multiprocessing import Process, Value

NAMES = ["a%d" % i for i in range(64)]


def writer(dir, stop, k):
    n = 0
    while time.monotonic() < stop:
        name = NAMES[n % len(NAMES)]
        tmp = os.path.join(dir, ".t%d-%s" % (k, name))
        with open(tmp, "w") as f:
            f.write(name)
        os.rename(tmp, os.path.join(dir, name))
        if n % 3 == 0:
            try:
                os.unlink(os.path.join(dir, NAMES[(n * 7) % len(NAMES)]))
            except FileNotFoundError:
                pass
        n += 1


def reader(dir, stop, ok, bad):
    n = 0
    while time.monotonic() < stop:
        name = NAMES[n % len(NAMES)]
        n += 1
        try:
            with open(os.path.join(dir, name)) as f:
                got = f.read()
        except FileNotFoundError:
            continue
        except OSError as e:  # ESTALE: the name was bound to a gone object
            got = "error %s" % e
        if got == name:
            with ok.get_lock():
                ok.value += 1
        else:
            with bad.get_lock():
                bad.value += 1
            print("opened %s, read %r" % (name, got), flush=True)


def main(argv):
    wdir, rdir, seconds = argv[1], argv[2], float(argv[3])
    stop = time.monotonic() + seconds
    ok, bad = Value("l", 0), Value("l", 0)
    procs = [Process(target=writer, args=(wdir, stop, k)) for k in range(2)]
    procs += [Process(target=reader, args=(rdir, stop, ok, bad)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    print("reads: %d matched, %d mismatched" % (ok.value, bad.value))
    if any(p.exitcode for p in procs):
        return 2
    return 1 if bad.value else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
