/* The ceiling in force (seed 000, "Set resource ceilings"): what caps any
 * one sandbox, and whether its file can be read, without which no run starts. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "policy/conf.h"
#include "tools/probes.h"
#include "tools/run/ceiling.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct policy_config *, policy_config_free)

static int say_ceiling(struct report *r, const struct run_limits *c, const char *from)
{
	char mem[32] = "no memory cap", pids[32] = "no process cap", cpus[32] = "no CPU cap", n[16];

	if (c->memory_mb)
		snprintf(mem, sizeof(mem), "%ju MiB", (uintmax_t)c->memory_mb);
	if (c->pids)
		snprintf(pids, sizeof(pids), "%ju processes", (uintmax_t)c->pids);
	if (c->cpu_millis) {
		run_format_cpus(c->cpu_millis, n);
		snprintf(cpus, sizeof(cpus), "%s CPUs", n);
	}
	return report_add(r, "ceiling", "Ceiling", REPORT_ON, "%s, %s, %s (%s): whatever a run asks is capped to it",
	                  mem, pids, cpus, from);
}

int probe_ceiling(struct report *r, const char *config, bool *ok)
{
	_cleanup_(policy_config_freep) struct policy_config *cfg = NULL;
	_cleanup_free_ char *err = NULL;
	struct run_limits c = {0};
	struct run_ceiling_text t;
	int k;

	if (!config && access(POLICY_CONFIG_DEFAULT_FILE, F_OK) == 0)
		config = POLICY_CONFIG_DEFAULT_FILE;
	if ((k = policy_config_load(config, &cfg, &err)) < 0) {
		*ok = false;
		return k == -ENOMEM ? k
		                    : report_add(r, "ceiling", "Ceiling", REPORT_OFF, "no run starts: %s",
		                                 err ? err : strerror(-k));
	}
	t = (struct run_ceiling_text){cfg->ceiling.memory_mb, cfg->ceiling.pids, cfg->ceiling.cpus, cfg->ceiling.file};
	if (!t.memory_mb && !t.pids && !t.cpus && !t.file)
		return report_add(r, "ceiling", "Ceiling", "none",
		                  "no [ceiling] in %s: a run gets what it asks", config ? config : "the configuration");
	if ((k = run_ceiling_load(&t, &c, &err)) < 0) {
		*ok = false;
		return k == -ENOMEM ? k : report_add(r, "ceiling", "Ceiling", REPORT_OFF, "no run starts: %s", err);
	}
	return say_ceiling(r, &c, t.file ? t.file : config);
}
