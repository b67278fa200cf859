/* The oz0fs daemon of a run: outside the sandbox's cgroup and pid
 * namespace, so the command's limits can neither starve nor OOM-kill the
 * file system, in a mount namespace of its own (and, not as root, a user
 * namespace of its own, where FUSE mounts without fusermount3), so nothing
 * is mounted outside the sandbox. The sandbox joins those namespaces (by
 * the daemon's pid, a child of the runner's) to copy the mount from. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

struct run_daemon {
	pid_t pid;
};

/* Starts ARGV (oz0fs -f --ready-fd 3 ...; fd 3 is given to it) with its
 * stderr in LOG_FD, and waits until the mount is live. 0, or -errno with a
 * one-line *ERRMSG (oz0fs's own last line when it ended first). */
int run_daemon_start(char *const *argv, int log_fd, struct run_daemon *d, char **errmsg);
/* SIGTERM, then SIGKILL after 10 s; waits for it. Its wait status, or -errno. */
int run_daemon_stop(struct run_daemon *d);
