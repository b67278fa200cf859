/* The glue between the operations and the judge: one snapshot per operation,
 * one question per change, and an audit line for every refusal.
 *
 *   _cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);
 *   r = judge_add(fs, req, s, POLICY_OP_MKDIR, parent, name);
 *   ...do it...
 *   judge_changed(fs, s, parentfd, parent, name);
 *
 * Every judge_* returns 0 to allow or -EACCES after auditing the refusal.
 */
#pragma once

#include "fs/internal.h"

const struct policy_snapshot *judge_acquire(struct fs *fs);
void judge_release(const struct policy_snapshot **s);
#define _cleanup_snapshot_ __attribute__((cleanup(judge_release)))

int judge_object(struct fs *fs, fuse_req_t req, const struct policy_snapshot *s, enum policy_op op,
                 struct policy_id obj, unsigned long flags);
int judge_add(struct fs *fs, fuse_req_t req, const struct policy_snapshot *s, enum policy_op op,
              struct policy_id parent, const char *name);
int judge_link(struct fs *fs, fuse_req_t req, const struct policy_snapshot *s, struct policy_id obj,
               struct policy_id newparent, const char *newname);
int judge_remove(struct fs *fs, fuse_req_t req, const struct policy_snapshot *s, enum policy_op op,
                 struct policy_id parent, const char *name, struct policy_id child);
/* Returns 0, POLICY_IF_IDENTICAL (not audited: the caller decides) or -EACCES;
 * V is filled for POLICY_IF_IDENTICAL so a later refusal can be audited. */
int judge_rename(struct fs *fs, fuse_req_t req, const struct policy_snapshot *s, struct policy_id oldparent,
                 const char *oldname, struct policy_id oldobj, struct policy_id newparent, const char *newname,
                 const struct policy_id *newobj, unsigned flags, struct policy_verdict *v);

/* Reading OBJ (OP_NAME: "open", "opendir", "readlink", "lookup" in it...),
 * judged only where [deny] names something; FLAGS as for the audit line. */
int judge_read(struct fs *fs, fuse_req_t req, const char *op_name, struct policy_id obj, unsigned long flags);

/* Audits a refusal and returns -EACCES. */
int judge_refuse(struct fs *fs, fuse_req_t req, const char *op_name, const struct policy_verdict *v,
                 unsigned long flags);
/* Refuses, fail-closed, an operation whose object could not be examined. */
int judge_fail_closed(struct fs *fs, fuse_req_t req, enum policy_op op, const char *name, int error);

/* Tells the model that NAME in PARENT (open as PARENTFD) was created, removed
 * or replaced, if the snapshot or the live model asked to hear of it. Call
 * before replying. */
void judge_changed(struct fs *fs, const struct policy_snapshot *s, int parentfd, struct policy_id parent,
                   const char *name);
/* An entry of a rename: NAME in the folder PARENT, open as PARENTFD. */
struct judge_move {
	int parentfd;
	struct policy_id parent;
	const char *name;
};

/* FROM was renamed to TO (ST, its stat): the model follows it there, and
 * hears of both names as judge_changed() says. REPLACED is the stat of the
 * entry the rename replaced at TO, or NULL. */
void judge_renamed(struct fs *fs, const struct policy_snapshot *s, const struct judge_move *from,
                   const struct judge_move *to, const struct stat *st, const struct stat *replaced);
/* The same after CHILD (its stat, as it was) was removed from PARENT as NAME. */
void judge_removed(struct fs *fs, const struct policy_snapshot *s, int parentfd, struct policy_id parent,
                   const char *name, const struct stat *child);
/* A descriptor that wrote OBJ was closed. */
void judge_written(struct fs *fs, struct policy_id obj);
