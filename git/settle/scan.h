/* One look at a tree's Git state, for record (kept as the STATE) and for
 * settle (compared with it). Internal to git/settle/.
 *
 * The work tree is walked fd-relative from its root, following no link:
 * every .git entry (a folder, a file and where its gitdir: leads, a link), a
 * bare repository (a folder holding HEAD, objects and refs, which git run
 * there takes for a git directory), and the folders without the owner's
 * access. Then each git directory found: its identity, its config's and
 * todo lists' fingerprints, its hooks, the git directories below its modules
 * and worktrees folders (which join the list), and the submodules its index
 * records when a .git in the tree reaches it. Names holding
 * ".sandbox-refused" are what an earlier settle set aside: not walked. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "git/settle/state.h"

#define SCAN_MAX_DEPTH   256
#define SCAN_MAX_ENTRIES ((size_t)16 << 20)
#define SCAN_QUARANTINE  ".sandbox-refused"

struct settle_scan;

/* Called for a folder without the owner's rwx before it is walked (AT the
 * folder holding it, NAME its name, PATH tree-relative). Returns true when
 * the lock is the person's (it was there before the run): a folder that then
 * cannot be opened is passed over, not reported. Without a callback every
 * lock is the person's. */
typedef bool (*scan_locked_cb)(struct settle_scan *sc, int at, const char *name, const char *path);

struct settle_scan {
	struct settle_state st;
	/* Parallel to st.gitdirs: the work tree each serves (tree-relative,
	 * "" for the root), or NULL. */
	char **worktree_of;
	/* Served git directories whose index cannot be read whole. */
	struct settle_names bad_indexes;
	/* What could not be looked at, one "PATH: why" each. */
	struct settle_names unseen;
	const char *seen_as; /* where git saw the tree (the mount point), or NULL */
	scan_locked_cb on_locked;
	void *ctx;
	size_t entries; /* walked so far, bounded by SCAN_MAX_ENTRIES */
};

/* Scans the tree open as ROOTFD, whose real path is DIR, into SC (its
 * seen_as, on_locked and ctx set by the caller, the rest zero). Returns 0,
 * or -errno with *ERRMSG when the tree itself cannot be read. What one part
 * of it does not let be read goes to SC->unseen. */
int settle_scan(int rootfd, const char *dir, struct settle_scan *sc, char **errmsg);

void settle_scan_done(struct settle_scan *sc);

/* The index of the git directory at PATH in SC, or -1. */
long settle_scan_find(const struct settle_state *st, const char *path);

/* PARENT/NAME, "" standing for the root. malloc'd, NULL on -ENOMEM. */
char *settle_join(const char *parent, const char *name);

/* The names in the folder FD (not "." or ".."), sorted, so two scans of one
 * tree meet its git directories in one order. Returns 0, -E2BIG past
 * SETTLE_STATE_MAX_NAMES, or -errno. */
int settle_list_names(int fd, struct settle_names *out);
