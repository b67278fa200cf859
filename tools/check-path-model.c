#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/explain-judge.h"
#include "tools/check-path-forms.h"
#include "tools/check-path-model.h"

/* The question the mount would be asked first for a write of T. */
static const char *write_op(const struct explain_target *t)
{
	if (!t->exists)
		return t->rest ? "mkdir" : "create";
	return S_ISDIR(t->st.st_mode) && !t->rest ? "add-entry" : "write";
}

static const struct op_answer *answer(const struct explanation *e, const char *op)
{
	for (size_t i = 0; i < e->n_ops; i++)
		if (strcmp(e->ops[i].op, op) == 0)
			return &e->ops[i];
	return NULL;
}

static int say(char **reason, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(char **reason, int error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(reason, fmt, ap) < 0)
		*reason = NULL;
	va_end(ap);
	return *reason ? error : -ENOMEM;
}

/* A protected path of the tree (the editor and agent defaults the
 * configuration leaves, and [protect]) below the missing folder MISSING
 * that FULL lies at, in or on the way to; NULL when none, *ANY telling
 * whether any lies below MISSING. */
static const char *protected_at(const struct policy_config *cfg, const char *missing, const char *full, bool *any)
{
	size_t n_defaults = 0;

	while (policy_default_tool_paths[n_defaults])
		n_defaults++;
	for (size_t i = 0; i < n_defaults + cfg->n_protect; i++) {
		const char *p = i < n_defaults ? policy_default_tool_paths[i] : cfg->protect[i - n_defaults];

		if (i < n_defaults && policy_config_unprotected(cfg, p))
			continue;
		if (strcmp(p, missing) == 0 || !path_within(p, missing, false))
			continue;
		*any = true;
		if (path_within(full, p, false) || path_within(p, full, false))
			return p;
	}
	return NULL;
}

/* T is a missing folder the mount lets mkdir make, as an empty folder on
 * the way to what it protects: the model then protects what lies in it. A
 * path at, in or on the way to one of the tree's protected paths is refused,
 * another allowed (.vscode/settings.json beside .vscode/tasks.json); below a
 * folder on the way to no such path (the hooks folder git makes empty, then
 * frozen) all is refused. */
static int judge_in_missing(const struct tree_model *tm, const struct explanation *e, const struct explain_target *t,
                            char **reason)
{
	_cleanup_free_ char *full = NULL;
	bool any = false;
	const char *p;

	if (asprintf(&full, "%s/%s", t->path, t->rest) < 0)
		return -ENOMEM;
	p = protected_at(tm->cfg, t->path, full, &any);
	if (p)
		return say(reason, -EACCES, "%s lies at or on the way to %s, which the mount protects once %s is made",
		           full, p, t->path);
	if (!any)
		return say(reason, -EACCES,
		           "%s may be made only as an empty folder that the model then protects (%s %s: %s): the mount "
		           "refuses what lies in it",
		           t->path, e->rule, e->rule_path, e->reason);
	return 0;
}

static int judge(const struct tree_model *tm, const struct explanation *e, const struct explain_target *t,
                 char **reason)
{
	const char *op = write_op(t);
	const struct op_answer *a = answer(e, op);

	if (!a)
		return say(reason, -EINVAL, "the model gives no answer to a %s of %s", op, t->path);
	if (a->r != 0)
		return say(reason, -EACCES, "the mount refuses a %s of %s%s (%s %s: %s)", op, t->path,
		           a->r == POLICY_IF_IDENTICAL ? " unless the bytes are identical" : "", a->v.rule, a->v.path,
		           a->v.reason);
	if (!t->exists && t->rest && e->rule)
		return judge_in_missing(tm, e, t, reason);
	return 0;
}

int check_path_model(const struct tree_model *tm, const char *rel, char **reason)
{
	_cleanup_free_ struct explanation *e = calloc(1, sizeof(*e));
	_cleanup_free_ char *err = NULL;
	struct explain_target t;
	int r;

	*reason = NULL;
	if (!e)
		return -ENOMEM;
	r = explain_path(tm->rootfd, tm->snap, rel, e, &t, &err);
	if (r >= 0)
		r = judge(tm, e, &t, reason);
	else if (r != -ENOMEM)
		r = say(reason, r, "the model cannot judge %s: %s", rel, err ? err : strerror(-r));
	explain_target_free(&t);
	return r;
}
