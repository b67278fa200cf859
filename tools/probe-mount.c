#include "config.h"

#define FUSE_USE_VERSION 314

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/probe-mount.h"

/* libfuse says why a mount failed only through its log. */
static struct fuse_mount_probe *child_result;

static void keep_fuse_message(enum fuse_log_level level, const char *fmt, va_list ap)
        __attribute__((format(printf, 2, 0)));
static void keep_fuse_message(enum fuse_log_level level, const char *fmt, va_list ap)
{
	char *e = child_result->error;

	if (level > FUSE_LOG_ERR || e[0])
		return;
	vsnprintf(e, sizeof(child_result->error), fmt, ap);
	e[strcspn(e, "\n")] = '\0';
	if (strncmp(e, "fuse: ", 6) == 0) /* libfuse's own prefix */
		memmove(e, e + 6, strlen(e + 6) + 1);
}

static void note(struct fuse_mount_probe *res, const char *what)
{
	if (!res->error[0])
		snprintf(res->error, sizeof(res->error), "%s", what);
}

/* Reads the INIT request and lets libfuse answer it, so the kernel sees a
 * whole handshake before the unmount. */
static void handshake(struct fuse_session *se, struct fuse_mount_probe *res)
{
	struct fuse_buf buf = {0};
	int n = fuse_session_receive_buf(se, &buf);

	if (n <= 0 || fuse_init_parse(buf.mem, (size_t)n, res) < 0)
		note(res, "the kernel sent no INIT request");
	else
		fuse_session_process_buf(se, &buf);
	free(buf.mem);
}

static void mount_and_unmount(const char *dir, struct fuse_mount_probe *res)
{
	static const struct fuse_lowlevel_ops no_ops;
	char *argv[] = {"oz0fs-check", "-o", "fsname=oz0fs-check,subtype=oz0fs", NULL};
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct fuse_session *se = fuse_session_new(&args, &no_ops, sizeof(no_ops), NULL);

	if (!se) {
		note(res, "cannot start a FUSE session");
		return;
	}
	if (fuse_session_mount(se, dir) == 0) {
		res->mounted = true;
		handshake(se, res);
		fuse_session_unmount(se);
	} else {
		note(res, "the mount failed");
	}
	fuse_session_destroy(se);
}

static _Noreturn void probe_in_child(const char *dir, int result_fd)
{
	struct fuse_mount_probe res = {0};

	child_result = &res;
	fuse_set_log_func(keep_fuse_message);
	mount_and_unmount(dir, &res);
	_exit(write(result_fd, &res, sizeof(res)) == (ssize_t)sizeof(res) ? 0 : 1);
}

/* Waits up to TIMEOUT_S for the child's answer; a child that hangs (a mount
 * helper waiting on something) is killed, and the mount it may have left is
 * detached. */
static void read_answer(int fd, pid_t pid, const char *dir, unsigned timeout_s, struct fuse_mount_probe *out)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int r = poll(&p, 1, (int)timeout_s * 1000);

	if (r == 1 && read(fd, out, sizeof(*out)) == (ssize_t)sizeof(*out))
		r = 0;
	else if (r == 0)
		snprintf(out->error, sizeof(out->error), "no answer within %u s: the mount hung", timeout_s);
	else
		snprintf(out->error, sizeof(out->error), "the probe process failed");
	if (r != 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (r != 0)
		umount2(dir, MNT_DETACH); /* as root; a user's mount goes with fusermount3 -u */
}

int fuse_mount_probe(unsigned timeout_s, struct fuse_mount_probe *out)
{
	const char *tmp = getenv("TMPDIR");
	_cleanup_close_ int rfd = -1;
	char dir[PATH_MAX];
	int p[2], r;
	pid_t pid;

	*out = (struct fuse_mount_probe){0};
	if ((size_t)snprintf(dir, sizeof(dir), "%s/oz0fs-check.XXXXXX", tmp && *tmp ? tmp : "/tmp") >= sizeof(dir) ||
	    !mkdtemp(dir)) {
		snprintf(out->error, sizeof(out->error), "cannot make an empty folder to mount on: %m");
		return 0;
	}
	if (pipe2(p, O_CLOEXEC) < 0)
		goto fail;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		goto fail;
	}
	if (pid == 0) {
		close(p[0]);
		probe_in_child(dir, p[1]);
	}
	close(p[1]);
	rfd = p[0];
	read_answer(rfd, pid, dir, timeout_s, out);
	rmdir(dir);
	return 0;
fail:
	r = negative_errno();
	rmdir(dir);
	return r;
}
