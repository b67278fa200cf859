#!/bin/bash
# A daemon run by root (allow_other,default_permissions by default) serves an
# ordinary user as ext4 would: what nobody makes is nobody's, and what ext4
# refuses nobody is refused through the mount, with the same errno.
. "$(dirname "$0")/lib.sh"

# prepare DIR: as root, a world-writable dir, a sticky one, a setgid one of a
# group nobody is not in, and root's files in them; two set-group-ID files
# without group execute (which a write or a chgrp keeps set-group-ID only for
# a member of the file's group): one of group 4242, writable by all, and one
# of nobody's in group 4243.
prepare() {
	mkdir -p "$1"
	mkdir -m 0777 "$1/pub"
	mkdir -m 1777 "$1/sticky"
	mkdir -m 0777 "$1/sgid"
	chgrp 4242 "$1/sgid"
	chmod 2777 "$1/sgid"
	echo root >"$1/pub/rootfile"
	echo root >"$1/pub/rootfile2"
	echo secret >"$1/pub/private"
	chmod 600 "$1/pub/private"
	echo root >"$1/sticky/rootfile"
	chmod 644 "$1/pub/rootfile" "$1/pub/rootfile2" "$1/sticky/rootfile"
	echo x >"$1/pub/sgid-write"
	chgrp 4242 "$1/pub/sgid-write"
	chmod 2666 "$1/pub/sgid-write"
	echo x >"$1/pub/sgid-chgrp"
	chown 65534:4243 "$1/pub/sgid-chgrp"
	chmod 2644 "$1/pub/sgid-chgrp"
}

# The checks nobody runs in DIR; prints "name: answer" lines.
write_probe() {
	cat >"$T/bin/probe.py" <<'EOF'
import errno, os, sys, time

os.chdir(sys.argv[1])
os.umask(0o022)


def ans(name, fn):
    try:
        fn()
        r = "ok"
    except OSError as e:
        r = errno.errorcode.get(e.errno, str(e.errno))
    print("%s: %s" % (name, r))


def owner(name, path):
    st = os.lstat(path)
    print("%s: %d:%d %o" % (name, st.st_uid, st.st_gid, st.st_mode & 0o7777))


def write(path, flags=os.O_WRONLY):
    os.close(os.open(path, flags, 0o666))


def append(path):
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    os.write(fd, b"y")
    os.close(fd)


def ctime_moves(name, path, fn):
    before = os.lstat(path).st_ctime_ns
    time.sleep(0.02)
    fn()
    print("%s: %s" % (name, "yes" if os.lstat(path).st_ctime_ns != before else "no"))


ans("create a file", lambda: write("pub/mine", os.O_WRONLY | os.O_CREAT | os.O_EXCL))
owner("the new file's owner and mode", "pub/mine")
ans("mkdir", lambda: os.mkdir("pub/mydir", 0o777))
owner("the new dir's owner and mode", "pub/mydir")
ans("symlink", lambda: os.symlink("mine", "pub/mylink"))
owner("the new symlink's owner", "pub/mylink")
ans("mkfifo", lambda: os.mkfifo("pub/myfifo", 0o666))
owner("the new FIFO's owner and mode", "pub/myfifo")
ans("create in a setgid dir", lambda: write("sgid/f", os.O_WRONLY | os.O_CREAT))
owner("a file in a setgid dir", "sgid/f")
ans("mkdir in a setgid dir", lambda: os.mkdir("sgid/d"))
owner("a dir in a setgid dir", "sgid/d")
ans("chmod my file", lambda: os.chmod("pub/mine", 0o600))
ans("chown my file to root", lambda: os.chown("pub/mine", 0, -1))
ans("chgrp my file to a group I am not in", lambda: os.chown("pub/mine", -1, 4242))
ctime_moves("chown(-1, -1) stamps the ctime", "pub/mine", lambda: os.chown("pub/mine", -1, -1))
ans("append to a set-group-ID file of group 4242", lambda: append("pub/sgid-write"))
owner("... which keeps set-group-ID only for a member", "pub/sgid-write")
ans("truncate it", lambda: os.truncate("pub/sgid-write", 1))
owner("... likewise", "pub/sgid-write")
ans("chgrp my set-group-ID file from group 4243 to mine", lambda: os.chown("pub/sgid-chgrp", -1, os.getgid()))
owner("... which keeps set-group-ID only for a member of 4243", "pub/sgid-chgrp")
ans("chmod root's file", lambda: os.chmod("pub/rootfile", 0o666))
ans("chown root's file", lambda: os.chown("pub/rootfile", 65534, -1))
ans("read root's 0644 file", lambda: open("pub/rootfile").read())
ans("write root's 0644 file", lambda: write("pub/rootfile"))
ans("truncate root's 0644 file", lambda: os.truncate("pub/rootfile", 0))
ans("set root's file's times to now", lambda: os.utime("pub/rootfile", None))
ans("set root's file's times", lambda: os.utime("pub/rootfile", (1, 1)))
ans("setxattr on root's file", lambda: os.setxattr("pub/rootfile", "user.x", b"1"))
ans("read root's 0600 file", lambda: open("pub/private").read())
ans("hard-link root's file", lambda: os.link("pub/rootfile", "pub/rootlink"))
ans("create in root's 0755 dir", lambda: write("here", os.O_WRONLY | os.O_CREAT))
ans("mkdir in root's 0755 dir", lambda: os.mkdir("dirhere"))
ans("unlink root's file in a sticky dir", lambda: os.unlink("sticky/rootfile"))
ans("rename root's file in a sticky dir", lambda: os.rename("sticky/rootfile", "sticky/moved"))
ans("unlink root's file in a plain world-writable dir", lambda: os.unlink("pub/rootfile2"))
ans("create in a sticky dir", lambda: write("sticky/mine", os.O_WRONLY | os.O_CREAT))
ans("unlink my file in a sticky dir", lambda: os.unlink("sticky/mine"))
print("access W_OK root's file: %s" % ("yes" if os.access("pub/rootfile", os.W_OK) else "no"))
EOF
}

# as_nobody DIR OUT [GROUPS]: the probe as nobody:nogroup, with the
# supplementary GROUPS (a comma-separated list) or none.
as_nobody() {
	local groups=--clear-groups
	[ -z "${3:-}" ] || groups=--groups=$3
	timeout -k 5 "$OZ_CMD_TIMEOUT" setpriv --reuid=nobody --regid=nogroup "$groups" \
		"$OZ_PY" "$T/bin/probe.py" "$1" >"$2" 2>&1
}

# as_member TAG: the probe again, in fresh copies of the dirs, as nobody in
# groups 4242 and 4243 too: what set-id bits a member keeps.
as_member() {
	local status=0
	prepare "$T/ref/member"
	prepare "$T/src/member"
	as_nobody "$T/ref/member" "$T/ref-member.out" 4242,4243 || status=$?
	check_eq "the probe runs as a member of 4242 and 4243 on the underlying file system" 0 "$status"
	status=0
	as_nobody "$T/mnt/member" "$T/mnt-member.out" 4242,4243 || status=$?
	check_eq "the probe runs as a member of 4242 and 4243 through the mount" 0 "$status"
	compare_answers "$T/ref-member.out" "$T/mnt-member.out" "member: "
}

oz_setup 300
# nobody must reach the directories below $T.
chmod 755 "$T"
write_probe
prepare "$T/ref"
prepare "$T/src"
oz_start "$T/src" "$T/mnt"
check "the daemon runs as root" test "$(stat -c %u "/proc/$OZ_PID")" = 0
check_eq "allow_other and default_permissions by default" "allow_other default_permissions" \
	"$(awk -v d="$T/mnt" '$5 == d { print $6 "," $NF }' /proc/self/mountinfo | tr , '\n' |
		grep -xE 'allow_other|default_permissions' | sort | tr '\n' ' ' | sed 's/ $//')"
status=0
as_nobody "$T/ref" "$T/ref.out" || status=$?
check_eq "the probe runs as nobody on the underlying file system" 0 "$status"
status=0
as_nobody "$T/mnt" "$T/mnt.out" || status=$?
check_eq "the probe runs as nobody through the mount" 0 "$status"
compare_answers "$T/ref.out" "$T/mnt.out"
check_eq "nobody owns, on the disk, what nobody made through the mount" "65534:65534 65534:65534 65534:65534" \
	"$(stat -c %u:%g "$T/src/pub/mine" "$T/src/pub/mydir" "$T/src/pub/mylink" | tr '\n' ' ' | sed 's/ $//')"
as_member
check "unmount" oz_umount "$T/mnt"
tap_done
