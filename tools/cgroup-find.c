#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "tools/cgroup-find.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(FILE *, fclose)

/* True when the comma-separated LIST holds WORD. */
static bool list_has(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p; p = strchr(p, ',')) {
		p += *p == ',';
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	}
	return false;
}

/* Splits LINE in place at single spaces into at most MAX fields. */
static size_t split_fields(char *line, char **fields, size_t max)
{
	size_t n = 0;
	char *f;

	line[strcspn(line, "\n")] = '\0';
	while (n < max && (f = strsep(&line, " ")))
		fields[n++] = f;
	return n;
}

/* A mountinfo line: "id parent maj:min ROOT MOUNTPOINT opts [tags...] - FSTYPE
 * source SUPEROPTS". The tags vary in number, so FSTYPE is found after "-". */
static bool mount_matches(char *line, const char *controller, char **root, char **mountpoint)
{
	char *f[32];
	size_t n = split_fields(line, f, ELEMENTSOF(f)), dash = 6;

	while (dash < n && strcmp(f[dash], "-") != 0)
		dash++;
	if (dash + 3 >= n)
		return false;
	if (controller ? strcmp(f[dash + 1], "cgroup") != 0 || !list_has(f[dash + 3], controller)
	               : strcmp(f[dash + 1], "cgroup2") != 0)
		return false;
	*root = f[3];
	*mountpoint = f[4];
	return true;
}

static int find_mount(const char *controller, char **root, char **mountpoint)
{
	_cleanup_(fclosep) FILE *f = fopen("/proc/self/mountinfo", "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	char *r, *m;

	if (!f)
		return negative_errno();
	while (getline(&line, &cap, f) > 0) {
		if (mount_matches(line, controller, &r, &m)) {
			*root = strdup(r);
			*mountpoint = strdup(m);
			return *root && *mountpoint ? 0 : -ENOMEM;
		}
	}
	return -ENOENT;
}

/* A /proc/self/cgroup line: "ID:CONTROLLERS:PATH"; cgroup2's is "0::PATH". */
static int find_own_path(const char *controller, char **path)
{
	_cleanup_(fclosep) FILE *f = fopen("/proc/self/cgroup", "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	if (!f)
		return negative_errno();
	while (getline(&line, &cap, f) > 0) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL, *own;
		const char *controllers;

		if (!c2)
			continue;
		*c1 = *c2 = '\0';
		controllers = c1 + 1;
		own = c2 + 1;
		own[strcspn(own, "\n")] = '\0';
		if (controller ? list_has(controllers, controller) : strcmp(line, "0") == 0 && !*controllers) {
			*path = strdup(own);
			return *path ? 0 : -ENOMEM;
		}
	}
	return -ENOENT;
}

int cgroup_find_dir(const char *controller, char *out, size_t size)
{
	_cleanup_free_ char *root = NULL, *mountpoint = NULL, *path = NULL;
	const char *rel;
	size_t root_len;
	int r = find_mount(controller, &root, &mountpoint);

	if (r >= 0)
		r = find_own_path(controller, &path);
	if (r < 0)
		return r;
	/* The mount shows the hierarchy from ROOT down (a cgroup namespace's
	 * view); our path must lie below it to be reachable. */
	root_len = strcmp(root, "/") == 0 ? 0 : strlen(root);
	if (strncmp(path, root, root_len) != 0 || (path[root_len] != '/' && path[root_len] != '\0'))
		return -ENOENT;
	rel = path + root_len;
	if ((size_t)snprintf(out, size, "%s%s", mountpoint, strcmp(rel, "/") == 0 ? "" : rel) >= size)
		return -ENAMETOOLONG;
	return 0;
}
