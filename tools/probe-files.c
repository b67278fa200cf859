/* Descriptors: the open-file limit, and whether the daemon can reopen inodes
 * by file handle instead of pinning an fd for each one the kernel holds. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/capability.h"
#include "common/cleanup.h"
#include "tools/probes.h"

/* The daemon's own test: a handle for the folder, and the folder reopened
 * from it. Returns 0, or the -errno of the step that failed in *STEP. */
static int try_handle(int dirfd, const char **step)
{
	union {
		struct file_handle fh;
		unsigned char bytes[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} hb;
	int mount_id, fd;

	hb.fh.handle_bytes = MAX_HANDLE_SZ;
	*step = "name_to_handle_at";
	if (name_to_handle_at(dirfd, "", &hb.fh, &mount_id, AT_EMPTY_PATH) < 0)
		return negative_errno();
	*step = "open_by_handle_at";
	fd = open_by_handle_at(dirfd, &hb.fh, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	close(fd);
	return 0;
}

static int probe_handles(struct report *r, int dirfd, rlim_t limit)
{
	const char *step;
	int k = try_handle(dirfd, &step);

	if (k == 0)
		return report_add(r, "file_handles", "File handles", REPORT_ON,
		                  "the tree's file system gives handles and this process may open them "
		                  "(CAP_DAC_READ_SEARCH): inodes are reopened by handle, not pinned");
	return report_add(r, "file_handles", "File handles", REPORT_OFF,
	                  "%s: %s%s: each inode the kernel holds pins an fd, so past about %llu files and folders "
	                  "in use at once lookups fail with EMFILE; run as root for large trees",
	                  step, strerror(-k), capability_effective(CAP_DAC_READ_SEARCH) ? "" : " (no CAP_DAC_READ_SEARCH)",
	                  (unsigned long long)limit);
}

int probe_files(struct report *r, int dirfd)
{
	struct rlimit rl;
	char value[32];
	int k;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return report_add(r, "open_files", "Open-file limit", REPORT_OFF, "getrlimit: %m");
	if (rl.rlim_max == RLIM_INFINITY)
		snprintf(value, sizeof(value), "unlimited");
	else
		snprintf(value, sizeof(value), "%llu", (unsigned long long)rl.rlim_max);
	k = report_add(r, "open_files", "Open-file limit", value,
	               "soft %llu, hard %s: the daemon raises its soft limit to the hard one and keeps a bounded cache "
	               "of O_PATH fds below it",
	               (unsigned long long)rl.rlim_cur, value);
	if (k < 0)
		return k;
	report_add_count(r, "soft", rl.rlim_cur);
	report_add_count(r, "hard", rl.rlim_max);
	return probe_handles(r, dirfd, rl.rlim_max);
}
