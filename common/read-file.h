/* Reading a whole file from an fd, bounded: the one loop behind git/read.c
 * (untrusted Git state) and policy/conf.c (the configuration). */
#pragma once

#include <stddef.h>

/* Reads FD to its end, MAX bytes at most, into a malloc'd buffer that is
 * NUL-terminated after *LEN bytes. HINT is the size fstat gave (a first
 * guess only: /proc-like files lie and a writer may grow the file). One byte
 * past MAX is read to catch a file that is larger: -EFBIG. Returns 0,
 * -EFBIG, -EINVAL (MAX too large), -ENOMEM or the read's -errno. */
int read_fd_bounded(int fd, size_t hint, size_t max, char **data, size_t *len);
