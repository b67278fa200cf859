#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/check-path-case.h"

/* Entries of a folder looked at, at most, for one with a letter. */
#define CASE_MAX_ENTRIES 64

/* NAME with the case of its ASCII letters changed into OUT (NAME_MAX + 1
 * bytes); false when it has none. */
static bool flip_case(const char *name, char *out)
{
	bool letter = false;
	size_t i = 0;

	for (; name[i] && i < NAME_MAX; i++) {
		unsigned char c = (unsigned char)name[i];

		letter |= isalpha(c) != 0;
		out[i] = (char)(isupper(c) ? tolower(c) : toupper(c));
	}
	out[i] = '\0';
	return letter;
}

/* 1 when NAME in DIRFD answers to its case-changed spelling as itself, 0
 * when not, -1 when NAME has no letter. */
static int answers_flipped(int dirfd, const char *name)
{
	char flipped[NAME_MAX + 1];
	struct stat a, b;

	if (!flip_case(name, flipped))
		return -1;
	if (fstatat(dirfd, name, &a, AT_SYMLINK_NOFOLLOW) < 0)
		return 1; /* gone or unreadable: cannot tell */
	if (fstatat(dirfd, flipped, &b, AT_SYMLINK_NOFOLLOW) < 0)
		return errno != ENOENT;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Asks an entry of the folder FD with a letter in its name. */
static int entries_fold(int fd)
{
	int dupfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dupfd < 0 ? NULL : fdopendir(dupfd);
	struct dirent *de;
	int r = -1;

	if (!d) {
		if (dupfd >= 0)
			close(dupfd);
		return 1;
	}
	for (int i = 0; r < 0 && i < CASE_MAX_ENTRIES && (de = readdir(d)); i++)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			r = answers_flipped(fd, de->d_name);
	closedir(d);
	return r;
}

/* The deepest existing folder of ABS, opened, its path left in DIR. */
static int open_deepest(const char *abs, char *dir)
{
	size_t n = strlen(abs);

	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(dir, abs, n + 1);
	for (;;) {
		int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		char *slash;

		if (fd >= 0 || (errno != ENOENT && errno != ENOTDIR))
			return fd < 0 ? negative_errno() : fd;
		slash = strrchr(dir, '/');
		if (!slash)
			return -ENOENT;
		slash[slash == dir] = '\0';
	}
}

bool path_folds_case(const char *abs)
{
	char dir[PATH_MAX];
	_cleanup_close_ int fd = open_deepest(abs, dir);
	_cleanup_close_ int parent = -1;
	int flags = 0, r;

	if (fd < 0)
		return true;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_CASEFOLD_FL))
		return true;
	r = entries_fold(fd);
	if (r >= 0)
		return r;
	/* an empty folder, or one of names without letters: its own name */
	parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	r = parent < 0 || strcmp(dir, "/") == 0 ? -1 : answers_flipped(parent, strrchr(dir, '/') + 1);
	return r != 0;
}
