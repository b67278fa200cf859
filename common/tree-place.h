/* Where an opened file or folder lies relative to a tree, by identity, not
 * by the name it was given: oz0fs refuses a configuration, an audit log or a
 * mount point that the mount would put in the agent's hands.
 *
 * The object's folder is walked up through ".." (the real folders, whatever
 * links the name went through), comparing (st_dev, st_ino) with the tree's
 * at each step. A walk up leaves a bind mount of a subfolder where it was
 * mounted, not where that subfolder lies, so an object on such a mount, on
 * the tree's file system, is placed by the mount's root in its file system
 * (/proc/self/mountinfo) instead. A regular file with more than one name on
 * the tree's file system may have one inside it: no walk finds that. */
#pragma once

enum tree_place {
	TREE_PLACE_OUTSIDE,
	TREE_PLACE_TREE,   /* the tree's folder itself */
	TREE_PLACE_INSIDE, /* below the tree's folder */
	TREE_PLACE_LINKED, /* a regular file with other names (hard links) on the tree's file system */
};

/* Folders walked up at most: a deeper one is -ELOOP. */
#define TREE_PLACE_MAX_DEPTH 2048

/* Where the object open as FD (any kind, O_PATH too) lies relative to the
 * folder open as TREE_FD. Returns an enum tree_place, or -errno: -ESTALE when
 * a file was renamed or removed while it was placed, -ELOOP past the depth. */
int tree_place(int fd, int tree_fd);

/* What is wrong with an object at PLACE, for a refusal ("inside the tree
 * being mounted, ..."); NULL for TREE_PLACE_OUTSIDE. */
const char *tree_place_problem(enum tree_place place);
