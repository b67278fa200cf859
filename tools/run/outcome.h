/* How a run ended, for `--report FILE` (one JSON object) and for stderr
 * (the same facts in words, one line each). stdout is the command's alone. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "tools/run/cgroup.h"
#include "tools/run/limits.h"

enum run_ended { RUN_ENDED_EXITED, RUN_ENDED_SIGNALED, RUN_ENDED_TIMEOUT, RUN_ENDED_OOM };

/* One settler action (git/settle/settle.h's lines): VERB is "moved aside",
 * "removed", "restored", "commented out exec steps", "gave the owner access
 * back" or "could not settle"; PATH relative to the tree; TO set only for a
 * move; EARLIER when it settled an interrupted earlier run. */
struct run_settled {
	char *verb, *path, *to, *reason;
	bool earlier;
};

struct run_outcome {
	char *const *argv;
	struct run_limits asked, applied;
	unsigned capped;          /* RUN_CAPPED_* bits: the ceiling lowered these */
	enum run_cgroup_mode cgroup;
	char *cgroup_why;         /* the line run_cgroup_start() gave */
	enum run_ended ended;
	int exit_status;          /* the command's: its exit code, or 128+N for signal N */
	int signal;               /* N when ended by a signal (signaled, timeout, oom), else 0 */
	unsigned timeout_s;       /* 0: none */
	uint64_t peak_memory_bytes;
	pid_t daemon_pid;
	struct run_settled *settled;
	size_t n_settled;
	int status;               /* oz0run's own exit status */
};

/* Appends a copy of one action: 0, or -ENOMEM. */
int run_outcome_add_settled(struct run_outcome *o, const char *verb, const char *path, const char *to,
                            const char *reason, bool earlier);
void run_outcome_free(struct run_outcome *o);

/* The JSON object, keys as the issue names them: argv, limits.asked,
 * limits.applied (memory_mb, pids, cpus), limits.capped (the names of the
 * fields a ceiling lowered), cgroup, ended, exit_status, signal,
 * peak_memory_bytes, daemon_pid, settled (each {action, path, to?, reason,
 * earlier}), status. Written whole to a new file beside FILE and renamed
 * over it, so a reader never sees half a report. 0, or -errno. */
int run_outcome_write_report(const struct run_outcome *o, const char *file);

/* The same facts in words on OUT, one line each, each starting "oz0run: ":
 * limits asked and applied (and what the ceiling lowered), the cgroup mode
 * and why, how the command ended, peak memory, the daemon's pid. */
void run_outcome_say(const struct run_outcome *o, FILE *out);
