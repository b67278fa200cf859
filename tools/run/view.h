/* What the command sees (ARCHITECTURE.md, the runner, step 5), built in a
 * mount namespace of its own, copied from the daemon's, where the oz0fs
 * mount lies over the tree: the root read-only and nosuid, a private /tmp
 * and /dev/shm, the tree and the workspace through the oz0fs mount, the
 * node user's home hidden under an empty folder, the command's own home
 * with its credential paths reading as empty, and the run's audit lines
 * read-only. Nothing inside the tree is hidden. The namespace is made in
 * the user namespace of the daemon and entered later from a new one, so
 * every mount here is locked: the command cannot unmount one to see what
 * it covers. */
#pragma once

#include <sys/types.h>

struct run_view {
	const char *tree;       /* the tree's real path: the daemon's mount lies there */
	const char *workspace;  /* where the command works (the tree's path when the same) */
	const char *home;       /* --home DIR's real path, or NULL for a new empty one */
	const char *node_home;  /* the node user's home to hide, or NULL */
	const char *audit_file; /* shown read-only at *AUDIT_AT, or NULL */
	const char *state_dir;  /* the runner's state files: hidden under an empty folder, or NULL */
	uid_t uid;              /* the command's user and group: they own its new home (-1: as made) */
	gid_t gid;
};

/* The paths the view gives the command: its HOME and $OZ0_AUDIT (NULL
 * without an audit file). */
struct run_view_paths {
	char *home;
	char *audit;
};

/* Unshares a mount namespace and builds V in it. 0, or -errno with a
 * one-line *ERRMSG. */
int run_view_build(const struct run_view *v, struct run_view_paths *out, char **errmsg);
void run_view_paths_done(struct run_view_paths *p);
