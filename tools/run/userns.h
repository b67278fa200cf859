/* User namespace maps, written by the runner (the parent side). As root the
 * whole range maps to itself, so root in the sandbox owns what root owns
 * outside but holds its capabilities only over its own namespaces. As
 * another user, that user alone is mapped: to root in the daemon's
 * namespace (a program keeps its capabilities across execve only as root,
 * and oz0fs needs them to mount), and back to the user's own id in the
 * sandbox's, which lies inside the daemon's. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

enum run_userns_role { RUN_USERNS_DAEMON, RUN_USERNS_SANDBOX };

/* The runner's own ids, the ones mapped. */
struct run_ids {
	uid_t uid;
	gid_t gid;
};

/* Writes the uid_map and gid_map of PID (0: the caller's own, which only a
 * single id may be) for ROLE (setgroups "deny" first when not root). The
 * writer is the runner for the daemon's and, as root, the sandbox's; not as
 * root, the sandbox's init maps itself, the kernel taking maps only from
 * the namespace itself or its parent (the daemon's). 0, or -errno. */
int run_userns_map(pid_t pid, enum run_userns_role role, const struct run_ids *ids);
