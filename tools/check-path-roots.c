#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/physical-path.h"
#include "tools/check-path-forms.h"
#include "tools/check-path-roots.h"
#include "tools/run/credentials.h"

/* Seed 004, layer A: the guard's four roots. */
static const char *const key_folders[] = {".ssh", ".gnupg", ".config/solana", ".oms"};

/* The spelling of ROOT ("~", "~/x" or "/x") in HOME, plain in FORM[0] and
 * as reached in FORM[1]. */
static int place(char **form, const char *root, const char *home)
{
	_cleanup_free_ char *abs = NULL;
	int r;

	if (asprintf(&abs, "%s%s", root[0] == '~' ? home : "", root + (root[0] == '~')) < 0)
		return -ENOMEM;
	r = lexical_path(abs, &form[0]);
	if (r < 0)
		return r == -ENOMEM ? r : 0; /* too long to be reached */
	/* a root that cannot be resolved (a loop, a folder that cannot be
	 * searched) keeps its plain spelling: paths through it cannot be
	 * resolved either, and are refused for that */
	if (reached_path(form[0], &form[1]) == -ENOMEM)
		return -ENOMEM;
	if (form[1] && strcmp(form[1], form[0]) == 0) {
		free(form[1]);
		form[1] = NULL;
	}
	return 0;
}

/* Whether a spelling of the tree lies at or below PATH, or PATH at or below it. */
static bool meets_tree(const char *path, char *const *tree_forms, size_t n_tree)
{
	for (size_t i = 0; path && i < n_tree; i++)
		if (path_within(path, tree_forms[i], false) || path_within(tree_forms[i], path, false))
			return true;
	return false;
}

static void drop(char **form)
{
	free(*form);
	*form = NULL;
}

/* One more root, SHOWN (taken) placed in HOME; with TREE_FORMS, the
 * spellings that meet the tree left out. */
static int add(struct denied_roots *r, const char *rule, char *shown, const char *why, const char *home,
               char *const *tree_forms, size_t n_tree)
{
	struct denied_root *d = &r->v[r->n];
	int k;

	*d = (struct denied_root){.rule = rule, .shown = shown, .why = why};
	if (!shown)
		return -ENOMEM;
	k = place(d->form, shown, home);
	for (size_t f = 0; f < 2; f++)
		if (meets_tree(d->form[f], tree_forms, n_tree))
			drop(&d->form[f]);
	if (k < 0 || (!d->form[0] && !d->form[1])) {
		drop(&d->shown);
		drop(&d->form[0]);
		drop(&d->form[1]);
		return k;
	}
	r->n++;
	return 0;
}

static char *in_home(const char *rel)
{
	char *s;

	return asprintf(&s, "~/%s", rel) < 0 ? NULL : s;
}

static int place_in_home(struct denied_roots *r, const struct policy_config *cfg, const char *home, bool first,
                         char *const *tree_forms, size_t n_tree)
{
	int k = 0;

	for (size_t i = 0; k >= 0 && i < ELEMENTSOF(key_folders); i++)
		k = add(r, CHECK_RULE_DENIED_ROOT, in_home(key_folders[i]), "a key folder (seed 004)", home, NULL, 0);
	for (size_t i = 0; k >= 0 && i < n_credential_paths; i++)
		k = add(r, CHECK_RULE_CREDENTIAL, in_home(credential_paths[i]), "a credential path of the home (seed 000)",
		        home, tree_forms, n_tree);
	/* an absolute [deny] root is the same in every home */
	for (size_t i = 0; k >= 0 && i < cfg->n_deny_paths; i++)
		if (first || cfg->deny_paths[i][0] == '~')
			k = add(r, CHECK_RULE_DENY, strdup(cfg->deny_paths[i]), r->why_deny, home, NULL, 0);
	return k;
}

int denied_roots_place(const struct policy_config *cfg, char *const *homes, size_t n_homes,
                       char *const *tree_forms, size_t n_tree, struct denied_roots *out)
{
	size_t per_home = ELEMENTSOF(key_folders) + n_credential_paths + cfg->n_deny_paths;
	int k = 0;

	*out = (struct denied_roots){0};
	out->v = calloc(per_home * n_homes + 1, sizeof(*out->v));
	if (!out->v || asprintf(&out->why_deny, "named in [deny] of %s", cfg->file ? cfg->file : "the configuration") < 0) {
		out->why_deny = NULL;
		denied_roots_free(out);
		return -ENOMEM;
	}
	for (size_t h = 0; k >= 0 && h < n_homes; h++)
		k = place_in_home(out, cfg, homes[h], h == 0, tree_forms, n_tree);
	if (k < 0)
		denied_roots_free(out);
	return k;
}

void denied_roots_free(struct denied_roots *r)
{
	for (size_t i = 0; r->v && i < r->n; i++) {
		free(r->v[i].shown);
		free(r->v[i].form[0]);
		free(r->v[i].form[1]);
	}
	free(r->v);
	free(r->why_deny);
	*r = (struct denied_roots){0};
}

const struct denied_root *denied_roots_match(const struct denied_roots *r, const char *path, bool fold,
                                             const char **matched)
{
	for (size_t i = 0; i < r->n; i++)
		for (size_t f = 0; f < 2; f++)
			if (r->v[i].form[f] && path_within(path, r->v[i].form[f], fold)) {
				*matched = r->v[i].form[f];
				return &r->v[i];
			}
	return NULL;
}
