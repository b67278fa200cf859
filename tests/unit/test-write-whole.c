/* Writing a whole buffer at an offset (common/write-whole.c). EINTR is not
 * provoked: a local file's pwrite does not stop for a signal, and a pipe,
 * whose write would, refuses pwrite (ESPIPE, tested below). */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/write-whole.h"

/* A new file, already unlinked: the test leaves nothing behind. */
static int temp_file(void)
{
	char path[] = P_tmpdir "/oz0-write-whole-XXXXXX";
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0, "mkstemp: %m");
	cr_assert_eq(unlink(path), 0);
	return fd;
}

static void expect_bytes(int fd, const char *want, size_t len)
{
	char buf[64];
	struct stat st;

	cr_assert_lt(len, sizeof(buf));
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_size, (off_t)len);
	cr_assert_eq(pread(fd, buf, sizeof(buf), 0), (ssize_t)len);
	cr_assert_eq(memcmp(buf, want, len), 0);
}

Test(write_whole, writes_at_the_offset_and_leaves_the_position)
{
	_cleanup_close_ int fd = temp_file();

	cr_assert_eq(write_whole_at(fd, "hello", 5, 0), 0);
	cr_assert_eq(write_whole_at(fd, "world", 5, 6), 0);
	cr_assert_eq(write_whole_at(fd, " ", 1, 5), 0);
	expect_bytes(fd, "hello world", 11);
	cr_assert_eq(lseek(fd, 0, SEEK_CUR), 0);
}

Test(write_whole, nothing_to_write_is_no_write)
{
	_cleanup_close_ int fd = temp_file();

	cr_assert_eq(write_whole_at(fd, "", 0, 0), 0);
	expect_bytes(fd, "", 0);
}

Test(write_whole, a_large_buffer_whole)
{
	size_t len = 4u << 20;
	_cleanup_free_ char *buf = malloc(len);
	_cleanup_close_ int fd = temp_file();
	struct stat st;

	cr_assert_not_null(buf);
	memset(buf, 'x', len);
	cr_assert_eq(write_whole_at(fd, buf, len, 0), 0);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_size, (off_t)len);
}

/* A file that may grow only to 10 bytes (RLIMIT_FSIZE): the kernel takes 10
 * of the 16 (a short write), then none (EFBIG). The loop went on past the
 * short write, since the error comes from the next pwrite. */
Test(write_whole, goes_on_after_a_short_write)
{
	struct rlimit small = {.rlim_cur = 10, .rlim_max = RLIM_INFINITY};
	_cleanup_close_ int fd = temp_file();

	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
	cr_assert_eq(write_whole_at(fd, "0123456789abcdef", 16, 0), -EFBIG);
	expect_bytes(fd, "0123456789", 10);
}

Test(write_whole, errors_as_negative_errno)
{
	int pipe_fds[2];
	_cleanup_close_ int fd = temp_file();
	_cleanup_close_ int ro = -1;
	char self[64];

	cr_assert_eq(pipe(pipe_fds), 0);
	cr_assert_eq(write_whole_at(pipe_fds[1], "x", 1, 0), -ESPIPE);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	cr_assert_eq(write_whole_at(-1, "x", 1, 0), -EBADF);
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	ro = open(self, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(ro, 0, "%s: %m", self);
	cr_assert_eq(write_whole_at(ro, "x", 1, 0), -EBADF);
	cr_assert_eq(write_whole_at(fd, "x", 1, -1), -EINVAL);
}
