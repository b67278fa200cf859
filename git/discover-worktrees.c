/* A repository's linked worktrees: each administrative folder below
 * <git dir>/worktrees keeps the commondir, gitdir and config.worktree git
 * reads for that worktree, and the worktree's .git file, when it lies in the
 * tree, is held too (seed 000, "Files protected from writes"). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/discover.h"
#include "git/model-internal.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)

/* What git reads in a linked worktree in the tree: the worktree's folder is
 * where its .git file lies. */
static int serve_worktree(struct model_build *mb, const char *admin, const char *common, const char *gitfile)
{
	_cleanup_free_ char *gitdir = strdup(admin), *commondir = strdup(common), *worktree = strdup(gitfile);
	char *slash;

	if (!gitdir || !commondir || !worktree)
		return -ENOMEM;
	slash = strrchr(worktree, '/');
	if (strcmp(slash ? slash + 1 : worktree, ".git") != 0) /* not a .git file git made */
		return 0;
	if (slash)
		*slash = '\0';
	else
		worktree[0] = '\0';
	return model_protect_served(
	        mb, &(struct model_served){.gitdir = gitdir, .commondir = commondir, .worktree = worktree}, 0);
}

/* The worktree's .git file, named by the folder's gitdir. A missing gitdir
 * makes the folder one git prunes: nothing to follow. */
static int protect_worktree_gitfile(struct model_build *mb, int adminfd, const char *admin, const char *common)
{
	_cleanup_free_ char *pointer = NULL, *target = NULL, *reason = NULL;
	const char *why = NULL;
	size_t len = 0;
	int r = discover_read_pointer(adminfd, "gitdir", &pointer, &len, &why);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return model_fail(mb, r, "cannot read '%s/gitdir': %s; fix or remove it", admin, why);
	r = discover_resolve(mb->tree, mb->seen_as, admin, pointer, len, &target, &why);
	if (r < 0)
		return model_fail(mb, r, "cannot follow '%s/gitdir': %s; fix or remove it", admin, why);
	if (r == 0) /* a worktree outside the tree: left to the system */
		return 0;
	if (asprintf(&reason,
	             "the .git file of the linked worktree whose folder is %s: it names the git directory "
	             "git reads there",
	             admin) < 0)
		return -ENOMEM;
	r = model_protect_path(mb, target, reason);
	return r < 0 ? r : serve_worktree(mb, admin, common, target);
}

static int protect_admin(struct model_build *mb, int worktreesfd, const char *name, const char *worktrees,
                         const char *common)
{
	_cleanup_free_ char *admin = model_path_join(worktrees, name), *what = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (!admin)
		return -ENOMEM;
	r = model_stat(mb, worktreesfd, name, worktrees, &st);
	if (r == -ENOENT) /* gone since the listing */
		return 0;
	if (r < 0)
		return r;
	if (S_ISLNK(st.st_mode))
		return model_refuse_type(mb, &st, admin);
	if (!S_ISDIR(st.st_mode)) /* git ignores it */
		return 0;
	fd = model_open_dir(mb, worktreesfd, name, admin, &st);
	if (fd < 0)
		return fd;
	if (asprintf(&what, "linked worktree's folder %s", admin) < 0)
		return -ENOMEM;
	r = model_protect_gitdir(mb, fd, &st, admin, MODEL_GITDIR_LINKED, what);
	return r != MODEL_GITDIR_NEW ? r : protect_worktree_gitfile(mb, fd, admin, common);
}

int model_protect_worktrees(struct model_build *mb, int gitfd, const char *path)
{
	_cleanup_free_ char *worktrees = model_path_join(path, "worktrees");
	_cleanup_(closedirp) DIR *dir = NULL;
	struct dirent *de;
	size_t entries = 0;
	struct stat st;
	int fd, r;

	if (!worktrees)
		return -ENOMEM;
	r = model_stat(mb, gitfd, "worktrees", path, &st);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (S_ISLNK(st.st_mode))
		return model_refuse_type(mb, &st, worktrees);
	if (!S_ISDIR(st.st_mode))
		return 0;
	fd = openat(gitfd, "worktrees", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || !(dir = fdopendir(fd))) {
		r = negative_errno();
		if (fd >= 0)
			close(fd);
		return model_fail(mb, r, "cannot list '%s': %s", worktrees, strerror(-r));
	}
	for (errno = 0; (de = readdir(dir)); errno = 0) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++entries > MODEL_MAX_TREE_ENTRIES)
			return model_fail(mb, -E2BIG, "'%s' holds more than %d entries, more than oz0fs reads",
			                  worktrees, MODEL_MAX_TREE_ENTRIES);
		r = protect_admin(mb, dirfd(dir), de->d_name, worktrees, path);
		if (r < 0)
			return r;
	}
	return errno ? model_fail(mb, -errno, "cannot list '%s': %m", worktrees) : 0;
}
