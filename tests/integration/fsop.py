#!/usr/bin/env python3
"""One file-system operation for the integration tests.

    fsop.py OP ARGS...

Prints "ok" (or the operation's result) and exits 0, or prints the errno's
name (EACCES, ENOENT, ...) and exits 1, so a test can tell a refusal from any
other failure. The shell cannot name errno reliably: each tool words it its
own way.

    fsop.py audit FILE SKIP OPS PATH
checks the audit log instead: some line after the first SKIP lines is a
well-formed refusal whose op is one of OPS ("write|truncate") and which
names PATH, either as the protected object or as the entry it was asked to
make there. It waits a little for the line, so it never depends on the
daemon having written it before the refused call returned.
"""

import ctypes
import errno
import json
import mmap
import os
import sys
import time

AT_FDCWD = -100
RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2
FALLOC_FL_KEEP_SIZE = 1
FALLOC_FL_PUNCH_HOLE = 2

libc = ctypes.CDLL(None, use_errno=True)


def _check(ret):
    if ret < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


def renameat2(a, b, flags):
    _check(libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), flags))


def fallocate(fd, mode, off, length):
    libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
    _check(libc.fallocate(fd, mode, off, length))


def write_at(path, data, flags):
    fd = os.open(path, flags)
    try:
        os.write(fd, data.encode())
    finally:
        os.close(fd)


def copy_into(src, dst):
    s = os.open(src, os.O_RDONLY)
    try:
        d = os.open(dst, os.O_WRONLY)
        try:
            os.copy_file_range(s, d, 4096)
        finally:
            os.close(d)
    finally:
        os.close(s)


def rename_then_write(src, dst, data):
    """Renames SRC over DST while an fd on SRC is open, then writes through
    that fd: with an identical-bytes rename, the write must reach nothing
    protected."""
    fd = os.open(src, os.O_RDWR)
    try:
        os.rename(src, dst)
        os.lseek(fd, 0, os.SEEK_END)
        os.write(fd, data.encode())
    finally:
        os.close(fd)


def mmap_write(path, size):
    """Writes a pattern through a shared writable mapping, then msyncs."""
    with open(path, "wb") as f:
        f.truncate(size)
    with open(path, "r+b") as f:
        m = mmap.mmap(f.fileno(), size)
        for i in range(0, size, 4096):
            m[i:i + 8] = (i // 4096).to_bytes(8, "little")
        m.flush()
        m.close()


def mmap_verify(path, size):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) != size:
        raise SystemExit("size %d, expected %d" % (len(data), size))
    for i in range(0, size, 4096):
        if data[i:i + 8] != (i // 4096).to_bytes(8, "little"):
            raise SystemExit("page %d differs" % (i // 4096))


def audit(logfile, skip, ops, path):
    wanted = set(ops.split("|"))
    deadline = time.monotonic() + 3
    while True:
        try:
            with open(logfile) as f:
                lines = f.read().splitlines()[int(skip):]
        except FileNotFoundError:
            lines = []
        for line in lines:
            try:
                rec = json.loads(line)
            except ValueError:
                print("not JSON: %r" % line)
                return 1
            missing = {"time", "op", "path", "rule", "reason", "pid", "uid", "flags"} - rec.keys()
            if missing:
                print("audit line lacks %s: %s" % (sorted(missing), line))
                return 1
            named = rec["path"]
            if rec.get("name"):
                named_entry = rec["name"] if named == "." else named + "/" + rec["name"]
            else:
                named_entry = named
            if rec["op"] in wanted and path in (named, named_entry):
                print("%s %s: %s (%s)" % (rec["op"], rec["path"], rec["reason"], rec["rule"]))
                return 0
        if time.monotonic() > deadline:
            print("no audit line for %s %s among %d new: %s" % (ops, path, len(lines), lines[-3:]))
            return 1
        time.sleep(0.05)


OPS = {
    "write": lambda p, d="x": write_at(p, d, os.O_WRONLY),
    "append": lambda p, d="x": write_at(p, d, os.O_WRONLY | os.O_APPEND),
    "rdwr": lambda p: os.close(os.open(p, os.O_RDWR)),
    "otrunc": lambda p: os.close(os.open(p, os.O_WRONLY | os.O_TRUNC)),
    "create": lambda p, d="x": write_at(p, d, os.O_WRONLY | os.O_CREAT | os.O_EXCL),
    "truncate": lambda p, n="0": os.truncate(p, int(n)),
    "chmod": lambda p, m: os.chmod(p, int(m, 8), follow_symlinks=False),
    "chown": lambda p, u, g: os.chown(p, int(u), int(g), follow_symlinks=False),
    "utimes": lambda p: os.utime(p, ns=(1000000000, 1000000000), follow_symlinks=False),
    "touch": lambda p: os.utime(p, None),
    "mkdir": lambda p: os.mkdir(p),
    "symlink": lambda t, p: os.symlink(t, p),
    "mkfifo": lambda p: os.mkfifo(p),
    "link": lambda a, b: os.link(a, b, follow_symlinks=False),
    "rename": lambda a, b: os.rename(a, b),
    "exchange": lambda a, b: renameat2(a, b, RENAME_EXCHANGE),
    "noreplace": lambda a, b: renameat2(a, b, RENAME_NOREPLACE),
    "unlink": lambda p: os.unlink(p),
    "read": lambda p: _with_fd(p, os.O_RDONLY, lambda fd: os.read(fd, 4096)),
    "list": lambda p: os.listdir(p),
    "readlink": lambda p: os.readlink(p),
    "getxattr": lambda p, n: os.getxattr(p, n, follow_symlinks=False),
    "rmdir": lambda p: os.rmdir(p),
    "setxattr": lambda p, n, v: os.setxattr(p, n, v.encode(), follow_symlinks=False),
    "removexattr": lambda p, n: os.removexattr(p, n, follow_symlinks=False),
    "fallocate": lambda p: _with_fd(p, os.O_WRONLY, lambda fd: fallocate(fd, 0, 0, 65536)),
    "punch": lambda p: _with_fd(p, os.O_WRONLY, lambda fd: fallocate(
        fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096)),
    "copyinto": copy_into,
    "rename-then-write": rename_then_write,
    "mmap-write": lambda p, n: mmap_write(p, int(n)),
    "mmap-verify": lambda p, n: mmap_verify(p, int(n)),
}


def _with_fd(path, flags, fn):
    fd = os.open(path, flags)
    try:
        fn(fd)
    finally:
        os.close(fd)


def main(argv):
    if len(argv) < 2:
        raise SystemExit("usage: fsop.py OP ARGS...")
    if argv[1] == "audit":
        return audit(*argv[2:])
    try:
        OPS[argv[1]](*argv[2:])
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
