#include "config.h"

/* gitread_file(): links at every position, FIFOs, devices and directories,
 * sizes at and over the bound, files that lie about their size or grow
 * while read. Every link case runs through openat2 and the forced walk. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/safe-open.h"
#include "git/read.h"

static char top[] = P_tmpdir "/oz0-read-XXXXXX";
static int rootfd = -1;

static void write_file(const char *name, const char *data, size_t len)
{
	int fd = openat(rootfd, name, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);

	cr_assert_geq(fd, 0, "create %s", name);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* root/ holds a/b/file ("hello"), a FIFO, links to a file and to folders at
 * each position of a three-component path, and one leaving the tree. */
static void setup(void)
{
	cr_assert_not_null(mkdtemp(top));
	rootfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(rootfd, 0);
	cr_assert_eq(mkdirat(rootfd, "a", 0755), 0);
	cr_assert_eq(mkdirat(rootfd, "a/b", 0755), 0);
	write_file("a/b/file", "hello", 5);
	cr_assert_eq(symlinkat("a", rootfd, "link_a"), 0);
	cr_assert_eq(symlinkat("b", rootfd, "a/link_b"), 0);
	cr_assert_eq(symlinkat("file", rootfd, "a/b/link_file"), 0);
	cr_assert_eq(symlinkat("/etc/passwd", rootfd, "a/b/abs_link"), 0);
	cr_assert_eq(mkfifoat(rootfd, "a/b/fifo", 0644), 0);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	safe_open_force_fallback(false);
	close(rootfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(read, .init = setup, .fini = teardown, .timeout = 10);

static int read_name(const char *name, size_t max, struct git_blob *b)
{
	return gitread_file(rootfd, name, max, b);
}

/* Runs CHECK once through openat2 and once through the O_NOFOLLOW walk. */
static void both_resolvers(void (*check)(void))
{
	safe_open_force_fallback(false);
	check();
	safe_open_force_fallback(true);
	check();
}

static void check_plain_read(void)
{
	struct git_blob b = {0};

	cr_assert_eq(read_name("a/b/file", GITREAD_SMALL_MAX, &b), 0);
	cr_assert_eq(b.len, 5);
	cr_assert_str_eq(b.data, "hello");
	git_blob_free(&b);
	cr_assert_null(b.data);
	cr_assert_eq(b.len, 0);
}

Test(read, reads_a_file_beneath_the_dir_whole)
{
	both_resolvers(check_plain_read);
}

static void check_links_everywhere(void)
{
	static const char *const linked[] = {
		"link_a/b/file", "a/link_b/file", "a/b/link_file", "a/b/abs_link",
	};
	struct git_blob b = {0};

	for (size_t i = 0; i < ELEMENTSOF(linked); i++) {
		cr_expect_eq(read_name(linked[i], GITREAD_SMALL_MAX, &b), -ELOOP, "%s", linked[i]);
		cr_expect_null(b.data);
	}
}

Test(read, refuses_a_link_at_every_position)
{
	both_resolvers(check_links_everywhere);
}

static void check_escapes(void)
{
	struct git_blob b = {0};

	cr_expect_eq(read_name("../x", GITREAD_SMALL_MAX, &b), -EXDEV);
	cr_expect_eq(read_name("a/../../x", GITREAD_SMALL_MAX, &b), -EXDEV);
	cr_expect_eq(read_name("/etc/passwd", GITREAD_SMALL_MAX, &b), -EXDEV);
	cr_expect_eq(read_name("a/b/missing", GITREAD_SMALL_MAX, &b), -ENOENT);
	cr_expect_eq(read_name("a/../a/b/file", GITREAD_SMALL_MAX, &b), 0);
	git_blob_free(&b);
}

Test(read, refuses_escapes_and_reports_missing)
{
	both_resolvers(check_escapes);
}

Test(read, a_fifo_never_blocks, .timeout = 5)
{
	struct git_blob b = {0};

	cr_assert_eq(read_name("a/b/fifo", GITREAD_SMALL_MAX, &b), -EINVAL);
	cr_assert_null(b.data);
}

Test(read, refuses_directories_and_devices)
{
	struct git_blob b = {0};
	_cleanup_close_ int devfd = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);

	cr_assert_eq(read_name("a/b", GITREAD_SMALL_MAX, &b), -EINVAL);
	cr_assert_eq(read_name("a/b/", GITREAD_SMALL_MAX, &b), -EINVAL);
	cr_assert_geq(devfd, 0);
	cr_assert_eq(gitread_file(devfd, "zero", GITREAD_SMALL_MAX, &b), -EINVAL);
	cr_assert_eq(gitread_file(devfd, "null", GITREAD_SMALL_MAX, &b), -EINVAL);
}

Test(read, sizes_at_and_over_the_bound)
{
	static char big[10000];
	struct git_blob b = {0};

	memset(big, 'x', sizeof(big));
	write_file("big", big, sizeof(big));
	cr_assert_eq(read_name("big", sizeof(big), &b), 0);
	cr_assert_eq(b.len, sizeof(big));
	cr_assert_eq(b.data[b.len], '\0');
	cr_assert_eq(memcmp(b.data, big, sizeof(big)), 0);
	git_blob_free(&b);
	cr_assert_eq(read_name("big", sizeof(big) - 1, &b), -EFBIG);
	cr_assert_null(b.data);
	write_file("empty", "", 0);
	cr_assert_eq(read_name("empty", 0, &b), 0);
	cr_assert_eq(b.len, 0);
	cr_assert_str_eq(b.data, "");
	git_blob_free(&b);
	write_file("one", "1", 1);
	cr_assert_eq(read_name("one", 0, &b), -EFBIG);
	cr_assert_eq(read_name("one", SIZE_MAX, &b), -EINVAL);
}

Test(read, keeps_nul_bytes)
{
	struct git_blob b = {0};

	write_file("nul", "a\0b", 3);
	cr_assert_eq(read_name("nul", GITREAD_SMALL_MAX, &b), 0);
	cr_assert_eq(b.len, 3);
	cr_assert_eq(memcmp(b.data, "a\0b", 4), 0);
	git_blob_free(&b);
}

/* /proc files report st_size 0 but hold bytes: the read must not trust the
 * size, neither to stop early nor to skip the bound. */
Test(read, a_file_whose_size_lies)
{
	_cleanup_close_ int procfd = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct git_blob b = {0};
	struct stat st;

	cr_assert_geq(procfd, 0);
	cr_assert_eq(fstatat(procfd, "status", &st, 0), 0);
	cr_assert_eq(st.st_size, 0);
	cr_assert_eq(gitread_file(procfd, "status", GITREAD_SMALL_MAX, &b), 0);
	cr_assert_gt(b.len, 100);
	cr_assert_not_null(strstr(b.data, "Name:"));
	git_blob_free(&b);
	cr_assert_eq(gitread_file(procfd, "status", 16, &b), -EFBIG);
}

static void *grow(void *arg)
{
	int fd = *(int *)arg;
	char chunk[4096];

	memset(chunk, 'g', sizeof(chunk));
	for (int i = 0; i < 4096; i++)
		if (write(fd, chunk, sizeof(chunk)) < 0)
			break;
	return NULL;
}

/* A writer appends while we read: the answer is either the whole bound's
 * worth of 'g's at most, or -EFBIG; never more than the bound. */
Test(read, a_file_growing_while_read)
{
	int fd = openat(rootfd, "growing", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	struct git_blob b = {0};
	pthread_t t;
	int r = 0;

	cr_assert_geq(fd, 0);
	cr_assert_eq(pthread_create(&t, NULL, grow, &fd), 0);
	for (int i = 0; i < 200 && r != -EFBIG; i++) {
		r = read_name("growing", 1 << 20, &b);
		cr_assert(r == 0 || r == -EFBIG, "r = %d", r);
		if (r == 0) {
			cr_assert_leq(b.len, 1 << 20);
			cr_assert_eq(strspn(b.data, "g"), b.len);
		}
		git_blob_free(&b);
	}
	pthread_join(t, NULL);
	close(fd);
	/* 16 MiB were written in all: the last read saw more than the bound. */
	cr_assert_eq(read_name("growing", 1 << 20, &b), -EFBIG);
}

Test(read, free_accepts_null_and_empty)
{
	struct git_blob b = {0};

	git_blob_free(NULL);
	git_blob_free(&b);
	cr_assert_null(b.data);
}
