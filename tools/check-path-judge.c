#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/explain-resolve.h"
#include "common/path-parts.h"
#include "tools/check-path-judge.h"
#include "tools/check-path-model.h"

static int refuse(struct path_verdict *v, const char *rule, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(struct path_verdict *v, const char *rule, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&v->reason, fmt, ap);
	va_end(ap);
	if (r < 0) {
		v->reason = NULL;
		return -ENOMEM;
	}
	v->rule = rule;
	return 0;
}

/* The roots: 1 when FORM lies under one (V filled), 0 when not. */
static int check_roots(const struct path_check *c, const char *form, bool fold, struct path_verdict *v)
{
	const char *matched;
	const struct denied_root *d = denied_roots_match(c->roots, form, fold, &matched);
	int r;

	if (!d)
		return 0;
	r = refuse(v, d->rule, "%s lies under %s (%s)%s: %s", form, d->shown, matched,
	           fold ? ", the volume ignoring case" : "", d->why);
	return r < 0 ? r : 1;
}

/* A [deny] name as a component of FORM: 1 when one is (V filled), 0 when not. */
static int check_names(const struct path_check *c, const char *form, bool fold, struct path_verdict *v)
{
	const char *part;
	size_t len;

	for (const char *p = form; path_next_part(&p, &part, &len);) {
		for (size_t i = 0; i < c->n_deny_names; i++) {
			const char *name = c->deny_names[i];

			if (strlen(name) != len ||
			    (fold ? strncasecmp(part, name, len) : strncmp(part, name, len)) != 0)
				continue;
			int r = refuse(v, CHECK_RULE_DENIED_NAME, "%s holds '%s'%s, a name [deny] refuses anywhere", form,
			               name, fold ? " (the volume ignoring case)" : "");
			return r < 0 ? r : 1;
		}
	}
	return 0;
}

static char *lower(const char *s)
{
	char *out = strdup(s);

	for (char *p = out; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

/* The model on REL: 1 when refused (V filled), 0 when allowed. */
static int check_rel(const struct path_check *c, const char *rel, struct path_verdict *v)
{
	_cleanup_free_ char *reason = NULL;
	int r = check_path_model(c->tm, rel, &reason);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		r = refuse(v, r == -EACCES ? CHECK_RULE_PROTECTED : CHECK_RULE_FAIL_CLOSED, "%s", reason);
	return r < 0 ? r : v->rule != NULL;
}

/* The tree's model, for FORM when it lies in the tree. */
static int check_model(const struct path_check *c, const char *form, bool fold, struct path_verdict *v)
{
	_cleanup_free_ char *rel = NULL, *folded = NULL;
	int r;

	if (!c->n_tree)
		return 0;
	r = explain_tree_relative(c->tree_forms[0], form, &rel);
	if (r == -EXDEV)
		return 0;
	if (r < 0)
		return r;
	if (!c->tm) {
		r = refuse(v, CHECK_RULE_FAIL_CLOSED, "%s lies in the tree, whose model cannot be built: %s", form,
		           c->model_error);
		return r < 0 ? r : 1;
	}
	r = check_rel(c, rel, v);
	if (r != 0 || !fold)
		return r;
	/* a missing name is matched as spelled: ask the spelling the model knows */
	folded = lower(rel);
	if (!folded)
		return -ENOMEM;
	return strcmp(folded, rel) == 0 ? 0 : check_rel(c, folded, v);
}

int path_check(const struct path_check *c, const char *path, struct path_verdict *v)
{
	_cleanup_free_ char *err = NULL;
	int r;

	*v = (struct path_verdict){.asked = path};
	if (c->no_roots)
		return refuse(v, CHECK_RULE_FAIL_CLOSED, "%s", c->no_roots);
	r = path_forms_get(path, c->home, c->cwd, &v->forms, &err);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return refuse(v, CHECK_RULE_FAIL_CLOSED, "%s", err ? err : strerror(-r));
	/* the roots first, in every spelling: they hold for reads and writes */
	for (size_t i = 0; r == 0 && i < v->forms.n; i++)
		r = check_roots(c, v->forms.form[i], v->forms.folds_case[i], v);
	for (size_t i = 0; r == 0 && i < v->forms.n; i++)
		r = check_names(c, v->forms.form[i], v->forms.folds_case[i], v);
	for (size_t i = 0; r == 0 && c->write && i < v->forms.n; i++)
		r = check_model(c, v->forms.form[i], v->forms.folds_case[i], v);
	return r < 0 ? r : 0;
}

void path_verdict_clear(struct path_verdict *v)
{
	free(v->reason);
	path_forms_free(&v->forms);
	*v = (struct path_verdict){0};
}
