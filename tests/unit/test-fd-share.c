/* The callers' share of the daemon's descriptors: a process alone may take
 * half the pool, the next half of what is left (its threads together); a process that holds few can
 * still open; places come back on release, and a claim never bound gives its
 * place back. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fs/fd-share.h"
#include "tests/unit/gone-process.h"

static int proc_fd = -1;
static struct fd_share *share;

static void setup(void)
{
	proc_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(proc_fd, 0);
	cr_assert_eq(fd_share_new(100, proc_fd, &share), 0);
}

static void teardown(void)
{
	fd_share_free(share);
	close(proc_fd);
}

/* Binds places for TID to fake fds FIRST.. until refused; returns how many. */
static int take_all(pid_t tid, int first)
{
	int n = 0;

	for (;;) {
		struct fd_claim c;
		int r = fd_share_claim(share, tid, &c);
		if (r < 0) {
			cr_assert_eq(r, -EMFILE);
			return n;
		}
		fd_share_bind(&c, first + n++);
	}
}

TestSuite(fd_share, .init = setup, .fini = teardown);

/* Thread ids of processes that are gone count each as its own process. */
Test(fd_share, a_process_alone_takes_half_and_the_next_half_the_rest)
{
	pid_t a = gone_process(), b = gone_process(), c = gone_process();

	cr_expect_eq(take_all(a, 1000), 50);
	cr_expect_eq(take_all(b, 2000), 25);
	cr_expect_eq(take_all(c, 3000), 13);
	cr_expect_eq(fd_share_taken(share), 88);
}

Test(fd_share, release_gives_the_place_back)
{
	pid_t a = gone_process();

	cr_assert_eq(take_all(a, 1000), 50);
	fd_share_release(share, 1000);
	fd_share_release(share, 1000); /* twice: the second is no one's */
	fd_share_release(share, 99999);
	cr_expect_eq(fd_share_taken(share), 49);
	cr_expect_eq(take_all(a, 5000), 1);
	for (int k = 1; k < 50; k++)
		fd_share_release(share, 1000 + k);
	fd_share_release(share, 5000);
	cr_expect_eq(fd_share_taken(share), 0);
}

Test(fd_share, a_claim_never_bound_gives_its_place_back)
{
	pid_t a = gone_process();

	{
		_cleanup_claim_ struct fd_claim c;
		cr_assert_eq(fd_share_claim(share, a, &c), 0);
		cr_expect_eq(fd_share_taken(share), 1);
	}
	cr_expect_eq(fd_share_taken(share), 0);
	{
		_cleanup_claim_ struct fd_claim c;
		cr_assert_eq(fd_share_claim(share, a, &c), 0);
		fd_share_bind(&c, 7);
	}
	cr_expect_eq(fd_share_taken(share), 1, "a bound place stays until its release");
}

struct thread_take {
	pthread_barrier_t taken, done;
	int n;
};

/* Takes all it may, then stays alive until the main thread has tried. */
static void *take_in_thread(void *arg)
{
	struct thread_take *t = arg;

	t->n = take_all(gettid(), 1000);
	pthread_barrier_wait(&t->taken);
	pthread_barrier_wait(&t->done);
	return NULL;
}

/* Two threads of one process, each a holder of its own, share one share:
 * the first takes half, the second nothing more; another process still
 * gets its own. */
Test(fd_share, the_threads_of_a_process_share_its_share)
{
	struct thread_take t;
	pthread_t thread;

	pthread_barrier_init(&t.taken, NULL, 2);
	pthread_barrier_init(&t.done, NULL, 2);
	cr_assert_eq(pthread_create(&thread, NULL, take_in_thread, &t), 0);
	pthread_barrier_wait(&t.taken);
	int mine = take_all(gettid(), 2000);
	int other = take_all(gone_process(), 3000);
	pthread_barrier_wait(&t.done);
	cr_assert_eq(pthread_join(thread, NULL), 0);
	cr_expect_eq(t.n, 50);
	cr_expect_eq(mine, 0);
	cr_expect_eq(other, 25);
}

Test(fd_share, the_pool_is_the_limit_less_what_the_daemon_keeps)
{
	struct rlimit saved, rl;

	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
	rl = saved;
	rl.rlim_cur = 1000;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	unsigned pool = fd_share_pool_size(100);
	unsigned small = fd_share_pool_size(900);
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
	cr_expect(pool <= 900 && pool > 850, "pool %u: the limit less the reserve and the fds open", pool);
	cr_expect_eq(small, 250, "a quarter of the limit at least");
}
