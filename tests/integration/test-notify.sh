#!/bin/bash
# oz0fs -f under a Type=notify service (contrib/systemd/oz0fs@.service): with
# NOTIFY_SOCKET set, READY=1 comes from the daemon itself once the mount is
# there and answers, never before, and STOPPING=1 once it stops serving, by
# an unmount or by SIGTERM (systemctl stop; oz0fs then unmounts itself). A
# listener stands in for systemd: it records, the moment each message
# arrives, who sent it, whether the mount point was already a FUSE mount and
# what a read through the mount gave.
. "$(dirname "$0")/lib.sh"

oz_setup 300
mkdir -p "$T/src"
echo "tree content" >"$T/src/file"

# listen SOCKET MOUNTPOINT LOG: records each message in LOG, one line:
# "STATE pid=PID mounted=yes|no read=TEXT". Ends after STOPPING=1.
listen() {
	"$OZ_PY" - "$@" <<'PY' &
import os, socket, struct, sys
path, mnt, log = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.bind(path)
s.settimeout(60)

def mounted():
    # From mountinfo, which asks the daemon nothing.
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            sep = fields.index("-")
            if fields[4] == mnt and fields[sep + 1].startswith("fuse"):
                return "yes"
    return "no"

def read_through():
    try:
        with open(os.path.join(mnt, "file")) as f:
            return f.read().strip().replace(" ", "_")
    except OSError as e:
        return "error:" + e.strerror.replace(" ", "_")

with open(log, "a", buffering=1) as out:
    while True:
        try:
            data, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(12))
        except socket.timeout:
            break
        pid = "?"
        for level, kind, value in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid = struct.unpack("iII", value[:12])[0]
        states = data.decode(errors="replace").split("\n")
        # Looked at before anything else, while the daemon goes on.
        where = mounted()
        for state in states:
            if state in ("READY=1", "STOPPING=1"):
                text = read_through() if state == "READY=1" else "-"
                out.write("%s pid=%s mounted=%s read=%s\n" % (state, pid, where, text))
        if "STOPPING=1" in states:
            break
PY
	LISTENER=$!
	echo "$LISTENER" >>"$T/pids"
	local i
	for ((i = 0; i < 100; i++)); do
		[ -S "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# notify_mount NAME: mounts $T/src on $T/NAME with NOTIFY_SOCKET set to a
# listener's socket, whose log is $T/NAME.log.
notify_mount() {
	local sock=$T/$1.sock
	listen "$sock" "$T/$1" "$T/$1.log" || oz_unavailable "the listener did not start"
	NOTIFY_SOCKET=$sock oz_start "$T/src" "$T/$1"
}

# wait_for STATE LOG: until LOG has a STATE line (10 s at most).
wait_for() {
	local i
	for ((i = 0; i < 200; i++)); do
		grep -q "^$1 " "$2" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# field STATE KEY LOG: KEY's value on LOG's STATE line.
field() {
	sed -n "s/^$1 .*$2=\([^ ]*\).*/\1/p" "$3" | head -n 1
}

# Whatever manager runs the tests is not the listener.
unset NOTIFY_SOCKET
notify_mount unmount
log=$T/unmount.log
check "READY=1 comes once the mount is up" wait_for READY=1 "$log"
check_eq "READY=1 comes from the daemon itself (NotifyAccess=main)" "$OZ_PID" "$(field READY=1 pid "$log")"
check_eq "when READY=1 comes the mount point is already a FUSE mount" yes "$(field READY=1 mounted "$log")"
check_eq "when READY=1 comes a read through the mount answers with the tree's file" tree_content \
	"$(field READY=1 read "$log")"
check_eq "READY=1 comes once" 1 "$(grep -c '^READY=1 ' "$log")"
check_eq "no STOPPING=1 while the mount serves" 0 "$(grep -c '^STOPPING=1 ' "$log" || true)"
check "fusermount3 -u: the mount goes and the daemon exits 0" oz_umount "$T/unmount"
check "after the unmount, STOPPING=1" wait_for STOPPING=1 "$log"
check_eq "STOPPING=1 comes from the daemon" "$OZ_PID" "$(field STOPPING=1 pid "$log")"
wait "$LISTENER" || true

notify_mount term
log=$T/term.log
check "a second mount: READY=1" wait_for READY=1 "$log"
kill -TERM "$OZ_PID"
check "SIGTERM (systemctl stop): STOPPING=1" wait_for STOPPING=1 "$log"
check "SIGTERM: the mount goes and the daemon exits 0" oz_umount "$T/term"
wait "$LISTENER" || true

tap_done
