/* Whether this process holds one capability, without libcap: the daemon
 * decides what it may use (file handles, FUSE backing files) and --check
 * says so. */
#pragma once

#include <stdbool.h>

/* CAP is a CAP_* number from <linux/capability.h>; true when it is in this
 * thread's effective set. */
bool capability_effective(int cap);
