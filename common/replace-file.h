/* Writing a whole file so that a reader never sees half of it: the bytes go
 * to a new file beside it, reach the disk, and are renamed over it. Behind
 * the settler's STATE (git/settle/state-file.c) and the runner's report
 * (tools/run/outcome.c). */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* Replaces FILE by BUF (LEN bytes), made with MODE (less the umask). A link
 * at FILE itself is replaced, never what it points to; the new file beside
 * it is never left behind. 0, or -errno (-EISDIR for a FILE ending in '/'). */
int replace_file(const char *file, const char *buf, size_t len, mode_t mode);
