#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/run/channel.h"
#include "tools/run/mounts.h"
#include "tools/run/sandbox.h"
#include "tools/run/userns.h"
#include "tools/run/wait.h"

/* Tells the runner why the sandbox could not be set up, and ends. */
static _Noreturn void give_up(int chan, int k, const char *what)
{
	char text[400];

	snprintf(text, sizeof(text), "%s: %s", what, strerror(-k));
	run_msg_send(chan, RUN_MSG_ERROR, -k, text);
	_exit(1);
}

static void bring_loopback_up(int chan)
{
	_cleanup_close_ int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr = {0};

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		give_up(chan, negative_errno(), "cannot look at the loopback");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		give_up(chan, negative_errno(), "cannot bring the loopback up");
}

/* The parts of /proc that change the machine, not the sandbox: root in
 * the sandbox is root to the kernel's checks by user id there. */
static const char *const proc_read_only[] = {"sys", "sysrq-trigger", "irq", "bus", "fs", "acpi", "kcore"};

static void seal_proc(int proc, int chan)
{
	for (size_t i = 0; i < ELEMENTSOF(proc_read_only); i++) {
		_cleanup_close_ int at = mounts_open_at(proc, proc_read_only[i]);
		_cleanup_close_ int m = -1;
		int k = 0;

		if (at == -ENOENT)
			continue;
		if (at < 0 || (m = mounts_clone(at, true)) < 0 || (k = mounts_set_readonly(m, true, true)) < 0 ||
		    (k = mounts_attach(TAKE_FD(m), at)) < 0)
			give_up(chan, at < 0 ? at : m < 0 ? m : k, "cannot make a part of the sandbox's /proc read-only");
	}
}

static void mount_proc(int chan)
{
	_cleanup_close_ int at = mounts_open("/proc");
	_cleanup_close_ int m = -1, proc = -1;
	int k;

	if (at < 0)
		give_up(chan, at, "cannot open /proc");
	m = mounts_new_proc();
	if (m < 0)
		give_up(chan, m, "cannot make a /proc for the sandbox");
	if ((k = mounts_attach(m, at)) < 0)
		give_up(chan, k, "cannot mount the sandbox's /proc");
	proc = mounts_open("/proc");
	if (proc < 0)
		give_up(chan, proc, "cannot open the sandbox's /proc");
	seal_proc(proc, chan);
}

static void set_env(const char *name, const char *value, int chan)
{
	if (value && setenv(name, value, 1) < 0)
		give_up(chan, -ENOMEM, "cannot set the environment");
}

/* The command itself: pid 2. */
static _Noreturn void command(const struct run_sandbox_spec *s, const struct run_view_paths *p, int chan)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	if (chdir(s->view->workspace) < 0)
		give_up(chan, negative_errno(), "cannot enter the workspace");
	set_env("HOME", p->home, chan);
	set_env("PWD", s->view->workspace, chan);
	if (p->audit)
		set_env("OZ0_AUDIT", p->audit, chan);
	else
		unsetenv("OZ0_AUDIT");
	execvp(s->argv[0], s->argv);
	run_msg_send(chan, RUN_MSG_NOT_RUN, errno, NULL);
	_exit(127);
}

/* Reaps every child; true once CMD was among them, its status in *STATUS. */
static bool reap(pid_t cmd, int *status)
{
	bool done = false;
	int st;
	pid_t p;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0)
		if (p == cmd) {
			*status = st;
			done = true;
		}
	return done;
}

/* Kills every process of the namespace but init, until none is left. */
static void kill_the_rest(void)
{
	for (;;) {
		kill(-1, SIGKILL);
		if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD)
			return;
	}
}

/* Init's loop: the command's end, or the runner's word. */
static int wait_for_command(pid_t cmd, int sigfd, int chan)
{
	struct pollfd p[2] = {{.fd = sigfd, .events = POLLIN}, {.fd = chan, .events = POLLIN}};
	int status = 0;

	for (;;) {
		struct signalfd_siginfo si;
		struct run_msg m;

		if (poll(p, 2, -1) < 0)
			continue;
		if (p[0].revents && read(sigfd, &si, sizeof(si)) > 0 && reap(cmd, &status))
			return status;
		if (!p[1].revents)
			continue;
		if (run_msg_recv(chan, &m) < 0)
			return W_EXITCODE(0, SIGKILL); /* the runner is gone */
		if (m.type == RUN_MSG_TERM)
			kill(-1, SIGTERM);
	}
}

static _Noreturn void init(const struct run_sandbox_spec *s, const struct run_view_paths *paths, int chan)
{
	struct run_msg m;
	sigset_t chld;
	int sigfd, status, k;
	pid_t cmd;

	/* the runner's word once it has the setup's message naming this
	 * process: the two share the channel, and must not overtake */
	if (run_msg_expect(chan, RUN_MSG_GO, &m) < 0)
		_exit(1);
	mount_proc(chan);
	if (s->network_none)
		bring_loopback_up(chan);
	/* root's groups would stay with the owner's id: dropped while it can */
	if (s->ids.root_runner && s->ids.uid != 0 && setgroups(0, NULL) < 0)
		give_up(chan, negative_errno(), "cannot drop root's groups");
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		give_up(chan, negative_errno(), "cannot make the sandbox's user namespace");
	if (!s->ids.root_runner && (k = run_userns_map(0, RUN_USERNS_SANDBOX, &s->ids)) < 0)
		give_up(chan, k, "cannot map the sandbox's user namespace");
	if (run_msg_send(chan, RUN_MSG_MAP_ME, 0, NULL) < 0 || run_msg_expect(chan, RUN_MSG_GO, &m) < 0)
		_exit(1);
	if (s->ids.root_runner && s->ids.uid != 0 &&
	    (setresgid(s->ids.gid, s->ids.gid, s->ids.gid) < 0 || setresuid(s->ids.uid, s->ids.uid, s->ids.uid) < 0))
		give_up(chan, negative_errno(), "cannot become the tree's owner");
	/* the runner is the parent now (getppid() reads 0 from pid 1): if it
	 * dies, the whole sandbox goes. Init runs as the command's user and
	 * never execs: not dumpable, the command cannot open init's
	 * descriptors through /proc/1/fd or take them with pidfd_getfd */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || prctl(PR_SET_DUMPABLE, 0) < 0)
		_exit(1);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	sigfd = signalfd(-1, &chld, SFD_CLOEXEC);
	if (sigfd < 0)
		give_up(chan, negative_errno(), "cannot watch the command");
	cmd = fork();
	if (cmd < 0)
		give_up(chan, negative_errno(), "cannot start the command");
	if (cmd == 0)
		command(s, paths, chan);
	status = wait_for_command(cmd, sigfd, chan);
	kill_the_rest();
	run_msg_send(chan, RUN_MSG_EXITED, status, NULL);
	_exit(0);
}

/* Joins the namespace NAME (of TYPE) of the process PID. */
static void join(pid_t pid, const char *name, int type, int chan)
{
	char path[64], what[96];
	_cleanup_close_ int fd = -1;

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, name);
	snprintf(what, sizeof(what), "cannot join the daemon's %s namespace", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, type) < 0)
		give_up(chan, negative_errno(), what);
}

static _Noreturn void setup(const struct run_sandbox_spec *s, int chan)
{
	_cleanup_free_ char *err = NULL;
	struct run_view_paths paths;
	struct run_msg m;
	pid_t pid;
	int k;

	if (run_msg_expect(chan, RUN_MSG_GO, &m) < 0 || m.value <= 0)
		_exit(1);
	/* not as root, the daemon mounted in a user namespace of its own */
	if (!s->ids.root_runner)
		join(m.value, "user", CLONE_NEWUSER, chan);
	join(m.value, "mnt", CLONE_NEWNS, chan);
	k = run_view_build(s->view, &paths, &err);
	if (k < 0) {
		run_msg_send(chan, RUN_MSG_ERROR, -k, err ? err : strerror(-k));
		_exit(1);
	}
	if (unshare(CLONE_NEWPID | CLONE_NEWCGROUP | CLONE_NEWIPC | CLONE_NEWUTS | (s->network_none ? CLONE_NEWNET : 0)) < 0)
		give_up(chan, negative_errno(), "cannot make the sandbox's pid namespace");
	pid = fork();
	if (pid < 0)
		give_up(chan, negative_errno(), "cannot start the sandbox's init");
	if (pid == 0)
		init(s, &paths, chan);
	run_msg_send(chan, RUN_MSG_PID, pid, NULL);
	_exit(0);
}

int run_sandbox_fork(const struct run_sandbox_spec *s, struct run_sandbox *sb)
{
	int sv[2];

	*sb = (struct run_sandbox){.spec = s, .setup = -1, .init = -1, .chan = -1};
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return negative_errno();
	sb->setup = fork();
	if (sb->setup < 0) {
		int k = negative_errno();
		close(sv[0]);
		close(sv[1]);
		return k;
	}
	if (sb->setup == 0) {
		/* nothing of the runner's (the tree, the lock, the log) nor of its
		 * caller's reaches the sandbox: stdio and the channel only */
		if ((sv[1] != 3 && dup3(sv[1], 3, O_CLOEXEC) < 0) || close_range(4, ~0U, 0) < 0)
			_exit(1);
		setup(s, 3);
	}
	close(sv[1]);
	sb->chan = sv[0];
	return 0;
}

static int say_error(const struct run_msg *m, int k, char **errmsg)
{
	if (asprintf(errmsg, "cannot set up the sandbox: %s", m->type == RUN_MSG_ERROR ? m->text : strerror(-k)) < 0)
		*errmsg = NULL;
	return k;
}

int run_sandbox_start(struct run_sandbox *sb, pid_t daemon, char **errmsg)
{
	struct run_msg m = {0};
	int k;

	*errmsg = NULL;
	if ((k = run_msg_send(sb->chan, RUN_MSG_GO, daemon, NULL)) < 0 || (k = run_msg_expect(sb->chan, RUN_MSG_PID, &m)) < 0)
		return say_error(&m, k, errmsg);
	sb->init = m.value;
	/* the setup process ends at once: init is ours then, being orphaned */
	run_wait_bounded(sb->setup, -1);
	sb->setup = -1;
	if ((k = run_msg_send(sb->chan, RUN_MSG_GO, 0, NULL)) < 0 || (k = run_msg_expect(sb->chan, RUN_MSG_MAP_ME, &m)) < 0)
		return say_error(&m, k, errmsg);
	if (sb->spec->ids.root_runner && (k = run_userns_map(sb->init, RUN_USERNS_SANDBOX, &sb->spec->ids)) < 0) {
		m.type = 0;
		return say_error(&m, k, errmsg);
	}
	return run_msg_send(sb->chan, RUN_MSG_GO, 0, NULL);
}

void run_sandbox_abort(struct run_sandbox *sb)
{
	if (sb->init > 0) {
		kill(sb->init, SIGKILL);
		run_wait_bounded(sb->init, -1);
	}
	if (sb->setup > 0) {
		kill(sb->setup, SIGKILL);
		run_wait_bounded(sb->setup, -1);
	}
	sb->init = sb->setup = -1;
}
