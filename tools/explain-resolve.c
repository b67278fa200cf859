#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/safe-open.h"
#include "tools/explain-resolve.h"

/* ---- PATH as the tree sees it ---------------------------------------------- */

/* PATH below PREFIX (which has no trailing '/'), or NULL. */
static const char *below(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(path, prefix, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return NULL;
	return path + n;
}

int explain_tree_relative(const char *dir, const char *path, char **out)
{
	_cleanup_free_ char *spelled = strdup(dir), *resolved = NULL;
	const char *rel;
	size_t n;

	if (!spelled)
		return -ENOMEM;
	if (path[0] != '/') {
		*out = strdup(path);
		return *out ? 0 : -ENOMEM;
	}
	for (n = strlen(spelled); n > 1 && spelled[n - 1] == '/'; n--)
		spelled[n - 1] = '\0';
	rel = below(path, spelled);
	if (!rel && (resolved = realpath(dir, NULL)))
		rel = below(path, resolved);
	if (!rel)
		return -EXDEV;
	*out = strdup(*rel ? rel + 1 : ".");
	return *out ? 0 : -ENOMEM;
}

/* ---- The walk -------------------------------------------------------------- */

static int fail(char **errmsg, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char **errmsg, int error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(errmsg, fmt, ap) < 0)
		*errmsg = NULL;
	va_end(ap);
	return error;
}

static char *join(const char *folder, const char *name)
{
	bool top = strcmp(folder, ".") == 0;
	char *p;

	if (asprintf(&p, "%s%s%s", top ? "" : folder, top ? "" : "/", name) < 0)
		return NULL;
	return p;
}

/* Takes FD and PATH (NULL when its allocation failed). */
static int push_folder(struct explain_target *t, int fd, char *path)
{
	_cleanup_free_ char *owned = path;
	_cleanup_close_ int owned_fd = fd;
	struct stat st;

	if (!owned)
		return -ENOMEM;
	if (t->n_folders >= SAFE_OPEN_MAX_DEPTH)
		return -ENAMETOOLONG;
	if (fstat(fd, &st) < 0)
		return negative_errno();
	t->folders[t->n_folders++] = (struct explain_folder){
	        .id = {(uint64_t)st.st_dev, (uint64_t)st.st_ino}, .path = TAKE_PTR(owned), .fd = TAKE_FD(owned_fd)};
	return 0;
}

static void pop_folder(struct explain_target *t)
{
	struct explain_folder *f = &t->folders[--t->n_folders];

	free(f->path);
	close(f->fd);
}

/* True when nothing but empty and '.' components follow. */
static bool only_dots(const char *p)
{
	while (*p) {
		size_t n = strcspn(p, "/");
		if (n && !(n == 1 && p[0] == '.'))
			return false;
		p += n + (p[n] == '/');
	}
	return true;
}

static const char *skip_slashes(const char *p)
{
	while (*p == '/')
		p++;
	return p;
}

/* The end of the walk: NAME in the last folder. */
static int settle(struct explain_target *t, const char *name, bool exists, const struct stat *st, const char *rest)
{
	t->name = strdup(name);
	t->path = join(t->folders[t->n_folders - 1].path, name);
	t->exists = exists;
	if (exists)
		t->st = *st;
	t->rest = rest && *skip_slashes(rest) ? skip_slashes(rest) : NULL;
	return t->name && t->path ? 0 : -ENOMEM;
}

/* A walk that ended on a folder ("." or "a/b/.."): that folder is the
 * target, in its parent. */
static int settle_on_folder(struct explain_target *t)
{
	struct explain_folder *top = &t->folders[t->n_folders - 1];
	_cleanup_free_ char *name = NULL;
	struct stat st;

	if (t->n_folders == 1) {
		t->path = strdup(".");
		t->exists = fstat(top->fd, &t->st) == 0;
		return t->path ? 0 : -ENOMEM;
	}
	if (fstat(top->fd, &st) < 0)
		return negative_errno();
	name = strdup(strrchr(top->path, '/') ? strrchr(top->path, '/') + 1 : top->path);
	if (!name)
		return -ENOMEM;
	pop_folder(t);
	return settle(t, name, true, &st, NULL);
}

/* One component: the walk goes on (1), ends (0), or fails. */
static int step(struct explain_target *t, const char *name, const char *next, char **errmsg)
{
	struct explain_folder *top = &t->folders[t->n_folders - 1];
	struct stat st;
	int fd;

	if (strcmp(name, "..") == 0) {
		if (t->n_folders == 1)
			return fail(errmsg, -EXDEV, "'..' in the path leaves the tree");
		pop_folder(t);
		return 1;
	}
	if (fstatat(top->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return settle(t, name, false, NULL, next);
		return fail(errmsg, negative_errno(), "cannot look at '%s' in '%s': %m", name, top->path);
	}
	if (only_dots(next) || S_ISLNK(st.st_mode))
		return settle(t, name, true, &st, next);
	if (!S_ISDIR(st.st_mode))
		return fail(errmsg, -ENOTDIR, "'%s' in '%s' is not a folder", name, top->path);
	fd = openat(top->fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fail(errmsg, negative_errno(), "cannot open '%s' in '%s': %m", name, top->path);
	int r = push_folder(t, fd, join(top->path, name));
	return r < 0 ? r : 1;
}

int explain_resolve(int rootfd, const char *rel, struct explain_target *t, char **errmsg)
{
	const char *p = skip_slashes(rel);
	int fd, r;

	*t = (struct explain_target){0};
	*errmsg = NULL;
	t->folders = calloc(SAFE_OPEN_MAX_DEPTH, sizeof(*t->folders));
	if (!t->folders)
		return -ENOMEM;
	fd = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	r = fd < 0 ? negative_errno() : push_folder(t, fd, strdup("."));
	if (r < 0)
		return r;
	while (*p) {
		size_t n = strcspn(p, "/");
		char name[NAME_MAX + 1];

		if (n > NAME_MAX)
			return fail(errmsg, -ENAMETOOLONG, "a name in the path is longer than %d bytes", NAME_MAX);
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		if (strcmp(name, ".") != 0) {
			r = step(t, name, p, errmsg);
			if (r <= 0)
				return r;
		}
		p = skip_slashes(p);
	}
	return settle_on_folder(t);
}

void explain_target_free(struct explain_target *t)
{
	while (t->folders && t->n_folders)
		pop_folder(t);
	free(t->folders);
	free(t->name);
	free(t->path);
	*t = (struct explain_target){0};
}

const char *explain_type_name(const struct explain_target *t)
{
	if (!t->exists)
		return "missing";
	switch (t->st.st_mode & S_IFMT) {
	case S_IFREG:
		return "file";
	case S_IFDIR:
		return "folder";
	case S_IFLNK:
		return "symbolic link";
	case S_IFIFO:
		return "FIFO";
	case S_IFSOCK:
		return "socket";
	default:
		return "device";
	}
}
