#include "config.h"

/* Waiting for a child with a bound (tools/run/wait.h): one that ends gives
 * its status and is reaped, one still alive is -ETIME and stays a child to
 * reap later, -1 waits as long as it takes, and a process that is no child
 * of ours is refused. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tests/unit/gone-process.h"
#include "tools/run/wait.h"

/* A child that exits with STATUS after MS milliseconds. */
static pid_t child(int status, int ms)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
		while (nanosleep(&t, &t) < 0)
			;
		_exit(status);
	}
	return pid;
}

/* S is the status of an exit with CODE, and PID was reaped. */
static void assert_exited(int s, int code, pid_t pid)
{
	cr_assert_geq(s, 0, "%d", s);
	cr_assert(WIFEXITED(s), "%#x", s);
	cr_assert_eq(WEXITSTATUS(s), code);
	cr_assert_eq(waitpid(pid, NULL, WNOHANG), -1);
	cr_assert_eq(errno, ECHILD);
}

Test(wait, a_child_that_exits_gives_its_status)
{
	pid_t pid = child(7, 0);

	assert_exited(run_wait_bounded(pid, 5000), 7, pid);
}

Test(wait, a_child_that_sleeps_is_etime_and_reaped_after_a_kill)
{
	pid_t pid = child(0, 60000);
	int s;

	cr_assert_eq(run_wait_bounded(pid, 50), -ETIME);
	cr_assert_eq(run_wait_bounded(pid, 0), -ETIME);
	/* still ours, alive */
	cr_assert_eq(waitpid(pid, NULL, WNOHANG), 0);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	s = run_wait_bounded(pid, 5000);
	cr_assert_geq(s, 0, "%d", s);
	cr_assert(WIFSIGNALED(s));
	cr_assert_eq(WTERMSIG(s), SIGKILL);
	cr_assert_eq(waitpid(pid, NULL, WNOHANG), -1);
}

Test(wait, no_bound_waits_for_the_end)
{
	pid_t pid = child(3, 200);

	assert_exited(run_wait_bounded(pid, -1), 3, pid);
}

Test(wait, a_child_already_ended_is_reaped)
{
	pid_t pid = child(5, 0);
	siginfo_t si;

	/* ended, not yet reaped: a zombie */
	cr_assert_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	assert_exited(run_wait_bounded(pid, 0), 5, pid);
}

Test(wait, a_pidfd_of_a_child)
{
	pid_t pid = child(0, 0);
	_cleanup_close_ int fd = run_pidfd(pid);

	cr_assert_geq(fd, 0, "%d", fd);
	cr_assert_eq(run_wait_bounded(pid, -1), 0);
}

Test(wait, a_process_gone_is_refused)
{
	pid_t pid = gone_process();

	cr_assert_eq(run_pidfd(pid), -ESRCH);
	cr_assert_eq(run_wait_bounded(pid, 100), -ESRCH);
	cr_assert_eq(run_wait_bounded(pid, -1), -ECHILD);
}
