/* The settler's order of work (settle.h): look at the tree now, then the
 * bounds, the git directories the run made, the .git entries, the lists of
 * steps, and last the indexes, which go aside when something could not be
 * settled (seed 000, "Unreadable indexes and directories"). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "git/settle/checks.h"

const struct settle_gitdir *checks_before(const struct settle_ctx *c, size_t i)
{
	const struct settle_gitdir *g = &c->now.st.gitdirs[i];
	long b = settle_scan_find(c->before, g->path);

	if (b < 0 || c->before->gitdirs[b].dev != g->dev || c->before->gitdirs[b].ino != g->ino)
		return NULL;
	return &c->before->gitdirs[b];
}

bool checks_is_new(const struct settle_ctx *c, size_t i)
{
	return !checks_before(c, i);
}

const char *checks_unreadable(int r)
{
	switch (r) {
	case -ELOOP:
		return "a link";
	case -EINVAL:
		return "not a regular file";
	case -EFBIG:
		return "larger than git's files are";
	case -EXDEV:
		return "outside the tree";
	}
	return strerror(-r);
}

void checks_mark_gone(struct settle_ctx *c, const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < c->now.st.n_gitdirs; i++) {
		const char *p = c->now.st.gitdirs[i].path;
		if (strncmp(p, path, n) == 0 && (p[n] == '\0' || p[n] == '/'))
			c->gone[i] = true;
	}
}

/* A folder the run took the owner's access from gets it back, and is then
 * walked as any other; the person's own stays as it was. */
static bool give_access_back(struct settle_scan *sc, int at, const char *name, const char *path)
{
	struct settle_ctx *c = sc->ctx;

	if (settle_names_has(&c->before->locked, path))
		return true;
	act_give_access(c, at, name, path,
	                "the run took the owner's access to this folder: git reads folders it may not write");
	/* A dry run cannot look in where the settle would, once it gave the
	 * access back: what it holds goes unsaid rather than unseen. */
	return c->opts->dry_run;
}

static void say_unseen(struct settle_ctx *c)
{
	for (size_t i = 0; i < c->now.unseen.n; i++) {
		char *line = c->now.unseen.v[i], *sep = strstr(line, ": ");
		if (sep)
			*sep = '\0';
		act_failed(c, line, sep ? sep + 2 : "cannot be looked at");
	}
}

/* A repository that was there untracked and that the run recorded as a
 * submodule of the git directory I gets the checks of one it made. */
static int check_recorded(struct settle_ctx *c, size_t i)
{
	const struct settle_gitdir *g = &c->now.st.gitdirs[i], *b = checks_before(c, i);
	const char *tree = c->now.worktree_of[i];
	int r = 0;

	for (size_t k = 0; r >= 0 && b && tree && k < g->gitlinks.n; k++) {
		_cleanup_free_ char *at = settle_join(tree, g->gitlinks.v[k]);
		_cleanup_free_ char *dotgit = at ? settle_join(at, ".git") : NULL;
		if (!dotgit)
			return -ENOMEM;
		long s = settle_scan_find(&c->now.st, dotgit);
		if (s >= 0 && !c->gone[s] && !checks_is_new(c, (size_t)s) && !settle_names_has(&b->gitlinks, g->gitlinks.v[k]))
			r = checks_fresh(c, (size_t)s);
	}
	return r;
}

/* A new linked worktree of a repository that was there before: the copies
 * in it of what the repository runs. */
static int check_new_worktree(struct settle_ctx *c, size_t i)
{
	_cleanup_free_ char *common = strdup(c->now.st.gitdirs[i].path);
	char *cut = common ? strstr(common, "/worktrees/") : NULL;
	long k;

	if (!common)
		return -ENOMEM;
	if (!cut || c->gone[i])
		return 0;
	*cut = '\0';
	k = settle_scan_find(&c->now.st, common);
	return k >= 0 && !checks_is_new(c, (size_t)k) ? checks_copies(c, i, (size_t)k) : 0;
}

static int check_fresh_dirs(struct settle_ctx *c)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < c->now.st.n_gitdirs; i++) {
		if (c->gone[i])
			continue;
		if (checks_is_new(c, i))
			r = checks_fresh(c, i);
		if (r >= 0 && checks_is_new(c, i) && c->now.st.gitdirs[i].kind == SETTLE_GITDIR_LINKED)
			r = check_new_worktree(c, i);
		if (r >= 0 && c->now.st.gitdirs[i].served)
			r = check_recorded(c, i);
	}
	return r;
}

static int index_aside(struct settle_ctx *c, size_t i, const char *why)
{
	_cleanup_free_ char *path = settle_join(c->now.st.gitdirs[i].path, "index");
	const char *name;
	struct stat st;

	if (!path)
		return -ENOMEM;
	_cleanup_close_ int at = act_open_parent(c, path, &name);
	if (at < 0 || fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	return act_move_aside(c, path, why);
}

/* Whether the git directory I served a work tree, now or before the run
 * (when its .git can no longer be looked at). */
static bool served(const struct settle_ctx *c, size_t i)
{
	long b = settle_scan_find(c->before, c->now.st.gitdirs[i].path);

	return c->now.st.gitdirs[i].served || (b >= 0 && c->before->gitdirs[b].served);
}

/* An index that cannot be read whole goes aside, so git follows none of its
 * entries into a submodule; and every index when anything could not be
 * settled, so git enters nothing the run left. */
static int check_indexes(struct settle_ctx *c)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < c->now.st.n_gitdirs; i++)
		if (!c->gone[i] && settle_names_has(&c->now.bad_indexes, c->now.st.gitdirs[i].path))
			r = index_aside(c, i, "an index that cannot be read whole: git would follow its entries");
	for (size_t i = 0; r >= 0 && c->unsettled && i < c->now.st.n_gitdirs; i++)
		if (!c->gone[i] && served(c, i) &&
		    !settle_names_has(&c->now.bad_indexes, c->now.st.gitdirs[i].path))
			r = index_aside(c, i, "something could not be settled: git must enter nothing the run left");
	return r;
}

static int settle_all(struct settle_ctx *c)
{
	int r;

	say_unseen(c);
	r = checks_bounds(c);
	if (r >= 0)
		r = check_fresh_dirs(c);
	if (r >= 0)
		r = checks_dotgits(c);
	if (r >= 0)
		r = checks_todos(c);
	if (r >= 0)
		r = check_indexes(c);
	return r;
}

int settle_tree(int rootfd, const struct settle_state *before, const struct settle_opts *opts, char **errmsg)
{
	struct settle_ctx c = {.rootfd = rootfd, .before = before, .opts = opts};
	int r;

	c.now.seen_as = opts->seen_as;
	c.now.on_locked = give_access_back;
	c.now.ctx = &c;
	r = settle_scan(rootfd, before->dir, &c.now, errmsg);
	if (r >= 0) {
		c.gone = calloc(c.now.st.n_gitdirs + 1, sizeof(*c.gone));
		r = c.gone ? settle_all(&c) : -ENOMEM;
	}
	if (r == -ENOMEM && !*errmsg)
		*errmsg = strdup("out of memory");
	free(c.gone);
	settle_scan_done(&c.now);
	if (r < 0)
		return r;
	return c.acted || c.failed ? 1 : 0;
}

int settle_record(int rootfd, const char *dir, const char *seen_as, struct settle_state *out, char **errmsg)
{
	struct settle_scan sc = {.seen_as = seen_as};
	int r = settle_scan(rootfd, dir, &sc, errmsg);

	if (r >= 0 && sc.unseen.n > 0) {
		r = -EIO;
		if (asprintf(errmsg, "cannot record %s", sc.unseen.v[0]) < 0)
			*errmsg = NULL;
	}
	if (r >= 0) {
		*out = sc.st;
		sc.st = (struct settle_state){0};
	}
	settle_scan_done(&sc);
	return r;
}
