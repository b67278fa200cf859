/* The probes of oz0fs --check. Each looks at one capability for real (opens,
 * mounts, makes and removes a cgroup) rather than guessing from versions,
 * and adds its lines to the report. Each returns 0, or -ENOMEM. */
#pragma once

#include <stdbool.h>

#include "tools/report.h"
#include "tools/tree-model.h"

/* The FUSE device, libfuse, fusermount3, a real mount, the kernel and FUSE
 * passthrough. *CAN_MOUNT says whether the mount worked. */
int probe_fuse(struct report *r, bool *can_mount);

/* The open-file limit and whether inodes are reopened by file handle, on
 * the file system of DIRFD. */
int probe_files(struct report *r, int dirfd);

/* The cgroup mode the runner would use, and whether a sandbox can be kept
 * from swapping. */
int probe_cgroup(struct report *r);

/* Whether home credential paths are hidden from a sandbox. */
int probe_credentials(struct report *r);

/* Whether an ordinary user's run would work here. */
int probe_rootless(struct report *r);

/* The ceiling in force, from CONFIG (or the default file); *OK false when
 * it cannot be read, as a run would then refuse. */
int probe_ceiling(struct report *r, const char *config, bool *ok);

/* Whether a mount on DIR would start, and what it would protect. *WOULD_MOUNT
 * says whether it would. */
int probe_tree(struct report *r, const char *dir, const char *config, bool *would_mount);
