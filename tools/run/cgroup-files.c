/* Small reads and writes of cgroup files, each relative to a folder's fd:
 * the kernel's interface files are short texts, read whole and written in
 * one write() (a partial write of a cgroup file is not a partial value). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/read-file.h"
#include "tools/run/cgroup-internal.h"

/* cgroup.procs of a crowded cgroup is the longest file read: 1 MiB holds
 * well over 100,000 pids. */
#define CG_READ_MAX (1u << 20)
/* Polling a cgroup that is emptying: every 10 ms, 5 s for a removal, 1 s
 * for a kill (the caller waits for the rest). */
#define CG_POLL_MS        10
#define CG_REMOVE_ROUNDS  500
#define CG_KILL_ROUNDS    100

const char *const cg_controller_name[3] = {"memory", "pids", "cpu"};

int cg_say(char **why, const char *fmt, ...)
{
	va_list ap;
	int n;

	free(*why);
	va_start(ap, fmt);
	n = vasprintf(why, fmt, ap);
	va_end(ap);
	if (n < 0) {
		*why = NULL;
		return -ENOMEM;
	}
	return 1;
}

int cg_read(int dirfd, const char *file, char **text)
{
	/* O_NONBLOCK: a FIFO planted in a fake or hostile folder cannot stall. */
	_cleanup_close_ int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	size_t len;

	if (fd < 0)
		return negative_errno();
	return read_fd_bounded(fd, 0, CG_READ_MAX, text, &len);
}

int cg_read_equal(int dirfd, const char *file, const char *want, char **got)
{
	char *text = NULL;
	size_t len;
	int k = cg_read(dirfd, file, &text);

	if (k < 0)
		return k;
	len = strlen(text);
	if (len > 0 && text[len - 1] == '\n')
		text[len - 1] = '\0';
	if (strcmp(text, want) == 0) {
		free(text);
		return 0;
	}
	*got = text;
	return 1;
}

int cg_write(int dirfd, const char *file, const char *value)
{
	/* O_TRUNC is what a shell's '>' asks too: the kernel ignores it, and a
	 * fake tree's plain file then holds exactly what was written. */
	_cleanup_close_ int fd = openat(dirfd, file, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	size_t len = strlen(value);
	ssize_t n;

	if (fd < 0)
		return negative_errno();
	n = write(fd, value, len);
	if (n < 0)
		return negative_errno();
	return (size_t)n == len ? 0 : -EIO;
}

int cg_write_u64(int dirfd, const char *file, uint64_t value)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, value);
	return cg_write(dirfd, file, buf);
}

/* A decimal number, ended by the text's end, a newline or a space. */
static int parse_u64(const char *s, uint64_t *value)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*value = strtoull(s, &end, 10);
	if (errno || (*end && *end != '\n' && *end != ' '))
		return -EINVAL;
	return 0;
}

int cg_read_key(int dirfd, const char *file, const char *key, uint64_t *value)
{
	_cleanup_free_ char *text = NULL;
	size_t n = strlen(key);
	int k = cg_read(dirfd, file, &text);

	if (k < 0)
		return k;
	for (char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (strncmp(line, key, n) == 0 && line[n] == ' ')
			return parse_u64(line + n + 1, value);
	return -ENOENT;
}

int cg_read_u64(int dirfd, const char *file, uint64_t *value)
{
	_cleanup_free_ char *text = NULL;
	int k = cg_read(dirfd, file, &text);

	return k < 0 ? k : parse_u64(text, value);
}

bool cg_list_has(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; *p; p += strcspn(p, " \n"), p += strspn(p, " \n"))
		if (strncmp(p, word, n) == 0 && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

const char *cg_controller_names(unsigned mask, char buf[static 32])
{
	size_t left = 0, len = 0;

	for (unsigned i = 0; i < 3; i++)
		left += (mask >> i) & 1;
	buf[0] = '\0';
	for (unsigned i = 0; i < 3; i++) {
		if (!(mask & (1u << i)))
			continue;
		left--;
		len += snprintf(buf + len, 32 - len, "%s%s", cg_controller_name[i],
		                left > 1 ? ", " : left == 1 ? " and " : "");
	}
	return buf;
}

int cg_settings_write(int dirfd, struct cg_setting *s, size_t n, const char *mode, const char *path, char **why)
{
	for (size_t i = 0; i < n; i++) {
		int k = cg_write(dirfd, s[i].file, s[i].value);

		s[i].present = k != -ENOENT;
		if (k < 0 && !(k == -ENOENT && s[i].optional))
			return cg_say(why, "%s: cannot write %s in %s: %s", mode, s[i].file, path, strerror(-k));
	}
	return 0;
}

int cg_settings_check(int dirfd, struct cg_setting *s, size_t n, const char *mode, const char *path, char **why)
{
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *got = NULL;
		int k = cg_read_equal(dirfd, s[i].file, s[i].value, &got);

		s[i].present = k != -ENOENT;
		if (k == -ENOENT && s[i].optional)
			continue;
		if (k < 0)
			return cg_say(why, "%s: cannot read %s/%s: %s", mode, path, s[i].file, strerror(-k));
		if (k > 0)
			return cg_say(why, "%s: %s/%s reads %s, not %s", mode, path, s[i].file, got, s[i].value);
	}
	return 0;
}

int cg_open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? negative_errno() : fd;
}

int cg_open_child(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

	return fd < 0 ? negative_errno() : fd;
}

int cg_make(const struct run_cgroup_folders *folders, int dirfd, const char *name)
{
	if (folders)
		return folders->make(dirfd, name);
	return mkdirat(dirfd, name, 0755) < 0 ? negative_errno() : 0;
}

static void pause_ms(unsigned ms)
{
	struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	nanosleep(&t, NULL);
}

int cg_remove(const struct run_cgroup_folders *folders, int dirfd, const char *name)
{
	/* A cgroup is busy while a process is in it, a killed one included
	 * for the moment it takes to exit: v1 and v2 refuse with EBUSY. */
	for (unsigned round = 0;; round++) {
		int k = folders ? folders->remove(dirfd, name)
		                : unlinkat(dirfd, name, AT_REMOVEDIR) < 0 ? negative_errno() : 0;

		if (k != -EBUSY || round == CG_REMOVE_ROUNDS)
			return k;
		pause_ms(CG_POLL_MS);
	}
}

int cg_move(int dirfd, pid_t pid)
{
	return cg_write_u64(dirfd, "cgroup.procs", (uint64_t)pid);
}

/* The next pid of a cgroup.procs text at *CURSOR: 1 and *PID, 0 at its
 * end, or -EINVAL. */
static int next_pid(char **cursor, pid_t *pid)
{
	for (char *line; (line = strsep(cursor, "\n"));) {
		uint64_t n;

		if (!*line)
			continue;
		if (parse_u64(line, &n) < 0 || n == 0 || n > INT32_MAX)
			return -EINVAL;
		*pid = (pid_t)n;
		return 1;
	}
	return 0;
}

int cg_procs_count(int dirfd, size_t *n)
{
	bool only;

	return cg_procs_only(dirfd, 0, n, &only);
}

int cg_procs_only(int dirfd, pid_t self, size_t *n, bool *only)
{
	_cleanup_free_ char *text = NULL;
	char *cursor;
	pid_t pid;
	int k = cg_read(dirfd, "cgroup.procs", &text);

	*n = 0;
	*only = true;
	for (cursor = text; k >= 0 && (k = next_pid(&cursor, &pid)) > 0;) {
		(*n)++;
		*only = *only && pid == self;
	}
	*only = *only && *n == 1;
	return k;
}

/* One round: SIGKILL to each listed pid. *ANY says whether one was listed. */
static int kill_listed(int dirfd, bool *any)
{
	_cleanup_free_ char *text = NULL;
	char *cursor;
	pid_t pid;
	int k = cg_read(dirfd, "cgroup.procs", &text);

	*any = false;
	for (cursor = text; k >= 0 && (k = next_pid(&cursor, &pid)) > 0;) {
		*any = true;
		if (kill(pid, SIGKILL) < 0 && errno != ESRCH)
			return negative_errno();
	}
	return k;
}

int cg_procs_kill(int dirfd)
{
	int k = cg_write(dirfd, "cgroup.kill", "1");

	if (k != -ENOENT)
		return k;
	/* No cgroup.kill (v1, or v2 before Linux 5.14): a process may fork
	 * while the list is read, so kill until the list is empty. */
	for (unsigned round = 0; round < CG_KILL_ROUNDS; round++) {
		bool any;

		if ((k = kill_listed(dirfd, &any)) < 0 || !any)
			return k;
		pause_ms(CG_POLL_MS);
	}
	return -EBUSY;
}

int cg_v2_oom_fd(int dirfd)
{
	int fd = openat(dirfd, "memory.events", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	return fd < 0 ? -1 : fd;
}

bool cg_v2_oom_killed(int dirfd)
{
	uint64_t n;

	return cg_read_key(dirfd, "memory.events", "oom_kill", &n) == 0 && n > 0;
}

uint64_t cg_v2_peak(int dirfd)
{
	uint64_t n;

	return cg_read_u64(dirfd, "memory.peak", &n) == 0 ? n : 0;
}
