#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/fd-name.h"
#include "fs/why.h"
#include "policy/explain-judge.h"
#include "policy/explain-text.h"

/* Walks of a name that a rename made stale, before the answer gives up on
 * names. */
#define WHY_TRIES 3

/* What a walk meets when a rename moves the object or a folder on its way
 * while it walks: worth reading the name again. */
static bool raced(int walk)
{
	return walk == 0 || walk == -ENOENT || walk == -ENOTDIR || walk == -ESTALE;
}

/* The answer for REL, as --explain gives it: 1 when REL leads to the object
 * ID (*OUT filled), 0 when it leads elsewhere now, or the walk's -errno
 * with its reason in *ERRMSG. */
static int by_name(int rootfd, const char *rel, struct policy_id id, const struct policy_snapshot *s, char **out,
                   size_t *len, char **errmsg)
{
	_cleanup_free_ struct explanation *e = calloc(1, sizeof(*e));
	struct explain_target t;
	int r;

	if (!e)
		return -ENOMEM;
	r = explain_path(rootfd, s, rel, e, &t, errmsg);
	if (r >= 0 && t.exists && !t.rest && t.st.st_dev == id.dev && t.st.st_ino == id.ino)
		r = explain_text(e, &t, rel, out, len) < 0 ? -ENOMEM : 1;
	else if (r >= 0)
		r = 0;
	explain_target_free(&t);
	return r;
}

/* The answer for the object FD with no name that leads to it: what its
 * identity alone says, under ASKED (which tells why). */
static int by_identity(int fd, const struct policy_snapshot *s, const char *asked, char **out, size_t *len)
{
	_cleanup_free_ struct explanation *e = calloc(1, sizeof(*e));
	struct explain_target t = {.exists = true};
	int r;

	if (!e)
		return -ENOMEM;
	if (fstat(fd, &t.st) < 0)
		return negative_errno();
	r = explain_existing(e, s, &t);
	return r < 0 ? r : explain_text(e, &t, asked, out, len);
}

/* Why no name led to the object: NAMING is fd_name_below's answer, WALK the
 * last walk's (0 or another raced() answer: a rename each time), ERRMSG its
 * reason. */
static char *no_name(int naming, const char *rel, int walk, const char *errmsg)
{
	char *s = NULL;
	int n;

	errno = naming < 0 ? -naming : -walk; /* for %m */
	if (naming == -ENOENT)
		n = asprintf(&s, "(no name in the tree: made with O_TMPFILE, or removed while open; judged by its "
		                 "identity alone)");
	else if (naming == -EXDEV)
		n = asprintf(&s, "(no name below the tree that the daemon can see; judged by its identity alone)");
	else if (naming < 0)
		n = asprintf(&s, "(its name cannot be read: %m; judged by its identity alone)");
	else if (raced(walk))
		n = asprintf(&s,
		             "(%s, its name, leads elsewhere now: renamed while asked, or covered; judged by its "
		             "identity alone)",
		             rel);
	else if (errmsg)
		n = asprintf(&s, "(%s, which the daemon cannot walk: %s; judged by its identity alone)", rel, errmsg);
	else
		n = asprintf(&s, "(%s, which the daemon cannot walk: %m; judged by its identity alone)", rel);
	return n < 0 ? NULL : s;
}

int why_answer(int procfd, int rootfd, int fd, struct policy_id id, const struct policy_snapshot *s, char **out,
               size_t *len)
{
	_cleanup_free_ char *rel = NULL, *errmsg = NULL, *asked = NULL;
	int naming = 0, walk = 0;

	for (int i = 0; i < WHY_TRIES; i++) {
		free(TAKE_PTR(rel));
		free(TAKE_PTR(errmsg));
		naming = fd_name_below(procfd, rootfd, fd, &rel);
		if (naming < 0)
			break;
		walk = by_name(rootfd, rel, id, s, out, len, &errmsg);
		if (walk > 0)
			return 0;
		if (walk == -ENOMEM)
			return walk;
		if (!raced(walk))
			break;
	}
	if (naming == -ENOMEM)
		return naming;
	asked = no_name(naming, rel, walk, errmsg);
	if (!asked)
		return -ENOMEM;
	return by_identity(fd, s, asked, out, len);
}

size_t why_hide(char *list, size_t n)
{
	const size_t hidden = strlen(WHY_XATTR);
	size_t kept = 0;

	for (size_t i = 0; i < n;) {
		size_t k = strnlen(list + i, n - i);
		size_t step = k + (i + k < n); /* the name and its NUL */

		if (k != hidden || memcmp(list + i, WHY_XATTR, k) != 0) {
			memmove(list + kept, list + i, step);
			kept += step;
		}
		i += step;
	}
	return kept;
}
