/* The decisions: one function per kind of question the mount asks. */
#include "config.h"

#include <errno.h>
#include <linux/fs.h>
#include <stddef.h>

#include "common/cleanup.h"
#include "snapshot-internal.h"

static const char *const op_names[POLICY_OP__MAX] = {
	[POLICY_OP_WRITE] = "write",
	[POLICY_OP_TRUNCATE] = "truncate",
	[POLICY_OP_CHMOD] = "chmod",
	[POLICY_OP_CHOWN] = "chown",
	[POLICY_OP_UTIMES] = "utimes",
	[POLICY_OP_SETXATTR] = "setxattr",
	[POLICY_OP_REMOVEXATTR] = "removexattr",
	[POLICY_OP_FALLOCATE] = "fallocate",
	[POLICY_OP_COPY_INTO] = "copy-into",
	[POLICY_OP_CREATE] = "create",
	[POLICY_OP_MKNOD] = "mknod",
	[POLICY_OP_MKDIR] = "mkdir",
	[POLICY_OP_SYMLINK] = "symlink",
	[POLICY_OP_LINK] = "link",
	[POLICY_OP_UNLINK] = "unlink",
	[POLICY_OP_RMDIR] = "rmdir",
	[POLICY_OP_RENAME] = "rename",
	[POLICY_OP_EXCHANGE] = "exchange",
};

const char *policy_op_name(enum policy_op op)
{
	return (unsigned)op < ELEMENTSOF(op_names) && op_names[op] ? op_names[op] : "unknown";
}

static int deny(struct policy_verdict *v, const char *rule, const char *reason, const char *path, const char *name)
{
	*v = (struct policy_verdict){ .rule = rule, .reason = reason, .path = path, .name = name };
	return -EACCES;
}

static int deny_fail_closed(struct policy_verdict *v, const char *name)
{
	return deny(v, POLICY_RULE_FAIL_CLOSED, "the protection model is not available", "", name);
}

static bool changes_owner_or_mode(enum policy_op op)
{
	return op == POLICY_OP_CHMOD || op == POLICY_OP_CHOWN;
}

int policy_check_object(const struct policy_snapshot *s, enum policy_op op, struct policy_id obj,
			struct policy_verdict *v)
{
	const struct policy_object *o;

	if (!s)
		return deny_fail_closed(v, NULL);
	o = policy_find_object(s, obj);
	if (!o)
		return 0;
	if (o->flags & POLICY_DENIED)
		return deny(v, POLICY_RULE_DENIED, o->reason, o->path, NULL);
	if (o->flags & POLICY_CONTENT)
		return deny(v, POLICY_RULE_PROTECTED, o->reason, o->path, NULL);
	/* An anchor's mode or owner decides who may reach what it holds. */
	if ((o->flags & POLICY_ANCHOR) && changes_owner_or_mode(op))
		return deny(v, POLICY_RULE_ANCHOR, o->reason, o->path, NULL);
	return 0;
}

/* A frozen folder, and a denied one, take no new entry and lose none. */
static int check_not_frozen(const struct policy_snapshot *s, struct policy_id parent, const char *name,
			    struct policy_verdict *v)
{
	const struct policy_object *p = policy_find_object(s, parent);

	if (p && (p->flags & POLICY_DENIED))
		return deny(v, POLICY_RULE_DENIED, p->reason, p->path, name);
	if (p && (p->flags & POLICY_FROZEN))
		return deny(v, POLICY_RULE_FROZEN, p->reason, p->path, name);
	return 0;
}

/* A denied name may come into existence nowhere, by no means. */
static int check_name_allowed(const struct policy_snapshot *s, const char *name, struct policy_verdict *v)
{
	const char *reason = policy_lookup_denied_name(s, name);

	return reason ? deny(v, POLICY_RULE_DENIED, reason, name, name) : 0;
}

int policy_check_add(const struct policy_snapshot *s, enum policy_op op, struct policy_id parent, const char *name,
		     struct policy_verdict *v)
{
	const struct policy_name *m;
	int r;

	if (!s)
		return deny_fail_closed(v, name);
	r = check_not_frozen(s, parent, name, v);
	if (r >= 0)
		r = check_name_allowed(s, name, v);
	if (r < 0)
		return r;
	m = policy_find_name(s->missing, &s->missing_index, parent, name);
	if (!m)
		return 0;
	/* Only an empty folder may take a MKDIR_OK name: anything arriving by
	 * rename or link could already hold the protected name below it. */
	if (op == POLICY_OP_MKDIR && (m->flags & POLICY_MISSING_MKDIR_OK))
		return 0;
	return deny(v, POLICY_RULE_MISSING, m->reason, m->path, name);
}

int policy_check_link(const struct policy_snapshot *s, struct policy_id obj, struct policy_id newparent,
		      const char *newname, struct policy_verdict *v)
{
	const struct policy_object *o;

	if (!s)
		return deny_fail_closed(v, newname);
	/* A second name for a protected inode would be a way to reach it that
	 * the model does not list. */
	o = policy_find_object(s, obj);
	if (o && (o->flags & POLICY_DENIED))
		return deny(v, POLICY_RULE_DENIED, o->reason, o->path, newname);
	if (o && (o->flags & (POLICY_CONTENT | POLICY_ANCHOR)))
		return deny(v, POLICY_RULE_PROTECTED, o->reason, o->path, newname);
	return policy_check_add(s, POLICY_OP_LINK, newparent, newname, v);
}

static int check_removable(const struct policy_snapshot *s, struct policy_id parent, const char *name,
			   struct policy_id child, struct policy_verdict *v)
{
	const struct policy_object *o;
	int r = check_not_frozen(s, parent, name, v);

	if (r < 0)
		return r;
	o = policy_find_object(s, child);
	if (o && (o->flags & POLICY_DENIED))
		return deny(v, POLICY_RULE_DENIED, o->reason, o->path, name);
	if (o && (o->flags & POLICY_CONTENT))
		return deny(v, POLICY_RULE_PROTECTED, o->reason, o->path, name);
	if (o && (o->flags & POLICY_ANCHOR))
		return deny(v, POLICY_RULE_ANCHOR, o->reason, o->path, name);
	return 0;
}

int policy_check_remove(const struct policy_snapshot *s, enum policy_op op, struct policy_id parent,
			const char *name, struct policy_id child, struct policy_verdict *v)
{
	(void)op;
	if (!s)
		return deny_fail_closed(v, name);
	return check_removable(s, parent, name, child, v);
}

/* The target of a plain rename exists: replacing it removes it. A protected
 * file may still be "replaced" by identical bytes (the caller compares). */
static int check_replace(const struct policy_snapshot *s, struct policy_id newparent, const char *newname,
			 struct policy_id newobj, struct policy_verdict *v)
{
	const struct policy_object *o;
	int r = check_not_frozen(s, newparent, newname, v);

	if (r < 0)
		return r;
	o = policy_find_object(s, newobj);
	if (!o)
		return 0;
	if ((o->flags & POLICY_CONTENT) && !(o->flags & POLICY_FROZEN)) {
		deny(v, POLICY_RULE_PROTECTED, o->reason, o->path, newname);
		return POLICY_IF_IDENTICAL;
	}
	return check_removable(s, newparent, newname, newobj, v);
}

int policy_check_rename(const struct policy_snapshot *s, struct policy_id oldparent, const char *oldname,
			struct policy_id oldobj, struct policy_id newparent, const char *newname,
			const struct policy_id *newobj, unsigned flags, struct policy_verdict *v)
{
	int r;

	if (!s)
		return deny_fail_closed(v, oldname);
	r = check_removable(s, oldparent, oldname, oldobj, v);
	if (r < 0)
		return r;
	if (flags & RENAME_EXCHANGE) {
		/* Both objects move: each side is a removal from its place. */
		if (!newobj)
			return 0; /* the kernel answers ENOENT */
		r = check_removable(s, newparent, newname, *newobj, v);
		if (r >= 0)
			r = check_name_allowed(s, newname, v);
		return r >= 0 ? check_name_allowed(s, oldname, v) : r;
	}
	r = check_name_allowed(s, newname, v);
	if (r < 0)
		return r;
	if (newobj && (flags & RENAME_NOREPLACE))
		return 0; /* the kernel answers EEXIST, as on ext4 */
	if (newobj)
		return check_replace(s, newparent, newname, *newobj, v);
	return policy_check_add(s, POLICY_OP_RENAME, newparent, newname, v);
}

int policy_check_read(const struct policy_snapshot *s, struct policy_id obj, struct policy_verdict *v)
{
	const struct policy_object *o;

	if (!s)
		return deny_fail_closed(v, NULL);
	if (!policy_snapshot_denies(s))
		return 0;
	o = policy_find_object(s, obj);
	if (o && (o->flags & POLICY_DENIED))
		return deny(v, POLICY_RULE_DENIED, o->reason, o->path, NULL);
	return 0;
}

bool policy_watched(const struct policy_snapshot *s, struct policy_id parent, const char *name)
{
	return s && s->n_watched && policy_find_name(s->watched, &s->watched_index, parent, name);
}
