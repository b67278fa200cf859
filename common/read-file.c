#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "cleanup.h"
#include "read-file.h"

/* A first buffer for a file whose size is not known yet. */
#define READ_FIRST_CHUNK 4096u

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

int read_fd_bounded(int fd, size_t hint, size_t max, char **data, size_t *len_out)
{
	_cleanup_free_ char *buf = NULL;
	size_t cap = 0, len = 0;

	/* max + 1 must not wrap. */
	if (max >= SIZE_MAX / 2)
		return -EINVAL;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			size_t first = hint + 1 > READ_FIRST_CHUNK ? hint + 1 : READ_FIRST_CHUNK;
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
	*data = TAKE_PTR(buf);
	*len_out = len;
	return 0;
}
