/* What the settler does to the tree, and the line it says for each
 * (settle.h). Internal to git/settle/.
 *
 * Every action names its object by a tree-relative path, whose folder is
 * opened beneath the tree following no link (common/safe-open.h); the
 * object itself is renamed, unlinked or replaced by that folder's fd, so a
 * link in its place is acted on as a link, never followed. In a dry run the
 * same line is said and nothing is changed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "git/settle/scan.h"
#include "git/settle/settle.h"

struct settle_ctx {
	int rootfd;
	const struct settle_state *before;
	struct settle_scan now;
	const struct settle_opts *opts;
	bool acted;  /* a line was said */
	bool failed; /* the run fails: something found it must say */
	bool unsettled; /* something could not be settled: every index goes aside */
	/* Parallel to now.st.gitdirs: moved aside or removed whole, so not
	 * settled further. */
	bool *gone;
};

/* Each action below returns 0 (when it could not be done, it said so as
 * could not settle, and the settle goes on) or -ENOMEM. A dry run says an
 * action this process may not do as could not settle too. */

/* Renames PATH to PATH.sandbox-refused (or .sandbox-refused.N, the first
 * free one) in its folder. */
int act_move_aside(struct settle_ctx *c, const char *path, const char *reason);

/* Removes PATH: a file or link, or a folder with all it holds (no link in
 * it followed). */
int act_remove(struct settle_ctx *c, const char *path, const char *reason);

/* Replaces the file PATH by LEN bytes of DATA (a new file renamed over it),
 * saying VERB ("restored", "commented out exec steps"). */
int act_rewrite(struct settle_ctx *c, const char *path, const char *data, size_t len, const char *verb,
                const char *reason);

/* Gives the owner rwx back on the folder NAME in AT (at PATH). */
int act_give_access(struct settle_ctx *c, int at, const char *name, const char *path, const char *reason);

/* Says that PATH could not be settled, and marks the run failed and
 * unsettled. */
void act_failed(struct settle_ctx *c, const char *path, const char *reason);

/* Opens the folder holding PATH beneath the tree (O_PATH) and points *NAME
 * at PATH's last component. Returns the fd or -errno. */
int act_open_parent(struct settle_ctx *c, const char *path, const char **name);
