#include "config.h"

/* STATE on disk (state.h): written beside itself and renamed into place,
 * read only from a regular file. The file is the runner's, outside the
 * tree, so it is named by a path; only its last component is guarded. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/read-file.h"
#include "git/settle/state.h"

#define WHY_TOO_LARGE "the STATE is larger than a STATE may be"

/* Opens the folder of FILE for fsync; *BASE is FILE's last component. */
static int open_folder(const char *file, const char **base)
{
	const char *slash = strrchr(file, '/');
	_cleanup_free_ char *dir = NULL;
	int fd;

	*base = slash ? slash + 1 : file;
	if (!**base)
		return -EISDIR;
	dir = !slash ? strdup(".") : slash == file ? strdup("/") : strndup(file, (size_t)(slash - file));
	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? negative_errno() : fd;
}

/* Creates NAME in DIRFD with BUF on the disk, or leaves no NAME behind;
 * stdio takes care of short writes. */
static int write_new(int dirfd, const char *name, const char *buf, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f;
	int r = 0;

	if (fd < 0)
		return negative_errno();
	f = fdopen(fd, "w");
	if (!f) {
		r = negative_errno();
		close(fd);
		unlinkat(dirfd, name, 0);
		return r;
	}
	if (fwrite(buf, 1, len, f) != len || fflush(f) != 0 || fsync(fileno(f)) < 0)
		r = negative_errno();
	if (fclose(f) != 0 && r == 0)
		r = negative_errno();
	if (r < 0)
		unlinkat(dirfd, name, 0);
	return r;
}

/* rename() replaces a link at FILE itself, never what it points to. */
int settle_state_write(const struct settle_state *s, const char *file)
{
	_cleanup_free_ char *buf = NULL, *tmp = NULL;
	_cleanup_close_ int dirfd = -1;
	const char *base;
	size_t len;
	int r = settle_state_format(s, &buf, &len);

	if (r < 0)
		return r;
	dirfd = open_folder(file, &base);
	if (dirfd < 0)
		return dirfd;
	if (asprintf(&tmp, "%s.tmp-%ld", base, (long)getpid()) < 0) {
		tmp = NULL;
		return -ENOMEM;
	}
	r = write_new(dirfd, tmp, buf, len);
	if (r < 0)
		return r;
	if (renameat(dirfd, tmp, dirfd, base) < 0) {
		r = negative_errno();
		unlinkat(dirfd, tmp, 0);
		return r;
	}
	return fsync(dirfd) < 0 ? negative_errno() : 0;
}

int settle_state_read(const char *file, struct settle_state *out, const char **why)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t len;
	int r;

	*out = (struct settle_state){0};
	*why = NULL;
	/* O_NONBLOCK: a FIFO opens at once instead of waiting for a writer, and
	 * fstat then refuses it. */
	fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!S_ISREG(st.st_mode)) {
		*why = "the STATE is not a regular file";
		return -EINVAL;
	}
	r = (uint64_t)st.st_size > SETTLE_STATE_MAX_BYTES
	            ? -EFBIG
	            : read_fd_bounded(fd, (size_t)st.st_size, SETTLE_STATE_MAX_BYTES, &buf, &len);
	if (r == -EFBIG) {
		*why = WHY_TOO_LARGE;
		return -E2BIG;
	}
	return r < 0 ? r : settle_state_parse(buf, len, out, why);
}
