#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
