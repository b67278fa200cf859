/* The settler's STATE: what a tree's Git state was before a run
 * (oz0settle record), for `oz0settle settle` to tell afterwards what the run
 * added or changed.
 *
 * STATE is a file the runner keeps outside the tree until the run is
 * settled, so it is read as untrusted input: an interrupted run leaves it
 * behind, and anything may have replaced it meanwhile. On disk it is one
 * header line, "oz0settle-state <version> sha256:<hex of the body>\n", then
 * the body, a JSON document written and read with json-c. A body cut short,
 * changed, of another version, past the bounds below, or of a shape other
 * than this one's is refused whole: nothing is settled from a STATE that
 * cannot be trusted.
 *
 * Every path is tree-relative ("sub/.git", ".git/modules/lib"), "" the tree
 * itself, and may hold any byte but NUL (a newline included): the format
 * keeps each byte as it was. No path has an empty, "." or ".." component;
 * a hook or worktree entry is one component; dir is absolute; no list
 * holds the same path or name twice. A STATE of another shape is neither
 * written nor read (state.c's top comment has the body's form). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SETTLE_STATE_VERSION   1
#define SETTLE_STATE_MAX_BYTES ((size_t)64 << 20)
/* Beyond these a STATE is refused (and record refuses to write one). */
#define SETTLE_STATE_MAX_GITDIRS 65536
#define SETTLE_STATE_MAX_DOTGITS 65536
#define SETTLE_STATE_MAX_NAMES   65536 /* in one list */
#define SETTLE_STATE_MAX_TEXT    4096  /* bytes of one path, name or .git file */

/* A list of names or paths, each NUL-terminated. */
struct settle_names {
	char **v;
	size_t n;
};

/* How a git directory was reached. */
enum settle_gitdir_kind {
	SETTLE_GITDIR_DOTGIT, /* a .git folder in the tree */
	SETTLE_GITDIR_NAMED,  /* named by a .git file in the tree (outside any .git) */
	SETTLE_GITDIR_MODULE, /* below some git directory's modules/ */
	SETTLE_GITDIR_LINKED, /* a linked worktree's folder, below worktrees/ */
	SETTLE_GITDIR_BARE,   /* a bare repository (HEAD, objects, refs) in the tree */
};

struct settle_gitdir {
	char *path;
	uint64_t dev, ino; /* the folder's identity: the same path made anew is new */
	enum settle_gitdir_kind kind;
	bool served;       /* a .git in the tree reaches it: its index is read at the end */
	uint64_t config_print;     /* XXH3 of its config file; 0 when there is none */
	uint64_t todo_print;       /* of rebase-merge/git-rebase-todo; 0 when none */
	uint64_t sequencer_print;  /* of sequencer/todo; 0 when none */
	struct settle_names hooks;     /* entries of hooks/ */
	struct settle_names modules;   /* git directories below modules/, relative to it */
	struct settle_names worktrees; /* entries of worktrees/ */
	struct settle_names gitlinks;  /* the submodule paths its index records (served only) */
};

enum settle_dotgit_type {
	SETTLE_DOTGIT_DIR,
	SETTLE_DOTGIT_FILE,
	SETTLE_DOTGIT_LINK,
	SETTLE_DOTGIT_OTHER, /* a FIFO, a socket, a device */
};

/* A .git entry of the work tree (not inside a git directory). */
struct settle_dotgit {
	char *path;   /* "sub/.git" */
	enum settle_dotgit_type type;
	char *text;   /* FILE: its bytes; LINK: its target; NULL otherwise */
	size_t len;   /* of text, which may hold a NUL for FILE */
	char *target; /* the git directory it leads to in the tree (tree-relative), or NULL */
};

struct settle_state {
	unsigned version;
	char *dir;         /* the tree's real path when recorded */
	uint64_t dev, ino; /* and its identity */
	struct settle_gitdir *gitdirs;
	size_t n_gitdirs;
	struct settle_dotgit *dotgits;
	size_t n_dotgits;
	struct settle_names locked; /* folders without the owner's rwx at the start */
};

/* The file's bytes for S (header and body), malloc'd in *OUT, *LEN long;
 * the header says SETTLE_STATE_VERSION whatever S->version holds. Returns
 * 0, -E2BIG past the bounds above, -EINVAL for what parse would refuse (a
 * path NULL or of another form, a NUL in a link's target, a text on a DIR
 * or OTHER, an unknown kind or type, a path twice in a list), or -ENOMEM. */
int settle_state_format(const struct settle_state *s, char **out, size_t *len);

/* Parses BUF (LEN bytes, a whole STATE file) into *OUT. Pure. Returns 0, or
 * -EINVAL with *WHY (a static sentence: "the checksum does not match the
 * body", "the STATE is of a version this oz0settle does not read") for
 * anything but a STATE this version wrote intact, -E2BIG with *WHY past the
 * bounds, -ENOMEM. *WHY is NULL but for -EINVAL and -E2BIG; *OUT is empty
 * on failure. */
int settle_state_parse(const char *buf, size_t len, struct settle_state *out, const char **why);

/* Writes S to FILE: a new file beside it (FILE.tmp-<pid>, mode 0600),
 * fsync'd, renamed over FILE, and the folder fsync'd, so a crash leaves the
 * old STATE or the new one whole. A link at FILE is replaced, not followed.
 * Returns 0, settle_state_format()'s errors, or -errno. */
int settle_state_write(const struct settle_state *s, const char *file);

/* Reads FILE (a regular file only, no link followed, never blocking, at most
 * SETTLE_STATE_MAX_BYTES) and parses it. Returns 0, -ENOENT, -ELOOP for a
 * link, -errno of the read, -EINVAL with *WHY for what is not a regular
 * file, -E2BIG with *WHY past the bound, or settle_state_parse()'s errors. */
int settle_state_read(const char *file, struct settle_state *out, const char **why);

void settle_names_done(struct settle_names *n);
/* Appends a copy of NAME (LEN bytes). Returns 0, -EINVAL when those bytes
 * hold a NUL, or -ENOMEM. */
int settle_names_add(struct settle_names *n, const char *name, size_t len);
/* A linear search: lists are kept in the order they were made. */
bool settle_names_has(const struct settle_names *n, const char *name);

void settle_state_done(struct settle_state *s);
