/* The model of the tree's Git metadata that names what to protect and why.
 *
 * This first version is static: at start it protects, for the tree root's
 * .git directory, hooks (frozen, with everything in it), config,
 * config.worktree and commondir (missing names when absent); for a .git file,
 * the file itself; at the root, .claude, .codex, .cursor, .vscode/tasks.json
 * and .envrc (minus [unprotect], plus [protect]); and every directory on the
 * way as an anchor. It reads the tree only through the tree's fd, never
 * following a link; a protected path it cannot look at refuses.
 *
 * The fs tells it of changes to watched entries (git_model_changed), and it
 * publishes a new snapshot before the operation's reply, so the next decision
 * sees it.
 */
#pragma once

#include "policy/conf.h"
#include "policy/policy.h"

struct git_model;

/* Builds the first snapshot. ROOTFD is the tree (kept, not closed). On error
 * returns -errno and a malloc'd one-line reason in *errmsg (the mount must
 * refuse to start with it). */
int git_model_new(int rootfd, const struct policy_config *cfg, struct git_model **out, char **errmsg);
void git_model_free(struct git_model *m);

struct policy_holder *git_model_holder(struct git_model *m);

/* A rename would replace a POLICY_REWRITABLE file (a Git configuration)
 * holding OLD with NEW. Returns 1 when the change is harmless (it runs and
 * redirects nothing), 0 when not (*why names the reason, valid until the next
 * call in this thread), or -errno when it cannot be judged. */
int git_model_may_rewrite(struct git_model *m, const char *old, size_t oldlen, const char *new, size_t newlen,
			  const char **why);

/* The entry NAME of PARENT was created, removed or replaced by an operation
 * that succeeded and that policy_watched() flagged. Rebuilds what it touches
 * and publishes before returning; on error keeps the last good snapshot. */
void git_model_changed(struct git_model *m, struct policy_id parent, const char *name);
