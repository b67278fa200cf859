/* Unfinished rebases and sequences (seed 000, "Submodules, worktrees and
 * unfinished rebases"): in every git directory, the exec steps of the list
 * still to run are commented out, so that continuing runs nothing the
 * command chose; every other step stays. A list identical to the one
 * recorded before the run is the person's and stays whole. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cleanup.h"
#include "git/read.h"
#include "git/settle/checks.h"

static const char *const todo_lists[] = {"rebase-merge/git-rebase-todo", "sequencer/todo"};

/* Whether the line at P (up to END) is a step that runs a command: exec or
 * x (sequencer.c's todo_command_info), or a --exec line. */
static bool runs_command(const char *p, const char *end)
{
	size_t n;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	n = 0;
	while (p + n < end && !isspace((unsigned char)p[n]))
		n++;
	return (n == 4 && strncasecmp(p, "exec", 4) == 0) || (n == 1 && (*p == 'x' || *p == 'X')) ||
	       (n >= 6 && strncmp(p, "--exec", 6) == 0);
}

/* B with "# " before each line that runs a command, into *OUT; returns how
 * many lines were so, or -ENOMEM. */
static long comment_out(const struct git_blob *b, char **out, size_t *len)
{
	const char *p = b->data, *end = b->data + b->len;
	char *o = malloc(b->len * 3 / 2 + 3), *w = o;
	long n = 0;

	if (!o)
		return -ENOMEM;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl + 1 : end;
		if (runs_command(p, eol)) {
			*w++ = '#';
			*w++ = ' ';
			n++;
		}
		memcpy(w, p, (size_t)(eol - p));
		w += eol - p;
		p = eol;
	}
	*out = o;
	*len = (size_t)(w - o);
	return n;
}

static uint64_t recorded_print(const struct settle_gitdir *b, size_t list)
{
	return !b ? 0 : list == 0 ? b->todo_print : b->sequencer_print;
}

static int settle_list(struct settle_ctx *c, size_t i, size_t list)
{
	const struct settle_gitdir *g = &c->now.st.gitdirs[i];
	uint64_t print = list == 0 ? g->todo_print : g->sequencer_print;
	_cleanup_free_ char *path = NULL, *text = NULL;
	struct git_blob b = {0};
	size_t len;
	long n;

	if (!print || print == recorded_print(checks_before(c, i), list))
		return 0;
	path = settle_join(g->path, todo_lists[list]);
	if (!path)
		return -ENOMEM;
	if (gitread_file(c->rootfd, path, GITREAD_SMALL_MAX, &b) < 0)
		return act_move_aside(c, path, "a list of steps still to run that cannot be read whole");
	n = comment_out(&b, &text, &len);
	git_blob_free(&b);
	if (n <= 0)
		return (int)n;
	return act_rewrite(c, path, text, len, "commented out exec steps",
	                   "continuing the rebase or sequence would run commands the run chose");
}

int checks_todos(struct settle_ctx *c)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < c->now.st.n_gitdirs; i++)
		for (size_t list = 0; r >= 0 && !c->gone[i] && list < 2; list++)
			r = settle_list(c, i, list);
	return r == -ENOMEM ? r : 0;
}
