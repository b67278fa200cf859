/* The two ends of a mount, resolved and checked before anything is mounted:
 *
 *   SOURCE      opened as the tree's folder; a file is refused;
 *   MOUNTPOINT  resolved once (realpath: no link, '.' or '..' left) and
 *               pinned by an O_PATH fd, then refused when it is not a
 *               directory, is already an oz0fs mount (the new one would hide
 *               the first daemon), or lies inside the source (the tree would
 *               contain itself). The source itself is allowed: the mount
 *               then covers the tree, which the daemon reaches by its fd.
 *
 * Nothing here or after the mount walks a path through the mount being
 * made: the kernel would send that lookup to a daemon that is not serving
 * yet, and the start would hang. Every refusal is one line in *ERRMSG:
 * what is wrong, then what to do. */
#pragma once

struct mount_target {
	char *path;      /* the mount point resolved, for the model and messages */
	int fd;          /* O_PATH of it: held while mounted */
	char *mount_arg; /* what to mount on: /proc/self/fd/FD when this process
	                  * mounts itself (CAP_SYS_ADMIN), else PATH, which
	                  * fusermount3 resolves on its own */
};

/* Returns the tree's fd, or -errno with *ERRMSG. */
int mount_source_open(const char *source, char **errmsg);

/* Fills T for MOUNTPOINT against the tree open as ROOTFD (named SOURCE in
 * messages). Returns 0, or -errno with *ERRMSG and T empty. */
int mount_target_open(const char *mountpoint, int rootfd, const char *source, struct mount_target *t, char **errmsg);
void mount_target_close(struct mount_target *t);
