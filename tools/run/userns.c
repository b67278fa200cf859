#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/run/userns.h"

static int write_proc(pid_t pid, const char *file, const char *text)
{
	char path[64];
	_cleanup_close_ int fd = -1;
	size_t n = strlen(text);

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	else
		snprintf(path, sizeof(path), "/proc/self/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (write(fd, text, n) != (ssize_t)n)
		return negative_errno();
	return 0;
}

/* "INSIDE BELOW 1" for ID: root in the daemon's namespace, the id itself
 * in the sandbox's, whose parent maps root to it. */
static void one_id(char *map, size_t size, unsigned id, enum run_userns_role role)
{
	if (role == RUN_USERNS_DAEMON)
		snprintf(map, size, "0 %u 1\n", id);
	else
		snprintf(map, size, "%u 0 1\n", id);
}

int run_userns_map(pid_t pid, enum run_userns_role role, const struct run_ids *ids)
{
	char uid_map[64], gid_map[64];
	int k;

	if (ids->root_runner && ids->uid == 0) {
		snprintf(uid_map, sizeof(uid_map), "0 0 4294967295\n");
		snprintf(gid_map, sizeof(gid_map), "0 0 4294967295\n");
	} else if (ids->root_runner) {
		snprintf(uid_map, sizeof(uid_map), "%u %u 1\n", (unsigned)ids->uid, (unsigned)ids->uid);
		snprintf(gid_map, sizeof(gid_map), "%u %u 1\n", (unsigned)ids->gid, (unsigned)ids->gid);
		if ((k = write_proc(pid, "setgroups", "deny")) < 0)
			return k;
	} else {
		one_id(uid_map, sizeof(uid_map), (unsigned)ids->uid, role);
		one_id(gid_map, sizeof(gid_map), (unsigned)ids->gid, role);
		k = write_proc(pid, "setgroups", "deny");
		if (k < 0)
			return k;
	}
	k = write_proc(pid, "uid_map", uid_map);
	return k < 0 ? k : write_proc(pid, "gid_map", gid_map);
}
