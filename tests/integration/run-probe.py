#!/usr/bin/env python3
"""Looks at an oz0run sandbox from outside, for the runner's tests.

    run-probe.py watch MARK OUT SECONDS OZ0RUN OZ0FS
waits (at most SECONDS) for the command: a process in a pid namespace other
than ours, not oz0run, whose argv holds the word MARK. Then it writes
key=value lines to OUT: `pid`, the command's cgroup folder in each v1
hierarchy (`cg.memory`, `cg.pids`, `cg.cpu`, `cg.cpuacct`, empty where it
is the caller's own or none), the limits read there
(`memory.limit_in_bytes`, `memory.memsw.limit_in_bytes`, `pids.max`,
`cpu.cfs_quota_us`, `cpu.cfs_period_us`, absent where the file is),
`daemon` (the OZ0FS processes whose parent's argv holds MARK: the run's
daemon), then `seen=1`. It samples until no process of that pid namespace
is left: `pids_peak` (the most pids.current showed, and pids.peak where the
kernel keeps it), `procs` (every process of the namespace it saw, by our
pids), `in_memcg` (every process the sandbox's memory cgroup held),
`daemon_lived` (1 when the daemon was alive at every look while a process
of the namespace was), then `end=1`. Without a sighting it writes `seen=0`.

    run-probe.py alive PID...
prints those of PID... that are alive (not zombies).

    run-probe.py cgdirs
prints every cgroup folder below the caller's own in each v1 hierarchy that
limits memory, pids or cpu ("controller path"), sorted.

    run-probe.py cgself
prints "controller folder" for the caller's own cgroup in each of them.

    run-probe.py cgleft BEFORE
prints the folders of cgdirs that BEFORE (an earlier cgdirs) lacks and that
hold no process and no folder, still so half a second later: what a run
left. A new folder in use is another run's (the tests run side by side,
and other users' on a shared machine), so it is not counted.
"""

import os
import sys
import time

CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")
LIMIT_FILES = {
    "memory": ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes"),
    "pids": ("pids.max",),
    "cpu": ("cpu.cfs_quota_us", "cpu.cfs_period_us"),
}


def hierarchies():
    """controller -> (mount point, root inside the hierarchy), v1 only."""
    found = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, rfields = left.split(), right.split()
            if len(rfields) < 3 or rfields[0] != "cgroup":
                continue
            opts = rfields[2].split(",")
            for c in CONTROLLERS:
                if c in opts and c not in found:
                    found[c] = (fields[4], fields[3])
    return found


def cgroup_dirs(pid):
    """controller -> the folder of PID's cgroup in that hierarchy."""
    hier = hierarchies()
    out = {}
    try:
        with open("/proc/%s/cgroup" % pid) as f:
            lines = f.read().splitlines()
    except OSError:
        return out
    for line in lines:
        _, ctrls, path = line.split(":", 2)
        for c in ctrls.split(","):
            if c not in hier:
                continue
            mnt, root = hier[c]
            rel = path
            if root != "/" and rel.startswith(root):
                rel = rel[len(root):]
            out[c] = os.path.normpath(mnt + "/" + rel.lstrip("/"))
    return out


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def argv_of(pid):
    try:
        with open("/proc/%s/cmdline" % pid, "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def pidns(pid):
    try:
        return os.readlink("/proc/%s/ns/pid" % pid)
    except OSError:
        return None


def exe(pid):
    try:
        return os.path.realpath("/proc/%s/exe" % pid)
    except OSError:
        return ""


def alive(pid):
    stat = read("/proc/%s/stat" % pid)
    if stat is None:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def ppid(pid):
    stat = read("/proc/%s/stat" % pid)
    return stat.rpartition(")")[2].split()[1] if stat else "0"


def all_pids():
    return [p for p in os.listdir("/proc") if p.isdigit()]


def find(mark, deadline, oz0run):
    mine = pidns("self")
    mark = mark.encode()
    oz0run = os.path.realpath(oz0run)
    while time.monotonic() < deadline:
        for p in all_pids():
            argv = argv_of(p)
            if mark not in argv or os.path.basename(argv[0]) == b"oz0run":
                continue
            ns = pidns(p)
            if ns is None or ns == mine or exe(p) == oz0run:
                continue
            return p, ns
        time.sleep(0.01)
    return None, None


def watch(mark, out, seconds, oz0run, oz0fs):
    deadline = time.monotonic() + float(seconds)
    pid, ns = find(mark, deadline, oz0run)
    with open(out, "w") as f:
        if pid is None:
            f.write("seen=0\n")
            return 0
        own = cgroup_dirs("self")
        dirs = cgroup_dirs(pid)
        f.write("pid=%s\n" % pid)
        for c in CONTROLLERS:
            d = dirs.get(c, "")
            if d == own.get(c):
                d = ""
            f.write("cg.%s=%s\n" % (c, d))
            for name in LIMIT_FILES.get(c, ()):
                v = read(os.path.join(d, name)) if d else None
                if v is not None:
                    f.write("%s=%s\n" % (name, v))
        oz0fs = os.path.realpath(oz0fs)
        daemon = [p for p in all_pids() if exe(p) == oz0fs and mark.encode() in argv_of(ppid(p))]
        f.write("daemon=%s\n" % " ".join(daemon))
        f.write("seen=1\n")
        f.flush()
        procs, in_memcg, peak, daemon_lost = set(), set(), 0, False
        pids_dir = dirs.get("pids") if dirs.get("pids") != own.get("pids") else None
        mem_dir = dirs.get("memory") if dirs.get("memory") != own.get("memory") else None
        last_scan = 0.0
        while time.monotonic() < deadline:
            if pids_dir:
                v = read(os.path.join(pids_dir, "pids.current"))
                if v and v.isdigit():
                    peak = max(peak, int(v))
            if mem_dir:
                for p in (read(os.path.join(mem_dir, "cgroup.procs")) or "").split():
                    in_memcg.add(p)
            now = time.monotonic()
            if now - last_scan >= 0.05:
                last_scan = now
                left = [p for p in all_pids() if pidns(p) == ns and alive(p)]
                procs.update(left)
                if not left:
                    break
                if not all(alive(p) for p in daemon):
                    daemon_lost = True
            time.sleep(0.002)
        if pids_dir:
            v = read(os.path.join(pids_dir, "pids.peak"))
            if v and v.isdigit():
                peak = max(peak, int(v))
        f.write("pids_peak=%d\n" % peak)
        f.write("procs=%s\n" % " ".join(sorted(procs, key=int)))
        f.write("in_memcg=%s\n" % " ".join(sorted(in_memcg, key=int)))
        f.write("daemon_lived=%d\n" % (bool(daemon) and not daemon_lost))
        f.write("end=1\n")
    return 0


def listing():
    hier = hierarchies()
    own = cgroup_dirs("self")
    rows = []
    for c in ("memory", "pids", "cpu", "cpuacct"):
        if c not in hier or c not in own:
            continue
        for top, subdirs, _ in os.walk(own[c]):
            for d in subdirs:
                rows.append("%s %s" % (c, os.path.join(top, d)))
    return sorted(rows)


def unused(row):
    d = row.split(" ", 1)[1]
    try:
        return not any(e.is_dir() for e in os.scandir(d)) and not read(os.path.join(d, "cgroup.procs"))
    except OSError:
        return False


def cgleft(before):
    with open(before) as f:
        old = set(f.read().splitlines())
    new = [r for r in listing() if r not in old and unused(r)]
    if new:
        time.sleep(0.5)
        now = set(listing())
        new = [r for r in new if r in now and unused(r)]
    print("\n".join(new))
    return 0


def main(argv):
    if argv[1] == "watch":
        return watch(*argv[2:7])
    if argv[1] == "alive":
        print(" ".join(p for p in argv[2:] if alive(p)))
        return 0
    if argv[1] == "cgdirs":
        print("\n".join(listing()))
        return 0
    if argv[1] == "cgleft":
        return cgleft(argv[2])
    if argv[1] == "cgself":
        for c, d in sorted(cgroup_dirs("self").items()):
            print(c, d)
        return 0
    print("usage: run-probe.py watch|alive|cgdirs|cgself ...", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
