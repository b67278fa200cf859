#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef HAVE_OPENAT2
#include <linux/openat2.h>
#endif

#include "cleanup.h"
#include "safe-open.h"

static bool force_fallback;

void safe_open_force_fallback(bool on)
{
	force_fallback = on;
}

#ifdef HAVE_OPENAT2
/* -ENOSYS when the kernel lacks openat2, so the caller walks instead. */
static int open_with_openat2(int dirfd, const char *path, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (unsigned)(flags | O_CLOEXEC | O_NOFOLLOW),
		.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	do
		fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN);
	return fd < 0 ? -errno : (int)fd;
}
#endif

/* Copies the next component of *p into buf; returns its length, 0 at the end. */
static size_t next_component(const char **p, char buf[static NAME_MAX + 1])
{
	const char *s = *p, *e;
	size_t n;

	while (*s == '/')
		s++;
	e = strchrnul(s, '/');
	n = (size_t)(e - s);
	if (n > NAME_MAX)
		return SIZE_MAX;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*p = e;
	return n;
}

static bool is_last_component(const char *rest)
{
	while (*rest == '/')
		rest++;
	return *rest == '\0';
}

/* The walk: every intermediate component is opened O_PATH|O_NOFOLLOW|O_DIRECTORY,
 * so a link on the way is ELOOP/ENOTDIR, never followed. '..' is refused outright
 * because tracking depth above DIRFD through it is what openat2 does for us. */
static int open_with_walk(int dirfd, const char *path, int flags, mode_t mode)
{
	char name[NAME_MAX + 1];
	_cleanup_close_ int cur = -1;
	int at = dirfd, depth = 0;
	const char *p = path;

	if (*path == '/')
		return -EXDEV;
	for (;;) {
		size_t n = next_component(&p, name);
		int fd;

		if (n == SIZE_MAX)
			return -ENAMETOOLONG;
		if (n == 0) /* only slashes: an absolute path, refused above */
			return -EINVAL;
		if (strcmp(name, "..") == 0)
			return -EXDEV;
		if (++depth > SAFE_OPEN_MAX_DEPTH)
			return -ENAMETOOLONG;
		if (is_last_component(p)) {
			fd = openat(at, name, flags | O_CLOEXEC | O_NOFOLLOW, mode);
			if (fd < 0 && errno == ENOTDIR && (flags & O_DIRECTORY)) {
				struct stat st;
				if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
					return -ELOOP;
			}
			return fd < 0 ? -errno : fd;
		}
		fd = openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			struct stat st;
			if (errno == ENOTDIR && fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				return -ELOOP;
			return -errno;
		}
		closep(&cur);
		cur = fd;
		at = cur;
	}
}

int safe_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	if (!path || !*path)
		return -EINVAL;
#ifdef HAVE_OPENAT2
	if (!force_fallback) {
		int r = open_with_openat2(dirfd, path, flags, mode);
		if (r != -ENOSYS)
			return r;
	}
#endif
	return open_with_walk(dirfd, path, flags, mode);
}
