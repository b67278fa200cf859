#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/safe-open.h"
#include "tools/run/mounts.h"

bool mounts_path_within(const char *path, const char *base)
{
	size_t n = strlen(base);

	if (strcmp(base, "/") == 0)
		return path[0] == '/';
	return strncmp(path, base, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int mounts_open(const char *path)
{
	_cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (root < 0)
		return negative_errno();
	if (path[0] != '/')
		return -EINVAL;
	while (*path == '/')
		path++;
	return mounts_open_at(root, *path ? path : ".");
}

int mounts_open_at(int dirfd, const char *path)
{
	int fd = safe_openat(dirfd, path, O_PATH, 0);
	struct stat st;

	/* O_PATH|O_NOFOLLOW opens a link at the end itself: no mount goes on one */
	if (fd >= 0 && (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode))) {
		close(fd);
		return -ELOOP;
	}
	return fd;
}

/* A detached mount of the file system FSFD was configured for. */
static int mount_configured(int fsfd, unsigned attrs)
{
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return negative_errno();
	int m = fsmount(fsfd, FSMOUNT_CLOEXEC, attrs);
	return m < 0 ? negative_errno() : m;
}

int mounts_new_tmpfs(mode_t mode, bool ro)
{
	_cleanup_close_ int fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	char m[16];

	if (fs < 0)
		return negative_errno();
	snprintf(m, sizeof(m), "%04o", (unsigned)mode);
	if (fsconfig(fs, FSCONFIG_SET_STRING, "mode", m, 0) < 0 ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "size", ro ? "4k" : "50%", 0) < 0)
		return negative_errno();
	return mount_configured(fs, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (ro ? MOUNT_ATTR_RDONLY : 0));
}

int mounts_new_proc(void)
{
	_cleanup_close_ int fs = fsopen("proc", FSOPEN_CLOEXEC);

	if (fs < 0)
		return negative_errno();
	return mount_configured(fs, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
}

int mounts_clone(int fd, bool recursive)
{
	int m = open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0));

	return m < 0 ? negative_errno() : m;
}

int mounts_set_readonly(int fd, bool ro, bool recursive)
{
	struct mount_attr attr = {
	        .attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (ro ? MOUNT_ATTR_RDONLY : 0),
	        .attr_clr = ro ? 0 : MOUNT_ATTR_RDONLY,
	};

	if (mount_setattr(fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &attr, sizeof(attr)) < 0)
		return negative_errno();
	return 0;
}

int mounts_attach(int mntfd, int target)
{
	if (move_mount(mntfd, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return negative_errno();
	return 0;
}

/* One step: NAME in DIRFD, made as a folder (or, when FILE, an empty file)
 * if missing; its O_PATH descriptor. */
static int make_step(int dirfd, const char *name, bool file)
{
	int fd;

	if (file) {
		/* made new, or left as it is: an existing one is only looked at */
		fd = openat(dirfd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
		if (fd < 0 && errno != EEXIST)
			return negative_errno();
		if (fd >= 0)
			close(fd);
	} else if (mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST) {
		return negative_errno();
	}
	return mounts_open_at(dirfd, name);
}

/* Each component of PATH below DIRFD made as a folder, the last as a file
 * when FILE. */
static int make_path(int dirfd, const char *path, bool file)
{
	_cleanup_free_ char *copy = strdup(path);
	int fd = -1, at = dirfd;
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *part = strtok_r(copy, "/", &save), *next; part; part = next) {
		next = strtok_r(NULL, "/", &save);
		fd = make_step(at, part, file && !next);
		if (at != dirfd)
			close(at);
		if (fd < 0)
			return fd;
		at = fd;
	}
	return fd >= 0 ? fd : mounts_open_at(dirfd, ".");
}

int mounts_make_dirs(int dirfd, const char *path)
{
	return make_path(dirfd, path, false);
}

int mounts_make_file(int dirfd, const char *path)
{
	return make_path(dirfd, path, true);
}
