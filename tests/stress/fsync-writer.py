"""Writes numbered 4 KiB records to a file through the mount, fsyncs each and
only then prints its number, until a write fails (the daemon was killed).
With --check FILE LAST: every record up to LAST is in FILE, intact.

  fsync-writer.py write PATH
  fsync-writer.py check PATH LAST
"""
import os
import struct
import sys
import zlib

SIZE = 4096


def record(n):
    body = bytes((n * 31 + k) & 0xFF for k in range(SIZE - 12))
    return struct.pack("<QI", n, zlib.crc32(body)) + body


def write(path):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    n = 0
    try:
        while True:
            os.write(fd, record(n))
            os.fsync(fd)
            print(n, flush=True)
            n += 1
    except OSError:
        return 0


def check(path, last):
    with open(path, "rb") as f:
        for n in range(last + 1):
            if f.read(SIZE) != record(n):
                print("record %d of 0..%d lost or damaged" % (n, last))
                return 1
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "write":
        sys.exit(write(sys.argv[2]))
    sys.exit(check(sys.argv[2], int(sys.argv[3])))
