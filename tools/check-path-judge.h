/* One PATH judged by oz0fs --check-path: every spelling of it
 * (tools/check-path-forms.h) against the denied roots, and for a write
 * against the tree's model; the first refusal found is the verdict, and
 * what cannot be judged is refused (fail closed). */
#pragma once

#include <stdbool.h>

#include "tools/check-path-forms.h"
#include "tools/check-path-roots.h"
#include "tools/tree-model.h"

#define CHECK_RULE_FAIL_CLOSED "fail-closed"
#define CHECK_RULE_DENIED_NAME "denied-name"

struct path_check {
	bool write;
	const char *home;          /* "~" expands to it; NULL: none */
	const char *cwd;           /* relative paths start there; NULL: unknown */
	const struct denied_roots *roots;
	char *const *deny_names;   /* [deny] names: refused anywhere in the path, as the mount refuses them */
	size_t n_deny_names;
	char *const *tree_forms;   /* the tree, absolute: plain, then real */
	size_t n_tree;
	const struct tree_model *tm; /* for writes; NULL with MODEL_ERROR when it could not be built */
	const char *model_error;
	const char *no_roots;      /* why the roots could not be placed: every path refused */
};

struct path_verdict {
	const char *asked;
	const char *rule; /* NULL: allowed */
	char *reason;
	struct path_forms forms;
};

/* Judges PATH into V. Returns 0, or -ENOMEM. */
int path_check(const struct path_check *c, const char *path, struct path_verdict *v);
void path_verdict_clear(struct path_verdict *v);
