#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "cleanup.h"
#include "write-whole.h"

int write_whole_at(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return negative_errno();
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}
