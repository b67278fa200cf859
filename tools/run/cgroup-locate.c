/* Where a process's cgroup lies in the mounted hierarchies: the mount from
 * /proc/self/mountinfo (cgroup2, or the v1 one whose options hold the
 * controller, "cpu,cpuacct" included), the path from /proc/PID/cgroup. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "tools/run/cgroup-internal.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(FILE *, fclose)

/* True when the comma-separated LIST holds WORD. */
static bool comma_list_has(const char *list, const char *word)
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
	if (controller ? strcmp(f[dash + 1], "cgroup") != 0 || !comma_list_has(f[dash + 3], controller)
	               : strcmp(f[dash + 1], "cgroup2") != 0)
		return false;
	*root = f[3];
	*mountpoint = f[4];
	return true;
}

static int find_mount(const char *mountinfo, const char *controller, char **root, char **mountpoint)
{
	_cleanup_(fclosep) FILE *f = fopen(mountinfo, "re");
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

/* A /proc/PID/cgroup line: "ID:CONTROLLERS:PATH"; cgroup2's is "0::PATH". */
static int find_path(const char *cgroup, const char *controller, char **path)
{
	_cleanup_(fclosep) FILE *f = fopen(cgroup, "re");
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
		if (controller ? comma_list_has(controllers, controller) : strcmp(line, "0") == 0 && !*controllers) {
			*path = strdup(own);
			return *path ? 0 : -ENOMEM;
		}
	}
	return -ENOENT;
}

/* The folder of the cgroup CGROUP names in the hierarchy of CONTROLLER
 * (NULL: cgroup2): 0, -ENOENT, -ENOMEM or -errno. */
static int folder_of(const char *mountinfo, const char *cgroup, const char *controller, char **folder)
{
	_cleanup_free_ char *root = NULL, *mountpoint = NULL, *path = NULL;
	const char *rel;
	size_t root_len;
	int k = find_mount(mountinfo, controller, &root, &mountpoint);

	if (k >= 0)
		k = find_path(cgroup, controller, &path);
	if (k < 0)
		return k;
	/* The mount shows the hierarchy from ROOT down (a cgroup namespace's
	 * view); the path must lie below it to be reachable. */
	root_len = strcmp(root, "/") == 0 ? 0 : strlen(root);
	if (strncmp(path, root, root_len) != 0 || (path[root_len] != '/' && path[root_len] != '\0'))
		return -ENOENT;
	rel = path + root_len;
	if (asprintf(folder, "%s%s", mountpoint, strcmp(rel, "/") == 0 ? "" : rel) < 0) {
		*folder = NULL;
		return -ENOMEM;
	}
	return 0;
}

int cg_locate_from(const char *mountinfo, const char *cgroup, struct run_cgroup_bases *out)
{
	const char *controllers[] = {NULL, "memory", "pids", "cpu"};
	char **folders[] = {&out->v2, &out->v1_memory, &out->v1_pids, &out->v1_cpu};

	*out = (struct run_cgroup_bases){0};
	for (size_t i = 0; i < ELEMENTSOF(controllers); i++) {
		/* A hierarchy that is not there or not readable stays NULL: the
		 * start says "no such hierarchy holds this process". */
		if (folder_of(mountinfo, cgroup, controllers[i], folders[i]) == -ENOMEM) {
			run_cgroup_bases_free(out);
			return -ENOMEM;
		}
	}
	return 0;
}

int run_cgroup_locate(struct run_cgroup_bases *out)
{
	int k = cg_locate_from("/proc/self/mountinfo", "/proc/self/cgroup", out);

	out->try_scope = k == 0;
	return k;
}

void run_cgroup_bases_free(struct run_cgroup_bases *b)
{
	free(b->v2);
	free(b->v1_memory);
	free(b->v1_pids);
	free(b->v1_cpu);
	*b = (struct run_cgroup_bases){0};
}

int cg_locate_v2_of(pid_t pid, char **folder)
{
	char cgroup[64];

	snprintf(cgroup, sizeof(cgroup), "/proc/%d/cgroup", (int)pid);
	return folder_of("/proc/self/mountinfo", cgroup, NULL, folder);
}
