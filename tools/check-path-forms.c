#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cleanup.h"
#include "common/physical-path.h"
#include "tools/check-path-case.h"
#include "tools/check-path-forms.h"

int path_absolute(const char *path, const char *home, const char *cwd, char **out)
{
	const char *base = cwd, *rest = path;
	int n;

	*out = NULL;
	if (!*path)
		return -EINVAL;
	if (path[0] == '~') {
		if (path[1] != '\0' && path[1] != '/')
			return -EINVAL;
		base = home;
		rest = path + 1 + (path[1] == '/');
	} else if (path[0] == '/') {
		base = "";
	}
	if (!base || (*base && base[0] != '/'))
		return -EINVAL;
	n = asprintf(out, "%s/%s", base, rest);
	if (n < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	if (n >= PATH_MAX) {
		free(*out);
		*out = NULL;
		return -ENAMETOOLONG;
	}
	return 0;
}

static int fail(char **errmsg, int error, const char *what, const char *path)
{
	if (asprintf(errmsg, "%s '%s': %s", what, path, strerror(-error)) < 0)
		*errmsg = NULL;
	return error;
}

/* Why path_absolute refused PATH. */
static int unusable(char **errmsg, int error, const char *path)
{
	const char *why = error == -ENAMETOOLONG ? "longer than a path may be"
	                : !*path                 ? "an empty path names nothing"
	                : path[0] != '~'         ? "the current folder is unknown"
	                : path[1] != '\0' && path[1] != '/'
	                        ? "'~user' is not expanded: write the path out (a harness may read it as a name here)"
	                        : "no home to expand '~' from (HOME is unset or not absolute)";

	if (error != -ENOMEM && asprintf(errmsg, "%s", why) < 0)
		*errmsg = NULL;
	return error;
}

/* Adds FORM (taking it) unless it is there already. */
static void add_form(struct path_forms *f, char *form)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->form[i], form) == 0) {
			free(form);
			return;
		}
	f->folds_case[f->n] = path_folds_case(form);
	f->form[f->n++] = form;
}

int path_forms_get(const char *path, const char *home, const char *cwd, struct path_forms *f, char **errmsg)
{
	_cleanup_free_ char *abs = NULL;
	char *plain = NULL, *reached = NULL, *reached_plain = NULL;
	int r;

	*f = (struct path_forms){0};
	*errmsg = NULL;
	r = path_absolute(path, home, cwd, &abs);
	if (r < 0)
		return unusable(errmsg, r, path);
	r = lexical_path(abs, &plain);
	if (r < 0)
		return r == -ENOMEM ? r : fail(errmsg, r, "cannot read", abs);
	add_form(f, plain);
	r = reached_path(abs, &reached);
	if (r < 0)
		return r == -ENOMEM ? r : fail(errmsg, r, "cannot resolve", abs);
	add_form(f, reached);
	r = reached_path(f->form[0], &reached_plain);
	if (r < 0)
		return r == -ENOMEM ? r : fail(errmsg, r, "cannot resolve", f->form[0]);
	add_form(f, reached_plain);
	return 0;
}

void path_forms_free(struct path_forms *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->form[i]);
	*f = (struct path_forms){0};
}

bool path_within(const char *path, const char *root, bool fold)
{
	size_t n = strlen(root);

	if (n == 1 && root[0] == '/')
		return true;
	if ((fold ? strncasecmp(path, root, n) : strncmp(path, root, n)) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/';
}
