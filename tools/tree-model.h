/* A tree and its protection model, built exactly as a mount on the tree
 * would build it (same configuration rules, same git_model_new), for the
 * tools that report on it without mounting. */
#pragma once

#include "git/model.h"
#include "policy/conf.h"
#include "policy/policy.h"

struct tree_model {
	int rootfd;
	struct policy_config *cfg;
	struct git_model *model;
	const struct policy_snapshot *snap; /* acquired from the model's holder */
};

/* Opens DIR and builds its model with the configuration CONFIG_FILE (NULL:
 * the default file when present, as the mount does). Returns 0, or -errno
 * with a malloc'd one-line reason in *errmsg (why a mount would refuse). */
int tree_model_open(const char *dir, const char *config_file, struct tree_model *tm, char **errmsg);
void tree_model_close(struct tree_model *tm);
