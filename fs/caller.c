#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "fs/caller.h"

/* Groups beyond this many are not carried over (Linux allows 65,536). */
#define CALLER_GROUPS_MAX 256

static gid_t daemon_groups[CALLER_GROUPS_MAX]; /* written once by caller_init */
static int n_daemon_groups;

int caller_init(void)
{
	int n = getgroups(CALLER_GROUPS_MAX, daemon_groups);
	if (n < 0)
		return negative_errno();
	n_daemon_groups = n;
	return 0;
}

/* The number after "\nKEY:" in a /proc/PID/status text, or NULL. */
static const char *status_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? p + strlen(key) : NULL;
}

/* Parses the "Groups:" line of a /proc/PID/status text. */
static int parse_groups(const char *text, gid_t *groups, int max)
{
	const char *p = status_field(text, "\nGroups:");
	int n = 0;

	if (!p)
		return -EIO;
	while (n < max) {
		char *end;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		unsigned long g = strtoul(p, &end, 10);
		groups[n++] = (gid_t)g;
		p = end;
	}
	return n;
}

/* Reads /proc/PID/status into TEXT (SIZE bytes, NUL-terminated). */
static int read_status(int proc_fd, pid_t pid, char *text, size_t size)
{
	char name[32];

	snprintf(name, sizeof(name), "%d/status", (int)pid);
	_cleanup_close_ int fd = openat(proc_fd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	ssize_t len = read(fd, text, size - 1);
	if (len < 0)
		return negative_errno();
	text[len] = '\0';
	return 0;
}

static int read_groups(int proc_fd, pid_t pid, gid_t *groups, int max)
{
	char text[4096];

	int r = read_status(proc_fd, pid, text, sizeof(text));
	return r < 0 ? r : parse_groups(text, groups, max);
}

pid_t caller_process(pid_t tid, int proc_fd)
{
	char text[4096];

	const char *p = read_status(proc_fd, tid, text, sizeof(text)) < 0 ? NULL : status_field(text, "\nTgid:");
	long tgid = p ? strtol(p, NULL, 10) : 0;
	return tgid > 0 ? (pid_t)tgid : tid;
}

bool caller_in_group(gid_t gid, gid_t primary, pid_t pid, int proc_fd)
{
	gid_t groups[CALLER_GROUPS_MAX];

	if (gid == primary)
		return true;
	int n = read_groups(proc_fd, pid, groups, CALLER_GROUPS_MAX);
	for (int k = 0; k < n; k++)
		if (groups[k] == gid)
			return true;
	return false;
}

static int set_thread_groups(int n, const gid_t *groups)
{
	return syscall(SYS_setgroups, n, groups) < 0 ? negative_errno() : 0;
}

int caller_become(uid_t uid, gid_t gid, pid_t pid, int proc_fd, struct caller_saved *s)
{
	gid_t groups[CALLER_GROUPS_MAX];

	s->switched = false;
	if (uid == 0 && gid == 0)
		return 0; /* the daemon's own identity already */
	int n = read_groups(proc_fd, pid, groups, CALLER_GROUPS_MAX);
	int r = set_thread_groups(n < 0 ? 0 : n, groups);
	if (r < 0)
		return r;
	s->switched = true;
	setfsgid(gid);
	setfsuid(uid);
	/* setfsuid reports no error; read the values back. */
	if ((uid_t)setfsuid((uid_t)-1) != uid || (gid_t)setfsgid((gid_t)-1) != gid) {
		caller_leave(s);
		return -EPERM;
	}
	return 0;
}

void caller_leave(struct caller_saved *s)
{
	if (!s->switched)
		return;
	int saved = errno;
	setfsuid(0);
	setfsgid(0);
	set_thread_groups(n_daemon_groups, daemon_groups);
	errno = saved;
	s->switched = false;
}
