/* The cgroup mode the runner would use (seed 000, "Set resource ceilings"):
 * cgroup v2 with a delegated subtree, else the v1 hierarchies, else none,
 * found by making a cgroup where the runner would make the sandbox's,
 * writing the limits it would write (as "no limit"), and removing it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/cgroup-find.h"
#include "tools/probes.h"

/* What the runner limits, and how each hierarchy spells "no limit". */
static const struct limit {
	const char *controller;
	const char *v2_file, *v1_file, *v1_unlimited;
} limits[] = {
        {"memory", "memory.max", "memory.limit_in_bytes", "-1"},
        {"pids", "pids.max", "pids.max", "max"},
        {"cpu", "cpu.max", "cpu.cfs_quota_us", "-1"},
};

struct cgroup_answer {
	const char *mode;      /* "v2", "v1" or "none" */
	char *why;             /* what was found, or why each mode failed */
	bool swap_limit;       /* the swap limit can be set for a sandbox */
	const char *swap_file; /* the file that sets it, once a mode was tried that far */
};

/* Replaces *WHY with the formatted text (NULL when out of memory, which the
 * caller checks) and returns false, so "return say(...)" reads as a no. */
static bool say(char **why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool say(char **why, const char *fmt, ...)
{
	va_list ap;

	free(*why);
	va_start(ap, fmt);
	if (vasprintf(why, fmt, ap) < 0)
		*why = NULL;
	va_end(ap);
	return false;
}

static int write_value(const char *dir, const char *file, const char *value)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;

	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (write(fd, value, strlen(value)) < 0)
		return negative_errno();
	return 0;
}

static bool has_controller(const char *child, const char *controller)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	char buf[512];
	ssize_t n;

	if (asprintf(&path, "%s/cgroup.controllers", child) < 0)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (n = read(fd, buf, sizeof(buf) - 1)) < 0)
		return false;
	buf[n] = '\0';
	for (char *p = buf, *w; (w = strsep(&p, " \n"));)
		if (strcmp(w, controller) == 0)
			return true;
	return false;
}

/* Makes the probe cgroup below DIR; its path in *CHILD. */
static int make_child(const char *dir, char **child)
{
	if (asprintf(child, "%s/oz0fs-check.%d", dir, (int)getpid()) < 0) {
		*child = NULL;
		return -ENOMEM;
	}
	return mkdir(*child, 0755) < 0 ? negative_errno() : 0;
}

/* A v2 child must get every controller from DIR's subtree_control, and take
 * each limit. */
static bool child_takes_v2_limits(const char *dir, const char *child, char **why)
{
	for (size_t i = 0; i < ELEMENTSOF(limits); i++) {
		int k;

		if (!has_controller(child, limits[i].controller))
			return say(why,
			           "v2: a child of %s gets no %s controller (%s/cgroup.subtree_control does not enable "
			           "it)",
			           dir, limits[i].controller, dir);
		if ((k = write_value(child, limits[i].v2_file, "max")) < 0)
			return say(why, "v2: cannot write %s of a child of %s: %s", limits[i].v2_file, dir,
			           strerror(-k));
	}
	return true;
}

static bool try_v2(struct cgroup_answer *a, char **why)
{
	_cleanup_free_ char *child = NULL;
	char dir[PATH_MAX];
	bool ok;
	int k = cgroup_find_dir(NULL, dir, sizeof(dir));

	if (k < 0)
		return say(why, "v2: this process is in no cgroup2 hierarchy");
	if ((k = make_child(dir, &child)) < 0)
		return say(why, "v2: cannot make a cgroup in %s: %s (not delegated to this user)", dir, strerror(-k));
	ok = child_takes_v2_limits(dir, child, why);
	if (ok) {
		a->swap_file = "memory.swap.max";
		a->swap_limit = write_value(child, a->swap_file, "0") == 0;
	}
	rmdir(child);
	if (!ok)
		return false;
	a->mode = "v2";
	say(&a->why,
	    "a delegated subtree at %s: a child cgroup gets memory, pids and cpu and takes their limits (a probe "
	    "cgroup was made there and removed)",
	    dir);
	return true;
}

/* One v1 hierarchy: a child of this process's cgroup in it takes the limit.
 * Appends "controller at DIR" to *FOUND. */
static bool try_v1_one(const struct limit *l, struct cgroup_answer *a, char **found, char **why)
{
	_cleanup_free_ char *child = NULL, *before = *found;
	char dir[PATH_MAX];
	int k = cgroup_find_dir(l->controller, dir, sizeof(dir));

	*found = NULL;
	if (k < 0)
		return say(why, "v1: no %s hierarchy holds this process", l->controller);
	if ((k = make_child(dir, &child)) < 0)
		return say(why, "v1: cannot make a cgroup in %s: %s", dir, strerror(-k));
	k = write_value(child, l->v1_file, l->v1_unlimited);
	if (k >= 0 && strcmp(l->controller, "memory") == 0) {
		a->swap_file = "memory.memsw.limit_in_bytes";
		a->swap_limit = write_value(child, a->swap_file, "-1") == 0;
	}
	rmdir(child);
	if (k < 0)
		return say(why, "v1: cannot write %s in %s: %s", l->v1_file, dir, strerror(-k));
	say(found, "%s%s%s at %s", before ? before : "", before ? ", " : "", l->controller, dir);
	return *found != NULL;
}

static bool try_v1(struct cgroup_answer *a, const char *why_v2, char **why)
{
	_cleanup_free_ char *found = NULL;

	for (size_t i = 0; i < ELEMENTSOF(limits); i++)
		if (!try_v1_one(&limits[i], a, &found, why))
			return false;
	a->mode = "v1";
	say(&a->why, "%s: a probe cgroup was made in each and removed (%s)", found, why_v2);
	return true;
}

static void find_mode(struct cgroup_answer *a)
{
	_cleanup_free_ char *why_v2 = NULL, *why_v1 = NULL;

	if (try_v2(a, &why_v2) || try_v1(a, why_v2 ? why_v2 : "v2: unknown", &why_v1))
		return;
	a->mode = "none";
	say(&a->why, "%s; %s: the runner would run without limits, and say so", why_v2 ? why_v2 : "v2: unknown",
	    why_v1 ? why_v1 : "v1: unknown");
}

/* /proc/swaps lists nothing past its header when there is no swap at all. */
static bool machine_has_swap(void)
{
	char buf[256];
	_cleanup_close_ int fd = open("/proc/swaps", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	char *nl;

	if (n < 0)
		return true; /* unknown: assume the worst */
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	return nl && nl[1] != '\0';
}

static int report_swap(struct report *r, const struct cgroup_answer *a)
{
	if (!machine_has_swap())
		return report_add(r, "no_swap", "No swap", REPORT_ON,
		                  "this machine has no swap (/proc/swaps lists none)");
	if (a->swap_limit)
		return report_add(r, "no_swap", "No swap", REPORT_ON, "%s is writable: a sandbox gets no swap",
		                  a->swap_file);
	if (!a->swap_file)
		return report_add(r, "no_swap", "No swap", REPORT_OFF,
		                  "the machine has swap and no cgroup can keep a sandbox from it");
	return report_add(r, "no_swap", "No swap", REPORT_OFF,
	                  "the machine has swap and %s cannot be set (no swap accounting): a sandbox may swap",
	                  a->swap_file);
}

int probe_cgroup(struct report *r)
{
	struct cgroup_answer a = {0};
	int k;

	find_mode(&a);
	if (!a.why)
		return -ENOMEM;
	k = report_add(r, "cgroup", "Cgroup limits", a.mode, "%s", a.why);
	free(a.why);
	return k < 0 ? k : report_swap(r, &a);
}
