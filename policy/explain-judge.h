/* The judgement behind oz0fs --explain: what the snapshot holds about one
 * target and its folders, and the answers of the policy_check_* calls the
 * mount would make for it, so --explain can never disagree with the mount. */
#pragma once

#include <stdbool.h>

#include "common/explain-resolve.h"
#include "common/safe-open.h"
#include "policy/policy.h"

#define EXPLAIN_MAX_OPS 4

/* One entry of the model that bears on the target. */
struct reason_link {
	const char *path, *rule, *reason;
};

/* One question put to the judge, and its answer. */
struct op_answer {
	const char *op;
	int r; /* 0, POLICY_IF_IDENTICAL or -EACCES */
	struct policy_verdict v;
};

struct explanation {
	const char *rule;      /* POLICY_RULE_*, or NULL: not protected */
	const char *rule_path; /* the entry that gives the rule */
	const char *reason;
	const char *frozen_in; /* the frozen folder holding it, when the rule is another */
	unsigned missing_flags;
	bool rewritable;
	struct reason_link chain[SAFE_OPEN_MAX_DEPTH + 1];
	size_t n_chain;
	struct op_answer ops[EXPLAIN_MAX_OPS];
	size_t n_ops;
};

/* Fills E (zeroed by the caller) for T, which exists. Returns 0 or -ENOMEM. */
int explain_existing(struct explanation *e, const struct policy_snapshot *s, const struct explain_target *t);
/* Fills E for T, which does not exist. */
void explain_missing(struct explanation *e, const struct policy_snapshot *s, const struct explain_target *t);

/* Walks REL below ROOTFD (explain_resolve) and fills E (zeroed by the
 * caller) for what it names, existing or not. Returns 0, or -errno with a
 * malloc'd one-line reason in *errmsg when the walk fails; T is to be freed
 * either way. */
int explain_path(int rootfd, const struct policy_snapshot *s, const char *rel, struct explanation *e,
                 struct explain_target *t, char **errmsg);
