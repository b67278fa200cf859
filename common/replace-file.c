#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "replace-file.h"

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
static int write_new(int dirfd, const char *name, const char *buf, size_t len, mode_t mode)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
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

int replace_file(const char *file, const char *buf, size_t len, mode_t mode)
{
	_cleanup_free_ char *tmp = NULL;
	_cleanup_close_ int dirfd = -1;
	const char *base;
	int r;

	dirfd = open_folder(file, &base);
	if (dirfd < 0)
		return dirfd;
	if (asprintf(&tmp, "%s.tmp-%ld", base, (long)getpid()) < 0) {
		tmp = NULL;
		return -ENOMEM;
	}
	r = write_new(dirfd, tmp, buf, len, mode);
	if (r < 0)
		return r;
	if (renameat(dirfd, tmp, dirfd, base) < 0) {
		r = negative_errno();
		unlinkat(dirfd, tmp, 0);
		return r;
	}
	return fsync(dirfd) < 0 ? negative_errno() : 0;
}
