/* The judge: answers whether one mutating operation may touch the tree.
 *
 * Protection is keyed by identity, never by spelling:
 *  - an existing object is its (dev, ino) on the underlying file system, so a
 *    hard link or a rename cannot shed protection;
 *  - a protected name that does not exist yet is (parent dev, parent ino, name);
 *  - a directory on the way to a protected object is an anchor: it may not be
 *    renamed or removed, so nobody moves .git aside and builds a new one;
 *  - a frozen directory takes no new entry and loses none.
 *
 * Decisions are made against an immutable snapshot (see policy_holder below)
 * and know nothing of FUSE or of Git's formats; the Git model (git/) builds
 * snapshots with the policy_builder.
 *
 * Every check returns 0 to allow and -EACCES to deny; a denial fills the
 * verdict, whose strings live as long as the snapshot reference.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct policy_id {
	uint64_t dev;
	uint64_t ino;
};

enum policy_flag {
	/* Bytes, size, mode, owner, times and xattrs are read-only; for a
	 * directory, its attributes and xattrs only (see POLICY_FROZEN). */
	POLICY_CONTENT = 1u << 0,
	/* A directory that takes no new entry and loses none. */
	POLICY_FROZEN = 1u << 1,
	/* May not be renamed or removed, nor its mode or owner changed. */
	POLICY_ANCHOR = 1u << 2,
	/* A protected file a rename may still give new bytes, when the model
	 * judges them harmless (git_model_may_rewrite); the bytes are written
	 * into this object, so its identity and protection stay. */
	POLICY_REWRITABLE = 1u << 3,
	/* Neither read nor changed, renamed or removed, and nothing below it
	 * reached: an object of a name [deny] lists (seed 004 layer B). */
	POLICY_DENIED = 1u << 4,
};

enum policy_missing_flag {
	/* The name may not come into existence by any means. */
	POLICY_MISSING_NONE = 0,
	/* The name may be made as an empty folder by mkdir (a folder on the way
	 * to a protected name, like .vscode for .vscode/tasks.json); it may not
	 * be made any other way. The model is told and protects what lies in it. */
	POLICY_MISSING_MKDIR_OK = 1u << 0,
};

enum policy_op {
	POLICY_OP_WRITE,       /* open with write access or O_TRUNC */
	POLICY_OP_TRUNCATE,    /* setattr size */
	POLICY_OP_CHMOD,
	POLICY_OP_CHOWN,
	POLICY_OP_UTIMES,
	POLICY_OP_SETXATTR,
	POLICY_OP_REMOVEXATTR,
	POLICY_OP_FALLOCATE,
	POLICY_OP_COPY_INTO,   /* copy_file_range destination */
	POLICY_OP_CREATE,
	POLICY_OP_MKNOD,
	POLICY_OP_MKDIR,
	POLICY_OP_SYMLINK,
	POLICY_OP_LINK,
	POLICY_OP_UNLINK,
	POLICY_OP_RMDIR,
	POLICY_OP_RENAME,
	POLICY_OP_EXCHANGE,    /* rename with RENAME_EXCHANGE */
	POLICY_OP__MAX,
};

/* Stable rule ids, as written to the audit log. */
#define POLICY_RULE_PROTECTED "protected"       /* a protected object */
#define POLICY_RULE_FROZEN "frozen-dir"         /* an entry of a frozen directory */
#define POLICY_RULE_ANCHOR "anchor"             /* a directory on the way to a protected object */
#define POLICY_RULE_MISSING "protected-name"    /* a protected name that does not exist */
#define POLICY_RULE_FAIL_CLOSED "fail-closed"   /* the judge could not decide */
#define POLICY_RULE_DENIED "denied-name"        /* a name [deny] lists, or what lies in it */

struct policy_verdict {
	const char *rule;   /* one of POLICY_RULE_* */
	const char *reason; /* in words: why the object is protected */
	const char *path;   /* tree-relative path of the protected object, "." for the root */
	const char *name;   /* the entry name the operation named, or NULL */
};

/* Returned by policy_check_rename(): allowed only if the source's bytes equal
 * the protected target's, in which case the caller removes the source name and
 * leaves the target untouched (Git rewrites config through config.lock even
 * when nothing changes). */
#define POLICY_IF_IDENTICAL 1

const char *policy_op_name(enum policy_op op);

/* ---- Snapshots ---------------------------------------------------------- */

struct policy_snapshot;
struct policy_builder;

struct policy_builder *policy_builder_new(void);
void policy_builder_free(struct policy_builder *b);

/* Protects an existing object. Flags add up when an object is protected
 * twice; the first reason stays. Returns 0 or -ENOMEM. */
int policy_builder_protect(struct policy_builder *b, struct policy_id id, unsigned flags,
			   const char *path, const char *reason);
/* Protects a name that does not exist in the directory PARENT. */
int policy_builder_protect_missing(struct policy_builder *b, struct policy_id parent, const char *name,
				   unsigned missing_flags, const char *path, const char *reason);
/* Refuses NAME as a new entry anywhere, and everything POLICY_DENIED, to
 * reads too (policy_check_read). */
int policy_builder_deny_name(struct policy_builder *b, const char *name, const char *reason);
/* Asks to be told (policy_watched) when an operation changes this entry. */
int policy_builder_watch(struct policy_builder *b, struct policy_id parent, const char *name);

/* Consumes the builder. Returns NULL only on ENOMEM. */
struct policy_snapshot *policy_builder_finish(struct policy_builder *b);

size_t policy_snapshot_objects(const struct policy_snapshot *s);
size_t policy_snapshot_missing(const struct policy_snapshot *s);
/* Whether the snapshot denies any name: when not, reads need no question. */
bool policy_snapshot_denies(const struct policy_snapshot *s);
/* The reason NAME is a denied name, or NULL. */
const char *policy_lookup_denied_name(const struct policy_snapshot *s, const char *name);

/* Looks an object up; returns its flags (0 when unprotected) and, if wanted,
 * its path and reason. */
unsigned policy_lookup(const struct policy_snapshot *s, struct policy_id id, const char **path,
		       const char **reason);

/* Looks a protected missing name up; returns true and, if wanted, its path,
 * reason and POLICY_MISSING_* flags when NAME in PARENT is one. */
bool policy_lookup_missing(const struct policy_snapshot *s, struct policy_id parent, const char *name,
			   const char **path, const char **reason, unsigned *flags);

/* One entry of a snapshot, as the read-only iteration shows it. The strings
 * live as long as the snapshot. */
struct policy_entry {
	struct policy_id id; /* the object, or the folder a missing name belongs to */
	const char *name;    /* the missing name; NULL for an object */
	unsigned flags;      /* POLICY_* for an object, POLICY_MISSING_* for a name */
	const char *path;
	const char *reason;
};

/* Calls FN for every protected object (or missing name), in no set order,
 * each once (an object protected twice shows the union of its flags). For
 * reports (oz0fs --check); decisions use the lookups. */
void policy_snapshot_foreach_object(const struct policy_snapshot *s,
				    void (*fn)(const struct policy_entry *e, void *data), void *data);
void policy_snapshot_foreach_missing(const struct policy_snapshot *s,
				     void (*fn)(const struct policy_entry *e, void *data), void *data);

/* ---- Decisions ---------------------------------------------------------- */
/* A NULL snapshot denies with POLICY_RULE_FAIL_CLOSED. */

/* Changes to an existing object: WRITE, TRUNCATE, CHMOD, CHOWN, UTIMES,
 * SETXATTR, REMOVEXATTR, FALLOCATE, COPY_INTO. */
int policy_check_object(const struct policy_snapshot *s, enum policy_op op, struct policy_id obj,
			struct policy_verdict *v);

/* A new entry NAME in PARENT: CREATE, MKNOD, MKDIR, SYMLINK (and LINK, via
 * policy_check_link). */
int policy_check_add(const struct policy_snapshot *s, enum policy_op op, struct policy_id parent,
		     const char *name, struct policy_verdict *v);

/* A new name for the existing object OBJ. */
int policy_check_link(const struct policy_snapshot *s, struct policy_id obj, struct policy_id newparent,
		      const char *newname, struct policy_verdict *v);

/* Removing NAME (the object CHILD) from PARENT: UNLINK or RMDIR. */
int policy_check_remove(const struct policy_snapshot *s, enum policy_op op, struct policy_id parent,
			const char *name, struct policy_id child, struct policy_verdict *v);

/* rename(2)/renameat2(2). NEWOBJ is the object NEWNAME names now, or NULL.
 * FLAGS are renameat2's (RENAME_NOREPLACE, RENAME_EXCHANGE).
 * Returns 0, POLICY_IF_IDENTICAL or -EACCES. */
int policy_check_rename(const struct policy_snapshot *s, struct policy_id oldparent, const char *oldname,
			struct policy_id oldobj, struct policy_id newparent, const char *newname,
			const struct policy_id *newobj, unsigned flags, struct policy_verdict *v);

/* Reading the object OBJ (an open, a listing, a link's target, an xattr),
 * or looking a name up in it: refused for a POLICY_DENIED one. */
int policy_check_read(const struct policy_snapshot *s, struct policy_id obj, struct policy_verdict *v);

/* True when the model asked to hear of changes to this entry. */
bool policy_watched(const struct policy_snapshot *s, struct policy_id parent, const char *name);

/* ---- Publication -------------------------------------------------------- */
/* A holder owns the current snapshot. Readers acquire a reference for the
 * length of one operation; a refresh publishes a whole new snapshot, and the
 * old one is freed when its last reader lets go. Thread-safe. */

struct policy_holder;

struct policy_holder *policy_holder_new(struct policy_snapshot *initial);
/* Frees the holder and its snapshot; no reader may hold a reference. */
void policy_holder_free(struct policy_holder *h);
/* Takes ownership of S. */
void policy_holder_publish(struct policy_holder *h, struct policy_snapshot *s);
/* The current snapshot, for one operation: no lock and no shared write when
 * nothing was published since this thread's last acquire (policy/holder.c).
 * The thread that acquired a snapshot releases it. */
const struct policy_snapshot *policy_holder_acquire(struct policy_holder *h);
void policy_snapshot_release(const struct policy_snapshot *s);
