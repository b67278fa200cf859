/* The sandbox in a delegated cgroup v2 subtree: a child of this process's
 * cgroup (the base), with memory, pids and cpu enabled in the base's
 * cgroup.subtree_control.
 *
 * The no-internal-processes rule: a cgroup that enables controllers for
 * its children may hold no process itself. A Delegate= service's main
 * process sits alone in its cgroup with nothing enabled, so it first moves
 * into a leaf of its own (BASE/oz0run.supervisor.PID), then enables what
 * is missing; removal undoes exactly that, in the reverse order, so the
 * tree is the same before and after. A base that other processes share is
 * not touched: moving them is not the runner's business. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "tools/run/cgroup-internal.h"

#define SUPERVISOR_PREFIX "oz0run.supervisor."

/* The CG_* bits of LIST (cgroup.controllers, cgroup.subtree_control). */
static unsigned controllers_in(const char *list)
{
	unsigned mask = 0;

	for (unsigned i = 0; i < 3; i++)
		if (cg_list_has(list, cg_controller_name[i]))
			mask |= 1u << i;
	return mask;
}

/* "+memory +cpu" (SIGN '+') or "-memory -cpu" for the bits of MASK. */
static void subtree_change(unsigned mask, char sign, char buf[static 32])
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < 3; i++)
		if (mask & (1u << i))
			len += snprintf(buf + len, 32 - len, "%s%c%s", len ? " " : "", sign, cg_controller_name[i]);
}

/* Which controllers the base lacks in cgroup.subtree_control (*MISSING),
 * once it offers all three in cgroup.controllers. */
static int base_missing(const struct run_cgroup *cg, unsigned *missing, char **why)
{
	_cleanup_free_ char *offered = NULL, *enabled = NULL;
	char names[32];
	int k = cg_read(cg->base_fd, "cgroup.controllers", &offered);
	unsigned absent;

	if (k < 0)
		return cg_say(why, "v2: cannot read %s/cgroup.controllers: %s", cg->base, strerror(-k));
	offered[strcspn(offered, "\n")] = '\0';
	absent = CG_ALL & ~controllers_in(offered);
	if (absent)
		return cg_say(why, "v2: %s %s %s (its cgroup.controllers: %s)", cg->base,
		              absent & (absent - 1) ? "offers none of" : "does not offer", cg_controller_names(absent, names),
		              *offered ? offered : "none");
	if ((k = cg_read(cg->base_fd, "cgroup.subtree_control", &enabled)) < 0)
		return cg_say(why, "v2: cannot read %s/cgroup.subtree_control: %s", cg->base, strerror(-k));
	*missing = CG_ALL & ~controllers_in(enabled);
	return 0;
}

/* Undoes enter_leaf(): the controllers off again, this process back in the
 * base, the leaf gone. Says on stderr what it could not put back. */
static void leave_leaf(struct run_cgroup *cg)
{
	char change[32];
	int k;

	if (!cg->leaf)
		return;
	/* Off first: the base may take a process again only once it
	 * enables nothing. */
	subtree_change(cg->enabled, '-', change);
	if (cg->enabled && (k = cg_write(cg->base_fd, "cgroup.subtree_control", change)) < 0)
		log_warning("cannot write \"%s\" to %s/cgroup.subtree_control: %s", change, cg->base, strerror(-k));
	if ((k = cg_move(cg->base_fd, getpid())) < 0)
		log_warning("cannot move this process back into %s: %s", cg->base, strerror(-k));
	if ((k = cg_remove(cg->folders, cg->base_fd, cg->leaf)) < 0)
		log_warning("cannot remove the cgroup %s/%s: %s", cg->base, cg->leaf, strerror(-k));
	cg->enabled = 0;
	free(cg->leaf);
	cg->leaf = NULL;
}

/* Moves this process into a leaf of the base and enables MISSING there,
 * when this process is alone in the base. */
static int enter_leaf(struct run_cgroup *cg, unsigned missing, char **why)
{
	_cleanup_close_ int leaf_fd = -1;
	char names[32], change[32];
	pid_t self = getpid();
	size_t n;
	bool only;
	int k = cg_procs_only(cg->base_fd, self, &n, &only);

	if (k < 0)
		return cg_say(why, "v2: cannot read %s/cgroup.procs: %s", cg->base, strerror(-k));
	if (!only)
		return cg_say(why,
		              "v2: %s/cgroup.subtree_control does not enable %s, and other processes share %s with this "
		              "one (%zu in its cgroup.procs): the no-internal-processes rule keeps them from being "
		              "enabled there",
		              cg->base, cg_controller_names(missing, names), cg->base, n);
	if (asprintf(&cg->leaf, SUPERVISOR_PREFIX "%d", (int)self) < 0) {
		cg->leaf = NULL;
		return -ENOMEM;
	}
	if ((k = cg_make(cg->folders, cg->base_fd, cg->leaf)) < 0) {
		free(cg->leaf);
		cg->leaf = NULL;
		return cg_say(why, "v2: cannot make a cgroup in %s: %s", cg->base, strerror(-k));
	}
	if ((leaf_fd = cg_open_child(cg->base_fd, cg->leaf)) < 0 || (k = cg_move(leaf_fd, self)) < 0) {
		k = leaf_fd < 0 ? leaf_fd : k;
		leave_leaf(cg);
		return cg_say(why, "v2: cannot move this process into %s/%s: %s", cg->base, SUPERVISOR_PREFIX "PID",
		              strerror(-k));
	}
	subtree_change(missing, '+', change);
	if ((k = cg_write(cg->base_fd, "cgroup.subtree_control", change)) < 0) {
		leave_leaf(cg);
		return cg_say(why, "v2: cannot write \"%s\" to %s/cgroup.subtree_control: %s", change, cg->base,
		              strerror(-k));
	}
	cg->enabled = missing;
	return 0;
}

/* The settings of a v2 sandbox; OOM_GROUP adds memory.oom.group, which
 * only the runner's own v2 cgroup sets (a scope's is the manager's). */
static size_t v2_settings(const struct run_limits *l, bool oom_group, struct cg_setting s[static 5])
{
	size_t n = 0;

	s[n] = (struct cg_setting){.file = "memory.max"};
	snprintf(s[n++].value, sizeof(s->value), "%" PRIu64, l->memory_mb * 1048576);
	s[n++] = (struct cg_setting){.file = "memory.swap.max", .value = "0", .optional = true};
	s[n] = (struct cg_setting){.file = "pids.max"};
	snprintf(s[n++].value, sizeof(s->value), "%" PRIu64, l->pids);
	s[n] = (struct cg_setting){.file = "cpu.max"};
	snprintf(s[n++].value, sizeof(s->value), "%" PRIu64 " %u", (uint64_t)l->cpu_millis * 100, CG_CPU_PERIOD_US);
	if (oom_group)
		s[n++] = (struct cg_setting){.file = "memory.oom.group", .value = "1"};
	return n;
}

int cg_v2_read_back(int dirfd, const char *mode, const char *path, const struct run_limits *limits,
                    bool *swap_limited, char **why)
{
	struct cg_setting s[5];
	size_t n = v2_settings(limits, false, s);
	int k = cg_settings_check(dirfd, s, n, mode, path, why);

	*swap_limited = s[1].present;
	return k;
}

/* The sandbox's folder below the base, its limits set and read back. */
static int make_sandbox(struct run_cgroup *cg, const struct run_limits *limits, char **why)
{
	struct cg_setting s[5];
	size_t n = v2_settings(limits, true, s);
	int k;

	if (asprintf(&cg->path, "%s/%s", cg->base, cg->name) < 0) {
		cg->path = NULL;
		return -ENOMEM;
	}
	/* cg->path set means "made": the removal removes it. */
	if ((k = cg_make(cg->folders, cg->base_fd, cg->name)) < 0) {
		free(cg->path);
		cg->path = NULL;
		return cg_say(why, "v2: cannot make a cgroup in %s: %s%s", cg->base, strerror(-k),
		              k == -EACCES || k == -EPERM ? " (not delegated to this user)" : "");
	}
	if ((cg->fd = cg_open_child(cg->base_fd, cg->name)) < 0)
		return cg_say(why, "v2: cannot open %s: %s", cg->path, strerror(-cg->fd));
	if ((k = cg_settings_write(cg->fd, s, n, "v2", cg->path, why)) != 0 ||
	    (k = cg_settings_check(cg->fd, s, n, "v2", cg->path, why)) != 0)
		return k;
	cg->swap_limited = s[1].present;
	cg->swap_file = "memory.swap.max";
	cg->applied = *limits;
	return 0;
}

void cg_v2_remove(struct run_cgroup *cg)
{
	int k;

	if (!cg->base) /* not a v2 start's */
		return;
	if (cg->path && (k = cg_remove(cg->folders, cg->base_fd, cg->name)) < 0)
		log_warning("cannot remove the cgroup %s: %s", cg->path, strerror(-k));
	free(cg->path);
	cg->path = NULL;
	leave_leaf(cg);
}

/* The "v2 (...)" part of the start's line. */
static int say_used(const struct run_cgroup *cg, char **why)
{
	char names[32];

	if (!cg->leaf)
		return cg_say(why, "v2 (a delegated subtree at %s, limits read back)", cg->base);
	return cg_say(why,
	              "v2 (a delegated subtree at %s, limits read back; this process moved to %s/%s to enable %s in "
	              "its cgroup.subtree_control)",
	              cg->base, cg->base, cg->leaf, cg_controller_names(cg->enabled, names));
}

int cg_v2_start(const struct run_cgroup_bases *b, const char *name, const struct run_limits *limits, pid_t pid,
                struct run_cgroup *cg, char **why)
{
	unsigned missing = 0;
	int k;

	if (!b->v2)
		return cg_say(why, "v2: this process is in no cgroup2 hierarchy");
	if ((cg->base_fd = cg_open_dir(b->v2)) < 0)
		return cg_say(why, "v2: cannot open %s: %s", b->v2, strerror(-cg->base_fd));
	if (!(cg->base = strdup(b->v2)) || !(cg->name = strdup(name)))
		return -ENOMEM;
	if ((k = base_missing(cg, &missing, why)) != 0 || (missing && (k = enter_leaf(cg, missing, why)) != 0))
		return k;
	if ((k = make_sandbox(cg, limits, why)) == 0 && (k = cg_move(cg->fd, pid)) < 0)
		k = cg_say(why, "v2: cannot move process %d into %s: %s", (int)pid, cg->path, strerror(-k));
	if (k != 0) {
		cg_v2_remove(cg);
		return k;
	}
	cg->mode = RUN_CGROUP_V2;
	cg->oom_fd = cg_v2_oom_fd(cg->fd);
	cg->oom_events = POLLPRI;
	k = say_used(cg, why);
	return k < 0 ? k : 0;
}
