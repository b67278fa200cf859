/* posix-suite DIR: file-system semantics checks, run inside DIR.
 *
 * Prints one "name: result" line per check and nothing that differs between
 * two runs on the same kind of file system: errno names, "yes"/"no" for
 * relations (a time advanced, two inodes equal), and sizes or block counts
 * only where the file system fixes them. tests/integration/test-posix.sh runs
 * it on the underlying file system and through the mount and compares the
 * lines: the mount must give the same answers.
 *
 * Runs as root (modes, owners and setgid rules need it). DIR must be empty.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

/* ---- Reporting ------------------------------------------------------------ */

static unsigned checks;

__attribute__((format(printf, 2, 3))) static void out(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	checks++;
}

static const char *ename(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

/* The outcome of a call returning -1 and errno on failure. */
static void res(const char *name, long ret)
{
	out(name, "%s", ret < 0 ? ename(errno) : "ok");
}

static void yes(const char *name, bool c)
{
	out(name, "%s", c ? "yes" : "no");
}

static void num(const char *name, long long v)
{
	out(name, "%lld", v);
}

/* A step that sets checks up. Its failure is reported as a line of its own,
 * so that it shows in the comparison, and the run goes on. */
#define SETUP(call) setup((call), #call)

static void setup(long ret, const char *what)
{
	if (ret < 0)
		out(what, "setup failed (%s)", ename(errno));
}

/* ---- Small helpers -------------------------------------------------------- */

static void put(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, data, strlen(data)) != (ssize_t)strlen(data)) {
		fprintf(stderr, "cannot write %s: %m\n", path);
		exit(2);
	}
	close(fd);
}

/* The first bytes of PATH, as a string ("" if unreadable). */
static const char *get(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static struct stat L(const char *path)
{
	struct stat s;

	if (lstat(path, &s) < 0)
		memset(&s, 0, sizeof(s));
	return s;
}

static bool after(struct timespec a, struct timespec b)
{
	return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* Lets the clock move past the file system's timestamp granularity, so that
 * "advanced" is observable. */
static void tick(void)
{
	usleep(20000);
}

/* Puts PATH's atime and mtime an hour back, so that a change shows. */
static void age(const char *path)
{
	struct timespec t[2];

	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= 3600;
	t[1] = t[0];
	utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW);
	tick();
}

static void mkdirs(const char *dir)
{
	if (mkdir(dir, 0755) < 0) {
		fprintf(stderr, "cannot mkdir %s: %m\n", dir);
		exit(2);
	}
}

/* Runs FN in a child and returns its exit status (a check's answer). */
static int in_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(arg));
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return 255;
	return WEXITSTATUS(status);
}

/* ---- errno ---------------------------------------------------------------- */

static void t_errno(void)
{
	char longname[300];

	mkdirs("err");
	put("err/file", "x");
	mkdirs("err/dir");
	put("err/dir/inner", "x");
	SETUP(symlink("loop2", "err/loop1"));
	SETUP(symlink("loop1", "err/loop2"));
	SETUP(symlink("file", "err/sym"));

	res("open missing", open("err/missing", O_RDONLY));
	res("open O_CREAT|O_EXCL existing", open("err/file", O_WRONLY | O_CREAT | O_EXCL, 0644));
	res("mkdir existing", mkdir("err/dir", 0755));
	res("mkdir over a file", mkdir("err/file", 0755));
	res("open through a file", open("err/file/x", O_RDONLY));
	res("stat through a file", access("err/file/x", F_OK));
	res("open a dir for writing", open("err/dir", O_WRONLY));
	res("open O_DIRECTORY on a file", open("err/file", O_RDONLY | O_DIRECTORY));
	res("rmdir non-empty", rmdir("err/dir"));
	res("rmdir a file", rmdir("err/file"));
	res("rmdir .", rmdir("err/dir/."));
	res("unlink a dir", unlink("err/dir"));
	res("link a dir", link("err/dir", "err/dirlink"));
	res("open a symlink loop", open("err/loop1", O_RDONLY));
	res("open O_NOFOLLOW on a symlink", open("err/sym", O_RDONLY | O_NOFOLLOW));
	memcpy(longname, "err/", 4);
	memset(longname + 4, 'n', 256);
	longname[4 + 256] = '\0';
	res("create a 256-byte name", open(longname, O_WRONLY | O_CREAT, 0644));
	longname[4 + 255] = '\0';
	res("create a 255-byte name", open(longname, O_WRONLY | O_CREAT, 0644));
	res("mkdir in a missing parent", mkdir("err/missing/sub", 0755));
	res("readlink a file", readlink("err/file", longname, sizeof(longname)));
	res("symlink over an existing name", symlink("x", "err/file"));
	res("truncate a dir", truncate("err/dir", 0));
	res("truncate to a negative size", truncate("err/file", -1));
	SETUP(symlink("nowhere", "err/dangling"));
	res("O_CREAT|O_EXCL on a dangling symlink", open("err/dangling", O_WRONLY | O_CREAT | O_EXCL, 0644));
	res("opendir a file", opendir("err/file") ? 0 : -1);
	res("access missing", access("err/missing", F_OK));

	int fd = open("err/file", O_RDONLY);
	res("write to a read-only fd", write(fd, "x", 1));
	res("ftruncate a read-only fd", ftruncate(fd, 0));
	res("lseek to a negative offset", lseek(fd, -10, SEEK_SET));
	close(fd);
}

/* ---- rename --------------------------------------------------------------- */

static void t_rename(void)
{
	struct stat a, b;

	mkdirs("ren");
	put("ren/f", "f");
	put("ren/g", "g");
	mkdirs("ren/d");
	mkdirs("ren/d/sub");
	mkdirs("ren/full");
	put("ren/full/x", "x");
	mkdirs("ren/empty");

	a = L("ren/f");
	res("rename onto itself", rename("ren/f", "ren/f"));
	b = L("ren/f");
	yes("rename onto itself: still there, same inode", b.st_ino == a.st_ino && b.st_nlink == 1);
	SETUP(link("ren/f", "ren/f2"));
	res("rename onto a hard link of itself", rename("ren/f", "ren/f2"));
	yes("rename onto a hard link: both names stay", L("ren/f").st_nlink == 2 && L("ren/f2").st_nlink == 2);
	unlink("ren/f2");
	res("rename a file over a dir", rename("ren/f", "ren/empty"));
	res("rename a dir over a file", rename("ren/empty", "ren/f"));
	res("rename a dir over a non-empty dir", rename("ren/d", "ren/full"));
	res("rename a dir into its own subdir", rename("ren/d", "ren/d/sub/moved"));
	res("rename a missing name", rename("ren/missing", "ren/x"));
	res("rename a dir over an empty dir", rename("ren/empty", "ren/d/sub"));
	yes("the empty dir took the place", L("ren/d/sub").st_ino != 0 && L("ren/empty").st_ino == 0);
	res("rename a file over a file", rename("ren/g", "ren/f"));
	out("rename over a file: new content", "%s", get("ren/f"));

	put("ren/g", "g");
	res("RENAME_NOREPLACE onto an existing name", renameat2(AT_FDCWD, "ren/g", AT_FDCWD, "ren/f", RENAME_NOREPLACE));
	res("RENAME_NOREPLACE onto a missing name", renameat2(AT_FDCWD, "ren/g", AT_FDCWD, "ren/h", RENAME_NOREPLACE));
	res("RENAME_EXCHANGE two files", renameat2(AT_FDCWD, "ren/f", AT_FDCWD, "ren/h", RENAME_EXCHANGE));
	out("RENAME_EXCHANGE: contents swapped", "%s", get("ren/f"));
	res("RENAME_EXCHANGE a file and a dir", renameat2(AT_FDCWD, "ren/f", AT_FDCWD, "ren/full", RENAME_EXCHANGE));
	yes("RENAME_EXCHANGE: the dir is under the file's name", S_ISDIR(L("ren/f").st_mode) && S_ISREG(L("ren/full").st_mode));
	res("RENAME_EXCHANGE with a missing name", renameat2(AT_FDCWD, "ren/h", AT_FDCWD, "ren/none", RENAME_EXCHANGE));
	res("RENAME_EXCHANGE|RENAME_NOREPLACE", renameat2(AT_FDCWD, "ren/h", AT_FDCWD, "ren/f", RENAME_EXCHANGE | RENAME_NOREPLACE));

	put("ren/old", "old");
	int fd = open("ren/old", O_RDONLY);
	put("ren/new", "new");
	SETUP(rename("ren/new", "ren/old"));
	char buf[8] = "";
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	yes("an fd on a replaced file still reads the old data", n == 3 && memcmp(buf, "old", 3) == 0);
	close(fd);
}

/* ---- modes ---------------------------------------------------------------- */

static void t_modes(void)
{
	mode_t old = umask(022);
	int fd;

	mkdirs("modes");
	close(open("modes/u022", O_WRONLY | O_CREAT, 0666));
	out("create 0666 under umask 022", "%o", L("modes/u022").st_mode & 07777);
	umask(077);
	mkdir("modes/d077", 0777);
	out("mkdir 0777 under umask 077", "%o", L("modes/d077").st_mode & 07777);
	mkfifo("modes/fifo", 0666);
	out("mkfifo 0666 under umask 077", "%o", L("modes/fifo").st_mode & 07777);
	umask(022);
	mkdir("modes/sticky", 01777);
	out("mkdir 01777", "%o", L("modes/sticky").st_mode & 07777);
	SETUP(symlink("target", "modes/link"));
	out("symlink mode", "%o", L("modes/link").st_mode & 07777);
	close(open("modes/all", O_WRONLY | O_CREAT, 0644));
	res("chmod 07777", chmod("modes/all", 07777));
	out("mode after chmod 07777", "%o", L("modes/all").st_mode & 07777);
	res("chown to 1234:5678", chown("modes/all", 1234, 5678));
	struct stat s = L("modes/all");
	out("owner after chown", "%u:%u", s.st_uid, s.st_gid);
	yes("chown clears setuid", !(s.st_mode & S_ISUID));
	res("lchown a symlink", lchown("modes/link", 4321, 4321));
	out("symlink owner", "%u:%u", L("modes/link").st_uid, L("modes/link").st_gid);

	mkdirs("modes/sgid");
	SETUP(chown("modes/sgid", 0, 4242));
	res("chmod 2775 a dir", chmod("modes/sgid", 02775));
	close(open("modes/sgid/file", O_WRONLY | O_CREAT, 0644));
	mkdir("modes/sgid/sub", 0755);
	out("file in a setgid dir: group", "%u", L("modes/sgid/file").st_gid);
	out("dir in a setgid dir: group", "%u", L("modes/sgid/sub").st_gid);
	yes("dir in a setgid dir: setgid", L("modes/sgid/sub").st_mode & S_ISGID);

	fd = open("modes/sgid/file", O_WRONLY);
	res("fchmod 02755", fchmod(fd, 02755));
	out("mode after fchmod", "%o", L("modes/sgid/file").st_mode & 07777);
	close(fd);
	umask(old);
}

/* ---- times ---------------------------------------------------------------- */

static void t_times(void)
{
	struct stat s0, s1, d0, d1;
	struct timespec t[2];
	int fd;
	char c;

	mkdirs("times");
	mkdirs("times/other");
	put("times/f", "data");

	age("times/f");
	s0 = L("times/f");
	fd = open("times/f", O_RDONLY);
	if (read(fd, &c, 1) < 0)
		c = 0;
	close(fd);
	s1 = L("times/f");
	yes("read: mtime unchanged", same_time(s1.st_mtim, s0.st_mtim));

	age("times/f");
	s0 = L("times/f");
	fd = open("times/f", O_WRONLY);
	if (write(fd, "D", 1) < 0)
		c = 0;
	close(fd);
	s1 = L("times/f");
	yes("write: mtime advanced", after(s1.st_mtim, s0.st_mtim));
	yes("write: ctime advanced", after(s1.st_ctim, s0.st_ctim));

	age("times/f");
	s0 = L("times/f");
	fd = open("times/f", O_WRONLY | O_APPEND);
	if (write(fd, "A", 1) < 0)
		c = 0;
	close(fd);
	yes("O_APPEND write: mtime advanced", after(L("times/f").st_mtim, s0.st_mtim));

	age("times/f");
	s0 = L("times/f");
	chmod("times/f", 0600);
	s1 = L("times/f");
	yes("chmod: ctime advanced", after(s1.st_ctim, s0.st_ctim));
	yes("chmod: mtime unchanged", same_time(s1.st_mtim, s0.st_mtim));

	age("times/f");
	age("times");
	s0 = L("times/f");
	d0 = L("times");
	SETUP(link("times/f", "times/other/f-link"));
	s1 = L("times/f");
	yes("link: the file's ctime advanced", after(s1.st_ctim, s0.st_ctim));
	yes("link: the file's mtime unchanged", same_time(s1.st_mtim, s0.st_mtim));
	yes("link: the new parent's mtime advanced", after(L("times/other").st_mtim, d0.st_mtim));

	age("times");
	age("times/other");
	s0 = L("times/f");
	d0 = L("times");
	d1 = L("times/other");
	rename("times/f", "times/other/f");
	s1 = L("times/other/f");
	yes("rename: the file's mtime unchanged", same_time(s1.st_mtim, s0.st_mtim));
	yes("rename: the file's ctime advanced", after(s1.st_ctim, s0.st_ctim));
	yes("rename: the old parent's mtime advanced", after(L("times").st_mtim, d0.st_mtim));
	yes("rename: the new parent's mtime advanced", after(L("times/other").st_mtim, d1.st_mtim));

	age("times/other");
	d0 = L("times/other");
	unlink("times/other/f-link");
	yes("unlink: the parent's mtime advanced", after(L("times/other").st_mtim, d0.st_mtim));
	age("times/other/f");
	s0 = L("times/other/f");
	SETUP(truncate("times/other/f", 1));
	s1 = L("times/other/f");
	yes("truncate: mtime advanced", after(s1.st_mtim, s0.st_mtim));
	yes("truncate: ctime advanced", after(s1.st_ctim, s0.st_ctim));

	t[0] = (struct timespec){ .tv_sec = 1000000000, .tv_nsec = 123456789 };
	t[1] = (struct timespec){ .tv_sec = 1100000000, .tv_nsec = 987654321 };
	res("utimensat explicit times", utimensat(AT_FDCWD, "times/other/f", t, 0));
	s1 = L("times/other/f");
	yes("utimensat: atime exact to the nanosecond", same_time(s1.st_atim, t[0]));
	yes("utimensat: mtime exact to the nanosecond", same_time(s1.st_mtim, t[1]));

	s0 = s1;
	tick();
	t[0].tv_nsec = UTIME_OMIT;
	t[1].tv_nsec = UTIME_NOW;
	res("utimensat UTIME_OMIT, UTIME_NOW", utimensat(AT_FDCWD, "times/other/f", t, 0));
	s1 = L("times/other/f");
	yes("UTIME_OMIT: atime unchanged", same_time(s1.st_atim, s0.st_atim));
	yes("UTIME_NOW: mtime is now", labs(s1.st_mtim.tv_sec - time(NULL)) < 10);
	yes("utimensat: ctime advanced", after(s1.st_ctim, s0.st_ctim));

	s0 = s1;
	tick();
	t[0].tv_nsec = UTIME_OMIT;
	t[1].tv_nsec = UTIME_OMIT;
	res("utimensat both UTIME_OMIT", utimensat(AT_FDCWD, "times/other/f", t, 0));
	s1 = L("times/other/f");
	yes("both UTIME_OMIT: ctime unchanged", same_time(s1.st_ctim, s0.st_ctim));

	SETUP(symlink("f", "times/other/sym"));
	t[0] = t[1] = (struct timespec){ .tv_sec = 1200000000, .tv_nsec = 0 };
	res("utimensat a symlink itself", utimensat(AT_FDCWD, "times/other/sym", t, AT_SYMLINK_NOFOLLOW));
	yes("the symlink's mtime set, the target's not",
	    L("times/other/sym").st_mtim.tv_sec == 1200000000 && L("times/other/f").st_mtim.tv_sec != 1200000000);

	age("times");
	d0 = L("times");
	mkdir("times/newdir", 0755);
	d1 = L("times");
	yes("mkdir: the parent's mtime advanced", after(d1.st_mtim, d0.st_mtim));
	(void)c;
}

/* ---- link counts and O_TMPFILE ------------------------------------------- */

static void t_links(void)
{
	int fd;

	mkdirs("links");
	mkdirs("links/a");
	mkdirs("links/b");
	put("links/a/f", "shared");
	num("new file: nlink", L("links/a/f").st_nlink);
	res("hard link across dirs", link("links/a/f", "links/b/g"));
	num("after link: nlink", L("links/a/f").st_nlink);
	yes("both names: same inode", L("links/a/f").st_ino == L("links/b/g").st_ino);
	out("read through the other name", "%s", get("links/b/g"));
	res("link onto an existing name", link("links/a/f", "links/b/g"));
	unlink("links/a/f");
	num("after unlink: nlink", L("links/b/g").st_nlink);
	out("the other name still reads", "%s", get("links/b/g"));

	num("new dir: nlink", L("links/a").st_nlink);
	mkdir("links/a/sub", 0755);
	num("after mkdir inside: nlink", L("links/a").st_nlink);
	rmdir("links/a/sub");
	num("after rmdir inside: nlink", L("links/a").st_nlink);

	fd = open("links/b/g", O_RDONLY);
	unlink("links/b/g");
	struct stat s;
	fstat(fd, &s);
	num("an open file after its last unlink: nlink", s.st_nlink);
	char buf[16] = "";
	yes("an unlinked open file still reads", read(fd, buf, sizeof(buf) - 1) == 6);
	close(fd);

	fd = open("links", O_TMPFILE | O_RDWR, 0600);
	res("O_TMPFILE", fd);
	if (fd >= 0) {
		if (write(fd, "tmp", 3) != 3)
			fd = -1;
		fstat(fd, &s);
		num("O_TMPFILE: nlink", s.st_nlink);
		res("linkat an O_TMPFILE", linkat(fd, "", AT_FDCWD, "links/from-tmp", AT_EMPTY_PATH));
		out("linked O_TMPFILE content", "%s", get("links/from-tmp"));
		num("linked O_TMPFILE: nlink", L("links/from-tmp").st_nlink);
		close(fd);
	}
	fd = open("links", O_TMPFILE | O_RDWR | O_EXCL, 0600);
	if (fd >= 0) {
		res("linkat an O_TMPFILE|O_EXCL", linkat(fd, "", AT_FDCWD, "links/excl", AT_EMPTY_PATH));
		close(fd);
	} else {
		res("O_TMPFILE|O_EXCL", fd);
	}
}

/* ---- sparse files, O_APPEND, truncate, fallocate ------------------------ */

static void t_sparse(void)
{
	int fd;
	struct stat s;
	char buf[4096];

	mkdirs("data");
	fd = open("data/sparse", O_RDWR | O_CREAT, 0644);
	memset(buf, 'x', sizeof(buf));
	if (pwrite(fd, buf, sizeof(buf), 1 << 20) != sizeof(buf))
		exit(2);
	fsync(fd);
	fstat(fd, &s);
	num("sparse: size", s.st_size);
	yes("sparse: fewer blocks than the size", s.st_blocks * 512 < s.st_size);
	num("SEEK_DATA from 0", lseek(fd, 0, SEEK_DATA));
	num("SEEK_HOLE from 0", lseek(fd, 0, SEEK_HOLE));
	num("SEEK_HOLE from the data", lseek(fd, 1 << 20, SEEK_HOLE));
	res("SEEK_DATA past the end", lseek(fd, 2 << 20, SEEK_DATA));
	memset(buf, 1, sizeof(buf));
	yes("a hole reads as zeros", pread(fd, buf, sizeof(buf), 4096) == sizeof(buf) && buf[0] == 0 && buf[4095] == 0);
	close(fd);

	fd = open("data/full", O_RDWR | O_CREAT, 0644);
	memset(buf, 'y', sizeof(buf));
	for (int i = 0; i < 16; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			exit(2);
	fsync(fd);
	fstat(fd, &s);
	num("64 KiB written: blocks", s.st_blocks);

	res("fallocate KEEP_SIZE", fallocate(fd, FALLOC_FL_KEEP_SIZE, 65536, 65536));
	fstat(fd, &s);
	num("fallocate KEEP_SIZE: size", s.st_size);
	num("fallocate KEEP_SIZE: blocks", s.st_blocks);
	res("fallocate extending", fallocate(fd, 0, 131072, 65536));
	fstat(fd, &s);
	num("fallocate extending: size", s.st_size);
	res("PUNCH_HOLE", fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 8192, 8192));
	fstat(fd, &s);
	num("PUNCH_HOLE: size", s.st_size);
	num("PUNCH_HOLE: blocks", s.st_blocks);
	num("PUNCH_HOLE: SEEK_HOLE finds it", lseek(fd, 0, SEEK_HOLE));
	yes("PUNCH_HOLE: reads zeros", pread(fd, buf, 16, 8192) == 16 && buf[0] == 0);
	res("PUNCH_HOLE without KEEP_SIZE", fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, 4096));
	res("ZERO_RANGE", fallocate(fd, FALLOC_FL_ZERO_RANGE, 0, 4096));
	yes("ZERO_RANGE: reads zeros", pread(fd, buf, 16, 0) == 16 && buf[0] == 0);

	res("ftruncate shrinking", ftruncate(fd, 1000));
	num("ftruncate shrinking: size", (fstat(fd, &s), s.st_size));
	res("ftruncate extending", ftruncate(fd, 100000));
	yes("ftruncate extending: zeros beyond the old end", pread(fd, buf, 16, 50000) == 16 && buf[0] == 0 && buf[15] == 0);
	close(fd);
	res("truncate by path", truncate("data/full", 10));
	num("truncate by path: size", L("data/full").st_size);

	put("data/append", "0123456789");
	fd = open("data/append", O_WRONLY | O_APPEND);
	lseek(fd, 0, SEEK_SET);
	if (write(fd, "ab", 2) != 2)
		exit(2);
	num("O_APPEND: offset after a write", lseek(fd, 0, SEEK_CUR));
	if (pwrite(fd, "cd", 2, 0) != 2)
		exit(2);
	close(fd);
	out("O_APPEND: content (pwrite appends too)", "%s", get("data/append"));

	put("data/src", "copy this text");
	int in = open("data/src", O_RDONLY), outfd = open("data/dst", O_WRONLY | O_CREAT, 0644);
	num("copy_file_range: bytes", copy_file_range(in, NULL, outfd, NULL, 100, 0));
	loff_t off = 100;
	num("copy_file_range past the end: bytes", copy_file_range(in, &off, outfd, NULL, 10, 0));
	close(outfd);
	out("copy_file_range: content", "%s", get("data/dst"));
	int same = open("data/src", O_RDWR);
	loff_t a = 0, b = 2;
	res("copy_file_range overlapping in one file", copy_file_range(same, &a, same, &b, 8, 0));
	close(same);
	close(in);
}

/* ---- mmap ----------------------------------------------------------------- */

static void t_mmap(void)
{
	int fd = open("data/mapped", O_RDWR | O_CREAT, 0644);
	char *p;

	if (ftruncate(fd, 8192) < 0)
		exit(2);
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	res("mmap shared writable", p == MAP_FAILED ? -1 : 0);
	if (p == MAP_FAILED) {
		close(fd);
		return;
	}
	memcpy(p + 4096, "mapped", 6);
	res("msync", msync(p, 8192, MS_SYNC));
	munmap(p, 8192);
	close(fd);
	char buf[8] = "";
	fd = open("data/mapped", O_RDONLY);
	yes("mmap write visible to read", pread(fd, buf, 6, 4096) == 6 && memcmp(buf, "mapped", 6) == 0);
	close(fd);
}

/* ---- xattrs --------------------------------------------------------------- */

static void t_xattr(void)
{
	char buf[64];
	ssize_t n;

	mkdirs("xattr");
	put("xattr/f", "x");
	SETUP(symlink("f", "xattr/sym"));
	res("setxattr user.a", setxattr("xattr/f", "user.a", "value", 5, 0));
	n = getxattr("xattr/f", "user.a", buf, sizeof(buf));
	out("getxattr user.a", "%.*s", n > 0 ? (int)n : 0, buf);
	num("getxattr size query", getxattr("xattr/f", "user.a", NULL, 0));
	res("getxattr into a small buffer", getxattr("xattr/f", "user.a", buf, 2));
	res("XATTR_CREATE on an existing name", setxattr("xattr/f", "user.a", "v", 1, XATTR_CREATE));
	res("XATTR_REPLACE on a missing name", setxattr("xattr/f", "user.b", "v", 1, XATTR_REPLACE));
	res("XATTR_REPLACE on an existing name", setxattr("xattr/f", "user.a", "new", 3, XATTR_REPLACE));
	n = listxattr("xattr/f", buf, sizeof(buf));
	yes("listxattr names user.a", n > 0 && memmem(buf, n, "user.a", 7) != NULL);
	res("getxattr a missing name", getxattr("xattr/f", "user.none", buf, sizeof(buf)));
	res("removexattr user.a", removexattr("xattr/f", "user.a"));
	res("removexattr a missing name", removexattr("xattr/f", "user.a"));
	res("user xattr on a symlink", lsetxattr("xattr/sym", "user.a", "v", 1, 0));
	res("setxattr in an unknown namespace", setxattr("xattr/f", "bogus.a", "v", 1, 0));
	res("setxattr user.* on a dir", setxattr("xattr", "user.d", "v", 1, 0));
}

/* ---- special files -------------------------------------------------------- */

static int fifo_writer(void *arg)
{
	int fd = open(arg, O_WRONLY);

	return fd >= 0 && write(fd, "through", 7) == 7 ? 0 : 1;
}

static int socket_client(void *arg)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", (const char *)arg);
	return connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0 && write(s, "hi", 2) == 2 ? 0 : 1;
}

static void t_special(void)
{
	struct stat s;
	int fd;
	char buf[16] = "";

	mkdirs("special");
	res("mknod a FIFO", mknod("special/fifo", S_IFIFO | 0644, 0));
	yes("the FIFO is a FIFO", S_ISFIFO(L("special/fifo").st_mode));
	res("mknod a socket", mknod("special/sock", S_IFSOCK | 0644, 0));
	yes("the socket is a socket", S_ISSOCK(L("special/sock").st_mode));
	res("mknod a char device", mknod("special/null", S_IFCHR | 0666, makedev(1, 3)));
	s = L("special/null");
	yes("the char device keeps its numbers", S_ISCHR(s.st_mode) && s.st_rdev == makedev(1, 3));
	res("open a FIFO for writing without a reader (O_NONBLOCK)", open("special/fifo", O_WRONLY | O_NONBLOCK));
	fd = open("special/fifo", O_RDONLY | O_NONBLOCK);
	res("open a FIFO for reading (O_NONBLOCK)", fd);
	close(fd);

	pid_t pid = fork();
	if (pid == 0)
		_exit(fifo_writer("special/fifo"));
	fd = open("special/fifo", O_RDONLY);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	waitpid(pid, NULL, 0);
	yes("data passes through the FIFO", n == 7 && memcmp(buf, "through", 7) == 0);

	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "special/bound");
	int srv = socket(AF_UNIX, SOCK_STREAM, 0);
	res("bind a unix socket", bind(srv, (struct sockaddr *)&sa, sizeof(sa)));
	listen(srv, 1);
	yes("the bound name is a socket", S_ISSOCK(L("special/bound").st_mode));
	pid = fork();
	if (pid == 0)
		_exit(socket_client("special/bound"));
	int c = accept(srv, NULL, NULL);
	n = c >= 0 ? read(c, buf, 2) : -1;
	waitpid(pid, NULL, 0);
	yes("a client connects through the path", n == 2);
	close(c);
	close(srv);
	res("bind over an existing name", (srv = socket(AF_UNIX, SOCK_STREAM, 0),
					   bind(srv, (struct sockaddr *)&sa, sizeof(sa))));
	close(srv);
}

/* ---- symlinks ------------------------------------------------------------- */

static void t_symlink(void)
{
	char target[4200], buf[4200];
	ssize_t n;

	mkdirs("sym");
	mkdirs("sym/dir");
	put("sym/dir/file", "in dir");
	res("symlink", symlink("dir/file", "sym/rel"));
	n = readlink("sym/rel", buf, sizeof(buf));
	out("readlink", "%.*s", n > 0 ? (int)n : 0, buf);
	num("symlink size", L("sym/rel").st_size);
	out("read through a symlink", "%s", get("sym/rel"));
	SETUP(symlink("dir", "sym/dirlink"));
	out("read through a symlink to a dir", "%s", get("sym/dirlink/file"));
	yes("a trailing slash follows the link", (access("sym/dirlink/", F_OK) == 0));
	res("rmdir a symlink to a dir", rmdir("sym/dirlink"));
	SETUP(symlink("missing", "sym/dangling"));
	res("lstat a dangling symlink", lstat("sym/dangling", &(struct stat){ 0 }));
	res("stat a dangling symlink", stat("sym/dangling", &(struct stat){ 0 }));
	int fd = open("sym/dangling", O_WRONLY | O_CREAT, 0644);
	res("O_CREAT through a dangling symlink", fd);
	close(fd);
	yes("it made the target", L("sym/missing").st_ino != 0);
	memset(target, 't', 4095);
	target[4095] = '\0';
	res("symlink with a 4095-byte target", symlink(target, "sym/long"));
	n = readlink("sym/long", buf, sizeof(buf));
	num("readlink of the long target: bytes", n);
	target[4095] = 't';
	target[4096] = '\0';
	res("symlink with a 4096-byte target", symlink(target, "sym/toolong"));
	res("open O_PATH|O_NOFOLLOW a symlink", (fd = open("sym/rel", O_PATH | O_NOFOLLOW)));
	close(fd);
	res("unlink a symlink", unlink("sym/rel"));
	yes("the target stays", L("sym/dir/file").st_ino != 0);
}

/* ---- readdir -------------------------------------------------------------- */

static int list(const char *dir, bool (*want)(const char *), unsigned *bad)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			n++;
			if (want && !want(e->d_name))
				(*bad)++;
		}
	closedir(d);
	return n;
}

/* Names left after t_readdir's unlinks: f<i> with i % 3 != 0, and g<i>. */
static bool kept(const char *name)
{
	return name[0] == 'g' || (name[0] == 'f' && strtol(name + 1, NULL, 10) % 3 != 0);
}

static void t_readdir(void)
{
	char name[64];
	unsigned bad = 0;
	DIR *d;
	struct dirent *e;

	mkdirs("rd");
	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "rd/f%d", i);
		close(open(name, O_WRONLY | O_CREAT, 0644));
	}
	num("readdir after 3000 creates", list("rd", NULL, NULL));
	for (int i = 0; i < 3000; i += 3) {
		snprintf(name, sizeof(name), "rd/f%d", i);
		unlink(name);
	}
	for (int i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "rd/g%d", i);
		close(open(name, O_WRONLY | O_CREAT, 0644));
	}
	num("readdir after unlinks and creates", list("rd", kept, &bad));
	num("readdir: names that should not be there", bad);

	/* rm -rf's pattern: unlink each entry as readdir returns it. */
	d = opendir("rd");
	int removed = 0;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !unlinkat(dirfd(d), e->d_name, 0))
			removed++;
	if (d)
		closedir(d);
	num("unlink while reading: removed", removed);
	num("unlink while reading: left", list("rd", NULL, NULL));
	res("rmdir the emptied dir", rmdir("rd"));

	mkdirs("types");
	put("types/f", "");
	mkdirs("types/d");
	SETUP(symlink("f", "types/l"));
	mkfifo("types/p", 0644);
	d = opendir("types");
	char seen[8] = "";
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		int i = e->d_name[0] == 'd' ? 0 : e->d_name[0] == 'f' ? 1 : e->d_name[0] == 'l' ? 2 : 3;
		seen[i] = e->d_type == DT_DIR ? 'd' : e->d_type == DT_REG ? 'f' : e->d_type == DT_LNK ? 'l' :
			  e->d_type == DT_FIFO ? 'p' : '?';
	}
	if (d)
		closedir(d);
	out("d_type of dir, file, link, fifo", "%.4s", seen);
}

/* ---- locks ---------------------------------------------------------------- */

static int try_flock(void *arg)
{
	int fd = open(arg, O_RDWR);

	return flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno == EWOULDBLOCK ? 1 : 2;
}

struct range {
	const char *path;
	off_t start, len;
};

static int try_fcntl(void *arg)
{
	struct range *r = arg;
	int fd = open(r->path, O_RDWR);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = r->start, .l_len = r->len };

	return fcntl(fd, F_SETLK, &fl) == 0 ? 0 : (errno == EAGAIN || errno == EACCES) ? 1 : 2;
}

static int get_fcntl(void *arg)
{
	struct range *r = arg;
	int fd = open(r->path, O_RDWR);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = r->start, .l_len = r->len };

	if (fcntl(fd, F_GETLK, &fl) < 0)
		return 2;
	return fl.l_type == F_WRLCK && fl.l_pid == getppid() ? 0 : 1;
}

static const char *lock_answer(int status)
{
	return status == 0 ? "granted" : status == 1 ? "blocked" : "error";
}

static void t_locks(void)
{
	mkdirs("locks");
	put("locks/f", "locked");
	int fd = open("locks/f", O_RDWR);

	res("flock LOCK_EX", flock(fd, LOCK_EX));
	out("flock from another process while held", "%s", lock_answer(in_child(try_flock, "locks/f")));
	flock(fd, LOCK_UN);
	out("flock from another process after LOCK_UN", "%s", lock_answer(in_child(try_flock, "locks/f")));

	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 100 };
	res("fcntl F_SETLK bytes 0-99", fcntl(fd, F_SETLK, &fl));
	out("fcntl overlapping lock from another process", "%s",
	    lock_answer(in_child(try_fcntl, &(struct range){ "locks/f", 50, 10 })));
	out("fcntl disjoint lock from another process", "%s",
	    lock_answer(in_child(try_fcntl, &(struct range){ "locks/f", 200, 10 })));
	yes("F_GETLK names the holder", in_child(get_fcntl, &(struct range){ "locks/f", 0, 10 }) == 0);

	/* OFD locks belong to the open file, so two opens in one process
	 * conflict; a fresh file, since they also conflict with the process's
	 * fcntl lock above. */
	put("locks/ofd", "ofd");
	int one = open("locks/ofd", O_RDWR), other = open("locks/ofd", O_RDWR);
	struct flock ofd = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10 };
	res("OFD lock on one fd", fcntl(one, F_OFD_SETLK, &ofd));
	res("OFD lock on another fd of the same process", fcntl(other, F_OFD_SETLK, &ofd));
	close(other);
	close(one);
	close(fd);
	out("fcntl lock after the holder closed its fd", "%s",
	    lock_answer(in_child(try_fcntl, &(struct range){ "locks/f", 0, 100 })));
}

/* ---- statfs --------------------------------------------------------------- */

static void t_statfs(void)
{
	struct statfs s;

	res("statfs", statfs(".", &s));
	num("statfs: name length", s.f_namelen);
	yes("statfs: block size set", s.f_bsize > 0);
	yes("statfs: blocks counted", s.f_blocks > 0 && s.f_bfree <= s.f_blocks && s.f_bavail <= s.f_bfree);
	yes("statfs: inodes counted", s.f_files > 0 && s.f_ffree <= s.f_files);
	res("fsync a dir", (({ int fd = open(".", O_RDONLY | O_DIRECTORY); int r = fsync(fd); close(fd); r; })));
	res("syncfs", (({ int fd = open(".", O_RDONLY | O_DIRECTORY); int r = syncfs(fd); close(fd); r; })));
}

int main(int argc, char **argv)
{
	if (argc != 2 || chdir(argv[1]) < 0) {
		fprintf(stderr, "usage: posix-suite DIR (an empty directory)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	t_errno();
	t_rename();
	t_modes();
	t_times();
	t_links();
	t_sparse();
	t_mmap();
	t_xattr();
	t_special();
	t_symlink();
	t_readdir();
	t_locks();
	t_statfs();
	fprintf(stderr, "posix-suite: %u checks\n", checks);
	return 0;
}
