/* Whether oz0run can run as an ordinary user here: user namespaces for
 * its namespaces and its FUSE mount, and a /dev/fuse that user may open. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/probes.h"

/* A number from a /proc/sys file, or -1 when it cannot be read. */
static long sysctl_number(const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[32];
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

int probe_rootless(struct report *r)
{
	long max_userns = sysctl_number("/proc/sys/user/max_user_namespaces");
	long clone = sysctl_number("/proc/sys/kernel/unprivileged_userns_clone");
	struct stat st;

	if (max_userns == 0)
		return report_add(r, "rootless", "Rootless runs", REPORT_OFF,
		                  "user namespaces are off (user.max_user_namespaces is 0)");
	if (clone == 0)
		return report_add(r, "rootless", "Rootless runs", REPORT_OFF,
		                  "unprivileged user namespaces are off (kernel.unprivileged_userns_clone is 0)");
	if (stat("/dev/fuse", &st) < 0)
		return report_add(r, "rootless", "Rootless runs", REPORT_OFF, "there is no /dev/fuse");
	if ((st.st_mode & 0006) != 0006)
		return report_add(r, "rootless", "Rootless runs", REPORT_OFF,
		                  "/dev/fuse is mode %04o: other users cannot open it (chmod 0666 /dev/fuse, as most "
		                  "distributions ship it, lets them); user namespaces are on",
		                  (unsigned)(st.st_mode & 07777));
	return report_add(r, "rootless", "Rootless runs", REPORT_ON,
	                  "user namespaces are on and /dev/fuse is open to every user: an ordinary user's run "
	                  "mounts in a user namespace; its cgroup limits hold only where a cgroup is delegated "
	                  "to that user");
}
