/* The roots oz0fs --check-path refuses to reads and writes: seed 004's key
 * folders (~/.ssh, ~/.gnupg, ~/.config/solana, ~/.oms), seed 000's
 * credential paths of a home (tools/run/credentials.h) and the [deny]
 * entries of the configuration, each placed in every home that counts
 * (the harness's HOME and the user's own), in its plain spelling and as
 * the kernel reaches it, so that a link to a root is a root too. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "policy/conf.h"

#define CHECK_RULE_DENIED_ROOT "denied-root"
#define CHECK_RULE_CREDENTIAL "credential-path"
#define CHECK_RULE_DENY "deny"

struct denied_root {
	const char *rule; /* CHECK_RULE_* */
	char *shown;      /* as written: "~/.ssh", "/srv/keys" */
	const char *why;  /* what it is */
	char *form[2];    /* absolute and normalised: plain and reached, either NULL (the same, or left out) */
};

struct denied_roots {
	struct denied_root *v;
	size_t n;
	char *why_deny; /* "named in [deny] of FILE" */
};

/* Places every root in each of the N_HOMES HOMES (absolute). A credential
 * path at or above a spelling of the tree (TREE_FORMS, N_TREE of them) is
 * left out there, as oz0run leaves it: nothing inside the working folder is
 * hidden (seed 000), though the key folders and [deny] are refused there
 * too. Returns 0 or -ENOMEM. */
int denied_roots_place(const struct policy_config *cfg, char *const *homes, size_t n_homes,
                       char *const *tree_forms, size_t n_tree, struct denied_roots *out);
void denied_roots_free(struct denied_roots *r);

/* The first root PATH (absolute, normalised) lies at or below, comparing
 * without case when FOLD, and the spelling of it that matched; or NULL. */
const struct denied_root *denied_roots_match(const struct denied_roots *r, const char *path, bool fold,
                                             const char **matched);
