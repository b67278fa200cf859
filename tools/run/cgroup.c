/* The sandbox's cgroup: each mode tried in order (v2, scope, v1), the
 * first that makes a cgroup whose limits read back is used, else none;
 * the rest is dispatch to the mode's files. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/run/cgroup-internal.h"

typedef int (*mode_start_fn)(const struct run_cgroup_bases *b, const char *name, const struct run_limits *limits,
                             pid_t pid, struct run_cgroup *cg, char **why);

static const mode_start_fn mode_starts[] = {cg_v2_start, cg_scope_start, cg_v1_start};

const char *run_cgroup_mode_name(enum run_cgroup_mode m)
{
	switch (m) {
	case RUN_CGROUP_V2:
		return "v2";
	case RUN_CGROUP_SCOPE:
		return "scope";
	case RUN_CGROUP_V1:
		return "v1";
	case RUN_CGROUP_NONE:
		break;
	}
	return "none";
}

static void cg_init(struct run_cgroup *cg, const struct run_cgroup_folders *folders)
{
	*cg = (struct run_cgroup){.mode = RUN_CGROUP_NONE, .folders = folders, .oom_fd = -1, .fd = -1, .base_fd = -1};
	for (size_t i = 0; i < ELEMENTSOF(cg->v1); i++)
		cg->v1[i] = (struct cg_v1_folder){.base_fd = -1, .fd = -1};
}

struct run_cgroup *cg_new(const struct run_cgroup_folders *folders)
{
	struct run_cgroup *cg = malloc(sizeof(*cg));

	if (cg)
		cg_init(cg, folders);
	return cg;
}

/* Removes what CG's mode made, frees and closes what it holds, and leaves
 * CG as cg_init() made it: a failed mode's leftovers are cleared the same
 * way (each remove undoes only what its start recorded). */
static void cg_clear(struct run_cgroup *cg)
{
	const struct run_cgroup_folders *folders = cg->folders;

	if (cg->mode == RUN_CGROUP_V1)
		cg->fd = -1;
	cg_v2_remove(cg);
	cg_v1_remove(cg);
	cg_scope_remove(cg);
	if (cg->oom_fd >= 0)
		close(cg->oom_fd);
	if (cg->fd >= 0)
		close(cg->fd);
	if (cg->base_fd >= 0)
		close(cg->base_fd);
	free(cg->base);
	free(cg->name);
	cg_init(cg, folders);
}

/* A single path component that is a valid cgroup and unit name. */
static bool name_ok(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n <= 200 && strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n &&
	       name[0] != '.';
}

static bool limits_ok(const struct run_limits *l)
{
	return l->memory_mb > 0 && l->memory_mb <= UINT64_MAX / 1048576 && l->pids > 0 && l->cpu_millis > 0;
}

/* Appends "; REASON" to *LINE. */
static int append_reason(char **line, const char *reason)
{
	char *before = *line;
	int n = asprintf(line, "%s; %s", before, reason);

	free(before);
	if (n < 0)
		*line = NULL;
	return n < 0 ? -ENOMEM : 0;
}

int run_cgroup_start(const struct run_cgroup_bases *b, const char *name, const struct run_limits *limits, pid_t pid,
                     struct run_cgroup **out, char **why)
{
	_cleanup_free_ struct run_cgroup *cg = NULL;
	_cleanup_free_ char *reasons = NULL;
	char *line = NULL;
	int k = 1;

	*out = NULL;
	*why = NULL;
	if (!name_ok(name) || !limits_ok(limits) || pid <= 0)
		return -EINVAL;
	if (!(cg = cg_new(b->folders)))
		return -ENOMEM;
	/* Each refusal's reason is kept; the used mode's line goes first. */
	for (size_t i = 0; k == 1 && i < ELEMENTSOF(mode_starts); i++) {
		_cleanup_free_ char *reason = NULL;

		k = mode_starts[i](b, name, limits, pid, cg, &reason);
		if (k == 1) {
			cg_clear(cg);
			if (reasons ? append_reason(&reasons, reason) < 0 : !(reasons = TAKE_PTR(reason)))
				k = -ENOMEM;
		} else if (k == 0) {
			line = TAKE_PTR(reason);
		}
	}
	if (k == 1 && !(line = strdup("none (no limits)")))
		k = -ENOMEM;
	if (k >= 0 && reasons && append_reason(&line, reasons) < 0)
		k = -ENOMEM;
	if (k < 0) {
		cg_clear(cg);
		free(line);
		return k;
	}
	*why = line;
	*out = TAKE_PTR(cg);
	return 0;
}

enum run_cgroup_mode run_cgroup_mode(const struct run_cgroup *cg)
{
	return cg->mode;
}

struct run_limits run_cgroup_applied(const struct run_cgroup *cg)
{
	return cg->applied;
}

int run_cgroup_oom_fd(const struct run_cgroup *cg, short *events)
{
	*events = cg->oom_events;
	return cg->oom_fd;
}

bool run_cgroup_oom_killed(const struct run_cgroup *cg)
{
	switch (cg->mode) {
	case RUN_CGROUP_V2:
	case RUN_CGROUP_SCOPE:
		return cg_v2_oom_killed(cg->fd);
	case RUN_CGROUP_V1:
		return cg_v1_oom_killed(cg);
	case RUN_CGROUP_NONE:
		break;
	}
	return false;
}

uint64_t run_cgroup_peak_memory(const struct run_cgroup *cg)
{
	switch (cg->mode) {
	case RUN_CGROUP_V2:
	case RUN_CGROUP_SCOPE:
		return cg_v2_peak(cg->fd);
	case RUN_CGROUP_V1:
		return cg_v1_peak(cg);
	case RUN_CGROUP_NONE:
		break;
	}
	return 0;
}

/* Every mode but none keeps, in cg->fd, a folder that lists the sandbox's
 * processes (v1: the pids hierarchy's). */
int run_cgroup_count(const struct run_cgroup *cg, size_t *n)
{
	*n = 0;
	return cg->mode == RUN_CGROUP_NONE ? -ENOTSUP : cg_procs_count(cg->fd, n);
}

int run_cgroup_kill(const struct run_cgroup *cg)
{
	return cg->mode == RUN_CGROUP_NONE ? -ENOTSUP : cg_procs_kill(cg->fd);
}

void run_cgroup_remove(struct run_cgroup *cg)
{
	if (!cg)
		return;
	cg_clear(cg);
	free(cg);
}

/* The stand-in a probe moves into its cgroup: it waits to be killed. */
static pid_t fork_stand_in(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

int run_cgroup_probe(const struct run_cgroup_bases *b, enum run_cgroup_mode *mode, char **why, bool *swap_limit,
                     const char **swap_file)
{
	/* Small limits: the stand-in only pauses. */
	const struct run_limits limits = {.memory_mb = 64, .pids = 16, .cpu_millis = 100};
	struct run_cgroup *cg = NULL;
	char name[32];
	pid_t pid = fork_stand_in();
	int k;

	if (pid < 0)
		return negative_errno();
	snprintf(name, sizeof(name), "oz0fs-check.%d", (int)getpid());
	k = run_cgroup_start(b, name, &limits, pid, &cg, why);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (k < 0)
		return k;
	*mode = cg->mode;
	*swap_limit = cg->swap_limited;
	*swap_file = cg->swap_file;
	run_cgroup_remove(cg);
	return 0;
}
