/* Reading one small Git file whole, safely.
 *
 * Every file of a Git directory is untrusted: an agent may have replaced it
 * with a link, a FIFO, a device or a file that never ends. gitread_file()
 * is the one way git/ reads such a file's bytes: beneath a directory fd,
 * following no link, never blocking, regular files only, bounded. */
#pragma once

#include <stddef.h>

#define GITREAD_SMALL_MAX (1u << 20)   /* config, commondir, gitdir, HEAD, todo lists */
#define GITREAD_INDEX_MAX (512u << 20)

struct git_blob { char *data; size_t len; };   /* data is NUL-terminated after len bytes */

/* Reads NAME (relative, several components allowed) beneath DIRFD whole: no link followed on the way or at the end (common/safe-open.h), O_NONBLOCK so a FIFO cannot stall it, a regular file only, at most MAX bytes. Returns 0, -ENOENT, -ELOOP (a link), -EINVAL (not a regular file), -EFBIG (over MAX), -EXDEV (escapes DIRFD), or the read's -errno. */
int gitread_file(int dirfd, const char *name, size_t max, struct git_blob *out);

/* Reads PATH, an absolute path outside the tree (the person's, not the
 * agent's: links on the way are followed as git follows them), with the same
 * rules for what it reaches: O_NONBLOCK, a regular file only, at most MAX
 * bytes. Returns 0, or -errno as gitread_file(). */
int gitread_outside(const char *path, size_t max, struct git_blob *out);

/* Frees b's data and empties it; accepts NULL and an empty blob. */
void git_blob_free(struct git_blob *b);
