/* Repository discovery: the pointers Git follows from one git directory to
 * another (a .git file's `gitdir:`, a git directory's `commondir`, a linked
 * worktree's `gitdir`), read as untrusted and turned into tree-relative paths.
 *
 * A pointer that stays in the tree, or comes back into it, is walked by the
 * model (never through a link inside it); one that leaves it names a place
 * the sandbox never makes writable, so it is left to the system (seed 000,
 * "Bounds on reading Git state").
 */
#pragma once

#include <stddef.h>

/* Past this many git directories the mount refuses (seed 000, "Bounds on new
 * Git directories": the 256 a sandbox reads). */
#define DISCOVER_MAX_GIT_DIRS 256

/* Resolves POINTER (LEN bytes, trailing CR/LF already cut) found in the
 * folder BASE (tree-relative, "" for the root, made of real folders the
 * caller reached without a link). TREE is the tree's absolute path, and
 * SEEN_AS (or NULL) the path it is mounted at, which git run on the mount
 * writes into the pointers it makes.
 *
 * A pointer that leaves the tree (a leading '..' past the root, an absolute
 * path elsewhere) may come back into it: by its own name, taken lexically
 * from where git sees the tree, or through a link outside the tree, taken
 * physically as the kernel opens it; either landing in the tree is where it
 * names, and two different landings are refused.
 *
 * Returns 1 with a malloc'd tree-relative path in *out ("" for the root) when
 * the pointer names a place in the tree; 0 when it leaves the tree; -EINVAL
 * with *why when it is malformed: empty, a NUL byte, an empty or '.'
 * component, or a '..' after a folder name (it would climb out of a folder
 * that may be a link, so its target cannot be known without following one). A
 * pointer that is only "." names BASE itself (a stand-in commondir). */
int discover_resolve(const char *tree, const char *seen_as, const char *base, const char *pointer, size_t len,
                     char **out, const char **why);

/* Reads a .git file NAME in DIRFD ("gitdir: <path>", as Git writes it) and
 * returns its pointer, malloc'd and with the line end cut, in *pointer and
 * *len. -EINVAL with *why when it does not say "gitdir: "; gitread_file()'s
 * errors otherwise. */
int discover_read_gitfile(int dirfd, const char *name, char **pointer, size_t *len, const char **why);

/* Reads a one-line pointer file (commondir, a linked worktree's gitdir) the
 * same way: the whole file, the line end cut. */
int discover_read_pointer(int dirfd, const char *name, char **pointer, size_t *len, const char **why);
