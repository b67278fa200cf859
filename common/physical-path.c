#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "physical-path.h"

/* Appends the components of TAIL to PATH (absolute, normalised, room for
 * PATH_MAX): "." stays, ".." climbs. False when the result is too long. */
static bool append_tail(char *path, const char *tail)
{
	size_t len = strlen(path);

	for (const char *s = tail; *s; s += strspn(s, "/")) {
		size_t n = strcspn(s, "/");

		if (n == 2 && s[0] == '.' && s[1] == '.') {
			char *slash = strrchr(path, '/');

			len = slash && slash != path ? (size_t)(slash - path) : 1;
			path[len] = '\0';
		} else if (n && !(n == 1 && s[0] == '.')) {
			if (len + 1 + n >= PATH_MAX)
				return false;
			if (path[len - 1] != '/')
				path[len++] = '/';
			memcpy(path + len, s, n);
			len += n;
			path[len] = '\0';
		}
		s += n;
	}
	return true;
}

int lexical_path(const char *abs, char **out)
{
	char path[PATH_MAX] = "/";

	*out = NULL;
	if (abs[0] != '/' || strlen(abs) >= PATH_MAX || !append_tail(path, abs + 1))
		return -EINVAL;
	*out = strdup(path);
	return *out ? 0 : -ENOMEM;
}

int physical_path(const char *abs, char **out)
{
	_cleanup_free_ char *head = strdup(abs);
	char real[PATH_MAX];
	const char *tail = "";
	char *cut;

	*out = NULL;
	if (!head)
		return -ENOMEM;
	if (abs[0] != '/' || strlen(abs) >= PATH_MAX)
		return -EINVAL;
	/* Cut components off the end until what is left exists; the cut-off
	 * part is named by the byte where it starts in ABS. */
	while (!realpath(head, real)) {
		if (errno == ENOMEM)
			return -ENOMEM;
		cut = strrchr(head, '/');
		if (!cut || cut == head) {
			real[0] = '/';
			real[1] = '\0';
			tail = abs + 1;
			break;
		}
		*cut = '\0';
		tail = abs + (cut - head) + 1;
	}
	if (!append_tail(real, tail))
		return -EINVAL;
	*out = strdup(real);
	return *out ? 0 : -ENOMEM;
}

/* ---- What a create reaches ------------------------------------------------- */

/* realpath() of the longest prefix of PATH that exists, into REAL; *TAIL is
 * the rest of PATH after it ("" when all of it exists). A failure other than
 * a missing name is returned, never cut off. */
static int deepest_existing(const char *path, char *real, const char **tail)
{
	char head[PATH_MAX];
	char *cut;

	memcpy(head, path, strlen(path) + 1);
	*tail = "";
	while (!realpath(head, real)) {
		if (errno != ENOENT)
			return negative_errno();
		cut = strrchr(head, '/');
		*tail = path + (cut - head) + 1;
		cut[cut == head] = '\0'; /* "/x" leaves "/" */
	}
	*tail += strspn(*tail, "/");
	return 0;
}

/* PATH becomes FIRST "/" SECOND, then "/" THIRD unless THIRD is empty (a
 * final slash would ask for a folder); false when too long. */
static bool splice(char *path, const char *first, const char *second, const char *third)
{
	int n = snprintf(path, PATH_MAX, "%s/%s%s%s", first, second, *third ? "/" : "", third);

	return n >= 0 && n < PATH_MAX;
}

static bool has_dotdot(const char *tail)
{
	for (const char *s = tail; *s; s += strspn(s, "/")) {
		size_t n = strcspn(s, "/");

		if (n == 2 && s[0] == '.' && s[1] == '.')
			return true;
		s += n;
	}
	return false;
}

/* The first missing name of PATH lies after REAL, where TAIL starts: a link
 * there is followed (PATH rewritten, 1); a missing name ends the walk with
 * the rest appended in REAL (0), unless a ".." in the rest may climb back to
 * what exists (PATH rewritten, 1). */
static int past_existing(char *path, char *real, const char *tail)
{
	size_t n = strcspn(tail, "/");
	char at[PATH_MAX], target[PATH_MAX], rest[PATH_MAX];
	struct stat st;
	ssize_t len;

	if ((size_t)snprintf(at, sizeof(at), "%s/%.*s", real, (int)n, tail) >= sizeof(at))
		return -ENAMETOOLONG;
	int k = lstat(at, &st) < 0 ? negative_errno() : 0;
	if (k < 0 && k != -ENOENT)
		return k;
	if (k == -ENOENT || !S_ISLNK(st.st_mode)) {
		/* missing; or made since realpath() looked, which the next round sees */
		bool again = k == 0 || has_dotdot(tail);

		if (!append_tail(real, tail))
			return -ENAMETOOLONG;
		memcpy(path, real, strlen(real) + 1);
		return again;
	}
	len = readlink(at, target, sizeof(target) - 1);
	if (len < 0)
		return negative_errno();
	target[len] = '\0';
	/* TAIL lies in PATH, which is about to be rewritten */
	tail += n + strspn(tail + n, "/");
	memcpy(rest, tail, strlen(tail) + 1);
	if (!splice(path, target[0] == '/' ? "" : real, target + (target[0] == '/'), rest))
		return -ENAMETOOLONG;
	return 1;
}

int reached_path(const char *abs, char **out)
{
	char path[PATH_MAX], real[PATH_MAX];
	const char *tail;
	int r;

	*out = NULL;
	if (abs[0] != '/' || strlen(abs) >= PATH_MAX)
		return -EINVAL;
	memcpy(path, abs, strlen(abs) + 1);
	/* Each round follows one link, or resolves a ".." once: the rest
	 * appended has none left. */
	for (int round = 0; round <= REACHED_PATH_MAX_LINKS + 1; round++) {
		r = deepest_existing(path, real, &tail);
		if (r >= 0 && *tail)
			r = past_existing(path, real, tail);
		if (r < 0)
			return r;
		if (r == 0) {
			*out = strdup(real); /* all of it exists, or the rest is appended */
			return *out ? 0 : -ENOMEM;
		}
	}
	return -ELOOP;
}
