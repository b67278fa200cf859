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

/* O_TMPFILE includes O_DIRECTORY's bit, so a plain O_DIRECTORY must not count
 * as it: openat2 refuses a mode the flags do not take. */
static bool flags_take_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

#ifdef HAVE_OPENAT2
/* -ENOSYS when the kernel lacks openat2, so the caller walks instead. */
static int open_with_openat2(int dirfd, const char *path, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (unsigned)(flags | O_CLOEXEC | O_NOFOLLOW),
		.mode = flags_take_mode(flags) ? mode : 0,
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

/* Components of PATH, '.' and '..' included, so neither pads a path past the
 * bound, whichever way it is resolved. */
static size_t count_components(const char *path)
{
	size_t n = 0;

	for (const char *s = path + strspn(path, "/"); *s; s += strspn(s, "/")) {
		n++;
		s += strcspn(s, "/");
	}
	return n;
}

static bool is_symlink(int at, const char *name)
{
	struct stat st;

	return fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

/* The directories the walk stands in, below DIRFD; '..' pops one, so it can
 * never climb above DIRFD and never re-resolves a name. safe_openat() bounds
 * the components, and so the depth, by SAFE_OPEN_MAX_DEPTH. */
struct walk {
	int fds[SAFE_OPEN_MAX_DEPTH];
	size_t depth;
};

static void walk_release(struct walk *w)
{
	while (w->depth > 0)
		close(w->fds[--w->depth]);
}

/* One directory further: O_PATH|O_NOFOLLOW|O_DIRECTORY, so a link there is
 * refused (as ELOOP, like openat2), never followed. */
static int walk_step(struct walk *w, int at, const char *name)
{
	int fd = openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOTDIR && is_symlink(at, name) ? -ELOOP : -errno;
	w->fds[w->depth++] = fd;
	return 0;
}

/* The last component. A trailing '/' demands a directory, as the kernel does
 * (and EISDIR with O_CREAT), and makes a link there ELOOP as openat2 does; a
 * plain O_DIRECTORY|O_NOFOLLOW on a link is openat2's ENOTDIR. */
static int walk_open_last(int at, const char *name, bool trailing_slash, int flags, mode_t mode)
{
	int fd;

	if (trailing_slash) {
		if (flags & O_CREAT)
			return -EISDIR;
		flags |= O_DIRECTORY;
	}
	fd = openat(at, name, flags | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return errno == ENOTDIR && trailing_slash && is_symlink(at, name) ? -ELOOP : -errno;
	return fd;
}

/* The walk for kernels without openat2: component by component from DIRFD,
 * giving the answers openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) gives. */
static int open_with_walk(int dirfd, const char *path, int flags, mode_t mode)
{
	_cleanup_(walk_release) struct walk w = { .depth = 0 };
	char name[NAME_MAX + 1];
	const char *p = path;

	if (*path == '/')
		return -EXDEV;
	for (;;) {
		size_t n = next_component(&p, name);
		bool last = is_last_component(p);
		int at, r;

		if (n == SIZE_MAX)
			return -ENAMETOOLONG;
		if (strcmp(name, "..") == 0) {
			if (w.depth == 0)
				return -EXDEV;
			close(w.fds[--w.depth]);
			if (!last)
				continue;
			memcpy(name, ".", 2);
		} else if (strcmp(name, ".") == 0 && !last) {
			continue;
		}
		at = w.depth > 0 ? w.fds[w.depth - 1] : dirfd;
		if (last)
			return walk_open_last(at, name, path[strlen(path) - 1] == '/', flags, mode);
		r = walk_step(&w, at, name);
		if (r < 0)
			return r;
	}
}

int safe_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	if (!path || !*path)
		return -EINVAL;
	if (count_components(path) > SAFE_OPEN_MAX_DEPTH)
		return -ENAMETOOLONG;
#ifdef HAVE_OPENAT2
	if (!force_fallback) {
		int r = open_with_openat2(dirfd, path, flags, mode);
		if (r != -ENOSYS)
			return r;
	}
#endif
	return open_with_walk(dirfd, path, flags, mode);
}
