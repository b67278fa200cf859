#include "config.h"

/* The runner's watch (tools/run/supervise.h) over a fake init: a child of
 * the test that speaks the channel as tools/run/sandbox.c's init does.
 * What it tells arrives (even when it ends at once), a timeout or a signal
 * to the runner sends it TERM, an init that ignores TERM is killed after
 * the grace, and an OOM kills it at once. The watch reaps the fake init;
 * the test reaps nothing else. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/run/channel.h"
#include "tools/run/supervise.h"

enum fake {
	TELLS_EXIT,    /* the command exited 3 */
	TELLS_NOT_RUN, /* ARGV[0] was not found */
	TELLS_ALL,     /* not run, an error and the exit, before the watch starts */
	OBEYS_TERM,    /* waits for TERM, then tells the command died of it */
	IGNORES_TERM,  /* says it got TERM on its pipe, and goes on */
	SLEEPS,        /* waits, deaf */
};

struct fake_init {
	pid_t pid;
	int chan;    /* the runner's end */
	int told[2]; /* init → test: 'T' for each TERM it got */
};

static void act(enum fake how, int chan, int told)
{
	struct run_msg m;

	switch (how) {
	case TELLS_EXIT:
		run_msg_send(chan, RUN_MSG_EXITED, W_EXITCODE(3, 0), NULL);
		return;
	case TELLS_NOT_RUN:
		run_msg_send(chan, RUN_MSG_NOT_RUN, ENOENT, NULL);
		run_msg_send(chan, RUN_MSG_EXITED, W_EXITCODE(127, 0), NULL);
		return;
	case TELLS_ALL:
		run_msg_send(chan, RUN_MSG_NOT_RUN, EACCES, NULL);
		run_msg_send(chan, RUN_MSG_ERROR, EPERM, "cannot mount /proc");
		run_msg_send(chan, RUN_MSG_ERROR, EPERM, "a second error");
		run_msg_send(chan, RUN_MSG_EXITED, W_EXITCODE(126, 0), NULL);
		return;
	case OBEYS_TERM:
		if (run_msg_expect(chan, RUN_MSG_TERM, &m) == 0)
			run_msg_send(chan, RUN_MSG_EXITED, W_EXITCODE(0, SIGTERM), NULL);
		return;
	case IGNORES_TERM:
		while (run_msg_recv(chan, &m) == 0)
			if (m.type == RUN_MSG_TERM && write(told, "T", 1) != 1)
				return;
		return;
	case SLEEPS:
		for (;;)
			pause();
	}
}

static struct fake_init start(enum fake how)
{
	struct fake_init f;
	int sv[2];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	cr_assert_eq(pipe2(f.told, O_CLOEXEC), 0);
	f.pid = fork();
	cr_assert_geq(f.pid, 0);
	if (f.pid == 0) {
		close(sv[0]);
		close(f.told[0]);
		act(how, sv[1], f.told[1]);
		_exit(0);
	}
	close(sv[1]);
	close(f.told[1]);
	f.chan = sv[0];
	return f;
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Watches F (for at most TIMEOUT_S, OOM_FD as the OOM events) and checks
 * the watch reaped it: how long it took, in ms. */
static int64_t watch(struct fake_init *f, unsigned timeout_s, int oom_fd, struct run_end *end)
{
	struct run_watch w = {
	        .init = f->pid, .chan = f->chan, .timeout_s = timeout_s, .oom_fd = oom_fd, .oom_events = POLLIN};
	int64_t t0 = now_ms();

	cr_assert_eq(run_watch(&w, end), 0);
	cr_assert_eq(waitpid(f->pid, NULL, WNOHANG), -1, "the watch left init unreaped");
	cr_assert_eq(errno, ECHILD);
	close(f->chan);
	return now_ms() - t0;
}

/* How many TERMs F's init got. */
static int terms(struct fake_init *f)
{
	char buf[8];
	ssize_t n = read(f->told[0], buf, sizeof(buf));

	close(f->told[0]);
	return (int)(n < 0 ? 0 : n);
}

static void setup(void)
{
	run_watch_block_signals();
}

TestSuite(supervise, .init = setup);

Test(supervise, the_commands_end_as_init_tells_it)
{
	struct fake_init f = start(TELLS_EXIT);
	struct run_end end;

	watch(&f, 0, -1, &end);
	cr_assert_eq(end.ended, RUN_ENDED_EXITED);
	cr_assert(end.told);
	cr_assert(WIFEXITED(end.wait_status));
	cr_assert_eq(WEXITSTATUS(end.wait_status), 3);
	cr_assert_eq(end.not_run, 0);
	cr_assert_eq(end.runner_signal, 0);
	cr_assert_null(end.error);
	cr_assert_eq(terms(&f), 0);
}

Test(supervise, a_command_not_run)
{
	struct fake_init f = start(TELLS_NOT_RUN);
	struct run_end end;

	watch(&f, 3600, -1, &end);
	cr_assert_eq(end.ended, RUN_ENDED_EXITED);
	cr_assert_eq(end.not_run, ENOENT);
	cr_assert(end.told);
	cr_assert_eq(WEXITSTATUS(end.wait_status), 127);
}

Test(supervise, what_init_sent_before_it_ended_is_read)
{
	struct fake_init f = start(TELLS_ALL);
	struct run_end end;
	siginfo_t si;

	/* init has ended before the watch begins: its messages wait in the channel */
	cr_assert_eq(waitid(P_PID, (id_t)f.pid, &si, WEXITED | WNOWAIT), 0);
	watch(&f, 0, -1, &end);
	cr_assert_eq(end.not_run, EACCES);
	cr_assert_str_eq(end.error, "cannot mount /proc"); /* the first error */
	cr_assert(end.told);
	cr_assert_eq(WEXITSTATUS(end.wait_status), 126);
	free(end.error);
}

Test(supervise, a_timeout_sends_term)
{
	struct fake_init f = start(OBEYS_TERM);
	struct run_end end;
	int64_t ms = watch(&f, 1, -1, &end);

	cr_assert_eq(end.ended, RUN_ENDED_TIMEOUT);
	cr_assert(end.told);
	cr_assert(WIFSIGNALED(end.wait_status));
	cr_assert_eq(WTERMSIG(end.wait_status), SIGTERM);
	cr_assert_geq(ms, 1000 - 10, "%lld ms", (long long)ms);
	cr_assert_lt(ms, RUN_GRACE_MS, "%lld ms", (long long)ms);
}

Test(supervise, a_signal_to_the_runner_is_handled_as_a_timeout)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};

	for (size_t i = 0; i < ELEMENTSOF(sigs); i++) {
		struct fake_init f = start(OBEYS_TERM);
		struct run_end end;

		/* blocked: it waits for the watch */
		cr_assert_eq(raise(sigs[i]), 0);
		watch(&f, 3600, -1, &end);
		cr_assert_eq(end.ended, RUN_ENDED_SIGNALED, "%s", strsignal(sigs[i]));
		cr_assert_eq(end.runner_signal, sigs[i]);
		cr_assert(end.told);
		cr_assert_eq(WTERMSIG(end.wait_status), SIGTERM);
	}
}

/* The seed's 10 s grace: the test takes that long. */
Test(supervise, an_init_that_ignores_term_is_killed_after_the_grace)
{
	struct fake_init f = start(IGNORES_TERM);
	struct run_end end;
	int64_t ms;

	cr_assert_eq(raise(SIGTERM), 0);
	ms = watch(&f, 0, -1, &end);
	cr_assert_eq(end.ended, RUN_ENDED_SIGNALED);
	cr_assert_not(end.told);
	cr_assert_eq(terms(&f), 1, "one TERM, then SIGKILL");
	cr_assert_geq(ms, RUN_GRACE_MS - 10, "%lld ms", (long long)ms);
	cr_assert_lt(ms, RUN_GRACE_MS + 2000, "%lld ms", (long long)ms);
}

Test(supervise, an_oom_kills_at_once)
{
	struct fake_init f = start(SLEEPS);
	_cleanup_close_ int oom = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	uint64_t one = 1;
	struct run_end end;
	int64_t ms;

	cr_assert_geq(oom, 0);
	cr_assert_eq(write(oom, &one, sizeof(one)), (ssize_t)sizeof(one));
	ms = watch(&f, 3600, oom, &end);
	cr_assert_eq(end.ended, RUN_ENDED_OOM);
	cr_assert_not(end.told);
	cr_assert_lt(ms, RUN_GRACE_MS / 2, "%lld ms: killed, not stopped", (long long)ms);
	/* the event was read */
	cr_assert_eq(read(oom, &one, sizeof(one)), -1);
	cr_assert_eq(errno, EAGAIN);
}

Test(supervise, a_watch_that_cannot_start_kills_init)
{
	struct fake_init f = start(SLEEPS);
	struct run_watch w = {.init = f.pid, .chan = -1, .oom_fd = -1};
	struct run_end end;

	cr_assert_lt(run_watch(&w, &end), 0);
	cr_assert_eq(waitpid(f.pid, NULL, WNOHANG), -1, "the watch left init unreaped");
	close(f.chan);
}
