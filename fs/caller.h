/* Acting as the calling process: a root daemon creates each file, directory,
 * node and symlink with the caller's fsuid, fsgid and supplementary groups,
 * as ext4 would, so the owner is the caller and the underlying file system
 * refuses what it would refuse the caller. All three are switched on the
 * worker thread only (setfsuid/setfsgid and the raw setgroups syscall are
 * per-thread; glibc's setgroups would change every thread). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

struct caller_saved {
	bool switched;
};

/* Remembers the daemon's own groups; call once before the worker threads. */
int caller_init(void);
/* Becomes (UID, GID) with the groups of process PID, read through PROC_FD
 * (an fd of /proc). A process gone meanwhile gets no supplementary groups. */
int caller_become(uid_t uid, gid_t gid, pid_t pid, int proc_fd, struct caller_saved *s);
/* Whether process PID, whose primary group is PRIMARY, is in GID, its
 * supplementary groups (read through PROC_FD) included: the kernel's
 * in_group_p(). */
bool caller_in_group(gid_t gid, gid_t primary, pid_t pid, int proc_fd);
/* The process (thread group) of thread TID, which is what a FUSE request
 * names; TID itself when it is gone. */
pid_t caller_process(pid_t tid, int proc_fd);
/* Back to the daemon's credentials; a no-op if nothing was switched. */
void caller_leave(struct caller_saved *s);
#define _cleanup_caller_ __attribute__((cleanup(caller_leave)))
