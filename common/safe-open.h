/* The one resolver for multi-component paths that oz0fs opens itself.
 *
 * safe_openat() opens PATH (relative, '/'-separated) beneath DIRFD without
 * following a symbolic link anywhere: not on the way, not at the end, not a
 * magic /proc link, and never above DIRFD ('..' that would leave it fails).
 * It uses openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS)
 * where the kernel has it and a capped component-by-component O_NOFOLLOW walk
 * elsewhere. O_CLOEXEC and O_NOFOLLOW are always added.
 *
 * Returns an fd, or -ELOOP for a link on the way, -EXDEV for an escape,
 * -ENAMETOOLONG past SAFE_OPEN_MAX_DEPTH components, or the open's -errno.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#define SAFE_OPEN_MAX_DEPTH 256

int safe_openat(int dirfd, const char *path, int flags, mode_t mode);

/* Tests force the walk to prove it equals openat2's answers. */
void safe_open_force_fallback(bool on);
