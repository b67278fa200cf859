#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "fs/same-bytes.h"

#define SAME_BYTES_CHUNK 16384

/* Opens a regular file that is still ID; -ESTALE when the name moved on.
 * Anything else is not opened at all (a device may act on open). */
static int open_expected(int dir, const char *name, struct policy_id id, struct stat *st)
{
	if (fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) < 0)
		return negative_errno();
	if (!S_ISREG(st->st_mode))
		return -EINVAL;
	_cleanup_close_ int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (fstat(fd, st) < 0)
		return negative_errno();
	if (st->st_dev != id.dev || st->st_ino != id.ino)
		return -ESTALE;
	return TAKE_FD(fd);
}

/* Reads exactly LEN bytes at OFF, or fails. */
static int read_full(int fd, char *buf, size_t len, off_t off)
{
	while (len > 0) {
		ssize_t n = pread(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return negative_errno();
		if (n == 0)
			return -EIO; /* shrank while we read: not the same */
		buf += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

static int compare_fds(int a, int b, off_t size)
{
	char buf_a[SAME_BYTES_CHUNK], buf_b[SAME_BYTES_CHUNK];

	for (off_t off = 0; off < size; off += SAME_BYTES_CHUNK) {
		size_t len = size - off < SAME_BYTES_CHUNK ? (size_t)(size - off) : SAME_BYTES_CHUNK;
		int r = read_full(a, buf_a, len, off);
		if (r >= 0)
			r = read_full(b, buf_b, len, off);
		if (r < 0)
			return r == -EIO ? 0 : r;
		if (memcmp(buf_a, buf_b, len) != 0)
			return 0;
	}
	return 1;
}

int same_bytes(int dir_a, const char *name_a, struct policy_id id_a, int dir_b, const char *name_b,
               struct policy_id id_b)
{
	struct stat st_a, st_b;

	_cleanup_close_ int a = open_expected(dir_a, name_a, id_a, &st_a);
	if (a == -EINVAL)
		return 0;
	if (a < 0)
		return a;
	_cleanup_close_ int b = open_expected(dir_b, name_b, id_b, &st_b);
	if (b == -EINVAL)
		return 0;
	if (b < 0)
		return b;
	if (!S_ISREG(st_a.st_mode) || st_a.st_size != st_b.st_size || st_a.st_size > (off_t)SAME_BYTES_MAX)
		return 0;
	return compare_fds(a, b, st_a.st_size);
}
