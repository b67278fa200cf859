/* The static model's building blocks, shared by git/model*.c and git/walk.c
 * only (not part of the API). */
#pragma once

#include <sys/stat.h>

#include "policy/policy.h"

/* Past these a protected folder refuses the mount: every entry costs a stat
 * at each rebuild, and an agent controls how many there are. */
#define MODEL_MAX_DEPTH 8
#define MODEL_MAX_TREE_ENTRIES 10000

/* One build of a snapshot. */
struct model_build {
	struct policy_builder *b;
	int rootfd;    /* the tree, never closed here */
	char *errmsg;  /* the first refusal, one line */
};

/* Records the first refusal (a one-line message) and returns ERROR. */
int model_fail(struct model_build *mb, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* PARENT/NAME as a tree-relative path, "" standing for the root. */
char *model_path_join(const char *parent, const char *name);

struct policy_id model_id(const struct stat *st);

/* Protects NAME in the directory AT, which fstatat(AT_SYMLINK_NOFOLLOW)
 * found to be ST: a file CONTENT|ANCHOR, a folder read-only with all it holds
 * (bounded). A link or a special file refuses. */
int model_protect_existing(struct model_build *mb, int at, const char *name, const struct stat *st,
			   const char *path, const char *reason);

/* Looks NAME up in AT without following a link. Returns 0, -ENOENT, or a
 * refusal (a folder the daemon may not search) naming PARENT_PATH. */
int model_stat(struct model_build *mb, int at, const char *name, const char *parent_path, struct stat *st);

/* Opens a folder on the way (O_PATH, never through a link) and returns the fd,
 * with its identity in *st. */
int model_open_dir(struct model_build *mb, int at, const char *name, const char *path, struct stat *st);

/* Refuses a link or special file found where a file or folder is expected. */
int model_refuse_type(struct model_build *mb, const struct stat *st, const char *path);

/* A tree-relative path: every directory on the way is an anchor, the object
 * is protected if it exists, and a missing name is protected where it would
 * appear (see git/model.h). */
int model_protect_path(struct model_build *mb, const char *path, const char *reason);

/* The tree root's .git: a directory's hooks, config, config.worktree and
 * commondir, or a .git file. */
int model_protect_git(struct model_build *mb);
