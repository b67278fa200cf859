/* The live part of the model: what the mount makes while it runs (git/
 * only; the API is git/model.h's git_model_follows and git_model_note).
 *
 * The protected set is what was there at start. What an operation makes
 * afterwards is the agent's, left to the settler at the end of the run; but
 * it is tracked now, and a change that would make git run something is
 * written to the audit log when it happens, not only found at the end:
 *
 *  - a new git directory: a `.git` made anywhere (git init, git clone, a
 *    submodule's `.git` file), a folder below a `modules` folder that takes a
 *    git directory's files (git submodule add), a folder below `worktrees`
 *    (git worktree add), a bare layout written by hand (a folder that comes
 *    to hold HEAD, objects and refs): "new-git-dir";
 *  - in one of those, a hook that is not one of git's samples, a
 *    configuration that names a hooks folder, an include or a program, a
 *    `commondir` other than ".": "dangerous-change";
 *  - a new `.git` file, and what it names: "new-git-file";
 *  - in a git directory there at start, a new index recording a gitlink it
 *    did not record before: "new-submodule".
 *
 * Only what an event touches is read, and an XXH3 fingerprint of a file
 * already read skips it when it did not change. Events come from the
 * operations themselves (no rescan): the fs asks model_live_follows() after
 * each operation that made, replaced or removed an entry, and on yes hands
 * over the folder's fd. The tables are bounded; past the bound the mount says
 * so once and tracks no further (the settler still looks at the whole tree).
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "git/model-internal.h"

struct audit;
struct model_live;

struct model_live_start {
	int rootfd;        /* the tree, not owned */
	const char *tree;  /* its absolute path */
	const char *seen_as; /* where it is mounted, or NULL */
	const char *home;  /* $HOME's real path, or NULL */
	const struct model_gitdirs *known;   /* the git directories there at start */
	struct model_found *found;           /* and where they are; their gitlinks are taken */
};

/* Starts tracking from the first build's findings. Returns 0 or -ENOMEM. */
int model_live_new(const struct model_live_start *start, struct model_live **out);
void model_live_free(struct model_live *l);

/* Where events are written (NULL: stderr, as the audit log's default). */
void model_live_set_audit(struct model_live *l, struct audit *a);

/* Whether NAME in PARENT concerns the live model. Thread-safe and cheap: it
 * runs after every successful create, rename and removal. */
bool model_live_follows(struct model_live *l, struct policy_id parent, const char *name);

/* NAME in the folder PARENTFD (identity PARENT) was made, replaced or
 * removed. Reads what that touches and writes the events it finds. */
void model_live_note(struct model_live *l, int parentfd, struct policy_id parent, const char *name);

/* OLDNAME in the folder OLDPARENTFD is now NEWNAME in NEWPARENTFD (the
 * object OBJ, a folder when IS_DIR): what is followed there and below is
 * known by its new path from now on. */
void model_live_renamed(struct model_live *l, int oldparentfd, const char *oldname, int newparentfd,
                        const char *newname, struct policy_id obj, bool is_dir);

/* The object ID was removed: an id followed is forgotten, as the file system
 * may give it to the next entry made. */
void model_live_forget(struct model_live *l, struct policy_id id);

/* Whether the file ID is one whose writing concerns the live model (a .git
 * file, or a new git directory's configuration or commondir, written in
 * place), and the note that a descriptor that wrote it was closed. */
bool model_live_follows_file(struct model_live *l, struct policy_id id);
void model_live_note_written(struct model_live *l, struct policy_id id);

/* The tracker's insides, shared by git/model-live*.c only. */

enum live_kind {
	LIVE_KNOWN,     /* a git directory there at start: a new index, modules or worktrees */
	LIVE_MODULES,   /* a modules folder, or a part of a submodule's name below one */
	LIVE_WORKTREES, /* a worktrees folder: each new folder is a linked worktree's */
	LIVE_NEW,       /* a git directory made during the mount */
	LIVE_HOOKS,     /* the hooks folder of one */
	LIVE_FILE,      /* a file whose writing is looked at: a new .git file, a new git
	                 * directory's config, config.worktree or commondir */
	LIVE_GONE,      /* removed: its id may come back for another entry */
};

struct live_folder {
	struct policy_id id;
	enum live_kind kind;
	enum model_gitdir_kind gitdir_kind; /* LIVE_KNOWN, LIVE_NEW */
	unsigned depth;                     /* LIVE_MODULES: levels below the modules folder */
	char *path;                         /* tree-relative, when it was followed;
	                                     * LIVE_FILE: the folder that holds it */
	char *name;                         /* LIVE_FILE: its name there */
	/* LIVE_KNOWN serving a work tree: its index as read last. */
	bool served;
	enum gitindex_hash hash;
	uint64_t index_print;
	struct gitindex_submodules subs;
	/* LIVE_NEW: the fingerprint of its configuration files, and what
	 * dangerous they named, one line each, when last written to the audit
	 * log. LIVE_FILE (.git): the fingerprint of where it leads. */
	uint64_t config_print;
	char *danger;
};

struct model_live {
	pthread_mutex_t lock; /* everything below */
	int rootfd;
	char *tree;
	char *seen_as;
	char *home;
	struct model_gitdirs known; /* ids, sorted, for bsearch */
	struct live_folder **folders; /* each its own allocation: a pointer stays valid */
	size_t n_folders;
	uint32_t *slots; /* open addressing by id: index + 1, 0 empty */
	size_t mask;
	bool full;       /* past LIVE_MAX_FOLDERS: said once, no more followed */
	bool starting;   /* following what is there at start, which is not new */
	struct audit *audit;
};

/* Past this many followed folders the tracker stops (an agent controls how
 * many repositories it makes; the settler still looks at all of them). */
#define LIVE_MAX_FOLDERS 4096

struct live_folder *live_find(struct model_live *l, struct policy_id id);
/* Follows the folder FD (identity from fstat) at PATH as KIND; returns it, or
 * NULL past the bound or out of memory. An id followed already is returned
 * as it is. */
struct live_folder *live_follow(struct model_live *l, int fd, const char *path, enum live_kind kind);
/* The same for an object known by its id. */
struct live_folder *live_follow_id(struct model_live *l, struct policy_id id, const char *path, enum live_kind kind);
bool live_is_known(const struct model_live *l, struct policy_id id);
void live_event(struct model_live *l, const char *event, const char *path, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* A git directory made during the mount, at PATH, opened as FD: tracked,
 * said, and looked at whole once (hooks, configuration, commondir, its
 * modules and worktrees). HOW says what made it. */
void live_track_gitdir(struct model_live *l, int fd, const char *path, enum model_gitdir_kind kind,
                       const char *how);
/* What was written in a git directory made during the mount. */
void live_look_new(struct model_live *l, struct live_folder *f, int fd, const char *name);
/* A hook NAME appeared in the hooks folder FD of such a git directory. */
void live_look_hook(struct model_live *l, const struct live_folder *f, int fd, const char *name);
/* Every entry of the folder FD, followed as F (a modules folder, a hooks folder). */
void live_look_listing(struct model_live *l, struct live_folder *f, int fd);
/* NAME in the modules folder (or part of a name) F, opened as FD. */
void live_look_modules_entry(struct model_live *l, struct live_folder *f, int fd, const char *name);
/* Sorts gitlinks for live_look_index(), which looks each new one up. */
void live_sort_subs(struct gitindex_submodules *s);
/* A new index in the git directory F, there at start. */
void live_look_index(struct model_live *l, struct live_folder *f, int fd);
/* A .git made in the folder FD at PATH. */
void live_look_dotgit(struct model_live *l, int fd, const char *path);
/* Follows the file NAME of the folder FD (at PATH), so that a descriptor
 * that writes it in place is looked at when it closes (a file made empty
 * says something only then). */
struct live_folder *live_follow_file(struct model_live *l, int fd, const char *path, const char *name);
