/* Where this process's cgroup lies in the mounted hierarchies, from
 * /proc/self/mountinfo and /proc/self/cgroup. */
#pragma once

#include <stddef.h>

/* The folder of this process's cgroup in the cgroup2 hierarchy (CONTROLLER
 * NULL), or in the v1 hierarchy that holds CONTROLLER. Returns 0, or -ENOENT
 * when no such hierarchy is mounted or this process is not placed in it. */
int cgroup_find_dir(const char *controller, char *out, size_t size);
