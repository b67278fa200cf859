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
#include "common/read-file.h"
#include "common/safe-open.h"
#include "git/read.h"

void git_blob_free(struct git_blob *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = 0;
}

/* The checks after the open, shared by both readers: a regular file, bounded. */
static int read_opened(int fd, size_t max, struct git_blob *out)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((unsigned long long)st.st_size > max)
		return -EFBIG;
	return read_fd_bounded(fd, (size_t)st.st_size, max, &out->data, &out->len);
}

int gitread_file(int dirfd, const char *name, size_t max, struct git_blob *out)
{
	_cleanup_close_ int fd = -1;

	*out = (struct git_blob){0};
	/* O_NONBLOCK: opening a FIFO for reading returns at once instead of
	 * waiting for a writer; fstat then refuses it. */
	fd = safe_openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
	if (fd < 0)
		return fd;
	return read_opened(fd, max, out);
}

int gitread_outside(const char *path, size_t max, struct git_blob *out)
{
	_cleanup_close_ int fd = -1;

	*out = (struct git_blob){0};
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	return read_opened(fd, max, out);
}
