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

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (write(fd, text, n) != (ssize_t)n)
		return negative_errno();
	return 0;
}

int run_userns_map(pid_t pid)
{
	char uid_map[64], gid_map[64];
	int k;

	if (geteuid() == 0) {
		snprintf(uid_map, sizeof(uid_map), "0 0 4294967295\n");
		snprintf(gid_map, sizeof(gid_map), "0 0 4294967295\n");
	} else {
		snprintf(uid_map, sizeof(uid_map), "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
		snprintf(gid_map, sizeof(gid_map), "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
		k = write_proc(pid, "setgroups", "deny");
		if (k < 0)
			return k;
	}
	k = write_proc(pid, "uid_map", uid_map);
	return k < 0 ? k : write_proc(pid, "gid_map", gid_map);
}
