/* Which mount an fd lies on, and what /proc/self/mountinfo says of it: the
 * start-up checks refuse to stack on an oz0fs mount and see through bind
 * mounts of a subfolder. */
#pragma once

#include <stdbool.h>

struct mount_entry {
	int id;
	char *root;       /* the folder of its file system the mount shows ("/" for all of it) */
	char *mountpoint; /* where it is mounted, as this process sees it */
	char *fstype;     /* "ext4", "fuse.oz0fs" */
};

/* The mount ID of the object open as FD (statx STATX_MNT_ID) and whether
 * it is that mount's root. Returns 0 or -errno (-ENOSYS: the kernel says
 * neither). */
int mount_of_fd(int fd, int *id, bool *is_root);

/* The line of mount ID in /proc/self/mountinfo, its octal escapes undone.
 * Returns 0, -ENOENT when no line has ID, or -errno. */
int mountinfo_find(int id, struct mount_entry *out);
void mount_entry_clear(struct mount_entry *e);
