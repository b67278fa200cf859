/* Nested repositories: a folder of the tree with a .git of its own, tracked
 * as a submodule or not (seed 000: "a nested repository's included"). git
 * run there takes its configuration and hooks from that .git, so it is held
 * as a submodule checkout's is.
 *
 * Finding them takes one walk of the tree, at start only: folders are listed
 * without following a link, .git folders are not entered, and the walk is
 * bounded (NESTED_MAX_ENTRIES entries, NESTED_MAX_DEPTH levels); past either
 * the mount refuses with the reason, since a repository past the bound would
 * be left unprotected. Later builds revisit the repositories found then (the
 * model's known checkouts); one made during the mount is the settler's.
 * The same walk finds what bears a name [deny] lists, or lies in a folder
 * that does (git/model-deny.c). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/model-internal.h"

/* Some 100 ms of getdents on this machine; a tree larger than this is better
 * handed over without its build outputs. */
#define NESTED_MAX_ENTRIES 1000000
#define NESTED_MAX_DEPTH   128

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)

struct nested_walk {
	struct model_build *mb;
	size_t entries;
	char **found; /* folders holding a .git, tree-relative */
	size_t n;
};

/* BY: the index of the denied name ([deny]) the folder bears or lies under,
 * or -1. */
static int walk(struct nested_walk *w, int fd, const char *path, unsigned depth, int by);

static int add_found(struct nested_walk *w, const char *path)
{
	char **grown = reallocarray(w->found, w->n + 1, sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	w->found = grown;
	w->found[w->n] = strdup(path);
	return w->found[w->n++] ? 0 : -ENOMEM;
}

static bool is_folder(int dirfd, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* Records the entry of a denied name, or in a folder of one, by identity. */
static int note_denied(struct nested_walk *w, int dirfd, const char *name, const char *path, int by)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return model_fail(w->mb, negative_errno(), "cannot look at '%s', which [deny] names: %m", path);
	return model_deny_found(w->mb->deny, model_id(&st), path, by);
}

static int walk_entry(struct nested_walk *w, int dirfd, const struct dirent *de, const char *path, unsigned depth,
                      int by)
{
	_cleanup_free_ char *child = NULL;
	int fd, r;

	if (by < 0)
		by = model_deny_index(w->mb->deny, de->d_name);
	if (by >= 0) {
		child = model_path_join(path, de->d_name);
		r = child ? note_denied(w, dirfd, de->d_name, child, by) : -ENOMEM;
		if (r < 0)
			return r;
	}
	if (strcmp(de->d_name, ".git") == 0)
		return *path ? add_found(w, path) : 0; /* the root's is model_protect_git()'s */
	if (!is_folder(dirfd, de))
		return 0;
	if (!child && !(child = model_path_join(path, de->d_name)))
		return -ENOMEM;
	if (depth + 1 > NESTED_MAX_DEPTH)
		return model_fail(w->mb, -E2BIG,
		                  "'%s' lies more than %d folders down, more than oz0fs looks for nested repositories",
		                  child, NESTED_MAX_DEPTH);
	fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return model_fail(w->mb, negative_errno(),
		                  "cannot look into '%s' for nested repositories: %m; give the daemon's user its "
		                  "access back (chmod u+rwx '%s') and start again",
		                  child, child);
	return walk(w, fd, child, depth + 1, by);
}

/* Lists the folder FD (closed here). */
static int walk(struct nested_walk *w, int fd, const char *path, unsigned depth, int by)
{
	_cleanup_(closedirp) DIR *dir = fdopendir(fd);
	struct dirent *de;

	if (!dir) {
		close(fd);
		return -ENOMEM;
	}
	for (errno = 0; (de = readdir(dir)); errno = 0) {
		int r;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++w->entries > NESTED_MAX_ENTRIES)
			return model_fail(w->mb, -E2BIG,
			                  "the tree holds more than %d entries, more than oz0fs looks through for "
			                  "nested repositories",
			                  NESTED_MAX_ENTRIES);
		r = walk_entry(w, dirfd(dir), de, path, depth, by);
		if (r < 0)
			return r;
	}
	return errno ? model_fail(w->mb, -errno, "cannot list '%s': %m", *path ? path : ".") : 0;
}

int model_protect_nested(struct model_build *mb)
{
	struct nested_walk w = {.mb = mb};
	int fd = openat(mb->rootfd, ".", O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	int r = fd < 0 ? model_fail(mb, negative_errno(), "cannot list the tree: %m") : walk(&w, fd, "", 0, -1);

	for (size_t i = 0; r >= 0 && i < w.n; i++)
		r = model_protect_checkout(mb, w.found[i], 0);
	for (size_t i = 0; i < w.n; i++)
		free(w.found[i]);
	free(w.found);
	return r;
}
