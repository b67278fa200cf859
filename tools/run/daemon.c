#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/run/channel.h"
#include "tools/run/daemon.h"
#include "tools/run/userns.h"
#include "tools/run/wait.h"

#define DAEMON_STOP_MS 10000

/* In the child: the namespaces, then oz0fs. Tells the runner over SYNC
 * once unshared, waits for its go (it opens the namespaces and writes the
 * maps meanwhile). */
static _Noreturn void daemon_child(char *const *argv, pid_t runner, int sync, int ready, int log_fd)
{
	bool rootless = geteuid() != 0;
	struct run_msg m;

	/* a runner killed outright takes its mount along: SIGTERM unmounts */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != runner)
		_exit(126);
	if (unshare(CLONE_NEWNS | (rootless ? CLONE_NEWUSER : 0)) < 0 ||
	    run_msg_send(sync, RUN_MSG_PID, getpid(), NULL) < 0 || run_msg_expect(sync, RUN_MSG_GO, &m) < 0)
		_exit(126);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		_exit(126);
	if (dup2(ready, 3) < 0 || dup2(log_fd, STDERR_FILENO) < 0)
		_exit(126);
	close_range(4, ~0U, 0);
	execv(argv[0], argv);
	dprintf(STDERR_FILENO, "oz0fs: cannot execute %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* The daemon's last stderr line, for the one line the runner says. */
static char *last_line(int log_fd)
{
	char buf[4096];
	ssize_t n = pread(log_fd, buf, sizeof(buf) - 1, 0);
	char *end, *start;

	if (n <= 0)
		return strdup("it ended without a word");
	buf[n] = '\0';
	end = buf + n;
	while (end > buf && end[-1] == '\n')
		*--end = '\0';
	start = strrchr(buf, '\n');
	start = start ? start + 1 : buf;
	if (strncmp(start, "oz0fs: ", 7) == 0)
		start += 7;
	return strdup(start);
}

/* Its user namespace mapped (not as root); then the go. */
static int map_then_go(struct run_daemon *d, int sync)
{
	const struct run_ids ids = {geteuid(), getegid(), false};
	struct run_msg m;
	int k = run_msg_expect(sync, RUN_MSG_PID, &m);

	if (k < 0)
		return k;
	if (ids.uid != 0 && (k = run_userns_map(d->pid, RUN_USERNS_DAEMON, &ids)) < 0)
		return k;
	return run_msg_send(sync, RUN_MSG_GO, 0, NULL);
}

int run_daemon_start(char *const *argv, int log_fd, struct run_daemon *d, char **errmsg)
{
	_cleanup_close_ int ready_r = -1, ready_w = -1, sync = -1, sync_child = -1;
	pid_t runner = getpid();
	int sv[2], p[2], k;
	char c;

	*d = (struct run_daemon){.pid = -1};
	*errmsg = NULL;
	if (pipe2(p, O_CLOEXEC) < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return negative_errno();
	ready_r = p[0], ready_w = p[1], sync = sv[0], sync_child = sv[1];
	d->pid = fork();
	if (d->pid < 0)
		return negative_errno();
	if (d->pid == 0)
		daemon_child(argv, runner, sync_child, ready_w, log_fd);
	close(TAKE_FD(ready_w));
	close(TAKE_FD(sync_child));
	k = map_then_go(d, sync);
	if (k == 0 && read(ready_r, &c, 1) == 1)
		return 0;
	_cleanup_free_ char *line = (run_daemon_stop(d), last_line(log_fd));
	if (asprintf(errmsg, "the tree does not mount: %s", line ? line : "oz0fs ended") < 0)
		*errmsg = NULL;
	return k < 0 ? k : -EIO;
}

int run_daemon_stop(struct run_daemon *d)
{
	int status = 0;

	if (d->pid > 0) {
		kill(d->pid, SIGTERM);
		status = run_wait_bounded(d->pid, DAEMON_STOP_MS);
		if (status == -ETIME) {
			kill(d->pid, SIGKILL);
			status = run_wait_bounded(d->pid, -1);
		}
		d->pid = -1;
	}
	return status;
}
