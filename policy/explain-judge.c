#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/path-parts.h"
#include "policy/explain-judge.h"

static struct policy_id folder_id(const struct explain_folder *f)
{
	return (struct policy_id){f->dev, f->ino};
}

/* How the judge treats an object with these flags (policy/decide.c). */
static const char *object_rule(unsigned flags)
{
	if (flags & POLICY_DENIED)
		return POLICY_RULE_DENIED;
	if (flags & POLICY_FROZEN)
		return POLICY_RULE_FROZEN;
	if (flags & POLICY_CONTENT)
		return POLICY_RULE_PROTECTED;
	if (flags & POLICY_ANCHOR)
		return POLICY_RULE_ANCHOR;
	return NULL;
}

static void add_link(struct explanation *e, const char *path, const char *rule, const char *reason)
{
	e->chain[e->n_chain++] = (struct reason_link){.path = path, .rule = rule, .reason = reason};
}

/* The folders on the way that the model holds, nearest first. */
static void chain_folders(struct explanation *e, const struct policy_snapshot *s, const struct explain_target *t)
{
	for (size_t i = t->n_folders; i-- > 0;) {
		const char *path, *reason;
		unsigned flags = policy_lookup(s, folder_id(&t->folders[i]), &path, &reason);

		if (flags & (POLICY_CONTENT | POLICY_FROZEN | POLICY_ANCHOR | POLICY_DENIED))
			add_link(e, path, object_rule(flags), reason);
	}
}

static void ask(struct explanation *e, const char *op, int r, const struct policy_verdict *v)
{
	e->ops[e->n_ops++] = (struct op_answer){.op = op, .r = r, .v = *v};
}

/* ---- The judgement --------------------------------------------------------- */

/* The questions for an existing object, as the mount would put them: a
 * rename away is to a fresh name in the same folder; a replacement is a new
 * file (an identity the model cannot know) renamed onto it. */
static int ask_about_object(struct explanation *e, const struct policy_snapshot *s, const struct explain_target *t,
                            struct policy_id id, struct policy_id parent)
{
	static const struct policy_id fresh = {0, 0};
	_cleanup_free_ char *away = NULL, *new = NULL;
	struct policy_verdict v = {0};

	/* A folder is never opened for writing: what matters is a new entry. */
	if (S_ISDIR(t->st.st_mode))
		ask(e, "add-entry", policy_check_add(s, POLICY_OP_CREATE, id, "new-entry", &v), &v);
	else
		ask(e, "write", policy_check_object(s, POLICY_OP_WRITE, id, &v), &v);
	ask(e, "chmod", policy_check_object(s, POLICY_OP_CHMOD, id, &v), &v);
	if (!t->name)
		return 0; /* the tree itself has no folder in the tree to leave */
	if (asprintf(&away, "%s.moved", t->name) < 0 || asprintf(&new, "%s.new", t->name) < 0)
		return -ENOMEM;
	ask(e, "rename-away", policy_check_rename(s, parent, t->name, id, parent, away, NULL, 0, &v), &v);
	ask(e, "replace", policy_check_rename(s, parent, new, fresh, parent, t->name, &id, 0, &v), &v);
	return 0;
}

int explain_existing(struct explanation *e, const struct policy_snapshot *s, const struct explain_target *t)
{
	struct policy_id id = {(uint64_t)t->st.st_dev, (uint64_t)t->st.st_ino};
	struct policy_id parent = t->name ? folder_id(&t->folders[t->n_folders - 1]) : id;
	const char *path, *reason, *ppath, *preason;
	unsigned flags = policy_lookup(s, id, &path, &reason);
	unsigned pflags = t->name ? policy_lookup(s, parent, &ppath, &preason) : 0;

	if (t->name && object_rule(flags)) /* the tree itself is the first folder of the chain */
		add_link(e, path, object_rule(flags), reason);
	e->rewritable = flags & POLICY_REWRITABLE;
	if (flags & POLICY_DENIED) {
		e->rule = POLICY_RULE_DENIED;
		e->rule_path = path;
		e->reason = reason;
	} else if (flags & (POLICY_CONTENT | POLICY_FROZEN)) {
		e->rule = POLICY_RULE_PROTECTED;
		e->rule_path = path;
		e->reason = reason;
	} else if (pflags & POLICY_FROZEN) {
		e->rule = POLICY_RULE_FROZEN;
		e->rule_path = ppath;
		e->reason = preason;
	} else if (flags & POLICY_ANCHOR) {
		e->rule = POLICY_RULE_ANCHOR;
		e->rule_path = path;
		e->reason = reason;
	}
	if ((pflags & POLICY_FROZEN) && !(e->rule && strcmp(e->rule, POLICY_RULE_FROZEN) == 0))
		e->frozen_in = ppath;
	chain_folders(e, s, t);
	return ask_about_object(e, s, t, id, parent);
}

/* Why a component of REST (what the path names past its first missing
 * folder) is a denied name, or NULL: that name can be made nowhere. */
static const char *denied_in_rest(const struct policy_snapshot *s, const char *rest)
{
	char name[NAME_MAX + 1];
	const char *part;
	size_t len;

	if (!rest)
		return NULL;
	for (const char *p = rest; path_next_part(&p, &part, &len);) {
		const char *reason;

		if (len > NAME_MAX)
			continue;
		memcpy(name, part, len);
		name[len] = '\0';
		reason = policy_lookup_denied_name(s, name);
		if (reason)
			return reason;
	}
	return NULL;
}

void explain_missing(struct explanation *e, const struct policy_snapshot *s, const struct explain_target *t)
{
	struct policy_id parent = folder_id(&t->folders[t->n_folders - 1]);
	const char *path, *reason, *ppath, *preason;
	struct policy_verdict v = {0};
	unsigned pflags = policy_lookup(s, parent, &ppath, &preason);
	const char *denied = policy_lookup_denied_name(s, t->name);
	const char *denied_later = denied ? NULL : denied_in_rest(s, t->rest);

	if (denied_later) {
		e->rule = POLICY_RULE_DENIED;
		e->rule_path = t->rest;
		e->reason = denied_later;
		add_link(e, t->rest, POLICY_RULE_DENIED, denied_later);
	} else if (denied || (pflags & POLICY_DENIED)) {
		/* the name can be made nowhere, or nothing in this folder */
		e->rule = POLICY_RULE_DENIED;
		e->rule_path = denied ? t->name : ppath;
		e->reason = denied ? denied : preason;
		if (denied) /* a denied folder is in the chain of folders */
			add_link(e, t->name, POLICY_RULE_DENIED, denied);
	} else if (policy_lookup_missing(s, parent, t->name, &path, &reason, &e->missing_flags)) {
		add_link(e, path, POLICY_RULE_MISSING, reason);
		e->rule = POLICY_RULE_MISSING;
		e->rule_path = path;
		e->reason = reason;
	}
	if (pflags & POLICY_FROZEN) {
		e->frozen_in = e->rule ? ppath : NULL;
		if (!e->rule) {
			e->rule = POLICY_RULE_FROZEN;
			e->rule_path = ppath;
			e->reason = preason;
		}
	}
	chain_folders(e, s, t);
	ask(e, "create", policy_check_add(s, POLICY_OP_CREATE, parent, t->name, &v), &v);
	ask(e, "mkdir", policy_check_add(s, POLICY_OP_MKDIR, parent, t->name, &v), &v);
}

int explain_path(int rootfd, const struct policy_snapshot *s, const char *rel, struct explanation *e,
                 struct explain_target *t, char **errmsg)
{
	int r = explain_resolve(rootfd, rel, t, errmsg);

	if (r >= 0 && t->exists)
		r = explain_existing(e, s, t);
	else if (r >= 0)
		explain_missing(e, s, t);
	return r;
}
