/* Following a .git file: the git directory it names in the tree is
 * protected as .git's own, and so is the common directory a linked
 * worktree's folder names (seed 000, "Files protected from writes"). What
 * lies outside the tree is left to the system. */
#include "config.h"

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

/* A pointer that cannot be followed refuses: git would follow it somewhere
 * oz0fs cannot see. */
static int refuse_pointer(struct model_build *mb, int error, const char *file, const char *why)
{
	return model_fail(mb, error, "cannot follow '%s': %s; fix or remove it", file, why);
}

/* Resolves the pointer in FILE (BASE/NAME) read by READ; 1 and *target when
 * it names a place in the tree, 0 when outside. */
static int resolve_pointer(struct model_build *mb, int at, const char *base, const char *name, const char *file,
                           int (*read)(int, const char *, char **, size_t *, const char **), char **target)
{
	_cleanup_free_ char *pointer = NULL;
	const char *why = NULL;
	size_t len = 0;
	int r = read(at, name, &pointer, &len, &why);

	if (r < 0)
		return refuse_pointer(mb, r, file, why);
	r = discover_resolve(mb->tree, mb->seen_as, base, pointer, len, target, &why);
	return r < 0 ? refuse_pointer(mb, r, file, why) : r;
}

/* A git directory in the tree that a pointer names: its folders on the way
 * are anchors, and when missing its name is protected, since a folder made
 * there would be the one git reads. */
static int open_named(struct model_build *mb, const char *target, const char *file, struct stat *st)
{
	_cleanup_free_ char *reason = NULL;
	int fd;

	if (asprintf(&reason,
	             "the git directory %s, that %s names: its hooks and configuration make git run "
	             "programs",
	             target, file) < 0)
		return -ENOMEM;
	fd = model_open_anchored(mb, target, reason, st);
	if (fd == -ENOENT) {
		int r = model_protect_path(mb, target, reason);
		return r < 0 ? r : -ENOENT;
	}
	return fd;
}

/* A repository's git directory in the tree: its files, its linked worktrees
 * and its submodules. Returns model_protect_gitdir()'s answer. */
static int protect_repo(struct model_build *mb, int fd, const struct stat *st, const char *target, const char *file)
{
	_cleanup_free_ char *what = NULL;
	int r;

	if (asprintf(&what, "git directory %s, named by %s", target, file) < 0)
		return -ENOMEM;
	r = model_protect_gitdir(mb, fd, st, target, MODEL_GITDIR_REPO, what);
	if (r != MODEL_GITDIR_NEW)
		return r;
	r = model_protect_worktrees(mb, fd, target);
	if (r >= 0)
		r = model_protect_modules(mb, fd, target);
	return r < 0 ? r : MODEL_GITDIR_NEW;
}

/* The common directory a linked worktree's folder names: *COMMON names it
 * when it is in the tree and was there at start. */
static int protect_common(struct model_build *mb, int adminfd, const char *admin, char **common)
{
	_cleanup_free_ char *file = model_path_join(admin, "commondir"), *path = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (!file)
		return -ENOMEM;
	r = resolve_pointer(mb, adminfd, admin, "commondir", file, discover_read_pointer, &path);
	if (r <= 0)
		return r;
	fd = open_named(mb, path, file, &st);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	r = protect_repo(mb, fd, &st, path, file);
	if (r > 0)
		*common = TAKE_PTR(path);
	return r;
}

/* Git writes commondir only in a linked worktree's folder,
 * <common>/worktrees/<name>: there it is followed, elsewhere refused. */
static bool is_admin_folder(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	return n >= 9 && memcmp(path + n - 9, "worktrees", 9) == 0 && (n == 9 || path[n - 10] == '/');
}

static int protect_admin(struct model_build *mb, int fd, const struct stat *st, const char *target, const char *file,
                         char **common)
{
	_cleanup_free_ char *what = NULL;
	int r;

	if (asprintf(&what, "linked worktree's folder %s, named by %s", target, file) < 0)
		return -ENOMEM;
	r = model_protect_gitdir(mb, fd, st, target, MODEL_GITDIR_LINKED, what);
	return r <= 0 ? r : protect_common(mb, fd, target, common);
}

int model_follow_gitfile(struct model_build *mb, int at, const char *base, const char *name,
                         struct model_served *served)
{
	_cleanup_free_ char *file = model_path_join(base, name), *target = NULL, *common = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st, cst;
	int r;

	if (!file)
		return -ENOMEM;
	r = resolve_pointer(mb, at, base, name, file, discover_read_gitfile, &target);
	if (r <= 0)
		return r;
	fd = open_named(mb, target, file, &st);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	r = model_stat(mb, fd, "commondir", target, &cst);
	if (r == -ENOENT || (r >= 0 && !is_admin_folder(target)))
		r = protect_repo(mb, fd, &st, target, file);
	else if (r >= 0)
		r = protect_admin(mb, fd, &st, target, file, &common);
	if (r <= 0 || !served)
		return r < 0 ? r : 0;
	/* A linked worktree's folder whose common directory is elsewhere is
	 * the system's to serve: what git reads there lies outside. */
	if (!is_admin_folder(target) || common) {
		served->gitdir = TAKE_PTR(target);
		served->commondir = TAKE_PTR(common);
	}
	return 0;
}
