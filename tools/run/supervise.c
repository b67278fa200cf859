#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/run/channel.h"
#include "tools/run/supervise.h"
#include "tools/run/wait.h"

enum { W_INIT, W_CHAN, W_TIMER, W_SIGNAL, W_OOM, W_N };

struct watcher {
	const struct run_watch *w;
	struct run_end *end;
	struct pollfd p[W_N];
	bool stopping; /* SIGTERM sent, SIGKILL due when the timer fires */
};

void run_watch_block_signals(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGHUP);
	sigprocmask(SIG_BLOCK, &s, NULL);
}

static int arm(int timer, long ms)
{
	struct itimerspec t = {.it_value = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000}};

	return timerfd_settime(timer, 0, &t, NULL) < 0 ? negative_errno() : 0;
}

/* SIGTERM to every process of the sandbox; SIGKILL after the grace. */
static void stop(struct watcher *x, enum run_ended why)
{
	if (x->stopping)
		return;
	x->end->ended = why;
	x->stopping = true;
	if (run_msg_send(x->w->chan, RUN_MSG_TERM, 0, NULL) < 0 || arm(x->p[W_TIMER].fd, RUN_GRACE_MS) < 0)
		kill(x->w->init, SIGKILL);
}

static void on_timer(struct watcher *x)
{
	uint64_t n;

	if (read(x->p[W_TIMER].fd, &n, sizeof(n)) < 0)
		return;
	if (x->stopping)
		kill(x->w->init, SIGKILL);
	else
		stop(x, RUN_ENDED_TIMEOUT);
}

static void on_signal(struct watcher *x)
{
	struct signalfd_siginfo si;

	if (read(x->p[W_SIGNAL].fd, &si, sizeof(si)) != sizeof(si))
		return;
	if (!x->end->runner_signal)
		x->end->runner_signal = (int)si.ssi_signo;
	stop(x, RUN_ENDED_SIGNALED);
}

/* The kernel killed for memory: the rest goes at once. */
static void on_oom(struct watcher *x)
{
	char buf[64];

	if (x->w->oom_events & POLLIN && read(x->p[W_OOM].fd, buf, sizeof(buf)) < 0)
		return;
	if (x->w->oom_events & POLLPRI)
		lseek(x->p[W_OOM].fd, 0, SEEK_SET), (void)!read(x->p[W_OOM].fd, buf, sizeof(buf));
	x->end->ended = RUN_ENDED_OOM;
	kill(x->w->init, SIGKILL);
}

static void on_message(struct watcher *x)
{
	struct run_msg m;

	if (run_msg_recv(x->w->chan, &m) < 0) {
		x->p[W_CHAN].fd = -1; /* closed: init is ending */
		return;
	}
	if (m.type == RUN_MSG_EXITED) {
		x->end->wait_status = m.value;
		x->end->told = true;
	} else if (m.type == RUN_MSG_NOT_RUN) {
		x->end->not_run = m.value;
	} else if (m.type == RUN_MSG_ERROR && !x->end->error) {
		x->end->error = strdup(m.text);
	}
}

/* Messages init sent before it ended, still queued. */
static void drain(struct watcher *x)
{
	struct pollfd p = {.fd = x->w->chan, .events = POLLIN};

	while (x->p[W_CHAN].fd >= 0 && poll(&p, 1, 0) == 1)
		on_message(x);
}

static int open_fds(struct watcher *x)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGHUP);
	x->p[W_INIT].fd = run_pidfd(x->w->init);
	x->p[W_CHAN].fd = x->w->chan;
	x->p[W_TIMER].fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	x->p[W_SIGNAL].fd = signalfd(-1, &s, SFD_CLOEXEC);
	x->p[W_OOM].fd = x->w->oom_fd;
	x->p[W_OOM].events = x->w->oom_events;
	for (int i = W_INIT; i < W_OOM; i++) {
		if (x->p[i].fd < 0)
			return i == W_CHAN ? -EBADF : negative_errno();
		x->p[i].events = POLLIN;
	}
	return x->w->timeout_s ? arm(x->p[W_TIMER].fd, (long)x->w->timeout_s * 1000) : 0;
}

static void close_fds(struct watcher *x)
{
	close(x->p[W_INIT].fd);
	close(x->p[W_TIMER].fd);
	close(x->p[W_SIGNAL].fd);
}

int run_watch(const struct run_watch *w, struct run_end *end)
{
	struct watcher x = {.w = w, .end = end};
	int k;

	*end = (struct run_end){.ended = RUN_ENDED_EXITED};
	if (w->init <= 0)
		return -EINVAL; /* kill(-1) would reach every process */
	for (int i = 0; i < W_N; i++)
		x.p[i].fd = -1;
	k = open_fds(&x);
	while (k == 0 && !x.p[W_INIT].revents) {
		if (poll(x.p, W_N, -1) < 0) {
			if (errno != EINTR)
				k = negative_errno();
			continue;
		}
		if (x.p[W_CHAN].revents)
			on_message(&x);
		if (x.p[W_TIMER].revents)
			on_timer(&x);
		if (x.p[W_SIGNAL].revents)
			on_signal(&x);
		if (x.p[W_OOM].revents)
			on_oom(&x);
	}
	if (k < 0)
		kill(w->init, SIGKILL);
	run_wait_bounded(w->init, -1);
	drain(&x);
	close_fds(&x);
	return k;
}
