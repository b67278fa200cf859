/* The names [deny] lists (seed 004 layer B: ".keys", ".env.agent"), and the
 * objects the walk at start found under them.
 *
 * A denied name is refused as a new entry anywhere, so every object that
 * bears one, or lies in a folder that does, was in the tree at start: the
 * walk that looks for nested repositories records each by identity, and
 * every build protects them again, so a hard link or a rename elsewhere
 * cannot shed the refusal. The same walk bounds how many there can be. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git/model-internal.h"

int model_deny_init(struct model_deny *d, const struct policy_config *cfg)
{
	size_t n = cfg ? cfg->n_deny_names : 0;

	*d = (struct model_deny){0};
	if (n == 0)
		return 0;
	d->names = calloc(n, sizeof(*d->names));
	d->reasons = calloc(n, sizeof(*d->reasons));
	if (!d->names || !d->reasons)
		return -ENOMEM;
	for (; d->n_names < n; d->n_names++) {
		size_t i = d->n_names;

		d->names[i] = strdup(cfg->deny_names[i]);
		if (!d->names[i] || asprintf(&d->reasons[i], "'%s' is named in [deny] of %s", cfg->deny_names[i],
		                             cfg->file ? cfg->file : "the configuration") < 0) {
			free(d->names[i]);
			return -ENOMEM;
		}
	}
	return 0;
}

void model_deny_done(struct model_deny *d)
{
	for (size_t i = 0; i < d->n_names; i++) {
		free(d->names[i]);
		free(d->reasons[i]);
	}
	free(d->names);
	free(d->reasons);
	for (size_t i = 0; i < d->n_found; i++)
		free(d->found[i].path);
	free(d->found);
	*d = (struct model_deny){0};
}

int model_deny_index(const struct model_deny *d, const char *name)
{
	for (size_t i = 0; i < d->n_names; i++)
		if (strcmp(d->names[i], name) == 0)
			return (int)i;
	return -1;
}

int model_deny_found(struct model_deny *d, struct policy_id id, const char *path, int by)
{
	struct model_denied *grown = reallocarray(d->found, d->n_found + 1, sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	d->found = grown;
	grown[d->n_found] = (struct model_denied){.id = id, .path = strdup(path), .by = by};
	return grown[d->n_found++].path ? 0 : -ENOMEM;
}

int model_deny_publish(const struct model_deny *d, struct policy_builder *b)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < d->n_names; i++)
		r = policy_builder_deny_name(b, d->names[i], d->reasons[i]);
	for (size_t i = 0; r >= 0 && i < d->n_found; i++)
		r = policy_builder_protect(b, d->found[i].id, POLICY_DENIED, d->found[i].path,
		                           d->reasons[d->found[i].by]);
	return r;
}
