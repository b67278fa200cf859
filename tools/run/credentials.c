#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "tools/run/credentials.h"
#include "tools/run/mounts.h"

const char *const credential_paths[] = {
        ".ssh",   ".aws",       ".config/gcloud",      ".azure", ".kube",
        ".gnupg", ".config/gh", ".docker/config.json", ".netrc", ".git-credentials",
        ".npmrc", ".pypirc",
};
const size_t n_credential_paths = ELEMENTSOF(credential_paths);

/* What covers the object at FD: an empty read-only folder or file. */
static int cover_for(int fd, int empty_file)
{
	struct stat st;
	int m;

	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (S_ISDIR(st.st_mode))
		return mounts_new_tmpfs(0555, true);
	m = mounts_clone(empty_file, false);
	if (m >= 0 && mounts_set_readonly(m, true, false) < 0) {
		int k = negative_errno();
		close(m);
		return k;
	}
	return m;
}

/* Covers the object at FD (an O_PATH descriptor): 0, or -errno. */
static int cover(int fd, int empty_file)
{
	_cleanup_close_ int m = cover_for(fd, empty_file);

	return m < 0 ? m : mounts_attach(m, fd);
}

/* Makes the folder at FD a mount of itself, so that it cannot be renamed
 * away with the covered path it holds (a mount point cannot be moved). */
static int pin(int fd)
{
	_cleanup_close_ int m = mounts_clone(fd, true);

	return m < 0 ? m : mounts_attach(m, fd);
}

/* 1 when PATH was covered, 0 when it is missing. Walked a name at a time
 * below HOMEFD: a link on the way is not followed, it is covered itself
 * (an empty file over the link), so nothing behind it is looked at or
 * hidden; a folder on the way is pinned. */
static int hide_one(int homefd, const char *path, int empty_file)
{
	char copy[64], *save = NULL;
	_cleanup_close_ int at = -1;

	snprintf(copy, sizeof(copy), "%s", path);
	for (char *name = strtok_r(copy, "/", &save), *next; name; name = next) {
		int fd, k;
		struct stat st;

		next = strtok_r(NULL, "/", &save);
		if (fstatat(at >= 0 ? at : homefd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return errno == ENOENT || errno == ENOTDIR ? 0 : negative_errno();
		fd = openat(at >= 0 ? at : homefd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return negative_errno();
		if (!next || S_ISLNK(st.st_mode)) {
			k = cover(fd, empty_file);
			close(fd);
			return k < 0 ? k : 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(fd);
			return 0; /* a file where a folder would be: nothing below it */
		}
		k = pin(fd);
		close(fd);
		if (k < 0)
			return k;
		/* on through the pin just made */
		fd = openat(at >= 0 ? at : homefd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return negative_errno();
		if (at >= 0)
			close(at);
		at = fd;
	}
	return 0;
}

int credentials_hide(int homefd, int empty_file, const char *tree, const char **failed)
{
	int n = 0;

	for (size_t i = 0; i < n_credential_paths; i++) {
		if (tree && (mounts_path_within(credential_paths[i], tree) || mounts_path_within(tree, credential_paths[i])))
			continue;
		int k = hide_one(homefd, credential_paths[i], empty_file);
		if (k < 0) {
			*failed = credential_paths[i];
			return k;
		}
		n += k;
	}
	return n;
}
