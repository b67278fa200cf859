/* oz0run's use of the settler (git/settle/): a state recorded before the
 * mount, a settle after every process of the run has ended and the mount
 * is gone, and first the settle of a state a killed runner left. Each
 * action goes to stderr as a line of its own and into the outcome. */
#pragma once

#include <stdbool.h>

#include "git/settle/state.h"
#include "tools/run/outcome.h"

/* Records the tree open as ROOTFD (real path DIR, seen at SEEN_AS) into
 * *ST and into the file STATE. The run is settled from *ST, held in
 * memory where the command cannot reach it; the file is there for the next
 * run should this runner be killed. 0, or -errno with a one-line *ERRMSG. */
int run_settle_record(int rootfd, const char *dir, const char *seen_as, const char *state, struct settle_state *st,
                      char **errmsg);
/* Settles the tree against ST and removes the file STATE once a settle
 * finds nothing more (a second pass follows one that acted). Returns 0 when
 * nothing was settled, 1 when it acted, 2 when something could not be
 * settled (STATE then stays), or -errno with a one-line *ERRMSG. */
int run_settle(int rootfd, const struct settle_state *st, const char *state, const char *seen_as,
               struct run_outcome *o, char **errmsg);
/* The same from the file STATE an interrupted run left: its actions are
 * said to be an earlier run's. */
int run_settle_earlier(int rootfd, const char *state, const char *seen_as, struct run_outcome *o, char **errmsg);
