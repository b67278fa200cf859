/* Walking the components of a slash-separated path without copying it: the
 * one loop behind the [deny] name checks of tools/check-path-judge.c and
 * policy/explain-judge.c and the .git check of tools/write-judge.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The next component of the path at *CURSOR: skips any slashes, points *NAME
 * at the component and sets *LEN to its length (it is not NUL-terminated),
 * and moves *CURSOR past it. Returns false, with *CURSOR at the path's end,
 * when only slashes or nothing are left. Empty components ("a//b", a
 * trailing slash) are never yielded; "." and ".." are, as spelled:
 *
 *	const char *name;
 *	size_t len;
 *
 *	for (const char *p = path; path_next_part(&p, &name, &len);)
 *		...
 */
bool path_next_part(const char **cursor, const char **name, size_t *len);
