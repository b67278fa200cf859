#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/capability.h"
#include "common/cleanup.h"
#include "common/mountinfo.h"
#include "common/tree-place.h"
#include "tools/mount-target.h"

static int refuse(char **errmsg, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int refuse(char **errmsg, int error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(errmsg, fmt, ap) < 0)
		*errmsg = NULL;
	va_end(ap);
	return error;
}

static const char *kind_of(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "a device";
}

int mount_source_open(const char *source, char **errmsg)
{
	int fd = open(source, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	*errmsg = NULL;
	if (fd >= 0)
		return fd;
	if (errno == ENOTDIR && stat(source, &st) == 0)
		return refuse(errmsg, -ENOTDIR, "cannot mount '%s': it is %s: the source must be the tree's folder",
		              source, kind_of(st.st_mode));
	return refuse(errmsg, negative_errno(), "cannot open '%s': %m", source);
}

/* realpath(), with a word on the one failure a user may not understand. */
static int resolve(const char *mountpoint, char **path, char **errmsg)
{
	*path = realpath(mountpoint, NULL);
	if (*path)
		return 0;
	if (errno == ENOTCONN)
		return refuse(errmsg, -ENOTCONN,
		              "cannot mount on '%s': %m: a FUSE mount whose daemon has gone is there; unmount it first "
		              "(fusermount3 -u '%s')",
		              mountpoint, mountpoint);
	return refuse(errmsg, negative_errno(), "cannot mount on '%s': %m", mountpoint);
}

/* A second oz0fs on the same folder would hide the first daemon's mount,
 * which then serves nobody and cannot be unmounted by its name. */
static int check_not_oz0fs(const char *mountpoint, int fd, char **errmsg)
{
	_cleanup_(mount_entry_clear) struct mount_entry m = {.id = -1};
	bool is_root;
	int id, r = mount_of_fd(fd, &id, &is_root);

	if (r == -ENOSYS)
		return 0; /* before Linux 5.8 the kernel cannot say: the mount stacks as it did */
	if (r >= 0 && !is_root)
		return 0;
	if (r >= 0)
		r = mountinfo_find(id, &m);
	if (r < 0)
		return refuse(errmsg, r, "cannot mount on '%s': cannot tell which mount it is: %s", mountpoint,
		              strerror(-r));
	if (strcmp(m.fstype, "fuse.oz0fs") == 0)
		return refuse(
		        errmsg, -EBUSY,
		        "cannot mount on '%s': it is already an oz0fs mount: unmount it first (fusermount3 -u '%s')",
		        mountpoint, mountpoint);
	return 0;
}

static int check_not_inside(const char *mountpoint, int fd, int rootfd, const char *source, char **errmsg)
{
	int place = tree_place(fd, rootfd);

	if (place < 0)
		return refuse(errmsg, place, "cannot mount on '%s': cannot tell whether it lies inside '%s': %s",
		              mountpoint, source, strerror(-place));
	if (place == TREE_PLACE_INSIDE)
		return refuse(errmsg, -ELOOP,
		              "cannot mount on '%s': it lies inside the source '%s', so the tree would contain itself: "
		              "choose a mount point outside the source, or the source itself",
		              mountpoint, source);
	return 0;
}

static int pin(const char *mountpoint, struct mount_target *t, char **errmsg)
{
	struct stat st;

	/* O_NOFOLLOW: realpath left no link, so one now is a swap. */
	t->fd = open(t->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (t->fd < 0 || fstat(t->fd, &st) < 0)
		return refuse(errmsg, negative_errno(), "cannot mount on '%s': %m", mountpoint);
	if (!S_ISDIR(st.st_mode))
		return refuse(errmsg, -ENOTDIR, "cannot mount on '%s': it is %s: the mount point must be a directory",
		              mountpoint, kind_of(st.st_mode));
	return 0;
}

/* The kernel resolves /proc/self/fd/N to the pinned folder itself, at mount
 * and at unmount. fusermount3 (a mount without CAP_SYS_ADMIN) takes only a
 * path it can check, and resolves it again itself. */
static int mount_arg(struct mount_target *t)
{
	int r = capability_effective(CAP_SYS_ADMIN) ? asprintf(&t->mount_arg, "/proc/self/fd/%d", t->fd)
	                                            : ((t->mount_arg = strdup(t->path)) ? 0 : -1);

	return r < 0 ? -ENOMEM : 0;
}

int mount_target_open(const char *mountpoint, int rootfd, const char *source, struct mount_target *t, char **errmsg)
{
	int r;

	*t = (struct mount_target){.fd = -1};
	*errmsg = NULL;
	r = resolve(mountpoint, &t->path, errmsg);
	if (r >= 0)
		r = pin(mountpoint, t, errmsg);
	if (r >= 0)
		r = check_not_oz0fs(mountpoint, t->fd, errmsg);
	if (r >= 0)
		r = check_not_inside(mountpoint, t->fd, rootfd, source, errmsg);
	if (r >= 0)
		r = mount_arg(t);
	if (r < 0)
		mount_target_close(t);
	return r;
}

void mount_target_close(struct mount_target *t)
{
	free(t->path);
	free(t->mount_arg);
	closep(&t->fd);
	*t = (struct mount_target){.fd = -1};
}
