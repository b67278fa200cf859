#!/bin/bash
# Descriptor exhaustion (issue 11 item 7): every file a caller holds open
# through the mount is an open descriptor of the daemon's, and the daemon has
# one RLIMIT_NOFILE for all callers. A process that opens files until it is
# refused must get EMFILE itself, before the daemon runs out; every other
# process, of its user or another, must still open, create, stat, close and
# run git; and close(2) never fails. The daemon runs under a limit of
# DAEMON_LIMIT, far below the hog's own, so that the daemon's limit is the one
# reached; the hog opens from several threads (the kernel names the thread,
# not its process, in a request).
. "$(dirname "$0")/lib.sh"

DAEMON_LIMIT=2048
HOG_LIMIT=20000
HOG_THREADS=4

# The hog, as nobody: opens files of pub/ from HOG_THREADS threads until the
# mount refuses, says how many it holds and why it stopped in $T/hog/state,
# waits for $T/hog/go, then closes them all and says how many closes failed.
write_hog() {
	cat >"$T/bin/hog.py" <<'EOF'
import errno, os, resource, sys, threading, time

mnt, state, go, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
fds, errors, lock = [], [], threading.Lock()


def opener(k):
    i = 0
    while True:
        try:
            fd = os.open("%s/pub/f%d" % (mnt, (i * threads + k) % 100), os.O_RDONLY)
        except OSError as e:
            with lock:
                errors.append(errno.errorcode.get(e.errno, str(e.errno)))
            return
        with lock:
            fds.append(fd)
        i += 1


workers = [threading.Thread(target=opener, args=(k,)) for k in range(threads)]
for w in workers:
    w.start()
for w in workers:
    w.join()
with open(state + ".tmp", "w") as f:
    f.write("%d %s %d\n" % (len(fds), ",".join(sorted(set(errors))), hard))
os.rename(state + ".tmp", state)
while not os.path.exists(go):
    time.sleep(0.05)
failed = 0
for fd in fds:
    try:
        os.close(fd)
    except OSError:
        failed += 1
print("close failures: %d" % failed)
EOF
	cat >"$T/bin/other.py" <<'EOF'
import errno, os, sys

mnt, tag = sys.argv[1], sys.argv[2]


def ans(name, fn):
    try:
        fn()
        r = "ok"
    except OSError as e:
        r = errno.errorcode.get(e.errno, str(e.errno))
    print("%s: %s" % (name, r))


def read_one():
    fd = os.open(mnt + "/pub/f1", os.O_RDONLY)
    os.read(fd, 10)
    os.close(fd)


def create():
    fd = os.open("%s/pub/new-%s" % (mnt, tag), os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
    os.write(fd, b"written\n")
    os.close(fd)


def hold_fifty():
    fds = [os.open("%s/pub/f%d" % (mnt, i), os.O_RDONLY) for i in range(50)]
    for fd in fds:
        os.close(fd)


ans("open and read", read_one)
ans("create and write", create)
ans("stat", lambda: os.stat(mnt + "/pub/f2"))
ans("open 50 files and close them", hold_fifty)
ans("list a folder", lambda: os.listdir(mnt + "/pub"))
EOF
}

# exhaust OPTS: one mount with OPTS, the hog, and the others beside it.
exhaust() {
	local opts=$1 mnt=$T/mnt-${1//[,=]/-} held= errs= hard= i line who
	rm -f "$T/hog/state" "$T/hog/go"
	if ! OZ0FS=$T/bin/limited-oz0fs oz_mount "$T/src" "$mnt" "$opts"; then
		tap_not_ok "$opts: mount" "$(tail -n 3 "$T/daemon.log")"
		return
	fi
	prlimit --nofile="$HOG_LIMIT:$HOG_LIMIT" setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$OZ_PY" "$T/bin/hog.py" "$mnt" "$T/hog/state" "$T/hog/go" "$HOG_THREADS" >"$T/hog.out" 2>&1 &
	local hog=$!
	for ((i = 0; i < OZ_CMD_TIMEOUT * 10; i++)); do
		[ ! -e "$T/hog/state" ] && kill -0 "$hog" 2>/dev/null || break
		sleep 0.1
	done
	[ -e "$T/hog/state" ] && read -r held errs hard <"$T/hog/state" || diag "the hog said nothing: $(cat "$T/hog.out")"
	check_eq "$opts: the process that holds the files is refused with EMFILE" EMFILE "${errs:-none}"
	check "$opts: ... before its own limit ($hard), at the daemon's share ($held held)" \
		test "${held:-0}" -gt 100 -a "${held:-0}" -lt "$DAEMON_LIMIT"
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$OZ_PY" "$T/bin/other.py" "$mnt" "nobody-${mnt##*/}" || true
	cp "$T/out" "$T/other-nobody"
	run "$OZ_PY" "$T/bin/other.py" "$mnt" "root-${mnt##*/}" || true
	cp "$T/out" "$T/other-root"
	for who in nobody root; do
		while IFS= read -r line; do
			check_eq "$opts: another process of $who: ${line%: *}" ok "${line##*: }"
		done <"$T/other-$who"
	done
	check "$opts: git status beside the hog" git -C "$mnt" status --porcelain
	check "$opts: git add and commit beside the hog" \
		sh -c "git -C '$mnt' add 'pub/new-root-${mnt##*/}' && git -C '$mnt' commit -qm 'beside the hog $opts'"
	touch "$T/hog/go"
	wait "$hog" || true
	check_eq "$opts: the hog's every close succeeds" "close failures: 0" "$(tail -n 1 "$T/hog.out")"
	check "$opts: unmount; the daemon exits 0" oz_umount "$mnt"
}

oz_setup 600
oz_require
command -v prlimit >/dev/null || oz_unavailable "prlimit is missing (Debian package util-linux)"
chmod 755 "$T"
mkdir -m 1777 "$T/hog" # where the hog, as nobody, says how far it got
write_hog
# The daemon under a small limit of its own: the hog (limit 20,000 or more)
# can then take the daemon to it.
printf '#!/bin/sh\nexec prlimit --nofile=%d:%d "%s" "$@"\n' "$DAEMON_LIMIT" "$DAEMON_LIMIT" "$OZ0FS" \
	>"$T/bin/limited-oz0fs"
chmod 755 "$T/bin/limited-oz0fs"
one_commit_repo "$T/src" README "a tree"
mkdir -m 0777 "$T/src/pub"
for i in $(seq 0 99); do echo "$i" >"$T/src/pub/f$i"; done
git -C "$T/src" add pub && git -C "$T/src" commit -qm pub
for opts in passthrough=off cache=never,passthrough=off cache=auto,passthrough=off passthrough=auto; do
	exhaust "$opts"
done
tap_done
