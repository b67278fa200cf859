#include "config.h"

/* The one way git/ reads a Git file's bytes (git/read.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/safe-open.h"
#include "git/read.h"

/* A first buffer for a file whose size we do not know yet (st_size lies for
 * /proc-like files and changes under a writer). */
#define GITREAD_FIRST_CHUNK 4096u

void git_blob_free(struct git_blob *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = 0;
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* Reads FD to its end into a buffer that grows as needed, to MAX + 1 bytes
 * at most: reading that one byte more is how a file that grew past MAX, or
 * lied about its size, is caught. The buffer is NUL-terminated. */
static int read_bounded(int fd, size_t hint, size_t max, struct git_blob *out)
{
	_cleanup_free_ char *buf = NULL;
	size_t cap = 0, len = 0;

	for (;;) {
		ssize_t n;

		if (len == cap) {
			size_t first = hint + 1 > GITREAD_FIRST_CHUNK ? hint + 1 : GITREAD_FIRST_CHUNK;
			size_t grown = min_size(cap ? cap * 2 : first, max + 1);
			char *p;

			if (cap == max + 1)
				return -EFBIG;
			p = realloc(buf, grown + 1);
			if (!p)
				return -ENOMEM;
			buf = p;
			cap = grown;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return negative_errno();
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max)
		return -EFBIG;
	buf[len] = '\0';
	out->data = TAKE_PTR(buf);
	out->len = len;
	return 0;
}

int gitread_file(int dirfd, const char *name, size_t max, struct git_blob *out)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	*out = (struct git_blob){0};
	/* max + 1 must not wrap: no Git file is anywhere near that size. */
	if (max >= SIZE_MAX / 2)
		return -EINVAL;
	/* O_NONBLOCK: opening a FIFO for reading returns at once instead of
	 * waiting for a writer; fstat then refuses it. */
	fd = safe_openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((unsigned long long)st.st_size > max)
		return -EFBIG;
	return read_bounded(fd, (size_t)st.st_size, max, out);
}
