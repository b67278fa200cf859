/* The static model's building blocks, shared by git/model*.c and git/walk.c
 * only (not part of the API). */
#pragma once

#include <sys/stat.h>

#include "git/index.h"
#include "policy/conf.h"
#include "policy/policy.h"

/* Past these a protected folder refuses the mount: every entry costs a stat
 * at each rebuild, and an agent controls how many there are. */
#define MODEL_MAX_DEPTH 8
#define MODEL_MAX_TREE_ENTRIES 10000

/* Git directories by identity. */
struct model_gitdirs {
	struct policy_id *ids;
	size_t n;
};

/* Submodule checkouts a build visited, tree-relative, with their depth. */
struct model_checkouts {
	struct model_checkout {
		char *path;
		unsigned depth;
	} *v;
	size_t n;
};

void model_checkouts_done(struct model_checkouts *c);

enum model_gitdir_kind {
	/* A repository's own git directory: hooks, config, config.worktree,
	 * and commondir (refused when present, but for a "." stand-in). */
	MODEL_GITDIR_REPO,
	/* A linked worktree's administrative folder: commondir, gitdir and
	 * config.worktree (hooks and config are the common directory's). */
	MODEL_GITDIR_LINKED,
};

/* What the first build found, for the live model (git/model-live.h): each
 * git directory, and each index it read with the gitlinks it recorded. */
struct model_found {
	struct model_found_dir {
		char *path; /* tree-relative */
		enum model_gitdir_kind kind;
	} *dirs;
	size_t n_dirs;
	struct model_found_index {
		char *gitdir; /* tree-relative */
		enum gitindex_hash hash;
		uint64_t print; /* the index file's XXH3 */
		struct gitindex_submodules subs;
	} *indexes;
	size_t n_indexes;
};

void model_found_done(struct model_found *f);

/* The names [deny] lists and what the walk at start found under them
 * (git/model-deny.c). */
struct model_deny {
	char **names, **reasons; /* reasons[i]: why names[i] is refused */
	size_t n_names;
	struct model_denied {
		struct policy_id id;
		char *path; /* tree-relative */
		int by;     /* the index of the denied name it bears or lies under */
	} *found;
	size_t n_found;
};

/* Copies CFG's [deny] names (none without CFG). Returns 0 or -ENOMEM; D is
 * to be done either way. */
int model_deny_init(struct model_deny *d, const struct policy_config *cfg);
void model_deny_done(struct model_deny *d);
/* The index of NAME among the denied names, or -1. */
int model_deny_index(const struct model_deny *d, const char *name);
/* Records the object ID at PATH, which bears or lies under names[BY]. */
int model_deny_found(struct model_deny *d, struct policy_id id, const char *path, int by);
/* The names, and every object found, into B. */
int model_deny_publish(const struct model_deny *d, struct policy_builder *b);

/* One build of a snapshot. */
struct model_build {
	struct policy_builder *b;
	int rootfd;    /* the tree, never closed here */
	const char *tree; /* its absolute path, to tell where an absolute pointer leads */
	const char *seen_as; /* where it is mounted, which pointers git writes there name; or NULL */
	const char *home; /* $HOME's real path, for "~/" in include paths, or NULL */
	char *errmsg;  /* the first refusal, one line */
	struct model_gitdirs seen;  /* the git directories this build protected */
	/* NULL for the build at start; afterwards the git directories found
	 * then, the only ones protected: one made during the mount (git init,
	 * submodule add, worktree add) is the agent's own, left to the settler,
	 * and protecting it would break the command that is making it. */
	const struct model_gitdirs *known;
	/* The same for the state folders of unfinished rebases. */
	struct model_gitdirs states;
	const struct model_gitdirs *known_states;
	size_t served; /* work trees read, bounded by DISCOVER_MAX_GIT_DIRS */
	struct model_checkouts checkouts; /* visited in this build */
	struct model_found *found; /* the first build's record, NULL afterwards */
	struct model_deny *deny;   /* the walk at start records what it finds here */
};

/* Records the first refusal (a one-line message) and returns ERROR. */
int model_fail(struct model_build *mb, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* PARENT/NAME as a tree-relative path, "" standing for the root. */
char *model_path_join(const char *parent, const char *name);

struct policy_id model_id(const struct stat *st);

/* Where the object FD is now, as the kernel names it: a malloc'd absolute
 * path in *OUT, or -errno (-ENOENT for one with no path, e.g. removed). */
int model_fd_path(int fd, char **out);

/* Protects NAME in the directory AT, which fstatat(AT_SYMLINK_NOFOLLOW)
 * found to be ST: a file CONTENT|ANCHOR, a folder read-only with all it holds
 * (bounded). A link or a special file refuses. */
int model_protect_existing(struct model_build *mb, int at, const char *name, const struct stat *st,
			   const char *path, const char *reason);

/* The same, down to MAX_DEPTH folders and MAX_ENTRIES entries (a part of
 * .git/modules read as a whole: deeper and larger than a hooks folder). */
int model_protect_deep(struct model_build *mb, int at, const char *name, const struct stat *st, const char *path,
		       const char *reason, unsigned max_depth, size_t max_entries);

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

/* Opens the folder PATH (tree-relative, normalised; "" for the root), every
 * folder on the way and itself an anchor for REASON. Returns an O_PATH fd
 * with its identity in *st, -ENOENT when a part is missing, or a refusal (a
 * link or something else than a folder on the way). */
int model_open_anchored(struct model_build *mb, const char *path, const char *reason, struct stat *st);

#define MODEL_GITDIR_NEW 1  /* protected now */
#define MODEL_GITDIR_SEEN 2 /* protected already in this build */

/* Protects the git directory PATH (tree-relative), opened as FD with identity
 * ST, that WHAT describes ("git directory .git/modules/lib, a submodule's").
 * Returns MODEL_GITDIR_NEW or _SEEN, 0 when it was made during the mount (the
 * agent's own, left alone), or a refusal (past DISCOVER_MAX_GIT_DIRS, a link
 * or FIFO in place of one of its files). */
int model_protect_gitdir(struct model_build *mb, int fd, const struct stat *st, const char *path,
			 enum model_gitdir_kind kind, const char *what);

/* The tree root's .git and every git directory reached from it. */
int model_protect_git(struct model_build *mb);

/* A repository's git directory GITFD at PATH: its linked worktrees'
 * administrative folders, and the .git files they name in the tree. */
int model_protect_worktrees(struct model_build *mb, int gitfd, const char *path);

/* The git directories of a repository's submodules, below GITFD/modules, one
 * at a time within bounds, else the part read-only as a whole. */
int model_protect_modules(struct model_build *mb, int gitfd, const char *path);

/* A work tree in the tree and the git directory that serves it. */
struct model_served {
	char *gitdir;         /* tree-relative */
	char *commondir;      /* tree-relative, or NULL when gitdir is its own */
	const char *worktree; /* tree-relative, "" for the root; not owned */
};

void model_served_done(struct model_served *s);

/* A .git file NAME in the folder AT (tree-relative BASE), already protected
 * itself: the git directory it names, when in the tree, is protected as .git's
 * own, and so is the common directory a linked worktree's folder names. When
 * that git directory is in the tree and was there at start, *SERVED (if not
 * NULL) names it and its common directory. */
int model_follow_gitfile(struct model_build *mb, int at, const char *base, const char *name,
			 struct model_served *served);

/* A rebase's state folder ID: 1 when it is to be protected, 0 when it was
 * made during the mount (the agent's own rebase). */
int model_note_state(struct model_build *mb, struct policy_id id);

/* Holds every program the shell line LINE, which SOURCE names, can run from
 * the work tree S. */
int model_hold_command(struct model_build *mb, const struct model_served *s, const char *source, const char *line);

/* An unfinished rebase, am or sequence of picks in S's git directory. */
int model_protect_rebase(struct model_build *mb, const struct model_served *s);

struct gitcfg_config;

enum model_named {
	MODEL_NAMED_LINE,              /* a shell line git runs */
	MODEL_NAMED_PROGRAM,           /* a program git runs */
	MODEL_NAMED_PATH,              /* a file or folder git reads or runs from */
	MODEL_NAMED_CREDENTIAL_HELPER, /* git runs the shell line "git credential-TEXT" */
	MODEL_NAMED_REMOTE_HELPER,     /* git runs the program git-remote-TEXT */
};

struct model_named_text {
	enum model_named kind;
	const char *text; /* into the entry's name or value; not NUL-terminated */
	size_t len;
};

/* What the configuration entry NAME = VALUE (as git lists it) makes git run
 * or read, of the keys seed 000 lists: true and *OUT, or false when it names
 * nothing (an unrelated key, a boolean, a bare name git looks up outside the
 * tree). */
bool model_config_names(const char *name, const char *value, struct model_named_text *out);

/* Whether NAME = VALUE chooses a program or a file git runs or reads: what
 * model_config_names() names, and a bare program name besides (the settler
 * sets aside a new repository's configuration that does). */
bool model_config_sets_program(const char *name, const char *value);

/* What the configuration CFG, read for the work tree S, names in the tree:
 * included files, hook and template folders, attributes, and the programs
 * of every key that runs one. */
int model_protect_configured(struct model_build *mb, const struct model_served *s, const struct gitcfg_config *cfg);

/* The folder CHECKOUT (a submodule's, DEPTH levels down, or a nested
 * repository's) if it holds a .git: a .git folder's four files, with its
 * modules and worktrees read-only as a whole, or a .git file and the git
 * directory it names; then what git reads there. Once per build. */
int model_protect_checkout(struct model_build *mb, const char *checkout, unsigned depth);

/* Every nested repository of the tree, found by one bounded walk. */
int model_protect_nested(struct model_build *mb);

/* The submodule checkouts KNOWN from the first build that this one has not
 * visited: an index is no protected file, so an agent may drop a gitlink
 * from it, and what was held at start must stay held. */
int model_protect_known_checkouts(struct model_build *mb, const struct model_checkouts *known);

/* What git reads in the work tree S names, below DEPTH levels of
 * submodules: the submodules every index records, each checkout's .git. */
int model_protect_served(struct model_build *mb, const struct model_served *s, unsigned depth);
