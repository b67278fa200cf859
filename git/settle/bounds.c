/* Bounds on new git directories (seed 000, "Bounds on new Git
 * directories"), so that the next sandbox in the folder still reads the
 * repository whole and starts:
 *
 *  - more than 64 git directories added below a modules folder that held
 *    none: that folder is moved aside whole; added beside a repository's
 *    own submodules: each one added is removed;
 *  - more than the 256 git directories a sandbox reads in all: those there
 *    before are kept first, in the scan's order the run's own next, and the
 *    run's past the bound are moved aside (a .git, a repository's folder)
 *    or removed (a module's or a linked worktree's folder, which a modules
 *    or worktrees listing would still count), and the run fails saying so.
 *
 * Indexes stay where they are: what the run staged stays. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "git/discover.h"
#include "git/settle/checks.h"

#define MODULES_MAX_ADDED 64

static size_t count_added(const struct settle_gitdir *g, const struct settle_gitdir *b)
{
	size_t n = 0;

	for (size_t k = 0; k < g->modules.n; k++)
		n += !b || !settle_names_has(&b->modules, g->modules.v[k]);
	return n;
}

static int remove_added(struct settle_ctx *c, const struct settle_gitdir *g, const struct settle_gitdir *b)
{
	int r = 0;

	for (size_t k = 0; r >= 0 && k < g->modules.n; k++) {
		_cleanup_free_ char *rel = settle_join("modules", g->modules.v[k]);
		_cleanup_free_ char *path = rel ? settle_join(g->path, rel) : NULL;
		if (!path)
			return -ENOMEM;
		if (settle_names_has(&b->modules, g->modules.v[k]))
			continue;
		checks_mark_gone(c, path);
		r = act_remove(c, path, "one of more than 64 git directories the run added beside a repository's own "
		                        "submodules");
	}
	return r;
}

static int bound_modules(struct settle_ctx *c, size_t i)
{
	const struct settle_gitdir *g = &c->now.st.gitdirs[i];
	const struct settle_gitdir *b = checks_before(c, i);
	_cleanup_free_ char *path = NULL;

	if (c->gone[i] || count_added(g, b) <= MODULES_MAX_ADDED)
		return 0;
	if (b && b->modules.n > 0)
		return remove_added(c, g, b);
	path = settle_join(g->path, "modules");
	if (!path)
		return -ENOMEM;
	checks_mark_gone(c, path);
	return act_move_aside(c, path, "more than 64 git directories the run added below a modules folder that held "
	                               "none");
}

static int set_aside(struct settle_ctx *c, size_t i)
{
	const struct settle_gitdir *g = &c->now.st.gitdirs[i];
	const char *why = "a git directory the run made past the 256 a sandbox reads";
	_cleanup_free_ char *path = strdup(g->path);

	if (!path)
		return -ENOMEM;
	checks_mark_gone(c, path);
	c->failed = true;
	if (g->kind == SETTLE_GITDIR_MODULE || g->kind == SETTLE_GITDIR_LINKED)
		return act_remove(c, path, why);
	return act_move_aside(c, path, why);
}

static int bound_all(struct settle_ctx *c)
{
	size_t kept = 0;
	int r = 0;

	for (size_t i = 0; i < c->now.st.n_gitdirs; i++)
		kept += !c->gone[i] && !checks_is_new(c, i);
	for (size_t i = 0; r >= 0 && i < c->now.st.n_gitdirs; i++) {
		if (c->gone[i] || !checks_is_new(c, i))
			continue;
		if (kept < DISCOVER_MAX_GIT_DIRS)
			kept++;
		else
			r = set_aside(c, i);
	}
	return r;
}

int checks_bounds(struct settle_ctx *c)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < c->now.st.n_gitdirs; i++)
		r = bound_modules(c, i);
	if (r >= 0)
		r = bound_all(c);
	return r == -ENOMEM ? r : 0;
}
