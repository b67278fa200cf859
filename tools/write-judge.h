/* Whether oz0fs --write may put a file at the place the walk found
 * (tools/write-walk.h), by identity, against the tree's model: the rules of
 * an ACP agent's writes (seed 000, "ACP file writes"; seed 004, layer B)
 * on top of what the mount itself would refuse. */
#pragma once

#include "tools/tree-model.h"
#include "tools/write-refusal.h"
#include "tools/write-walk.h"

/* Refuses REL (as given) when a component is named .git, in any case: a
 * .git file, anything in a .git folder, in this repository or a nested one
 * (seed 004, layer B, refuses the name anywhere in the path). Returns 0, 1
 * refused (NO filled), or -ENOMEM. Needs no walk: asked first. */
int write_check_name(const char *rel, struct write_refusal *no);

/* Judges the write of P, reached by REL, made as a new file under the
 * temporary name TMPNAME in P's folder and renamed onto the target.
 * Refused:
 *  - a folder on the way that is a git directory of the model (a separate
 *    git directory, a submodule's, a linked worktree's): all of one is
 *    refused, not only its hooks, configuration and the rebase-merge,
 *    rebase-apply and sequencer folders, since every file of a git
 *    directory is git's own state, and what it reads there (a todo list,
 *    a worktree's commondir) decides what it runs; simpler, and stricter;
 *  - what the mount would refuse: for an existing file a write, a
 *    truncation and the rename of a new file onto it; for a missing one the
 *    create; the temporary name's create in any case.
 * Returns 0 allowed, 1 refused (NO filled), or -ENOMEM. *OP is the
 * operation named in the audit line ("write" or "create"). */
int write_judge(const struct tree_model *tm, const struct write_place *p, const char *tmpname, const char **op,
                struct write_refusal *no);
