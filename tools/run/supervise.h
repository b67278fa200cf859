/* The runner's watch over a started sandbox: the command's end, the
 * timeout (seed 002: SIGTERM to every process, SIGKILL 10 s later), the
 * kernel's OOM kill (the whole sandbox is stopped), and a SIGINT, SIGTERM
 * or SIGHUP to the runner itself (handled as a timeout is). Returns once
 * the sandbox's init has been reaped: every process of the sandbox has
 * ended then, the pid namespace having gone with it. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "tools/run/outcome.h"

#define RUN_GRACE_MS 10000

struct run_watch {
	pid_t init;
	int chan;
	unsigned timeout_s; /* 0: none */
	int oom_fd;         /* -1: none */
	short oom_events;
};

struct run_end {
	enum run_ended ended;
	int wait_status;   /* the command's, when it was told */
	bool told;         /* the init told it */
	int not_run;       /* errno of an exec that failed, else 0 */
	int runner_signal; /* a signal that stopped the runner, else 0 */
	char *error;       /* the sandbox could not start the command: why */
};

/* The runner's SIGINT, SIGTERM and SIGHUP blocked, for the watch's
 * signalfd (init's end is seen through a pidfd, not SIGCHLD). */
void run_watch_block_signals(void);
/* 0, or -errno when it could not watch (the sandbox is then killed). */
int run_watch(const struct run_watch *w, struct run_end *end);
