/* Writing a whole buffer at an offset: the one loop behind tools/write-put.c
 * (a file the tool writes for an agent) and fs/replace.c (a protected file
 * rewritten in place). */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* Writes all LEN bytes of BUF to FD at OFF with pwrite(2), going on after a
 * short write and retrying after EINTR; the file position is left alone.
 * Returns 0 or the write's -errno (-ENOSPC, -EFBIG, -ESPIPE for a pipe...);
 * bytes written before an error stay written. */
int write_whole_at(int fd, const void *buf, size_t len, off_t off);
