/* The git directories of a repository's submodules below <git dir>/modules,
 * nested ones (modules/a/modules/b) too. A submodule's name may hold '/', so
 * a folder without a HEAD is a part of a name and is listed in turn.
 *
 * Seed 000 ("Path validation and symbolic links"): a part of .git/modules
 * that cannot be listed one submodule at a time (more than eight levels down,
 * more than 32 submodules in all, a folder the daemon may not read) is
 * read-only as a whole; the walk that does so is bounded in its turn
 * (MODEL_MAX_TREE_ENTRIES), and refuses past it. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/discover.h"
#include "git/model-internal.h"

#define MODULES_MAX_SUBMODULES 32
#define MODULES_MAX_DEPTH      8
/* Read as a whole, the part holds git directories below those levels, with
 * their own folders (refs/heads/<name with '/'>, objects/pack). */
#define MODULES_WHOLE_MAX_DEPTH 32
/* Each entry costs a stat and a snapshot entry (some 100 bytes) at each
 * build: 200,000 is some 20 MiB, and 1,000 freshly cloned submodules' git
 * directories hold a tenth of it; past it the mount refuses. */
#define MODULES_WHOLE_MAX_ENTRIES 200000

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)

struct modules_walk {
	struct model_build *mb;
	const char *top;                     /* <git dir>/modules, tree-relative */
	char *found[MODULES_MAX_SUBMODULES]; /* submodule git directories, relative to top */
	size_t n;
	size_t entries;
	bool whole; /* past a bound: the part is read-only as a whole */
};

static int collect(struct modules_walk *w, int fd, const char *rel, unsigned depth);

/* Lists the nested submodules of the submodule git directory REL. */
static int collect_nested(struct modules_walk *w, int gitfd, const char *rel, unsigned depth)
{
	_cleanup_free_ char *nested = model_path_join(rel, "modules"), *path = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (!nested)
		return -ENOMEM;
	if (fstatat(gitfd, "modules", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (S_ISLNK(st.st_mode)) { /* git would find nested git directories through it */
		path = model_path_join(w->top, nested);
		return path ? model_refuse_type(w->mb, &st, path) : -ENOMEM;
	}
	if (!S_ISDIR(st.st_mode))
		return 0;
	fd = openat(gitfd, "modules", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		w->whole = true;
		return 0;
	}
	return collect(w, TAKE_FD(fd), nested, depth + 1);
}

static int collect_entry(struct modules_walk *w, int parentfd, const char *name, const char *rel, unsigned depth)
{
	_cleanup_free_ char *child = model_path_join(rel, name), *path = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (!child)
		return -ENOMEM;
	if (fstatat(parentfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		/* Gone since the listing, or a folder the daemon may not search. */
		w->whole = errno != ENOENT;
		return 0;
	}
	if (S_ISLNK(st.st_mode)) {
		path = model_path_join(w->top, child);
		return path ? model_refuse_type(w->mb, &st, path) : -ENOMEM;
	}
	if (!S_ISDIR(st.st_mode))
		return 0;
	if (depth + 1 > MODULES_MAX_DEPTH) {
		w->whole = true;
		return 0;
	}
	fd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		w->whole = true;
		return 0;
	}
	if (fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) < 0) /* a part of a name with '/' */
		return collect(w, TAKE_FD(fd), child, depth + 1);
	if (w->n == MODULES_MAX_SUBMODULES) {
		w->whole = true;
		return 0;
	}
	w->found[w->n++] = TAKE_PTR(child);
	return collect_nested(w, fd, w->found[w->n - 1], depth + 1);
}

/* Lists the folder FD (REL below top, DEPTH levels down). */
static int collect(struct modules_walk *w, int fd, const char *rel, unsigned depth)
{
	_cleanup_(closedirp) DIR *dir = fdopendir(fd);
	struct dirent *de;

	if (!dir) {
		close(fd);
		return -ENOMEM;
	}
	for (errno = 0; !w->whole && (de = readdir(dir)); errno = 0) {
		int r;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++w->entries > MODEL_MAX_TREE_ENTRIES) {
			w->whole = true;
			break;
		}
		r = collect_entry(w, dirfd(dir), de->d_name, rel, depth);
		if (r < 0)
			return r;
	}
	if (errno)
		w->whole = true;
	return 0;
}

static int protect_one(struct modules_walk *w, const char *rel)
{
	_cleanup_free_ char *path = model_path_join(w->top, rel), *what = NULL, *reason = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (!path || asprintf(&what, "git directory %s, a submodule's", path) < 0 ||
	    asprintf(&reason, "on the way to the %s: its hooks and configuration make git run programs", what) < 0)
		return -ENOMEM;
	fd = model_open_anchored(w->mb, path, reason, &st);
	if (fd == -ENOENT) /* gone since the listing */
		return 0;
	if (fd < 0)
		return fd;
	r = model_protect_gitdir(w->mb, fd, &st, path, MODEL_GITDIR_REPO, what);
	return r != MODEL_GITDIR_NEW ? r : model_protect_worktrees(w->mb, fd, path);
}

static int protect_whole(struct modules_walk *w, int gitfd, const struct stat *st)
{
	_cleanup_free_ char *reason = NULL;

	if (asprintf(&reason,
	             "submodule git directories below %s: more than %d, deeper than %d levels or unreadable, so "
	             "read-only as a whole",
	             w->top, MODULES_MAX_SUBMODULES, MODULES_MAX_DEPTH) < 0)
		return -ENOMEM;
	return model_protect_deep(w->mb, gitfd, "modules", st, w->top, reason, MODULES_WHOLE_MAX_DEPTH,
	                          MODULES_WHOLE_MAX_ENTRIES);
}

static int walk_part(struct modules_walk *w, int gitfd, const struct stat *st)
{
	int fd = openat(gitfd, "modules", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		w->whole = true;
	else
		r = collect(w, fd, "", 0);
	if (r < 0)
		return r;
	if (w->whole)
		return protect_whole(w, gitfd, st);
	for (size_t i = 0; r >= 0 && i < w->n; i++)
		r = protect_one(w, w->found[i]);
	return r;
}

int model_protect_modules(struct model_build *mb, int gitfd, const char *path)
{
	_cleanup_free_ char *top = model_path_join(path, "modules");
	struct modules_walk w = {.mb = mb};
	struct stat st;
	int r;

	if (!top)
		return -ENOMEM;
	w.top = top;
	r = model_stat(mb, gitfd, "modules", path, &st);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (S_ISLNK(st.st_mode))
		return model_refuse_type(mb, &st, top);
	if (!S_ISDIR(st.st_mode))
		return 0;
	r = walk_part(&w, gitfd, &st);
	for (size_t i = 0; i < w.n; i++)
		free(w.found[i]);
	return r;
}
