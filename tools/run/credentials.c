#include "config.h"

#include <errno.h>
#include <fcntl.h>
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

/* 1 when PATH was covered, 0 when it is missing or reached through a link. */
static int hide_one(int homefd, const char *path, int empty_file)
{
	_cleanup_close_ int fd = mounts_open_at(homefd, path);
	_cleanup_close_ int cover = -1;
	int k;

	if (fd == -ENOENT || fd == -ELOOP || fd == -ENOTDIR)
		return 0;
	if (fd < 0)
		return fd;
	cover = cover_for(fd, empty_file);
	if (cover < 0)
		return cover;
	k = mounts_attach(cover, fd);
	return k < 0 ? k : 1;
}

/* A equals B or lies below it. */
static bool within(const char *a, const char *b)
{
	size_t n = strlen(b);

	return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/');
}

int credentials_hide(int homefd, int empty_file, const char *tree, const char **failed)
{
	int n = 0;

	for (size_t i = 0; i < n_credential_paths; i++) {
		if (tree && (within(credential_paths[i], tree) || within(tree, credential_paths[i])))
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
