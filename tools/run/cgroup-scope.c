/* The sandbox in a transient systemd scope, "oz0run-NAME.scope", asked of
 * the manager over sd-bus (the user's when not root, the system's as
 * root) with the limits as unit properties. A manager may take a property
 * and not apply it (a controller it cannot enable), so the scope is used
 * only when its cgroup's files read the limits back, with the same reader
 * as v2; otherwise it is stopped again. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "tools/run/cgroup-internal.h"

#define SD_DEST    "org.freedesktop.systemd1"
#define SD_PATH    "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
/* A call or a job that takes longer has a manager in trouble. */
#define SD_TIMEOUT_US (10 * 1000000ull)


/* The job a call started, and how it ended once JobRemoved names it. */
struct job_wait {
	char *path;
	char *result;
	bool done;
};

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct job_wait *w = userdata;
	const char *path, *unit, *result;
	uint32_t id;

	if (sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0 || !w->path || strcmp(path, w->path) != 0)
		return 0;
	w->done = true;
	w->result = strdup(result);
	return 0;
}

static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

/* Dispatches the bus until W's job is removed: 0, -ETIMEDOUT, or -errno.
 * The JobRemoved match was added before the call, so a job that ended
 * before its reply was read is seen too (the signal waits in the queue). */
static int wait_job(sd_bus *bus, struct job_wait *w)
{
	uint64_t end = now_us() + SD_TIMEOUT_US;

	while (!w->done) {
		uint64_t now = now_us();
		int k = sd_bus_process(bus, NULL);

		if (k < 0)
			return k;
		if (k > 0)
			continue;
		if (now >= end)
			return -ETIMEDOUT;
		if ((k = sd_bus_wait(bus, end - now)) < 0)
			return k;
	}
	return w->result ? 0 : -ENOMEM;
}

/* Calls METHOD(UNIT, "fail", ...) and waits for the job it starts. For
 * StartTransientUnit, M is the prepared message; else it is made here. */
static int call_job(sd_bus *bus, sd_bus_message *m, sd_bus_error *error, struct job_wait *w)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
	const char *path;
	int k = sd_bus_match_signal(bus, &slot, SD_DEST, SD_PATH, SD_MANAGER, "JobRemoved", on_job_removed, w);

	/* The system manager sends job signals only to subscribers. */
	if (k >= 0)
		sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "Subscribe", NULL, NULL, "");
	if (k >= 0)
		k = sd_bus_call(bus, m, SD_TIMEOUT_US, error, &reply);
	if (k >= 0)
		k = sd_bus_message_read(reply, "o", &path);
	if (k >= 0 && !(w->path = strdup(path)))
		k = -ENOMEM;
	return k < 0 ? k : wait_job(bus, w);
}

static void job_wait_clear(struct job_wait *w)
{
	free(w->path);
	free(w->result);
	*w = (struct job_wait){0};
}

/* StartTransientUnit's message: PID in the scope, the limits, no
 * delegation, and no failed unit left behind. */
static int start_message(sd_bus *bus, const char *unit, const struct run_limits *l, pid_t pid, sd_bus_message **m)
{
	int k = sd_bus_message_new_method_call(bus, m, SD_DEST, SD_PATH, SD_MANAGER, "StartTransientUnit");

	if (k >= 0)
		k = sd_bus_message_append(*m, "ss", unit, "fail");
	if (k >= 0)
		k = sd_bus_message_open_container(*m, 'a', "(sv)");
	if (k >= 0)
		k = sd_bus_message_append(*m, "(sv)(sv)(sv)(sv)(sv)(sv)(sv)", "PIDs", "au", 1, (uint32_t)pid, "MemoryMax",
		                          "t", l->memory_mb * 1048576, "MemorySwapMax", "t", (uint64_t)0, "TasksMax", "t",
		                          l->pids, "CPUQuotaPerSecUSec", "t", (uint64_t)l->cpu_millis * 1000, "Delegate",
		                          "b", 0, "CollectMode", "s", "inactive-or-failed");
	if (k >= 0)
		k = sd_bus_message_close_container(*m);
	if (k >= 0)
		k = sd_bus_message_append(*m, "a(sa(sv))", 0);
	return k;
}

/* Stops the scope and waits for it to be gone; its cgroup goes with it. */
static void stop_unit(sd_bus *bus, const char *unit)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	struct job_wait w = {0};
	int k = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER, "StopUnit");

	if (k >= 0)
		k = sd_bus_message_append(m, "ss", unit, "fail");
	if (k >= 0)
		k = call_job(bus, m, &error, &w);
	if (k < 0)
		log_warning("cannot stop %s: %s", unit, error.message ? error.message : strerror(-k));
	sd_bus_error_free(&error);
	job_wait_clear(&w);
}

/* Whether the call failed because nothing answers for systemd on the bus. */
static bool no_manager(const sd_bus_error *error)
{
	return sd_bus_error_has_name(error, SD_BUS_ERROR_SERVICE_UNKNOWN) ||
	       sd_bus_error_has_name(error, SD_BUS_ERROR_NAME_HAS_NO_OWNER);
}

/* Starts UNIT with PID; 0, or 1 with *WHY. */
static int start_unit(sd_bus *bus, const char *unit, const struct run_limits *limits, pid_t pid, char **why)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	struct job_wait w = {0};
	int k = start_message(bus, unit, limits, pid, &m);

	if (k >= 0)
		k = call_job(bus, m, &error, &w);
	if (k < 0 && no_manager(&error))
		k = cg_say(why, "scope: no systemd manager on the bus: %s", error.message);
	else if (k < 0)
		k = cg_say(why, "scope: the manager did not start %s: %s", unit,
		           error.message ? error.message : strerror(-k));
	else if (strcmp(w.result, "done") != 0)
		k = cg_say(why, "scope: the job starting %s ended \"%s\"", unit, w.result);
	sd_bus_error_free(&error);
	job_wait_clear(&w);
	return k;
}

int cg_scope_adopt(const char *path, const struct run_limits *limits, struct run_cgroup *cg, char **why)
{
	int k;

	if ((cg->fd = cg_open_dir(path)) < 0)
		return cg_say(why, "scope: cannot open %s: %s", path, strerror(-cg->fd));
	if ((k = cg_v2_read_back(cg->fd, "scope", path, limits, &cg->swap_limited, why)) != 0)
		return k;
	if (!(cg->path = strdup(path)))
		return -ENOMEM;
	/* The manager's: asked, not required (this manager may keep it); an
	 * OOM is seen on memory.events either way and the runner stops the
	 * rest. */
	cg_write(cg->fd, "memory.oom.group", "1");
	cg->mode = RUN_CGROUP_SCOPE;
	cg->applied = *limits;
	cg->swap_file = "memory.swap.max";
	cg->oom_fd = cg_v2_oom_fd(cg->fd);
	cg->oom_events = POLLPRI;
	return cg_say(why, "scope (%s at %s, limits read back)", cg->unit ? cg->unit : "a scope", path) < 0 ? -ENOMEM
	                                                                                                  : 0;
}

/* Where the manager put PID: the scope's folder, which must be UNIT's. */
static int find_folder(const char *unit, pid_t pid, char **folder, char **why)
{
	const char *slash;
	int k = cg_locate_v2_of(pid, folder);

	if (k == -ENOMEM)
		return k;
	if (k < 0)
		return cg_say(why, "scope: cannot find the cgroup of process %d in the cgroup2 hierarchy: %s", (int)pid,
		              strerror(-k));
	slash = strrchr(*folder, '/');
	if (!slash || strcmp(slash + 1, unit) != 0)
		return cg_say(why, "scope: process %d is in %s, not in %s", (int)pid, *folder, unit);
	return 0;
}

int cg_scope_start(const struct run_cgroup_bases *b, const char *name, const struct run_limits *limits, pid_t pid,
                   struct run_cgroup *cg, char **why)
{
	_cleanup_free_ char *folder = NULL;
	sd_bus *bus = NULL;
	int k;

	if (!b->try_scope)
		return cg_say(why, "scope: not asked for");
	k = geteuid() == 0 ? sd_bus_open_system(&bus) : sd_bus_open_user(&bus);
	/* ENOMEDIUM: no XDG_RUNTIME_DIR nor DBUS_SESSION_BUS_ADDRESS says
	 * where a user bus would be. */
	if (k < 0)
		return cg_say(why, "scope: no systemd manager on the bus: cannot connect to the %s bus: %s",
		              geteuid() == 0 ? "system" : "user",
		              k == -ENOMEDIUM ? "no user session (XDG_RUNTIME_DIR is not set)" : strerror(-k));
	cg->bus = bus;
	if (asprintf(&cg->unit, "oz0run-%s.scope", name) < 0) {
		cg->unit = NULL;
		return -ENOMEM;
	}
	if ((k = start_unit(bus, cg->unit, limits, pid, why)) != 0)
		return k;
	if ((k = find_folder(cg->unit, pid, &folder, why)) != 0 || (k = cg_scope_adopt(folder, limits, cg, why)) != 0)
		stop_unit(bus, cg->unit);
	return k;
}

void cg_scope_remove(struct run_cgroup *cg)
{
	if (cg->bus && cg->unit && cg->path)
		stop_unit(cg->bus, cg->unit);
	free(cg->unit);
	cg->unit = NULL;
	free(cg->path);
	cg->path = NULL;
	if (cg->bus)
		sd_bus_flush_close_unref(cg->bus);
	cg->bus = NULL;
}
