/* The cgroups a runner killed outright left behind: its sandbox's folder
 * ("oz0run.PID") stays, empty (the sandbox died with the runner), and the
 * next run removes it, so the cgroup trees come back to what they were. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/run/cgroup-internal.h"
#include "tools/run/gone-runner.h"

/* A runner's folder whose runner is gone and which holds no process. */
static bool left_behind(int basefd, const char *name, const char *prefix)
{
	_cleanup_close_ int fd = -1;
	size_t n;

	if (!run_gone_runner(name, prefix, '\0'))
		return false;
	fd = cg_open_child(basefd, name);
	return fd >= 0 && cg_procs_count(fd, &n) == 0 && n == 0;
}

static size_t sweep_one(const struct run_cgroup_folders *folders, const char *base, const char *prefix)
{
	_cleanup_close_ int fd = base ? cg_open_dir(base) : -1;
	size_t removed = 0;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(dup(fd))))
		return 0;
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_type == DT_DIR && left_behind(fd, e->d_name, prefix) && cg_remove(folders, fd, e->d_name) == 0)
			removed++;
	closedir(d);
	return removed;
}

size_t run_cgroup_sweep(const struct run_cgroup_bases *b, const char *prefix)
{
	const char *bases[] = {b->v2, b->v1_memory, b->v1_pids, b->v1_cpu};
	size_t removed = 0;

	for (size_t i = 0; i < ELEMENTSOF(bases); i++) {
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			seen = seen || (bases[j] && bases[i] && strcmp(bases[j], bases[i]) == 0);
		if (!seen)
			removed += sweep_one(b->folders, bases[i], prefix);
	}
	return removed;
}
