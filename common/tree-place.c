#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "mountinfo.h"
#include "tree-place.h"

static bool same_object(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The path the kernel holds for FD (its real folders, links resolved). */
static int fd_path(int fd, char **out)
{
	char link[32], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf));
	if (n < 0)
		return negative_errno();
	if ((size_t)n >= sizeof(buf))
		return -ENAMETOOLONG;
	if (buf[0] != '/')
		return -ENOENT; /* a pipe, a socket, an fd from outside our root */
	buf[n] = '\0';
	*out = strdup(buf);
	return *out ? 0 : -ENOMEM;
}

/* The folder holding the file open as FD, checked to hold it still under the
 * name the kernel gives: a file that moved meanwhile is -ESTALE. */
static int open_parent(int fd, const struct stat *st)
{
	_cleanup_free_ char *path = NULL;
	struct stat found;
	char *slash;
	int r = fd_path(fd, &path);

	if (r < 0)
		return r == -ENOENT ? -ESTALE : r;
	slash = strrchr(path, '/');
	*slash = '\0';
	_cleanup_close_ int dir = open(slash == path ? "/" : path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return errno == ENOENT ? -ESTALE : negative_errno();
	if (fstatat(dir, slash + 1, &found, AT_SYMLINK_NOFOLLOW) < 0 || !same_object(&found, st))
		return -ESTALE;
	return TAKE_FD(dir);
}

/* Walks up from the folder DIR through ".." until the tree or the root. */
static int walk_up(int dir, const struct stat *tree)
{
	_cleanup_close_ int cur = openat(dir, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	for (int depth = 0; depth < TREE_PLACE_MAX_DEPTH; depth++) {
		struct stat here, up;
		int parent;

		if (cur < 0 || fstat(cur, &here) < 0)
			return negative_errno();
		if (same_object(&here, tree))
			return TREE_PLACE_INSIDE;
		parent = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0 || fstat(parent, &up) < 0) {
			int r = negative_errno();
			closep(&parent);
			return r;
		}
		close(cur);
		cur = parent;
		if (same_object(&up, &here))
			return TREE_PLACE_OUTSIDE; /* "/" is its own parent */
	}
	return -ELOOP;
}

/* The path of FD from the root of its file system: its mount's root there,
 * then its path below the mount point. */
static int fs_path(int fd, const struct mount_entry *m, char **out)
{
	_cleanup_free_ char *path = NULL;
	size_t mlen = strcmp(m->mountpoint, "/") == 0 ? 0 : strlen(m->mountpoint);
	int r = fd_path(fd, &path);

	if (r < 0)
		return r;
	if (strncmp(path, m->mountpoint, mlen) != 0 || (path[mlen] != '/' && path[mlen] != '\0'))
		return -ENOENT;
	if (asprintf(out, "%s%s", strcmp(m->root, "/") == 0 ? "" : m->root, path + mlen) < 0)
		return -ENOMEM;
	return 0;
}

static int mount_entry_of(int fd, struct mount_entry *m)
{
	bool is_root;
	int id, r = mount_of_fd(fd, &id, &is_root);

	return r < 0 ? r : mountinfo_find(id, m);
}

/* FD (on the tree's file system) is on a mount that shows only a subfolder
 * of it: places it by both paths from the file system's root. */
static int bind_place(int fd, int tree_fd)
{
	_cleanup_(mount_entry_clear) struct mount_entry m = {.id = -1}, tm = {.id = -1};
	_cleanup_free_ char *path = NULL, *tree_path = NULL;
	int r = mount_entry_of(fd, &m);

	if (r < 0)
		return r;
	if (strcmp(m.root, "/") == 0)
		return TREE_PLACE_OUTSIDE; /* the walk up saw every folder above it */
	r = mount_entry_of(tree_fd, &tm);
	if (r >= 0)
		r = fs_path(fd, &m, &path);
	if (r >= 0)
		r = fs_path(tree_fd, &tm, &tree_path);
	if (r < 0)
		return r;
	size_t n = strcmp(tree_path, "/") == 0 ? 0 : strlen(tree_path);
	if (strncmp(path, tree_path, n) == 0 && (path[n] == '/' || path[n] == '\0'))
		return TREE_PLACE_INSIDE;
	return TREE_PLACE_OUTSIDE;
}

int tree_place(int fd, int tree_fd)
{
	struct stat st, tree;
	_cleanup_close_ int dir = -1;
	int r;

	if (fstat(fd, &st) < 0 || fstat(tree_fd, &tree) < 0)
		return negative_errno();
	if (!S_ISDIR(tree.st_mode))
		return -ENOTDIR;
	if (same_object(&st, &tree))
		return TREE_PLACE_TREE;
	if (S_ISDIR(st.st_mode)) {
		r = walk_up(fd, &tree);
	} else {
		if (S_ISREG(st.st_mode) && st.st_nlink > 1 && st.st_dev == tree.st_dev)
			return TREE_PLACE_LINKED;
		dir = open_parent(fd, &st);
		if (dir < 0)
			return dir;
		r = walk_up(dir, &tree);
	}
	if (r != TREE_PLACE_OUTSIDE || st.st_dev != tree.st_dev)
		return r;
	return bind_place(fd, tree_fd);
}

const char *tree_place_problem(enum tree_place place)
{
	switch (place) {
	case TREE_PLACE_TREE:
		return "it is the tree being mounted";
	case TREE_PLACE_INSIDE:
		return "inside the tree being mounted, where the agent could change it through the mount";
	case TREE_PLACE_LINKED:
		return "a hard link: another of its names on the tree's file system may lie inside the tree, where "
		       "the agent could change it through the mount";
	default:
		return NULL;
	}
}
