/* Read-protection of home credential paths (seed 000, "Credential files
 * outside the working directory"): oz0run hides them, which takes a mount
 * namespace it can build mounts in, found here by making one. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/probes.h"
#include "tools/run/credentials.h"
#include "tools/run/mounts.h"

/* The seed's paths that exist in HOME, looked at without following a link
 * at the end ("a, b, c"), into LIST. */
static void present_in(const char *home, char *list, size_t size)
{
	_cleanup_close_ int fd = open(home, O_PATH | O_DIRECTORY | O_CLOEXEC);
	size_t len = 0;
	struct stat st;

	list[0] = '\0';
	for (size_t i = 0; fd >= 0 && i < n_credential_paths && len < size; i++) {
		if (fstatat(fd, credential_paths[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			len += (size_t)snprintf(list + len, size - len, "%s%s", len ? ", " : "", credential_paths[i]);
	}
}

/* In a child: a mount namespace (in a user namespace of its own when not
 * root) where an empty read-only folder goes over one: what hiding takes. */
static int can_hide(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return negative_errno();
	if (pid == 0) {
		int fd, m;
		if (unshare(CLONE_NEWNS | (geteuid() ? CLONE_NEWUSER : 0)) < 0)
			_exit(1);
		fd = mounts_open("/tmp");
		m = mounts_new_tmpfs(0555, true);
		_exit(fd >= 0 && m >= 0 && mounts_attach(m, fd) == 0 ? 0 : 2);
	}
	if (waitpid(pid, &status, 0) < 0)
		return negative_errno();
	return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}

int probe_credentials(struct report *r)
{
	const char *home = getenv("HOME");
	char list[512] = "";
	int k = can_hide();

	if (home && *home)
		present_in(home, list, sizeof(list));
	if (k != 0)
		return report_add(r, "credential_read_protection", "Read-protected credential paths", REPORT_OFF,
		                  "oz0run cannot %s here, so it could not hide them",
		                  k == 1 ? "make a mount namespace" : "mount an empty folder over a path");
	return report_add(r, "credential_read_protection", "Read-protected credential paths", REPORT_ON,
	                  "oz0run hides the node user's home and makes each credential path of the command's "
	                  "home read as empty (a folder empty and read-only, a file empty)%s%s%s%s",
	                  list[0] ? "; present in " : "", list[0] ? home : "", list[0] ? ": " : "", list);
}
