#include "config.h"

/* What the model asks of an index: the paths of its submodules, each one a
 * path git would accept, at most GITINDEX_MAX_SUBMODULES of them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cleanup.h"
#include "git/index.h"

void gitindex_submodules_free(struct gitindex_submodules *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->paths[i]);
	free(s->paths);
	*s = (struct gitindex_submodules){0};
}

/* One component: not empty, not "." or "..", not ".git" in any case (git's
 * verify_path refuses them; a submodule there would lead git into the
 * parent or into a git directory). */
static bool component_is_safe(const char *c, size_t n)
{
	if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
		return false;
	return !(n == 4 && strncasecmp(c, ".git", 4) == 0);
}

bool gitindex_path_is_safe(const char *path, size_t len)
{
	size_t start = 0;

	if (len == 0 || memchr(path, '\0', len))
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && path[i] != '/')
			continue;
		if (!component_is_safe(path + start, i - start))
			return false;
		start = i + 1;
	}
	return true;
}

struct collector {
	struct gitindex_submodules *out;
	size_t cap;
	struct gitindex_error *err;
};

static int refuse(struct collector *c, int r, const char *reason)
{
	c->err->reason = reason;
	return r;
}

static int add_path(struct collector *c, const struct gitindex_entry *e)
{
	struct gitindex_submodules *s = c->out;
	char *copy;

	/* Stages of one path come together: record the path once. */
	if (s->n > 0 && strcmp(s->paths[s->n - 1], e->path) == 0)
		return 0;
	if (s->n == GITINDEX_MAX_SUBMODULES)
		return refuse(c, -E2BIG, "more than 4,096 submodules");
	if (s->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		char **paths = realloc(s->paths, cap * sizeof(*paths));

		if (!paths)
			return -ENOMEM;
		s->paths = paths;
		c->cap = cap;
	}
	copy = strndup(e->path, e->path_len);
	if (!copy)
		return -ENOMEM;
	s->paths[s->n++] = copy;
	return 0;
}

static int collect(const struct gitindex_entry *e, void *userdata)
{
	struct collector *c = userdata;

	/* Git expands a sparse index's folder entry from tree objects,
	 * which may hold gitlinks we never see. */
	if (e->mode == GITINDEX_MODE_DIR)
		return refuse(c, -EINVAL, "sparse index: a folder entry may hide submodules");
	if (e->mode != GITINDEX_MODE_GITLINK)
		return 0;
	if (!gitindex_path_is_safe(e->path, e->path_len))
		return refuse(c, -EINVAL, "a submodule path git would not accept ('..', '.git' or an empty component)");
	return add_path(c, e);
}

int gitindex_parse_submodules(const char *buf, size_t len, const char *origin,
                              enum gitindex_hash hash, const struct gitindex_shared *shared,
                              struct gitindex_submodules *out, struct gitindex_error *err)
{
	struct gitindex_error ignored;
	struct collector c = {.out = out, .err = err ? err : &ignored};
	int r;

	*out = (struct gitindex_submodules){0};
	r = gitindex_parse(buf, len, origin, hash, shared, collect, &c, c.err);
	if (r < 0) {
		gitindex_submodules_free(out);
		return r;
	}
	return (int)out->n;
}
