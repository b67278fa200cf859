/* The .git entries of the work tree after a run (seed 000, "Submodules,
 * worktrees and unfinished rebases", "Bounds on new Git directories"):
 *
 *  - one that was there, a file, and now names another git directory is
 *    restored (naming the same one in another spelling stays);
 *  - a new link, or anything but a folder or a file, is removed: git
 *    follows a link to a git directory elsewhere;
 *  - a new file stays only where git itself writes one: a new linked
 *    worktree's, naming its own new folder, which names it back; or one at
 *    a path an index records as a submodule, naming a git directory the run
 *    made in the tree for that checkout and no other (the fresh checks then
 *    settle that directory). Any other is removed: one naming something
 *    outside the tree or no git directory at all, one that existed before
 *    (the repository's own, an existing submodule's), another checkout's, or
 *    a new repository's git directory kept elsewhere (git init
 *    --separate-git-dir). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/safe-open.h"
#include "git/discover.h"
#include "git/settle/checks.h"

static const struct settle_dotgit *before_dotgit(const struct settle_ctx *c, const char *path)
{
	for (size_t i = 0; i < c->before->n_dotgits; i++)
		if (strcmp(c->before->dotgits[i].path, path) == 0)
			return &c->before->dotgits[i];
	return NULL;
}

static bool same_text(const struct settle_dotgit *a, const struct settle_dotgit *b)
{
	return a->type == b->type && a->len == b->len && (!a->len || memcmp(a->text, b->text, a->len) == 0);
}

static bool same_target(const struct settle_dotgit *a, const struct settle_dotgit *b)
{
	return a->target && b->target && strcmp(a->target, b->target) == 0;
}

/* Whether the linked worktree's folder TARGET names DOTGIT (tree-relative)
 * as its worktree's .git in its gitdir file. */
static bool names_back(const struct settle_ctx *c, const char *target, const char *dotgit)
{
	_cleanup_close_ int fd = safe_openat(c->rootfd, target, O_PATH | O_DIRECTORY, 0);
	_cleanup_free_ char *pointer = NULL, *back = NULL;
	const char *why;
	size_t len;

	if (fd < 0 || discover_read_pointer(fd, "gitdir", &pointer, &len, &why) < 0)
		return false;
	return discover_resolve(c->now.st.dir, c->now.seen_as, target, pointer, len, &back, &why) == 1 &&
	       strcmp(back, dotgit) == 0;
}

/* Whether DOTGIT ("sub/.git") lies at a path the index of a git
 * directory serving a work tree records as a submodule. */
static bool at_submodule_path(const struct settle_ctx *c, const char *dotgit)
{
	size_t n = strlen(dotgit) - strlen("/.git");

	/* Every index goes aside when something could not be settled: then no
	 * path is a submodule's. */
	if (c->unsettled || strlen(dotgit) <= strlen("/.git"))
		return false;
	for (size_t i = 0; i < c->now.st.n_gitdirs; i++) {
		const char *tree = c->now.worktree_of[i];
		size_t t = tree ? strlen(tree) : 0;
		if (!tree || (t && (t >= n || strncmp(dotgit, tree, t) || dotgit[t] != '/')))
			continue;
		_cleanup_free_ char *rel = strndup(dotgit + (t ? t + 1 : 0), n - (t ? t + 1 : 0));
		if (rel && settle_names_has(&c->now.st.gitdirs[i].gitlinks, rel))
			return true;
	}
	return false;
}

/* Whether a .git file at a submodule path before D (in the scan's order)
 * names D's target. */
static bool claimed_earlier(const struct settle_ctx *c, const struct settle_dotgit *d)
{
	for (const struct settle_dotgit *e = c->now.st.dotgits; e < d; e++)
		if (e->type == SETTLE_DOTGIT_FILE && same_target(e, d) && at_submodule_path(c, e->path))
			return true;
	return false;
}

/* Why the new .git file D must go, or NULL when it names its own new git
 * directory. */
static const char *new_file_problem(const struct settle_ctx *c, const struct settle_dotgit *d)
{
	long t = d->target ? settle_scan_find(&c->now.st, d->target) : -1;

	if (t < 0)
		return "a new .git file that names no git directory the run made inside the tree";
	if (c->gone[t])
		return "a new .git file naming a git directory that was set aside";
	if (!checks_is_new(c, (size_t)t))
		return "a new .git file that names a git directory that already existed: its configuration would "
		       "steer git in a work tree the command wrote";
	if (c->now.st.gitdirs[t].kind == SETTLE_GITDIR_LINKED)
		return names_back(c, d->target, d->path)
		               ? NULL
		               : "a new worktree's .git file that names another worktree's administrative folder";
	if (!at_submodule_path(c, d->path))
		return "a new .git file naming a git directory elsewhere, at no path an index records as a submodule";
	if (claimed_earlier(c, d))
		return "a new .git file that names the git directory of another checkout";
	return NULL;
}

static int check_dotgit(struct settle_ctx *c, const struct settle_dotgit *d)
{
	const struct settle_dotgit *b = before_dotgit(c, d->path);
	const char *why;

	if (b && same_text(b, d))
		return 0;
	if (b && b->type == SETTLE_DOTGIT_FILE && d->type != SETTLE_DOTGIT_DIR) {
		if (same_target(b, d))
			return 0; /* the same git directory, spelt another way */
		return act_rewrite(c, d->path, b->text, b->len, "restored",
		                   "an existing .git file that the run made name another git directory");
	}
	if (d->type == SETTLE_DOTGIT_LINK)
		return act_remove(c, d->path, "a new .git link: git follows it to a git directory elsewhere");
	if (d->type == SETTLE_DOTGIT_OTHER)
		return act_remove(c, d->path, "a new .git that is neither a folder nor a file");
	if (d->type != SETTLE_DOTGIT_FILE)
		return 0;
	why = new_file_problem(c, d);
	return why ? act_remove(c, d->path, why) : 0;
}

int checks_dotgits(struct settle_ctx *c)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < c->now.st.n_dotgits; i++)
		r = check_dotgit(c, &c->now.st.dotgits[i]);
	return r == -ENOMEM ? r : 0;
}
