/* Finds what a PATH given to oz0fs --explain (or named by the mount's
 * user.oz0fs.why) names in the tree, as the mount would meet it, following
 * no link: each folder on the way is opened O_NOFOLLOW from its parent, '..'
 * goes back up but never above the tree (to the folder the walk came from,
 * or it fails), and the walk stops at the end, at the first missing name, or
 * at the first symbolic link (which is then what is explained, itself). It
 * holds two descriptors at most, whatever the depth. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* A folder on the way. */
struct explain_folder {
	uint64_t dev, ino;
	char *path; /* tree-relative, "." for the tree */
};

struct explain_target {
	struct explain_folder *folders; /* the tree first; the last holds the target */
	size_t n_folders;
	char *name; /* the target's name in the last folder; NULL for the tree itself */
	char *path; /* the target, tree-relative */
	bool exists;
	struct stat st;   /* when it exists, not following a link */
	const char *rest; /* what PATH names past a missing folder or a link, else NULL */
};

/* PATH relative to DIR, or absolute and inside DIR (as DIR is spelled, or
 * after resolving DIR's own links), as a tree-relative path in *OUT.
 * Returns 0, -EXDEV when it lies outside, or -ENOMEM. */
int explain_tree_relative(const char *dir, const char *path, char **out);

/* Walks REL below ROOTFD. Returns 0, or -errno with a malloc'd one-line
 * reason in *errmsg (PATH leaves the tree, a file on the way, a folder that
 * cannot be searched). */
int explain_resolve(int rootfd, const char *rel, struct explain_target *t, char **errmsg);
void explain_target_free(struct explain_target *t);
