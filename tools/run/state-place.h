/* Where a run keeps the settler's state of a tree, outside it: one file
 * per tree, named by the tree's device and inode, so the next run on the
 * same tree finds a state a killed runner left. A lock beside it keeps two
 * runs off one tree at once. */
#pragma once

/* The folder: $OZ0RUN_STATE_DIR, else /var/lib/oz0run as root, else
 * $XDG_STATE_HOME/oz0run, else $HOME/.local/state/oz0run (made 0700 where
 * missing). For the tree open as ROOTFD: *STATE (malloc'd) and *LOCK_FD,
 * an exclusive lock held until it is closed. 0, or -errno with a one-line
 * *ERRMSG (-EBUSY: another run holds the tree). */
int run_state_claim(int rootfd, char **state, int *lock_fd, char **errmsg);
