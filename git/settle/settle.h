/* The settler (seed 000: "Repositories created during a session",
 * "Submodules, worktrees and unfinished rebases", "Bounds on new Git
 * directories", "Unreadable indexes and directories"): after a run, it
 * undoes what the run left in Git state that could make git outside run or
 * follow something the command chose.
 *
 * record reads the tree before the run into a settle_state (state.h);
 * settle compares the tree after it with that record and repairs it, on the
 * tree directly, fd-relative, following no link. Moving aside renames NAME
 * to NAME.sandbox-refused in its folder (".sandbox-refused.2", ".3" when
 * taken), so nothing is overwritten; nothing is deleted but what the seed
 * names. Each action is one line on OUT:
 *
 *   moved aside: PATH -> NEW PATH: REASON
 *   removed: PATH: REASON
 *   restored: PATH: REASON
 *   commented out exec steps: PATH: REASON
 *   gave the owner access back: PATH: REASON
 *   could not settle: PATH: REASON
 *
 * PATH is relative to the tree, with bytes other than printable ASCII
 * written as \ooo; a dry run prints the same lines and changes nothing. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "git/settle/state.h"

/* Records the tree open as ROOTFD (real path DIR; SEEN_AS where git sees it
 * during the run, the mount point, or NULL). Returns 0, or -errno with a
 * one-line *ERRMSG (a walk past its bounds, a part that cannot be looked
 * at). */
int settle_record(int rootfd, const char *dir, const char *seen_as, struct settle_state *out, char **errmsg);

struct settle_opts {
	bool dry_run;
	FILE *out;           /* the action lines */
	const char *seen_as; /* as for settle_record() */
	/* When set, also told each action, its parts apart (the runner's
	 * report); PATH and TO as they are, TO NULL but for a move. */
	void (*on_action)(void *ctx, const char *verb, const char *path, const char *to, const char *reason);
	void *action_ctx;
};

/* Settles the tree open as ROOTFD against BEFORE. Returns 0 when there was
 * nothing to settle, 1 when it acted or could not settle something (then it
 * said so in a line), or -errno with *ERRMSG when it could not start. */
int settle_tree(int rootfd, const struct settle_state *before, const struct settle_opts *opts, char **errmsg);
