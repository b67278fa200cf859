#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fd-name.h"

/* FD's link in PROCFD, in BUF of PATH_MAX + 1 bytes. */
static int link_of(int procfd, int fd, char *buf)
{
	char name[16];
	ssize_t n;

	snprintf(name, sizeof(name), "%d", fd);
	n = readlinkat(procfd, name, buf, PATH_MAX + 1);
	if (n < 0)
		return negative_errno();
	if (n > PATH_MAX)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	/* Not a path: "anon_inode:...", or what the kernel gives for an object
	 * it cannot name from this process's root. */
	return buf[0] == '/' ? 0 : -EXDEV;
}

/* What PATH is below ROOT (both absolute, as the kernel spells them: no '.',
 * '..' or doubled '/'), or NULL. */
static const char *below(const char *path, const char *root)
{
	size_t n = strcmp(root, "/") == 0 ? 0 : strlen(root);

	if (strncmp(path, root, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return NULL;
	path += n;
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

int fd_name_below(int procfd, int rootfd, int fd, char **rel)
{
	_cleanup_free_ char *root = malloc(PATH_MAX + 1), *path = malloc(PATH_MAX + 1);
	const char *tail;
	struct stat st;
	int r;

	*rel = NULL;
	if (!root || !path)
		return -ENOMEM;
	if (fstat(fd, &st) < 0)
		return negative_errno();
	/* An unlinked object's link reads "NAME (deleted)": a name it no
	 * longer has. */
	if (st.st_nlink == 0)
		return -ENOENT;
	r = link_of(procfd, rootfd, root);
	if (r >= 0)
		r = link_of(procfd, fd, path);
	if (r < 0)
		return r;
	tail = below(path, root);
	if (!tail)
		return -EXDEV;
	*rel = strdup(tail);
	return *rel ? 0 : -ENOMEM;
}
