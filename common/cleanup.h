/* Scope-bound cleanup and ownership transfer, in the style of systemd.
 *
 *   _cleanup_free_ char *s = strdup(x);     freed when s leaves scope
 *   _cleanup_close_ int fd = open(...);     closed when fd leaves scope
 *   return TAKE_PTR(s);                     hand ownership to the caller
 */
#pragma once

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void freep(void *p)
{
	free(*(void **)p);
}

/* Closes without disturbing errno, so a caller's '%m' still names the real failure. */
static inline void closep(const int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)

/* DEFINE_TRIVIAL_CLEANUP_FUNC(struct foo *, foo_free) gives foo_freep(). */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)       \
	static inline void func##p(type *p)           \
	{                                             \
		if (*p)                               \
			func(*p);                     \
	}

#define TAKE_PTR(p)                                   \
	({                                            \
		__typeof__(p) _took = (p);            \
		(p) = NULL;                           \
		_took;                                \
	})

#define TAKE_FD(fd)                                   \
	({                                            \
		int _took = (fd);                     \
		(fd) = -1;                            \
		_took;                                \
	})

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

/* Returns -errno of the last failed libc call, never 0, so a caller can 'return -errno_or_eio();'. */
static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}
