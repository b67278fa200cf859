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
#include "common/explain-resolve.h"

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

/* The walk: what it has found so far, and the one descriptor it holds, of
 * the last folder. It keeps no descriptor of the folders above: a walk of
 * SAFE_OPEN_MAX_DEPTH folders in the daemon must not take as many fds
 * from the mount's budget; '..' opens the parent again and checks that it
 * is the folder the walk came from. */
struct walk {
	struct explain_target *t;
	int fd;         /* O_PATH, the last folder of t */
	struct stat st; /* its stat */
};

/* Takes FD and PATH (NULL when its allocation failed) as the next folder. */
static int push_folder(struct walk *w, int fd, char *path)
{
	_cleanup_free_ char *owned = path;
	_cleanup_close_ int owned_fd = fd;
	struct explain_target *t = w->t;
	struct stat st;

	if (!owned)
		return -ENOMEM;
	if (t->n_folders >= SAFE_OPEN_MAX_DEPTH)
		return -ENAMETOOLONG;
	if (fstat(fd, &st) < 0)
		return negative_errno();
	t->folders[t->n_folders++] =
	        (struct explain_folder){.dev = st.st_dev, .ino = st.st_ino, .path = TAKE_PTR(owned)};
	if (w->fd >= 0)
		close(w->fd);
	w->fd = TAKE_FD(owned_fd);
	w->st = st;
	return 0;
}

static void drop_folder(struct explain_target *t)
{
	free(t->folders[--t->n_folders].path);
}

/* '..': back to the folder before the last, which must still be the
 * parent of the last (-ESTALE when a rename moved it meanwhile). */
static int pop_folder(struct walk *w, char **errmsg)
{
	struct explain_target *t = w->t;
	const struct explain_folder *up = &t->folders[t->n_folders - 2];
	_cleanup_close_ int fd = openat(w->fd, "..", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return fail(errmsg, negative_errno(), "cannot open the folder above '%s': %m",
		            t->folders[t->n_folders - 1].path);
	if (st.st_dev != up->dev || st.st_ino != up->ino)
		return fail(errmsg, -ESTALE, "'%s' was moved while the path was walked",
		            t->folders[t->n_folders - 1].path);
	drop_folder(t);
	close(w->fd);
	w->fd = TAKE_FD(fd);
	w->st = st;
	return 0;
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
static int settle_on_folder(struct walk *w)
{
	struct explain_target *t = w->t;
	const char *top = t->folders[t->n_folders - 1].path;
	_cleanup_free_ char *name = NULL;

	if (t->n_folders == 1) {
		t->path = strdup(".");
		t->exists = true;
		t->st = w->st;
		return t->path ? 0 : -ENOMEM;
	}
	name = strdup(strrchr(top, '/') ? strrchr(top, '/') + 1 : top);
	if (!name)
		return -ENOMEM;
	drop_folder(t);
	return settle(t, name, true, &w->st, NULL);
}

/* One component: the walk goes on (1), ends (0), or fails. */
static int step(struct walk *w, const char *name, const char *next, char **errmsg)
{
	struct explain_target *t = w->t;
	const struct explain_folder *top = &t->folders[t->n_folders - 1];
	struct stat st;
	int fd, r;

	if (strcmp(name, "..") == 0) {
		if (t->n_folders == 1)
			return fail(errmsg, -EXDEV, "'..' in the path leaves the tree");
		r = pop_folder(w, errmsg);
		return r < 0 ? r : 1;
	}
	if (fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return settle(t, name, false, NULL, next);
		return fail(errmsg, negative_errno(), "cannot look at '%s' in '%s': %m", name, top->path);
	}
	if (only_dots(next) || S_ISLNK(st.st_mode))
		return settle(t, name, true, &st, next);
	if (!S_ISDIR(st.st_mode))
		return fail(errmsg, -ENOTDIR, "'%s' in '%s' is not a folder", name, top->path);
	fd = openat(w->fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fail(errmsg, negative_errno(), "cannot open '%s' in '%s': %m", name, top->path);
	r = push_folder(w, fd, join(top->path, name));
	return r < 0 ? r : 1;
}

static int walk(struct walk *w, const char *rel, char **errmsg)
{
	const char *p = skip_slashes(rel);
	int fd = openat(w->fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int r;

	w->fd = -1;
	r = fd < 0 ? negative_errno() : push_folder(w, fd, strdup("."));
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
			r = step(w, name, p, errmsg);
			if (r <= 0)
				return r;
		}
		p = skip_slashes(p);
	}
	return settle_on_folder(w);
}

int explain_resolve(int rootfd, const char *rel, struct explain_target *t, char **errmsg)
{
	struct walk w = {.t = t, .fd = rootfd};
	int r;

	*t = (struct explain_target){0};
	*errmsg = NULL;
	t->folders = calloc(SAFE_OPEN_MAX_DEPTH, sizeof(*t->folders));
	if (!t->folders)
		return -ENOMEM;
	r = walk(&w, rel, errmsg);
	if (w.fd >= 0)
		close(w.fd);
	return r;
}

void explain_target_free(struct explain_target *t)
{
	while (t->folders && t->n_folders)
		drop_folder(t);
	free(t->folders);
	free(t->name);
	free(t->path);
	*t = (struct explain_target){0};
}
