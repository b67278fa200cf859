#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/run/state-place.h"

static char *state_folder(void)
{
	const char *env = getenv("OZ0RUN_STATE_DIR"), *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *dir = NULL;

	if (env && *env)
		return strdup(env);
	if (geteuid() == 0)
		return strdup("/var/lib/oz0run");
	if (xdg && xdg[0] == '/' && asprintf(&dir, "%s/oz0run", xdg) >= 0)
		return dir;
	if (home && home[0] == '/' && asprintf(&dir, "%s/.local/state/oz0run", home) >= 0)
		return dir;
	return NULL;
}

/* mkdir -p, the last one 0700. */
static int make_folder(char *dir)
{
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int k = mkdir(dir, 0755) < 0 && errno != EEXIST ? negative_errno() : 0;
		*p = '/';
		if (k < 0)
			return k;
	}
	return mkdir(dir, 0700) < 0 && errno != EEXIST ? negative_errno() : 0;
}

static int say(char **errmsg, int k, const char *what, const char *path)
{
	if (asprintf(errmsg, "%s %s: %s", what, path, strerror(-k)) < 0)
		*errmsg = NULL;
	return k;
}

int run_state_claim(int rootfd, char **state, int *lock_fd, char **errmsg)
{
	_cleanup_free_ char *dir = state_folder(), *lock = NULL;
	struct stat st;
	int k, fd;

	*state = NULL;
	*lock_fd = -1;
	*errmsg = NULL;
	if (!dir)
		return say(errmsg, -ENOENT, "no folder for the settler's state: set", "OZ0RUN_STATE_DIR or HOME");
	if (fstat(rootfd, &st) < 0)
		return say(errmsg, negative_errno(), "cannot look at", "the tree");
	if ((k = make_folder(dir)) < 0)
		return say(errmsg, k, "cannot make the state folder", dir);
	if (asprintf(state, "%s/tree-%ju-%ju.state", dir, (uintmax_t)st.st_dev, (uintmax_t)st.st_ino) < 0 ||
	    asprintf(&lock, "%s/tree-%ju-%ju.lock", dir, (uintmax_t)st.st_dev, (uintmax_t)st.st_ino) < 0) {
		free(*state);
		*state = NULL;
		return -ENOMEM;
	}
	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		k = say(errmsg, negative_errno(), "cannot open the lock", lock);
	else if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		k = errno == EWOULDBLOCK ? say(errmsg, -EBUSY, "another run holds this tree; its lock is", lock)
		                         : say(errmsg, negative_errno(), "cannot lock", lock);
	if (k < 0) {
		if (fd >= 0)
			close(fd);
		free(*state);
		*state = NULL;
		return k;
	}
	*lock_fd = fd;
	return 0;
}
