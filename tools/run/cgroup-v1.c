/* The sandbox in the cgroup v1 hierarchies of memory, pids and cpu: a
 * child of this process's cgroup in each (one folder where controllers are
 * mounted together). v1 has no memory.oom.group: the kernel's OOM killer
 * takes one process, so the runner is told through an eventfd registered
 * on memory.oom_control and stops the rest itself. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "tools/run/cgroup-internal.h"

/* The folder for each hierarchy: co-mounted controllers (the same base
 * folder) share one. */
static int group_bases(const struct run_cgroup_bases *b, struct run_cgroup *cg, char **why)
{
	const char *base_of[3] = {b->v1_memory, b->v1_pids, b->v1_cpu};

	for (unsigned i = 0; i < 3; i++) {
		size_t j = 0;

		if (!base_of[i])
			return cg_say(why, "v1: no %s hierarchy holds this process", cg_controller_name[i]);
		while (j < cg->n_v1 && strcmp(cg->v1[j].base, base_of[i]) != 0)
			j++;
		if (j == cg->n_v1 && !(cg->v1[cg->n_v1++].base = strdup(base_of[i])))
			return -ENOMEM;
		cg->v1[j].controllers |= 1u << i;
	}
	return 0;
}

/* The settings of folder F: each of its controllers' limits. memsw (memory
 * and swap together) set to the memory limit leaves no room for swap; it
 * is there only where the kernel accounts swap. */
static size_t v1_settings(const struct cg_v1_folder *f, const struct run_limits *l, struct cg_setting s[static 5])
{
	size_t n = 0;

	if (f->controllers & CG_MEMORY) {
		s[n] = (struct cg_setting){.file = "memory.limit_in_bytes"};
		snprintf(s[n++].value, sizeof(s->value), "%" PRIu64, l->memory_mb * 1048576);
		s[n] = (struct cg_setting){.file = "memory.memsw.limit_in_bytes", .optional = true};
		snprintf(s[n++].value, sizeof(s->value), "%" PRIu64, l->memory_mb * 1048576);
	}
	if (f->controllers & CG_PIDS) {
		s[n] = (struct cg_setting){.file = "pids.max"};
		snprintf(s[n++].value, sizeof(s->value), "%" PRIu64, l->pids);
	}
	if (f->controllers & CG_CPU) {
		s[n] = (struct cg_setting){.file = "cpu.cfs_period_us"};
		snprintf(s[n++].value, sizeof(s->value), "%u", CG_CPU_PERIOD_US);
		s[n] = (struct cg_setting){.file = "cpu.cfs_quota_us"};
		snprintf(s[n++].value, sizeof(s->value), "%" PRIu64, (uint64_t)l->cpu_millis * 100);
	}
	return n;
}

/* Makes the sandbox's folder in F's hierarchy and sets its limits. */
static int make_folder(struct run_cgroup *cg, struct cg_v1_folder *f, const struct run_limits *limits, char **why)
{
	struct cg_setting s[5];
	size_t n = v1_settings(f, limits, s);
	char names[32];
	int k;

	if ((f->base_fd = cg_open_dir(f->base)) < 0)
		return cg_say(why, "v1: cannot open %s (%s): %s", f->base, cg_controller_names(f->controllers, names),
		              strerror(-f->base_fd));
	if ((k = cg_make(cg->folders, f->base_fd, cg->name)) < 0)
		return cg_say(why, "v1: cannot make a cgroup in %s (%s): %s", f->base,
		              cg_controller_names(f->controllers, names), strerror(-k));
	if (asprintf(&f->path, "%s/%s", f->base, cg->name) < 0) {
		/* Made but unnamed: remove it here, the removal would not. */
		cg_remove(cg->folders, f->base_fd, cg->name);
		f->path = NULL;
		return -ENOMEM;
	}
	if ((f->fd = cg_open_child(f->base_fd, cg->name)) < 0)
		return cg_say(why, "v1: cannot open %s: %s", f->path, strerror(-f->fd));
	if ((k = cg_settings_write(f->fd, s, n, "v1", f->path, why)) != 0 ||
	    (k = cg_settings_check(f->fd, s, n, "v1", f->path, why)) != 0)
		return k;
	if (f->controllers & CG_MEMORY)
		cg->swap_limited = s[1].present;
	return 0;
}

static const struct cg_v1_folder *folder_with(const struct run_cgroup *cg, unsigned controller)
{
	for (size_t i = 0; i < cg->n_v1; i++)
		if (cg->v1[i].controllers & controller)
			return &cg->v1[i];
	return NULL;
}

/* An eventfd the kernel signals on each OOM in the memory folder, or -1
 * (the registration failed: the run still learns of an OOM kill from
 * memory.oom_control, only later). */
static int oom_eventfd(int memory_fd)
{
	_cleanup_close_ int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	_cleanup_close_ int cfd = openat(memory_fd, "memory.oom_control", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char line[32];

	if (efd < 0 || cfd < 0)
		return -1;
	snprintf(line, sizeof(line), "%d %d", efd, cfd);
	return cg_write(memory_fd, "cgroup.event_control", line) < 0 ? -1 : TAKE_FD(efd);
}

/* "v1 (memory at A, pids and cpu at B, limits read back)". */
static int say_used(const struct run_cgroup *cg, char **why)
{
	char *text = NULL, *before;
	char names[32];

	for (size_t i = 0; i < cg->n_v1; i++) {
		before = text;
		if (asprintf(&text, "%s%s%s at %s", before ? before : "", before ? ", " : "",
		             cg_controller_names(cg->v1[i].controllers, names), cg->v1[i].base) < 0)
			text = NULL;
		free(before);
		if (!text)
			return -ENOMEM;
	}
	int k = cg_say(why, "v1 (%s, limits read back)", text);
	free(text);
	return k;
}

int cg_v1_start(const struct run_cgroup_bases *b, const char *name, const struct run_limits *limits, pid_t pid,
                struct run_cgroup *cg, char **why)
{
	int k = group_bases(b, cg, why);

	if (k == 0 && !(cg->name = strdup(name)))
		k = -ENOMEM;
	for (size_t i = 0; k == 0 && i < cg->n_v1; i++)
		k = make_folder(cg, &cg->v1[i], limits, why);
	for (size_t i = 0; k == 0 && i < cg->n_v1; i++)
		if ((k = cg_move(cg->v1[i].fd, pid)) < 0)
			k = cg_say(why, "v1: cannot move process %d into %s: %s", (int)pid, cg->v1[i].path,
			           strerror(-k));
	if (k != 0) {
		cg_v1_remove(cg);
		return k;
	}
	cg->mode = RUN_CGROUP_V1;
	cg->applied = *limits;
	cg->swap_file = "memory.memsw.limit_in_bytes";
	cg->fd = folder_with(cg, CG_PIDS)->fd;
	cg->oom_fd = oom_eventfd(folder_with(cg, CG_MEMORY)->fd);
	cg->oom_events = POLLIN;
	k = say_used(cg, why);
	return k < 0 ? k : 0;
}

bool cg_v1_oom_killed(const struct run_cgroup *cg)
{
	uint64_t n;

	return cg_read_key(folder_with(cg, CG_MEMORY)->fd, "memory.oom_control", "oom_kill", &n) == 0 && n > 0;
}

uint64_t cg_v1_peak(const struct run_cgroup *cg)
{
	uint64_t n;

	return cg_read_u64(folder_with(cg, CG_MEMORY)->fd, "memory.max_usage_in_bytes", &n) == 0 ? n : 0;
}

void cg_v1_remove(struct run_cgroup *cg)
{
	for (size_t i = cg->n_v1; i-- > 0;) {
		struct cg_v1_folder *f = &cg->v1[i];
		int k;

		if (f->fd >= 0)
			close(f->fd);
		if (f->path && (k = cg_remove(cg->folders, f->base_fd, cg->name)) < 0)
			log_warning("cannot remove the cgroup %s: %s", f->path, strerror(-k));
		if (f->base_fd >= 0)
			close(f->base_fd);
		free(f->path);
		free(f->base);
		*f = (struct cg_v1_folder){.base_fd = -1, .fd = -1};
	}
	cg->n_v1 = 0;
}
