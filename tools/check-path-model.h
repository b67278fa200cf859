/* A write judged by the tree's model, as the mount would judge it: the
 * answers of the same policy_check_* calls that oz0fs --explain shows
 * (policy/explain-judge.h), for what a harness's write of the path does. */
#pragma once

#include "tools/tree-model.h"

#define CHECK_RULE_PROTECTED "protected-write"

/* Judges a write of REL (tree-relative, normalised) in TM: 0 when the mount
 * would allow it, -EACCES when it would refuse (why in *REASON, malloc'd),
 * other -errno when REL cannot be judged (why in *REASON too, unless
 * -ENOMEM). A missing file is a create; a missing folder on the way a
 * mkdir, refused too when the model protects what would lie in it; an
 * existing folder an entry added to it. */
int check_path_model(const struct tree_model *tm, const char *rel, char **reason);
