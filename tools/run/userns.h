/* User namespace maps, written by the runner (the parent side): as root the
 * whole range maps to itself, so root in the sandbox owns what root owns
 * outside but holds its capabilities only over its own namespaces; as
 * another user, that user alone maps to itself. */
#pragma once

#include <sys/types.h>

/* Writes PID's uid_map and gid_map (setgroups "deny" first when not root).
 * 0, or -errno. */
int run_userns_map(pid_t pid);
