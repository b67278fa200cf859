/* The safe resolver: every case gives the same answer through openat2 and
 * through the forced O_NOFOLLOW walk, and that answer is the expected one. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/safe-open.h"

static char top[] = P_tmpdir "/oz0-safe-open-XXXXXX";
static int rootfd = -1;

/* root/ holds: file, dir/sub/file, fifo, and links that a resolver must not
 * follow: to a file, to a directory, to an absolute path, and upwards. */
static void setup(void)
{
	char path[PATH_MAX];

	cr_assert_not_null(mkdtemp(top));
	snprintf(path, sizeof(path), "%s/root", top);
	cr_assert_eq(mkdir(path, 0755), 0);
	rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(rootfd, 0);
	cr_assert_eq(mkdirat(rootfd, "dir", 0755), 0);
	cr_assert_eq(mkdirat(rootfd, "dir/sub", 0755), 0);
	close(openat(rootfd, "dir/sub/file", O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
	close(openat(rootfd, "file", O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
	cr_assert_eq(mkfifoat(rootfd, "fifo", 0644), 0);
	cr_assert_eq(symlinkat("file", rootfd, "link_file"), 0);
	cr_assert_eq(symlinkat("dir", rootfd, "link_dir"), 0);
	cr_assert_eq(symlinkat("/etc", rootfd, "abs_link"), 0);
	cr_assert_eq(symlinkat("..", rootfd, "up_link"), 0);
	cr_assert_eq(symlinkat("../..", rootfd, "dir/up"), 0);
	/* Outside root, to prove '..' never reaches it. */
	snprintf(path, sizeof(path), "%s/outside", top);
	close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	closep(&rootfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(safe_open, .init = setup, .fini = teardown);

/* The identity of what PATH resolves to beneath root, by ordinary means. */
static ino_t ino_of(const char *path)
{
	struct stat st;

	cr_assert_eq(fstatat(rootfd, path, &st, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH), 0, "%s", path);
	return st.st_ino;
}

/* Opens through the resolver and returns -errno or the opened inode. */
static long long resolve(const char *path, int flags, bool fallback)
{
	struct stat st;
	int fd;

	safe_open_force_fallback(fallback);
	fd = safe_openat(rootfd, path, flags, 0644);
	safe_open_force_fallback(false);
	if (fd < 0)
		return fd;
	cr_assert_eq(fstat(fd, &st), 0);
	close(fd);
	return (long long)st.st_ino;
}

static void expect(const char *path, int flags, long long want)
{
	long long with_openat2 = resolve(path, flags, false);
	long long with_walk = resolve(path, flags, true);

	cr_assert_eq(with_openat2, want, "openat2 '%s' flags %#x: got %lld, want %lld", path, flags, with_openat2,
		     want);
	cr_assert_eq(with_walk, want, "walk '%s' flags %#x: got %lld, want %lld", path, flags, with_walk, want);
}

Test(safe_open, plain_paths)
{
	expect("file", O_RDONLY, (long long)ino_of("file"));
	expect("dir/sub/file", O_RDONLY, (long long)ino_of("dir/sub/file"));
	expect("./dir//sub/./file", O_RDONLY, (long long)ino_of("dir/sub/file"));
	expect("dir/sub", O_RDONLY | O_DIRECTORY, (long long)ino_of("dir/sub"));
	expect("dir/", O_RDONLY, (long long)ino_of("dir"));
	expect(".", O_PATH, (long long)ino_of(""));
	expect("fifo", O_RDONLY | O_NONBLOCK, (long long)ino_of("fifo"));
}

Test(safe_open, dotdot_inside_is_fine)
{
	expect("dir/sub/../sub/file", O_RDONLY, (long long)ino_of("dir/sub/file"));
	expect("dir/..", O_PATH, (long long)ino_of(""));
	expect("dir/sub/../../file", O_RDONLY, (long long)ino_of("file"));
}

Test(safe_open, dotdot_escapes)
{
	expect("..", O_PATH, -EXDEV);
	expect("../outside", O_RDONLY, -EXDEV);
	expect("dir/../..", O_PATH, -EXDEV);
	expect("dir/sub/../../../outside", O_RDONLY, -EXDEV);
	expect("./../outside", O_RDONLY, -EXDEV);
}

Test(safe_open, absolute_paths)
{
	expect("/etc/passwd", O_RDONLY, -EXDEV);
	expect("/", O_PATH, -EXDEV);
}

Test(safe_open, links_at_the_end)
{
	expect("link_file", O_RDONLY, -ELOOP);
	expect("link_file", O_WRONLY | O_TRUNC, -ELOOP);
	/* O_NOFOLLOW stops on the link, which is no directory: openat2 says so. */
	expect("link_dir", O_RDONLY | O_DIRECTORY, -ENOTDIR);
	expect("link_dir/", O_RDONLY, -ELOOP);
	expect("abs_link", O_RDONLY, -ELOOP);
	/* O_PATH|O_NOFOLLOW names the link itself, and only that. */
	expect("link_file", O_PATH, (long long)ino_of("link_file"));
}

Test(safe_open, links_on_the_way)
{
	expect("link_dir/sub/file", O_RDONLY, -ELOOP);
	expect("abs_link/passwd", O_RDONLY, -ELOOP);
	expect("up_link/outside", O_RDONLY, -ELOOP);
	expect("dir/up/outside", O_RDONLY, -ELOOP);
	expect("link_dir/..", O_PATH, -ELOOP);
}

Test(safe_open, missing_and_wrong_types)
{
	expect("missing", O_RDONLY, -ENOENT);
	expect("missing/x", O_RDONLY, -ENOENT);
	expect("file/x", O_RDONLY, -ENOTDIR);
	expect("file/", O_RDONLY, -ENOTDIR);
	expect("dir/sub/file/..", O_PATH, -ENOTDIR);
	expect("file", O_RDONLY | O_DIRECTORY, -ENOTDIR);
	expect("missing/", O_WRONLY | O_CREAT, -EISDIR);
	expect("dir", O_WRONLY, -EISDIR);
}

Test(safe_open, create)
{
	long long made, again;

	safe_open_force_fallback(true);
	made = safe_openat(rootfd, "dir/new", O_WRONLY | O_CREAT | O_EXCL, 0600);
	safe_open_force_fallback(false);
	cr_assert_geq(made, 0);
	close((int)made);
	expect("dir/new", O_WRONLY | O_CREAT | O_EXCL, -EEXIST);
	again = resolve("dir/../dir/./new", O_RDONLY, false);
	cr_assert_eq(again, (long long)ino_of("dir/new"));
	expect("link_dir/new2", O_WRONLY | O_CREAT, -ELOOP);
	expect("link_file", O_WRONLY | O_CREAT, -ELOOP);
}

Test(safe_open, bad_names)
{
	char name[NAME_MAX + 2];

	expect("", O_RDONLY, -EINVAL);
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	expect(name, O_RDONLY, -ENAMETOOLONG);
}

/* Builds a path of N components "a/a/.../a"; the caller frees it. */
static char *components(int n)
{
	char *p = malloc(2 * (size_t)n);

	cr_assert_not_null(p);
	for (int i = 0; i < n; i++) {
		p[2 * i] = 'a';
		p[2 * i + 1] = i + 1 < n ? '/' : '\0';
	}
	return p;
}

Test(safe_open, depth)
{
	_cleanup_free_ char *at_limit = components(SAFE_OPEN_MAX_DEPTH);
	_cleanup_free_ char *past_limit = components(SAFE_OPEN_MAX_DEPTH + 1);
	_cleanup_free_ char *dots = NULL;
	int dirfd = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	/* Make a/a/.../a, SAFE_OPEN_MAX_DEPTH deep. */
	cr_assert_geq(dirfd, 0);
	for (int i = 0; i < SAFE_OPEN_MAX_DEPTH; i++) {
		int next;
		cr_assert_eq(mkdirat(dirfd, "a", 0755), 0);
		next = openat(dirfd, "a", O_PATH | O_DIRECTORY | O_CLOEXEC);
		cr_assert_geq(next, 0);
		close(dirfd);
		dirfd = next;
	}
	cr_assert_eq(mkdirat(dirfd, "a", 0755), 0);
	close(dirfd);
	expect(at_limit, O_PATH | O_DIRECTORY, (long long)ino_of(at_limit));
	expect(past_limit, O_PATH | O_DIRECTORY, -ENAMETOOLONG);
	/* The bound counts components, so '.' cannot pad a path past it either. */
	dots = malloc(2 * (SAFE_OPEN_MAX_DEPTH + 1));
	cr_assert_not_null(dots);
	for (int i = 0; i <= SAFE_OPEN_MAX_DEPTH; i++)
		memcpy(dots + 2 * i, i < SAFE_OPEN_MAX_DEPTH ? "./" : "f", 2);
	expect(dots, O_RDONLY, -ENAMETOOLONG);
}
