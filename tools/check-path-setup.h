/* Everything oz0fs --check-path judges paths against, for one tree: the
 * configuration (refused inside the tree, as the mount refuses it), the
 * homes and the denied roots placed in them, the tree's spellings and, for
 * writes, its model, built as a mount would build it. Also behind
 * oz0fs --write, which refuses at least what --check-path --write refuses. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "tools/check-path-judge.h"
#include "tools/check-path-roots.h"
#include "tools/tree-model.h"

struct path_setup {
	struct policy_config *cfg;
	char *homes[2], *cwd, *tree[2], *model_error;
	size_t n_homes, n_tree;
	struct denied_roots roots;
	struct tree_model tm;
	bool have_model;
};

/* Fills S, and C to judge against it, for the tree TREE (NULL: the current
 * folder) under the configuration CONFIG (NULL: the default file when
 * present); the model only for WRITE, a failure to build it kept in
 * S->model_error (C then refuses every path in the tree). Returns 0,
 * -ENOMEM, or another -errno with a malloc'd reason in *ERRMSG (or none)
 * when the configuration cannot be read. S is to be freed either way. */
int path_setup_prepare(struct path_setup *s, const char *tree, const char *config, bool write, struct path_check *c,
                       char **errmsg);
void path_setup_free(struct path_setup *s);
