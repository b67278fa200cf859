/* A work tree in the tree and the git directory that serves it: git reads
 * that git directory's configuration there, and follows each submodule its
 * index records into its folder (seed 000, "Files protected from writes":
 * the submodules are those the index records, read from every index git
 * keeps for the repository).
 *
 * A submodule checked out with a .git folder of its own has that folder's
 * four files held as .git's own and its modules and worktrees read-only as a
 * whole; one whose .git is a file has the file held, and the git directory it
 * names, when in the tree, held as .git's own. Each is a work tree in turn,
 * DISCOVER_MAX_GIT_DIRS of them at most. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/config-read.h"
#include "git/discover.h"
#include "git/index.h"
#include "git/model-internal.h"

static int refuse_config(struct model_build *mb, int r, const struct gitcfg_read_error *err)
{
	return model_fail(mb, r, "cannot read the configuration '%s': %s", err->file, err->reason);
}

/* The repository's object format, which its index does not say. */
static enum gitindex_hash object_format(const struct gitcfg_config *cfg)
{
	enum gitindex_hash hash = GITINDEX_SHA1;

	for (size_t i = 0; i < cfg->n_entries; i++)
		if (!cfg->files[cfg->entries[i].file].dormant && strcmp(cfg->entries[i].name, "extensions.objectformat") == 0)
			hash = cfg->entries[i].value && strcmp(cfg->entries[i].value, "sha256") == 0 ? GITINDEX_SHA256
			                                                                             : GITINDEX_SHA1;
	return hash;
}

static int protect_whole_if_there(struct model_build *mb, int gitfd, const char *gitpath, const char *name)
{
	_cleanup_free_ char *path = model_path_join(gitpath, name), *reason = NULL;
	struct stat st;
	int r;

	if (!path)
		return -ENOMEM;
	r = model_stat(mb, gitfd, name, gitpath, &st);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (asprintf(&reason, "%s of the submodule's own git directory %s: read-only as a whole", name, gitpath) < 0)
		return -ENOMEM;
	return model_protect_existing(mb, gitfd, name, &st, path, reason);
}

/* A submodule checked out the old way, with its own .git folder. */
static int own_git_folder(struct model_build *mb, int checkoutfd, const char *checkout, unsigned depth)
{
	_cleanup_free_ char *gitpath = model_path_join(checkout, ".git"), *what = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (!gitpath || asprintf(&what, "git directory %s, a submodule's own", gitpath) < 0)
		return -ENOMEM;
	fd = model_open_dir(mb, checkoutfd, ".git", gitpath, &st);
	if (fd < 0)
		return fd;
	r = model_protect_gitdir(mb, fd, &st, gitpath, MODEL_GITDIR_REPO, what);
	if (r != MODEL_GITDIR_NEW)
		return r < 0 ? r : 0;
	r = protect_whole_if_there(mb, fd, gitpath, "modules");
	if (r >= 0)
		r = protect_whole_if_there(mb, fd, gitpath, "worktrees");
	if (r >= 0)
		r = model_protect_served(mb, &(struct model_served){.gitdir = gitpath, .worktree = checkout},
		                         depth + 1);
	return r;
}

/* A submodule whose .git is a file. */
static int git_file(struct model_build *mb, int checkoutfd, const char *checkout, const struct stat *st, unsigned depth)
{
	_cleanup_(model_served_done) struct model_served named = {0};
	_cleanup_free_ char *path = model_path_join(checkout, ".git");
	int r;

	if (!path)
		return -ENOMEM;
	r = policy_builder_protect(mb->b, model_id(st), POLICY_CONTENT | POLICY_ANCHOR, path,
	                           "the .git file of a submodule: it names the git directory whose hooks and "
	                           "configuration git runs there");
	if (r >= 0)
		r = model_follow_gitfile(mb, checkoutfd, checkout, ".git", &named);
	if (r < 0 || !named.gitdir)
		return r;
	named.worktree = checkout;
	return model_protect_served(mb, &named, depth + 1);
}

void model_checkouts_done(struct model_checkouts *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
	*c = (struct model_checkouts){0};
}

static bool checkouts_have(const struct model_checkouts *c, const char *path)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].path, path) == 0)
			return true;
	return false;
}

/* Notes CHECKOUT as visited: 1 the first time, 0 after. */
static int note_checkout(struct model_build *mb, const char *checkout, unsigned depth)
{
	struct model_checkout *grown;
	char *path;

	if (checkouts_have(&mb->checkouts, checkout))
		return 0;
	grown = reallocarray(mb->checkouts.v, mb->checkouts.n + 1, sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	mb->checkouts.v = grown;
	path = strdup(checkout);
	if (!path)
		return -ENOMEM;
	mb->checkouts.v[mb->checkouts.n++] = (struct model_checkout){.path = path, .depth = depth};
	return 1;
}

int model_protect_checkout(struct model_build *mb, const char *checkout, unsigned depth)
{
	_cleanup_free_ char *reason = NULL, *gitpath = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r = note_checkout(mb, checkout, depth);

	if (r <= 0)
		return r;
	if (asprintf(&reason, "on the way to the submodule %s", checkout) < 0)
		return -ENOMEM;
	fd = model_open_anchored(mb, checkout, reason, &st);
	if (fd == -ENOENT) /* not checked out: a repository made there is the settler's */
		return 0;
	if (fd < 0)
		return fd;
	r = model_stat(mb, fd, ".git", checkout, &st);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (S_ISDIR(st.st_mode))
		return own_git_folder(mb, fd, checkout, depth);
	if (S_ISREG(st.st_mode))
		return git_file(mb, fd, checkout, &st, depth);
	gitpath = model_path_join(checkout, ".git");
	return gitpath ? model_refuse_type(mb, &st, gitpath) : -ENOMEM;
}

static int submodule(struct model_build *mb, const char *worktree, const char *path, unsigned depth)
{
	_cleanup_free_ char *checkout = model_path_join(worktree, path);

	return checkout ? model_protect_checkout(mb, checkout, depth) : -ENOMEM;
}

int model_protect_known_checkouts(struct model_build *mb, const struct model_checkouts *known)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < known->n; i++)
		r = model_protect_checkout(mb, known->v[i].path, known->v[i].depth);
	return r;
}

/* The first build tells the live model which gitlinks each index recorded
 * at start (taking SUBS). */
static int record_index(struct model_found *found, const char *gitdir, enum gitindex_hash hash, uint64_t print,
                        struct gitindex_submodules *subs)
{
	struct model_found_index *grown;

	if (!found)
		return 0;
	grown = reallocarray(found->indexes, found->n_indexes + 1, sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	found->indexes = grown;
	grown[found->n_indexes] = (struct model_found_index){.gitdir = strdup(gitdir), .hash = hash, .print = print,
	                                                  .subs = *subs};
	if (!grown[found->n_indexes].gitdir)
		return -ENOMEM;
	*subs = (struct gitindex_submodules){0};
	found->n_indexes++;
	return 0;
}

static int submodules(struct model_build *mb, const struct model_served *s, enum gitindex_hash hash, unsigned depth)
{
	_cleanup_free_ char *index = model_path_join(s->gitdir, "index");
	struct gitindex_submodules subs = {0};
	struct gitindex_error err = {0};
	uint64_t print = 0;
	int r;

	if (!index)
		return -ENOMEM;
	r = gitindex_reread_submodules(mb->rootfd, index, index, hash, &print, &subs, &err);
	if (r == -ENOENT) /* nothing staged yet: the first index will be new */
		return record_index(mb->found, s->gitdir, hash, 0, &subs);
	if (r < 0)
		return model_fail(mb, r, "cannot read the index '%s': %s%s", index, err.shared ? "shared index: " : "",
		                  err.reason ? err.reason : strerror(-r));
	for (size_t i = 0; r >= 0 && i < subs.n; i++)
		r = submodule(mb, s->worktree, subs.paths[i], depth);
	if (r >= 0)
		r = record_index(mb->found, s->gitdir, hash, print, &subs);
	gitindex_submodules_free(&subs);
	return r;
}

void model_found_done(struct model_found *f)
{
	for (size_t i = 0; i < f->n_dirs; i++)
		free(f->dirs[i].path);
	free(f->dirs);
	for (size_t i = 0; i < f->n_indexes; i++) {
		free(f->indexes[i].gitdir);
		gitindex_submodules_free(&f->indexes[i].subs);
	}
	free(f->indexes);
	*f = (struct model_found){0};
}

void model_served_done(struct model_served *s)
{
	free(s->gitdir);
	free(s->commondir);
	*s = (struct model_served){0};
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct gitcfg_config *, gitcfg_config_free)

int model_protect_served(struct model_build *mb, const struct model_served *s, unsigned depth)
{
	struct gitcfg_read_opts opts = {.root_path = mb->tree, .gitdir = s->gitdir, .commondir = s->commondir,
	                                 .home = mb->home, .seen_as = mb->seen_as};
	_cleanup_(gitcfg_config_freep) struct gitcfg_config *cfg = NULL;
	struct gitcfg_read_error err = {0};
	int r;

	/* Submodules inside submodules are followed however deep they go
	 * (below .git/modules, past eight levels their git directories are
	 * read-only as a whole): what bounds the walk, and the recursion, is
	 * the number of work trees. */
	if (++mb->served > DISCOVER_MAX_GIT_DIRS)
		return model_fail(mb, -E2BIG, "'%s' is a work tree past the %d that oz0fs reads", s->worktree,
		                  DISCOVER_MAX_GIT_DIRS);
	r = gitcfg_read(mb->rootfd, &opts, &cfg, &err);
	if (r < 0)
		return refuse_config(mb, r, &err);
	r = model_protect_configured(mb, s, cfg);
	if (r >= 0)
		r = model_protect_rebase(mb, s);
	/* After start the index adds nothing: a gitlink added since names a
	 * checkout whose .git was made during the mount (the settler's), or one
	 * found at start, which model_protect_known_checkouts() revisits. So a
	 * refresh skips reading indexes, the largest files git keeps. */
	if (r < 0 || mb->known)
		return r;
	return submodules(mb, s, object_format(cfg), depth);
}
