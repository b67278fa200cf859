#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/safe-open.h"
#include "git/settle/act.h"

/* How many ".sandbox-refused.N" names are tried before giving up. */
#define ASIDE_MAX_TRIES 1000
/* Folders removed below one another at most (bounded like the scan). */
#define REMOVE_MAX_DEPTH SCAN_MAX_DEPTH

/* PATH as a line shows it: bytes other than printable ASCII (a newline, a
 * byte of another encoding) and the backslash as \ooo. */
static void put_path(FILE *out, const char *path)
{
	if (!*path)
		path = ".";
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p < 0x20 || *p >= 0x7f || *p == '\\')
			fprintf(out, "\\%03o", *p);
		else
			fputc(*p, out);
}

static void say(struct settle_ctx *c, const char *verb, const char *path, const char *to, const char *reason)
{
	FILE *out = c->opts->out;

	c->acted = true;
	fprintf(out, "%s: ", verb);
	put_path(out, path);
	if (to) {
		fputs(" -> ", out);
		put_path(out, to);
	}
	fprintf(out, ": %s\n", reason);
	fflush(out);
	if (c->opts->on_action)
		c->opts->on_action(c->opts->action_ctx, verb, path, to, reason);
}

void act_failed(struct settle_ctx *c, const char *path, const char *reason)
{
	c->failed = true;
	c->unsettled = true;
	say(c, "could not settle", path, NULL, reason);
}

/* Says that WHAT could not be done to PATH; the settle goes on. */
static int failed_errno(struct settle_ctx *c, const char *path, const char *what, int r)
{
	_cleanup_free_ char *why = NULL;

	if (r == -ENOMEM || asprintf(&why, "cannot %s it: %s", what, strerror(-r)) < 0)
		return -ENOMEM;
	act_failed(c, path, why);
	return 0;
}

/* What a dry run can tell of an action in the folder AT beforehand: that
 * this process may not change its entries. */
static int dry_check(const struct settle_ctx *c, int at)
{
	if (!c->opts->dry_run || faccessat(at, ".", W_OK | X_OK, AT_EACCESS) == 0)
		return 0;
	return negative_errno();
}

int act_open_parent(struct settle_ctx *c, const char *path, const char **name)
{
	const char *slash = strrchr(path, '/');
	_cleanup_free_ char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");

	*name = slash ? slash + 1 : path;
	if (!dir)
		return -ENOMEM;
	return safe_openat(c->rootfd, dir, O_PATH | O_DIRECTORY, 0);
}

/* The first NAME.sandbox-refused[.N] free in AT, into BUF. */
static int free_aside_name(int at, const char *name, char *buf, size_t size)
{
	struct stat st;

	for (int n = 1; n <= ASIDE_MAX_TRIES; n++) {
		int len = n == 1 ? snprintf(buf, size, "%s%s", name, SCAN_QUARANTINE)
		                 : snprintf(buf, size, "%s%s.%d", name, SCAN_QUARANTINE, n);
		if (len < 0 || (size_t)len >= size || len > NAME_MAX)
			return -ENAMETOOLONG;
		if (fstatat(at, buf, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
			return 0;
	}
	return -EEXIST;
}

int act_move_aside(struct settle_ctx *c, const char *path, const char *reason)
{
	const char *name;
	char aside[PATH_MAX];
	_cleanup_close_ int at = act_open_parent(c, path, &name);
	_cleanup_free_ char *to = NULL;
	int r = at < 0 ? at : free_aside_name(at, name, aside, sizeof(aside));

	if (r >= 0)
		r = dry_check(c, at);
	if (r < 0)
		return failed_errno(c, path, "move aside", r);
	if (asprintf(&to, "%.*s%s", (int)(name - path), path, aside) < 0)
		return -ENOMEM;
	/* Never over anything: a name taken meanwhile fails, not replaced. */
	if (!c->opts->dry_run && renameat2(at, name, at, aside, RENAME_NOREPLACE) < 0)
		return failed_errno(c, path, "move aside", negative_errno());
	say(c, "moved aside", path, to, reason);
	return 0;
}

static int remove_below(int at, const char *name, unsigned depth);

/* Empties the folder FD, then nothing is left to follow in it. */
static int empty_folder(int fd, unsigned depth)
{
	_cleanup_(settle_names_done) struct settle_names names = {0};
	int r = settle_list_names(fd, &names);

	for (size_t i = 0; r >= 0 && i < names.n; i++)
		r = remove_below(fd, names.v[i], depth + 1);
	return r;
}

/* Removes NAME in AT, a folder with all it holds; a link is removed, not
 * followed. */
static int remove_below(int at, const char *name, unsigned depth)
{
	if (unlinkat(at, name, 0) == 0)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return errno == ENOENT ? 0 : negative_errno();
	if (depth >= REMOVE_MAX_DEPTH)
		return -ELOOP;
	_cleanup_close_ int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	int r = empty_folder(fd, depth);
	if (r < 0)
		return r;
	return unlinkat(at, name, AT_REMOVEDIR) < 0 ? negative_errno() : 0;
}

int act_remove(struct settle_ctx *c, const char *path, const char *reason)
{
	const char *name;
	_cleanup_close_ int at = act_open_parent(c, path, &name);
	int r = at < 0 ? at : dry_check(c, at);

	if (r >= 0 && !c->opts->dry_run)
		r = remove_below(at, name, 0);
	if (r < 0)
		return failed_errno(c, path, "remove", r);
	say(c, "removed", path, NULL, reason);
	return 0;
}

/* Writes LEN bytes of DATA to a new file in AT, renamed over NAME. */
static int replace_file(int at, const char *name, const char *data, size_t len)
{
	char tmp[NAME_MAX + 1];
	int n = snprintf(tmp, sizeof(tmp), ".%.200s.settle-%ld", name, (long)getpid());

	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	_cleanup_close_ int fd = openat(at, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return negative_errno();
	for (size_t done = 0; done < len;) {
		ssize_t w = write(fd, data + done, len - done);
		if (w < 0) {
			int r = negative_errno();
			unlinkat(at, tmp, 0);
			return r;
		}
		done += (size_t)w;
	}
	if (fsync(fd) < 0 || renameat(at, tmp, at, name) < 0) {
		int r = negative_errno();
		unlinkat(at, tmp, 0);
		return r;
	}
	return 0;
}

int act_rewrite(struct settle_ctx *c, const char *path, const char *data, size_t len, const char *verb,
                const char *reason)
{
	const char *name;
	_cleanup_close_ int at = act_open_parent(c, path, &name);
	int r = at < 0 ? at : dry_check(c, at);

	if (r >= 0 && !c->opts->dry_run)
		r = replace_file(at, name, data, len);
	if (r < 0)
		return failed_errno(c, path, "rewrite", r);
	say(c, verb, path, NULL, reason);
	return 0;
}

int act_give_access(struct settle_ctx *c, int at, const char *name, const char *path, const char *reason)
{
	struct stat st;
	/* By the folder's own fd: a link put in its place is not followed. */
	_cleanup_close_ int fd = openat(at, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	char proc[64];

	if (fd < 0 || fstat(fd, &st) < 0)
		return failed_errno(c, path, "give access back to", negative_errno());
	if (c->opts->dry_run && geteuid() != 0 && geteuid() != st.st_uid)
		return failed_errno(c, path, "give access back to", -EPERM);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!c->opts->dry_run && chmod(proc, (st.st_mode & 07777) | S_IRWXU) < 0)
		return failed_errno(c, path, "give access back to", negative_errno());
	c->failed = true; /* the run fails saying so */
	say(c, "gave the owner access back", path, NULL, reason);
	return 0;
}
