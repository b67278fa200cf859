/* The mount's answer to "why?" from inside it: the read-only extended
 * attribute user.oz0fs.why of every file and folder says what
 *   oz0fs --explain DIR PATH
 * prints for it (text form), byte for byte: the same judgement
 * (policy/explain-judge.h) against the snapshot the mount judges with, the
 * same walk of PATH from the tree (common/explain-resolve.h), the same
 * formatter (policy/explain-text.h).
 *
 * The daemon knows an object by identity; PATH is the name the kernel gives
 * its descriptor (common/fd-name.h), walked again from the tree and kept
 * only if it leads to the object. When no name does (a file without one, a
 * name that leads elsewhere three walks running, a folder the daemon cannot
 * search), the answer says so in place of PATH and judges the object by its
 * identity alone: whether it is protected, and what a write and a chmod
 * get. */
#pragma once

#include <stddef.h>

#include "policy/policy.h"

#define WHY_XATTR "user.oz0fs.why"

/* The value of user.oz0fs.why for the object open as FD, whose identity is
 * ID, in the tree open as ROOTFD; PROCFD is an fd of /proc/self/fd. In a
 * malloc'd *OUT of *LEN bytes. Returns 0 or -ENOMEM (or the -errno of a
 * stat of FD). */
int why_answer(int procfd, int rootfd, int fd, struct policy_id id, const struct policy_snapshot *s, char **out,
               size_t *len);

/* Takes user.oz0fs.why out of the listxattr answer LIST of N bytes (one a
 * file of the tree may hold from before the mount: the mount answers its
 * own value for that name, and lists none). Returns the new length. */
size_t why_hide(char *list, size_t n);
