/* Git's index file (the staging area), read as git 2.39 reads it
 * (read-cache.c: do_read_index, create_from_disk; split-index.c:
 * merge_base_index; ewah/ewah_io.c).
 *
 * The model needs one thing from an index: the submodules it records
 * (gitlinks, mode 160000), since git follows each into its folder. An index
 * is untrusted input an agent may have written, so the reader is bounded and
 * fails closed: whatever git could read differently from us, or we cannot
 * read whole, is refused with the reason in words.
 *
 * Read: versions 2, 3 (extended flags) and 4 (prefix-compressed paths);
 * SHA-1 and SHA-256 repositories; the split index (`link` extension plus the
 * `sharedindex.<hex>` file beside the index, merged as git merges them).
 * Extensions git knows (TREE, REUC, UNTR, FSMN, EOIE, IEOT, sdir) and
 * optional ones (first letter A-Z) are skipped; an unknown mandatory one
 * (lowercase first letter) is refused, as git refuses it.
 *
 * Stricter than git, on purpose (each is something git never writes):
 * - the trailing checksum is verified (git checks it only in fsck); an
 *   all-zero checksum is accepted, as git >= 2.40 writes with index.skipHash;
 * - entries must be in git's order (git checks it only in fsck), so that our
 *   merge of a split index is the one git's binary searches make;
 * - a path holding a NUL byte, a path not NUL-terminated where git expects
 *   it, an extension running past the checksum, and an EOIE/IEOT pair that
 *   would make git's threaded reader see other entries than its sequential
 *   reader are refused. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hard limits on what one index may make us do. */
#define GITINDEX_MAX_BYTES      ((size_t)512 << 20) /* one file (-EFBIG) */
#define GITINDEX_MAX_ENTRIES    (1u << 23)          /* entries in one file (-E2BIG) */
#define GITINDEX_MAX_PATH       4096                /* bytes of one path (-E2BIG) */
#define GITINDEX_MAX_EXTENSIONS 1024                /* extensions in one file (-E2BIG) */
#define GITINDEX_MAX_SUBMODULES 4096                /* distinct gitlink paths (-E2BIG) */

#define GITINDEX_MODE_GITLINK 0160000u
#define GITINDEX_MODE_DIR     0040000u /* a sparse index's folder entry */

/* The repository's object format (extensions.objectFormat), which the
 * caller knows from its config: the index does not say. */
enum gitindex_hash {
	GITINDEX_SHA1,
	GITINDEX_SHA256,
};

/* Bytes of one object id (and of the trailing checksum): 20 or 32. */
size_t gitindex_hash_len(enum gitindex_hash hash);

enum gitindex_entry_flags {
	GITINDEX_ASSUME_VALID   = 1 << 0,
	GITINDEX_INTENT_TO_ADD  = 1 << 1,
	GITINDEX_SKIP_WORKTREE  = 1 << 2,
};

/* One entry as `git ls-files --stage` shows it. path is NUL-terminated and
 * holds no NUL; path and oid are valid only during the callback. */
struct gitindex_entry {
	const char *path;
	size_t path_len;
	const unsigned char *oid; /* gitindex_hash_len() bytes */
	uint32_t mode;
	unsigned stage; /* 0 merged, 1-3 a conflict's base, ours, theirs */
	unsigned flags; /* enum gitindex_entry_flags */
};

/* Called once per entry in index order, for a split index after the merge.
 * A negative return stops the parse and is returned by gitindex_parse(). */
typedef int (*gitindex_cb)(const struct gitindex_entry *entry, void *userdata);

/* The shared index of a split index: the bytes of sharedindex.<hex>. */
struct gitindex_shared {
	const char *buf;
	size_t len;
};

/* Why a parse failed. reason is a static string in words ("checksum
 * mismatch"); shared tells that it is about the shared index rather than the
 * index itself; origin is the caller's name for the index. A message reads
 * "<origin>: <reason>" or "<origin>: shared index: <reason>". */
struct gitindex_error {
	const char *origin;
	const char *reason;
	bool shared;
};

/* The longest name gitindex_link() writes, NUL included. */
#define GITINDEX_SHARED_NAME_MAX (sizeof("sharedindex.") + 64)

/* Whether the index in buf is split: returns 1 and writes the name of its
 * shared index ("sharedindex.<hex>") to name, 0 when it is not split, or
 * gitindex_parse()'s errors. Pure; a first look at the structure, which
 * leaves the checksum to gitindex_parse(). */
int gitindex_link(const char *buf, size_t len, const char *origin, enum gitindex_hash hash,
                  char name[GITINDEX_SHARED_NAME_MAX], struct gitindex_error *err);

/* Parses the index in buf (len bytes; for a split index, shared holds the
 * shared index's bytes, else NULL) and calls cb for every entry, only once
 * the whole index is known to be good, so a caller never sees entries of an
 * index that is then refused. Pure: no I/O.
 *
 * Returns the number of entries, or -EINVAL for an index git would refuse
 * or we refuse (see above), -ENOENT for a split index given no shared index,
 * -EFBIG or -E2BIG past the limits above, -ENOMEM, or the callback's
 * negative return. err, when not NULL, is filled on failure (not for
 * -ENOMEM or a callback's return). */
int gitindex_parse(const char *buf, size_t len, const char *origin, enum gitindex_hash hash,
                   const struct gitindex_shared *shared, gitindex_cb cb, void *userdata,
                   struct gitindex_error *err);

/* The submodule paths of an index, distinct, in index order. */
struct gitindex_submodules {
	char **paths;
	size_t n;
};

void gitindex_submodules_free(struct gitindex_submodules *s);

/* Whether git would accept path as a submodule's: not empty, no leading or
 * trailing '/', no empty, "." or ".." component, no ".git" component in any
 * case. */
bool gitindex_path_is_safe(const char *path, size_t len);

/* Collects the gitlinks of an index (every stage) into out. Beyond
 * gitindex_parse()'s errors: -EINVAL when a gitlink's path is not safe or a
 * sparse index's folder entry could hide gitlinks in trees we do not read,
 * -E2BIG past GITINDEX_MAX_SUBMODULES, -ENOMEM. On failure out is empty. */
int gitindex_parse_submodules(const char *buf, size_t len, const char *origin,
                              enum gitindex_hash hash, const struct gitindex_shared *shared,
                              struct gitindex_submodules *out, struct gitindex_error *err);

/* The reading wrapper: reads NAME ("index", "worktrees/wt/index") beneath
 * DIRFD through git/read.h (no link followed, regular files only, at most
 * GITINDEX_MAX_BYTES) and, for a split index, the sharedindex.<hex> file in
 * the same folder; then collects its submodules as above. origin names the
 * index in messages. Returns the number of submodules, -ENOENT when the
 * index does not exist (a repository with nothing staged), -ENOMEM, or
 * gitindex_parse_submodules()'s errors with err filled: a link, a FIFO or a
 * folder in the index's place, and a missing, linked or unreadable shared
 * index, are -EINVAL; an index over 512 MiB is -EFBIG. */
int gitindex_read_submodules(int dirfd, const char *name, const char *origin,
                             enum gitindex_hash hash, struct gitindex_submodules *out,
                             struct gitindex_error *err);

/* The same, skipping an index that did not change: *PRINT holds the XXH3
 * fingerprint of the index file read last (0 at first) and is updated; an
 * index with the same fingerprint returns -EALREADY, unparsed. A split
 * index's own file names its shared index, so its fingerprint covers both. */
int gitindex_reread_submodules(int dirfd, const char *name, const char *origin, enum gitindex_hash hash,
                               uint64_t *print, struct gitindex_submodules *out, struct gitindex_error *err);
