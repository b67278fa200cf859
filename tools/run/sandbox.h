/* The sandbox's processes (ARCHITECTURE.md, the runner, step 5):
 *
 *   setup   forked by the runner, waits to be placed in the cgroup and for
 *           the daemon's mount, joins the daemon's namespaces, builds the view (view.h), unshares the
 *           pid (and network) namespaces, forks init and exits;
 *   init    pid 1 of the new pid namespace: mounts a fresh /proc, brings
 *           the loopback up, enters a user namespace of its own (its maps
 *           written by the runner), which locks every mount made before,
 *           forks the command and reaps; when the command ends it kills
 *           whatever is left and reaps until nothing is, then tells the
 *           runner the command's wait status and exits, which ends the
 *           namespace;
 *   command ARGV, pid 2, so a signal it sends itself acts as outside.
 *
 * The command runs from the workspace, with HOME and OZ0_AUDIT set and
 * every other variable as given; it inherits fds 0, 1 and 2 only. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "tools/run/userns.h"
#include "tools/run/view.h"

struct run_sandbox_spec {
	char *const *argv;
	struct run_ids ids; /* the runner's, mapped into the sandbox */
	const struct run_view *view;
	bool network_none;
};

struct run_sandbox {
	const struct run_sandbox_spec *spec;
	pid_t setup;
	pid_t init; /* once started */
	int chan;   /* the runner's end of the channel (channel.h) */
};

/* Forks the setup process, which waits for run_sandbox_start(). It comes
 * first, before the daemon, so that the cgroup layer may move the runner
 * into a leaf of its own (cgroup v2) before the daemon is forked beside it. 0,
 * or -errno. */
int run_sandbox_fork(const struct run_sandbox_spec *s, struct run_sandbox *sb);
/* Lets it go (once it is in the cgroup) into the namespaces of the daemon
 * DAEMON (the runner's child), and sees it through to the command's start:
 * init is then the runner's child (the runner must be a child subreaper).
 * 0, or -errno with a one-line *ERRMSG. */
int run_sandbox_start(struct run_sandbox *sb, pid_t daemon, char **errmsg);
/* Kills and reaps what is left of a sandbox that did not start. */
void run_sandbox_abort(struct run_sandbox *sb);
