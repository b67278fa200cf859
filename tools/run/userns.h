/* User namespace maps. A runner that is root runs the command as the
 * tree's owner: that one id maps to itself, so the command owns what the
 * owner owns and nothing the kernel checks by user id (sysctls, sockets,
 * devices, root's files) takes it for root. A tree root owns gets root: the
 * whole range maps to itself, root holding its capabilities only over its
 * own namespaces (the sandbox hides /run and /dev and seals /proc for that
 * case). A runner that is another user maps that user alone: to root in
 * the daemon's namespace (a program keeps its capabilities across execve
 * only as root, and oz0fs needs them to mount), and back to the user's own
 * id in the sandbox's, which lies inside the daemon's. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

enum run_userns_role { RUN_USERNS_DAEMON, RUN_USERNS_SANDBOX };

/* The ids the command runs as, and whether the runner is root. */
struct run_ids {
	uid_t uid;
	gid_t gid;
	bool root_runner;
};

/* Writes the uid_map and gid_map of PID (0: the caller's own, which only a
 * single id may be) for ROLE (setgroups "deny" first when not root). The
 * writer is the runner for the daemon's and, as root, the sandbox's; not as
 * root, the sandbox's init maps itself, the kernel taking maps only from
 * the namespace itself or its parent (the daemon's). 0, or -errno. */
int run_userns_map(pid_t pid, enum run_userns_role role, const struct run_ids *ids);
