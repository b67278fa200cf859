/* A repository's own configuration, read as git 2.39 reads it for
 * `git config --list --show-origin --includes` run at the tree's root, with
 * no system or global file (the model reads only what lies in the tree).
 *
 * The files, in git's order: COMMONDIR/config, then GITDIR/config.worktree
 * when the common config (read without includes, as git's repository
 * format check reads it) sets extensions.worktreeConfig and a repository
 * format git accepts. Each file's include.path and includeIf.<cond>.path
 * are followed where git follows them:
 *
 *  - a relative path is joined to the including file's folder as git names
 *    it; "~/" and "~user/" expand to a home, "%(prefix)/" to git's own
 *    prefix (always outside the tree);
 *  - gitdir:, gitdir/i: match the git dir's real path with git's wildmatch
 *    ("**", "~/" and "./" as include_by_gitdir; a trailing '/' gains "**",
 *    a pattern that is not absolute after expansion gains a leading "**" + '/');
 *  - onbranch: matches HEAD's branch (through symbolic refs, as git's
 *    resolve_ref_unsafe, read with git/read.h);
 *  - hasconfig:remote.*.url: matches the remote URLs of the whole config,
 *    gathered in a second pass that takes every such include, and in which
 *    a file includeIf brings in may not set a remote URL (git dies);
 *  - past 10 nested includes git dies (a cycle ends so), and so do we.
 *
 * Which files are read: an include that resolves inside the tree is read
 * through gitread_file() beneath ROOTFD, so a link on the way, a FIFO, a
 * file over 1 MiB or one the parser rejects fails the whole read with that
 * file and the reason; a missing one is skipped as git skips it, and
 * reported, for the model must keep anyone from making it. An include that
 * resolves outside the tree is read by its physical path (gitread_outside():
 * the person's file, never made writable) for what it includes back into the
 * tree; one it cannot read is left to the system. An includeIf whose
 * condition does not hold now is followed too, its files marked dormant: a
 * checkout or a move makes the condition hold, and git then reads them.
 *
 * Paths are resolved against ROOT_PATH, the tree's real path (or SEEN_AS,
 * where git sees it), lexically, then physically when that leaves the tree:
 * a link inside the tree on the way fails the read; a path that leaves the
 * tree and comes back in through a link outside it is the file in the tree
 * git reaches. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define GITCFG_READ_MAX_DEPTH   10    /* git's MAX_INCLUDE_DEPTH */
#define GITCFG_READ_MAX_FILES   256   /* files looked at, both passes (-E2BIG) */
#define GITCFG_READ_MAX_ENTRIES 65536 /* entries in all (-E2BIG) */
#define GITCFG_READ_MAX_URLS    256   /* remote URLs hasconfig: weighs (-E2BIG):
                                       * each condition is matched against all */

struct gitcfg_read_opts {
	const char *root_path; /* the tree's real absolute path, no trailing '/' */
	const char *gitdir;    /* git dir relative to the tree, e.g. ".git" */
	const char *commondir; /* common dir relative to the tree; NULL: gitdir */
	const char *home;      /* $HOME git would see, a real path; NULL when unset */
	const char *seen_as;   /* where git sees the tree (a mount point), absolute;
	                        * NULL: at root_path */
};

enum gitcfg_file_state {
	GITCFG_FILE_READ,    /* inside the tree, read whole */
	GITCFG_FILE_MISSING, /* inside the tree, absent: git skips it */
	GITCFG_FILE_OUTSIDE, /* outside the tree: not read, left to the system */
};

/* One file git reads, or would read if it existed. */
struct gitcfg_file {
	char *origin; /* as --show-origin names it, after "file:" (".git/config") */
	char *path;   /* tree-relative, normalised; for MISSING the first
	               * component that does not exist (what must not be made);
	               * NULL for OUTSIDE */
	enum gitcfg_file_state state;
	int parent;      /* index of the including file, -1 for a top file */
	int line;        /* line of the include in the parent, 0 for a top file */
	bool urls_only;  /* looked at only by the hasconfig pass, which
	                  * gathers remote URLs: none of its entries apply */
	bool dormant;    /* brought in by an includeIf whose condition does
	                  * not hold now (or by a file that is): its entries
	                  * are listed, but git applies them only once the
	                  * condition holds */
};

struct gitcfg_read_entry {
	char *name;  /* as git lists it (section and key lowercased) */
	char *value; /* NULL for an implicit true */
	int file;    /* index in files */
	int line;
};

struct gitcfg_config {
	struct gitcfg_read_entry *entries;
	size_t n_entries;
	struct gitcfg_file *files;
	size_t n_files;
};

/* Why a read failed: the file as git names it (or as far as it got) and a
 * sentence. */
struct gitcfg_read_error {
	char file[4096];
	char reason[256];
};

/* Reads the configuration. Returns 0 and *out (free with
 * gitcfg_config_free()), or -EINVAL where git would die (a bad line, a
 * depth past 10, a remote URL a hasconfig include may not set, an
 * unexpandable path, a repository format git refuses), -ELOOP / -EFBIG /
 * -EXDEV / -EINVAL (not a regular file) as gitread_file() for a file in the
 * tree, -E2BIG past the limits above, or -ENOMEM. err is filled on failure. */
int gitcfg_read(int rootfd, const struct gitcfg_read_opts *opts, struct gitcfg_config **out,
                struct gitcfg_read_error *err);

struct gitcfg_config *gitcfg_config_free(struct gitcfg_config *c);
