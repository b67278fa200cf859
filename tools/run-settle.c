#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/settle/settle.h"
#include "tools/run-settle.h"

int run_settle_record(int rootfd, const char *dir, const char *seen_as, const char *state, struct settle_state *st,
                      char **errmsg)
{
	int k = settle_record(rootfd, dir, seen_as, st, errmsg);

	if (k < 0)
		return k;
	k = settle_state_write(st, state);
	if (k < 0)
		settle_state_done(st);
	if (k < 0 && asprintf(errmsg, "cannot write the settler's state %s: %s", state, strerror(-k)) < 0)
		*errmsg = NULL;
	return k;
}

struct collect {
	struct run_outcome *o;
	bool earlier;
	bool unsettled;
	int k;
};

static void on_action(void *ctx, const char *verb, const char *path, const char *to, const char *reason)
{
	struct collect *c = ctx;

	if (strcmp(verb, "could not settle") == 0)
		c->unsettled = true;
	if (c->k == 0)
		c->k = run_outcome_add_settled(c->o, verb, path, to, reason, c->earlier);
}

/* One pass; its action lines on stderr, prefixed. */
static int pass(int rootfd, const struct settle_state *st, const char *seen_as, struct collect *c, char **errmsg)
{
	_cleanup_free_ char *lines = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&lines, &len);
	struct settle_opts opts = {.out = out, .seen_as = seen_as, .on_action = on_action, .action_ctx = c};
	int k;

	if (!out)
		return -ENOMEM;
	k = settle_tree(rootfd, st, &opts, errmsg);
	fclose(out);
	for (char *line = lines, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		fprintf(stderr, "oz0run: %s%s\n", c->earlier ? "an earlier run's: " : "", line);
	}
	return k < 0 ? k : c->k < 0 ? c->k : k;
}

static int read_state(int rootfd, const char *file, struct settle_state *st, char **errmsg)
{
	const char *why = NULL;
	struct stat tree;
	int k = settle_state_read(file, st, &why);

	if (k < 0) {
		if (asprintf(errmsg, "cannot read the settler's state %s: %s", file, why ? why : strerror(-k)) < 0)
			*errmsg = NULL;
		return k;
	}
	if (fstat(rootfd, &tree) < 0 || st->dev != (uint64_t)tree.st_dev || st->ino != (uint64_t)tree.st_ino) {
		if (asprintf(errmsg, "the settler's state %s is another folder's (%s)", file, st->dir) < 0)
			*errmsg = NULL;
		settle_state_done(st);
		return -ESTALE;
	}
	return 0;
}

static int settle_against(int rootfd, const struct settle_state *st, const char *state, const char *seen_as,
                          bool earlier, struct run_outcome *o, char **errmsg)
{
	struct collect c = {.o = o, .earlier = earlier};
	int k, acted;

	acted = k = pass(rootfd, st, seen_as, &c, errmsg);
	/* what one pass moved can leave a next look (an index aside frees a
	 * submodule's path): settled once a pass finds nothing */
	if (k == 1 && !c.unsettled)
		k = pass(rootfd, st, seen_as, &c, errmsg);
	if (k < 0)
		return k;
	if (k == 1 || c.unsettled)
		return 2;
	if (unlink(state) < 0 && errno != ENOENT) {
		k = negative_errno();
		if (asprintf(errmsg, "cannot remove the settler's state %s: %s", state, strerror(-k)) < 0)
			*errmsg = NULL;
		return k;
	}
	return acted;
}

int run_settle(int rootfd, const struct settle_state *st, const char *state, const char *seen_as,
               struct run_outcome *o, char **errmsg)
{
	*errmsg = NULL;
	return settle_against(rootfd, st, state, seen_as, false, o, errmsg);
}

int run_settle_earlier(int rootfd, const char *state, const char *seen_as, struct run_outcome *o, char **errmsg)
{
	struct settle_state st = {0};
	int k;

	*errmsg = NULL;
	if ((k = read_state(rootfd, state, &st, errmsg)) < 0)
		return k;
	k = settle_against(rootfd, &st, state, seen_as, true, o, errmsg);
	settle_state_done(&st);
	return k;
}
