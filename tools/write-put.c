#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/write-whole.h"
#include "tools/write-put.h"

static bool force_named;

void write_put_force_named(bool on)
{
	force_named = on;
}

int write_put_name(char name[static WRITE_PUT_NAME_SIZE])
{
	unsigned char bytes[8];
	ssize_t n;

	do
		n = getrandom(bytes, sizeof(bytes), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(bytes))
		return n < 0 ? negative_errno() : -EIO;
	snprintf(name, WRITE_PUT_NAME_SIZE, ".oz0fs-write-%02x%02x%02x%02x%02x%02x%02x%02x", bytes[0], bytes[1],
	         bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7]);
	return 0;
}

static int open_unnamed(int dirfd)
{
	int fd;

	if (force_named)
		return -EOPNOTSUPP;
	fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	return fd < 0 ? negative_errno() : fd;
}

/* The new file, unnamed where the file system can (tmpfs, ext4, xfs,
 * btrfs, an oz0fs mount), else under TMPNAME. Made 0600: its mode is set
 * once the bytes are in. */
static int open_new(struct write_put *p)
{
	int fd = open_unnamed(p->dirfd);

	/* EOPNOTSUPP: a file system without O_TMPFILE; EISDIR or ENOENT: a
	 * kernel without it */
	if (fd >= 0 || (fd != -EOPNOTSUPP && fd != -EISDIR && fd != -ENOENT))
		return fd;
	fd = openat(p->dirfd, p->tmpname, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return negative_errno();
	p->named = true;
	return fd;
}

int write_put_stage(struct write_put *p, int dirfd, const char *tmpname, const char *data, size_t len, mode_t mode)
{
	int r;

	*p = (struct write_put){.dirfd = dirfd, .fd = -1};
	snprintf(p->tmpname, sizeof(p->tmpname), "%s", tmpname);
	p->fd = open_new(p);
	if (p->fd < 0)
		return p->fd;
	r = write_whole_at(p->fd, data, len, 0);
	/* the mode asked for exactly, not less the umask nor plus a set-ID bit */
	if (r == 0 && fchmod(p->fd, mode) < 0)
		r = negative_errno();
	if (r == 0 && fsync(p->fd) < 0)
		r = negative_errno();
	if (r < 0)
		write_put_discard(p);
	return r;
}

/* The unnamed file takes NAME: through its own descriptor where the caller
 * may (CAP_DAC_READ_SEARCH), else through /proc. */
static int link_new(const struct write_put *p, const char *name)
{
	char proc[64];

	if (linkat(p->fd, "", p->dirfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != ENOENT && errno != EPERM)
		return negative_errno();
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", p->fd);
	return linkat(AT_FDCWD, proc, p->dirfd, name, AT_SYMLINK_FOLLOW) < 0 ? negative_errno() : 0;
}

/* The folder on the disk: its O_PATH descriptor cannot be synced itself. */
static int sync_folder(int dirfd)
{
	_cleanup_close_ int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fsync(fd) < 0)
		return negative_errno();
	return 0;
}

static int give_name(struct write_put *p, const char *name, bool replace)
{
	int r;

	if (!p->named && !replace)
		return link_new(p, name); /* fails with EEXIST, replacing nothing */
	if (!p->named) {
		r = link_new(p, p->tmpname);
		if (r < 0)
			return r;
		p->named = true;
	}
	if (replace)
		r = renameat(p->dirfd, p->tmpname, p->dirfd, name) < 0 ? negative_errno() : 0;
	else
		r = linkat(p->dirfd, p->tmpname, p->dirfd, name, 0) < 0 ? negative_errno() : 0;
	if (r == 0 && replace)
		p->named = false; /* the temporary name went with the rename */
	return r;
}

int write_put_commit(struct write_put *p, const char *name, bool replace)
{
	int r = give_name(p, name, replace);

	write_put_discard(p);
	return r < 0 ? r : sync_folder(p->dirfd);
}

void write_put_discard(struct write_put *p)
{
	if (p->named)
		unlinkat(p->dirfd, p->tmpname, 0);
	p->named = false;
	closep(&p->fd);
	p->fd = -1;
}
