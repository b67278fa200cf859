/* The bounded, link-free walk the static model reads the tree with: folders
 * are opened O_NOFOLLOW|O_NONBLOCK relative to their parent's fd, entries are
 * looked at with fstatat(AT_SYMLINK_NOFOLLOW), and no file is ever opened,
 * so a FIFO cannot stall the daemon and a link cannot lead it elsewhere. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/model-internal.h"

int model_fail(struct model_build *mb, int error, const char *fmt, ...)
{
	va_list ap;

	if (mb->errmsg)
		return error;
	va_start(ap, fmt);
	if (vasprintf(&mb->errmsg, fmt, ap) < 0)
		mb->errmsg = NULL;
	va_end(ap);
	return error;
}

char *model_path_join(const char *parent, const char *name)
{
	char *path;

	if (asprintf(&path, "%s%s%s", parent, *parent ? "/" : "", name) < 0)
		return NULL;
	return path;
}

int model_fd_path(int fd, char **out)
{
	char proc[32], buf[PATH_MAX];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, sizeof(buf) - 1);
	if (n < 0)
		return negative_errno();
	if (n == 0 || buf[0] != '/')
		return -ENOENT;
	*out = strndup(buf, (size_t)n);
	return *out ? 0 : -ENOMEM;
}

struct policy_id model_id(const struct stat *st)
{
	return (struct policy_id){ .dev = (uint64_t)st->st_dev, .ino = (uint64_t)st->st_ino };
}

static const char *shown(const char *path)
{
	return *path ? path : ".";
}

/* The seed's advice: the mount never starts with a protected path it cannot
 * see, and the user is told how to give the access back. */
static int fail_access(struct model_build *mb, int error, const char *folder)
{
	if (error == -EACCES || error == -EPERM)
		return model_fail(mb, error,
				  "cannot look into '%s': %s; give the daemon's user its access back "
				  "(chmod u+rwx '%s') and start again",
				  shown(folder), strerror(-error), shown(folder));
	return model_fail(mb, error, "cannot look into '%s': %s", shown(folder), strerror(-error));
}

int model_refuse_type(struct model_build *mb, const struct stat *st, const char *path)
{
	if (S_ISLNK(st->st_mode))
		return model_fail(mb, -ELOOP, "'%s' is a symbolic link: oz0fs protects nothing through a link; remove the link",
				  path);
	return model_fail(mb, -EINVAL, "'%s' is a %s where a file or folder is expected: remove it", path,
			  S_ISFIFO(st->st_mode)   ? "FIFO"
			  : S_ISSOCK(st->st_mode) ? "socket"
						  : "device");
}

int model_stat(struct model_build *mb, int at, const char *name, const char *parent_path, struct stat *st)
{
	if (fstatat(at, name, st, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	if (errno == ENOENT)
		return -ENOENT;
	return fail_access(mb, negative_errno(), parent_path);
}

int model_open_dir(struct model_build *mb, int at, const char *name, const char *path, struct stat *st)
{
	_cleanup_close_ int fd = openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || fstat(fd, st) < 0)
		return model_fail(mb, negative_errno(), "cannot open '%s': %m (did it change while oz0fs read it?)",
				  path);
	return TAKE_FD(fd);
}

struct tree_walk {
	struct model_build *mb;
	const char *reason;
	const char *top;  /* the protected folder's path, for messages */
	unsigned max_depth;
	size_t max_entries;
	size_t entries;
};

static int protect_tree(struct tree_walk *w, int parentfd, const char *name, const char *path, unsigned depth);

static int protect_entry(struct tree_walk *w, DIR *dir, const char *dirpath, const char *name, unsigned depth)
{
	_cleanup_free_ char *path = NULL;
	struct stat st;
	int r;

	if (++w->entries > w->max_entries)
		return model_fail(w->mb, -E2BIG, "'%s' holds more than %zu entries, more than oz0fs reads: remove some",
				  w->top, w->max_entries);
	path = model_path_join(dirpath, name);
	if (!path)
		return -ENOMEM;
	r = model_stat(w->mb, dirfd(dir), name, dirpath, &st);
	if (r == -ENOENT) /* gone since the listing: nothing left to protect */
		return 0;
	if (r < 0)
		return r;
	if (S_ISDIR(st.st_mode)) {
		if (depth + 1 > w->max_depth)
			return model_fail(w->mb, -E2BIG, "'%s' lies more than %u folders below '%s': remove it",
					  path, w->max_depth, w->top);
		return protect_tree(w, dirfd(dir), name, path, depth + 1);
	}
	if (S_ISREG(st.st_mode))
		return policy_builder_protect(w->mb->b, model_id(&st), POLICY_CONTENT | POLICY_ANCHOR, path,
					      w->reason);
	return model_refuse_type(w->mb, &st, path);
}

static int protect_listing(struct tree_walk *w, DIR *dir, const char *path, unsigned depth)
{
	struct dirent *de;

	for (errno = 0; (de = readdir(dir)); errno = 0) {
		int r;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		r = protect_entry(w, dir, path, de->d_name, depth);
		if (r < 0)
			return r;
	}
	return errno ? fail_access(w->mb, -errno, path) : 0;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)

/* A protected folder: read-only and frozen, and so is all it holds. */
static int protect_tree(struct tree_walk *w, int parentfd, const char *name, const char *path, unsigned depth)
{
	_cleanup_(closedirp) DIR *dir = NULL;
	int fd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	int r;

	if (fd < 0)
		return fail_access(w->mb, negative_errno(), path);
	dir = fdopendir(fd);
	if (!dir) {
		r = negative_errno();
		close(fd);
		return r;
	}
	if (fstat(fd, &st) < 0)
		return negative_errno();
	r = policy_builder_protect(w->mb->b, model_id(&st), POLICY_CONTENT | POLICY_FROZEN | POLICY_ANCHOR, path,
				   w->reason);
	if (r < 0)
		return r;
	return protect_listing(w, dir, path, depth);
}

int model_protect_existing(struct model_build *mb, int at, const char *name, const struct stat *st,
			   const char *path, const char *reason)
{
	return model_protect_deep(mb, at, name, st, path, reason, MODEL_MAX_DEPTH, MODEL_MAX_TREE_ENTRIES);
}

int model_protect_deep(struct model_build *mb, int at, const char *name, const struct stat *st, const char *path,
		       const char *reason, unsigned max_depth, size_t max_entries)
{
	struct tree_walk w = {
		.mb = mb, .reason = reason, .top = path, .max_depth = max_depth, .max_entries = max_entries,
	};

	if (S_ISREG(st->st_mode))
		return policy_builder_protect(mb->b, model_id(st), POLICY_CONTENT | POLICY_ANCHOR, path, reason);
	if (S_ISDIR(st->st_mode))
		return protect_tree(&w, at, name, path, 0);
	return model_refuse_type(mb, st, path);
}
