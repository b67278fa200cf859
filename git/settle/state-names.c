#include "config.h"

/* The memory of a STATE (state.h): its lists of names, and freeing it whole. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "git/settle/state.h"

void settle_names_done(struct settle_names *n)
{
	for (size_t i = 0; i < n->n; i++)
		free(n->v[i]);
	free(n->v);
	*n = (struct settle_names){0};
}

/* The array doubles each time N reaches a power of two, so its capacity
 * follows from N alone and needs no field of its own. */
int settle_names_add(struct settle_names *n, const char *name, size_t len)
{
	char *copy;

	if (len > 0 && memchr(name, '\0', len))
		return -EINVAL;
	if ((n->n & (n->n - 1)) == 0) {
		char **v = reallocarray(n->v, n->n ? 2 * n->n : 1, sizeof(*v));

		if (!v)
			return -ENOMEM;
		n->v = v;
	}
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, name, len);
	copy[len] = '\0';
	n->v[n->n++] = copy;
	return 0;
}

bool settle_names_has(const struct settle_names *n, const char *name)
{
	for (size_t i = 0; i < n->n; i++)
		if (strcmp(n->v[i], name) == 0)
			return true;
	return false;
}

static void gitdir_done(struct settle_gitdir *g)
{
	free(g->path);
	settle_names_done(&g->hooks);
	settle_names_done(&g->modules);
	settle_names_done(&g->worktrees);
	settle_names_done(&g->gitlinks);
}

static void dotgit_done(struct settle_dotgit *d)
{
	free(d->path);
	free(d->text);
	free(d->target);
}

void settle_state_done(struct settle_state *s)
{
	for (size_t i = 0; i < s->n_gitdirs; i++)
		gitdir_done(&s->gitdirs[i]);
	for (size_t i = 0; i < s->n_dotgits; i++)
		dotgit_done(&s->dotgits[i]);
	free(s->gitdirs);
	free(s->dotgits);
	free(s->dir);
	settle_names_done(&s->locked);
	*s = (struct settle_state){0};
}
