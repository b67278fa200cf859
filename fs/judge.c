#include "config.h"

#include <errno.h>
#include <string.h>

#include "fs/judge.h"
#include "git/model.h"
#include "policy/audit.h"

/* ASK(check) asks the policy. Only for the benchmark, oz0fs-nojudge
 * (tests/bench, built by `make bench`, never installed) is compiled with
 * OZ0_JUDGE_ALLOWS_ALL: every decision then allows without asking, so that
 * the two binaries differ by the judge's decisions alone. The snapshot is
 * still taken, as judge_changed needs it to keep the model up to date. */
#ifdef OZ0_JUDGE_ALLOWS_ALL
#define ASK(check) ((void)sizeof(check), 0)
#else
#define ASK(check) (check)
#endif

const struct policy_snapshot *judge_acquire(struct fs *fs)
{
	return policy_holder_acquire(git_model_holder(fs->model));
}

void judge_release(const struct policy_snapshot **s)
{
	if (*s)
		policy_snapshot_release(*s);
	*s = NULL;
}

int judge_refuse(struct fs *fs, fuse_req_t req, const char *op_name, const struct policy_verdict *v,
                 unsigned long flags)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);

	audit_refusal(fs->audit, op_name, v, flags, ctx->pid, ctx->uid);
	return -EACCES;
}

/* Audits R's verdict when R denies. */
static int judged(struct fs *fs, fuse_req_t req, int r, enum policy_op op, const struct policy_verdict *v,
                  unsigned long flags)
{
	return r < 0 ? judge_refuse(fs, req, policy_op_name(op), v, flags) : r;
}

int judge_object(struct fs *fs, fuse_req_t req, const struct policy_snapshot *s, enum policy_op op,
                 struct policy_id obj, unsigned long flags)
{
	struct policy_verdict v;
	return judged(fs, req, ASK(policy_check_object(s, op, obj, &v)), op, &v, flags);
}

int judge_add(struct fs *fs, fuse_req_t req, const struct policy_snapshot *s, enum policy_op op,
              struct policy_id parent, const char *name)
{
	struct policy_verdict v;
	return judged(fs, req, ASK(policy_check_add(s, op, parent, name, &v)), op, &v, 0);
}

int judge_link(struct fs *fs, fuse_req_t req, const struct policy_snapshot *s, struct policy_id obj,
               struct policy_id newparent, const char *newname)
{
	struct policy_verdict v;
	return judged(fs, req, ASK(policy_check_link(s, obj, newparent, newname, &v)), POLICY_OP_LINK, &v, 0);
}

int judge_remove(struct fs *fs, fuse_req_t req, const struct policy_snapshot *s, enum policy_op op,
                 struct policy_id parent, const char *name, struct policy_id child)
{
	struct policy_verdict v;
	return judged(fs, req, ASK(policy_check_remove(s, op, parent, name, child, &v)), op, &v, 0);
}

int judge_read(struct fs *fs, fuse_req_t req, const char *op_name, struct policy_id obj, unsigned long flags)
{
	struct policy_verdict v;

	if (!fs->judges_reads)
		return 0;
	_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);
	int r = ASK(policy_check_read(s, obj, &v));
	return r < 0 ? judge_refuse(fs, req, op_name, &v, flags) : 0;
}

static enum policy_op rename_op(unsigned flags)
{
	return (flags & RENAME_EXCHANGE) ? POLICY_OP_EXCHANGE : POLICY_OP_RENAME;
}

int judge_rename(struct fs *fs, fuse_req_t req, const struct policy_snapshot *s, struct policy_id oldparent,
                 const char *oldname, struct policy_id oldobj, struct policy_id newparent, const char *newname,
                 const struct policy_id *newobj, unsigned flags, struct policy_verdict *v)
{
	int r = ASK(policy_check_rename(s, oldparent, oldname, oldobj, newparent, newname, newobj, flags, v));
	return r == POLICY_IF_IDENTICAL ? r : judged(fs, req, r, rename_op(flags), v, flags);
}

int judge_fail_closed(struct fs *fs, fuse_req_t req, enum policy_op op, const char *name, int error)
{
	struct policy_verdict v = {
	        .rule = POLICY_RULE_FAIL_CLOSED,
	        .reason = strerror(-error),
	        .path = "",
	        .name = name,
	};
	return judge_refuse(fs, req, policy_op_name(op), &v, 0);
}

void judge_changed(struct fs *fs, const struct policy_snapshot *s, int parentfd, struct policy_id parent,
                   const char *name)
{
	if (s && policy_watched(s, parent, name))
		git_model_changed(fs->model, parent, name);
	if (git_model_follows(fs->model, parent, name))
		git_model_note(fs->model, parentfd, parent, name);
}

/* CHILD lost a name: once it has none, the model forgets what it followed
 * by its identity, since the file system gives that number to the next
 * object made (a folder made there must not read as, say, a config file
 * git replaced). A file with another link is still there. */
static void judge_unnamed(struct fs *fs, const struct stat *child)
{
	if (S_ISDIR(child->st_mode) || child->st_nlink <= 1)
		git_model_forget(fs->model, stat_policy_id(child));
}

void judge_renamed(struct fs *fs, const struct policy_snapshot *s, const struct judge_move *from,
                   const struct judge_move *to, const struct stat *st, const struct stat *replaced)
{
	if (replaced)
		judge_unnamed(fs, replaced);
	git_model_renamed(fs->model, from->parentfd, from->name, to->parentfd, to->name, stat_policy_id(st),
	                  S_ISDIR(st->st_mode));
	judge_changed(fs, s, from->parentfd, from->parent, from->name);
	judge_changed(fs, s, to->parentfd, to->parent, to->name);
}

void judge_removed(struct fs *fs, const struct policy_snapshot *s, int parentfd, struct policy_id parent,
                   const char *name, const struct stat *child)
{
	judge_unnamed(fs, child);
	judge_changed(fs, s, parentfd, parent, name);
}

void judge_written(struct fs *fs, struct policy_id obj)
{
	if (git_model_follows_file(fs->model, obj))
		git_model_note_written(fs->model, obj);
}
