#define FUSE_USE_VERSION 314
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <linux/fuse.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "fs/loop.h"

/* How long the leader's request may run before another thread takes over
 * reading: past this, a request is waiting on the disk, not on the CPU. */
#define HANDOFF_NS (500 * 1000L)
#define SPIN_US    200

struct loop {
	struct fuse_session *se;
	struct loop_options opt;
	int fd;
	/* Readable once the loop stops, and never read: it wakes a leader
	 * asleep in poll(2) and loop_run at once, where a timed look at a flag
	 * made an unmount by signal wait for the next tick. */
	int stop_fd;
	pthread_mutex_t lock;
	pthread_cond_t role_cv;    /* idle threads wait here for the role */
	pthread_cond_t monitor_cv; /* the monitor waits here while nothing runs */
	pthread_cond_t done_cv;    /* loop_run waits here for the threads to end */
	/* All under lock. */
	uint64_t generation; /* bumped each time the role is handed on */
	uint64_t begun;      /* requests the leaders began */
	bool busy;           /* the leader is handling a request */
	bool role_free;      /* no thread leads: the next idle one takes over */
	bool leader_sleeps;  /* the leader waits in poll(2) */
	bool stopping;
	unsigned threads; /* workers started and not ended */
	unsigned idle;    /* workers waiting on role_cv */
	int error;        /* the read error that ended the loop */
};

uint64_t loop_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int loop_usable_cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
}

unsigned loop_default_spin_us(void)
{
	return loop_usable_cpus() >= 2 ? SPIN_US : 0;
}

/* ---- Threads ---------------------------------------------------------------- */

static void *worker(void *arg);

/* Workers and the monitor leave the termination signals to loop_run's
 * thread: a handler that interrupted a worker would fail the system call it
 * makes for a caller with EINTR. */
int loop_start_thread(void *(*fn)(void *), void *arg, pthread_t *out)
{
	sigset_t block, old;
	pthread_t t;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int r = pthread_create(out ? out : &t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r == 0 && !out)
		pthread_detach(t);
	return -r;
}

/* Another thread is to read the device: the leader is held up (or about to
 * be). Its request goes on; when done, it finds it no longer leads. */
static void hand_on_locked(struct loop *l)
{
	l->generation++;
	l->busy = false;
	l->role_free = true;
	if (l->idle > 0) {
		pthread_cond_signal(&l->role_cv);
	} else if (l->threads < l->opt.max_threads) {
		int r = loop_start_thread(worker, l, NULL);
		if (r < 0)
			log_debug("cannot start a request thread: %s", strerror(-r));
		else
			l->threads++;
	}
	/* Else every thread is busy: the first to finish takes the role. */
}

/* Waits until this thread may lead. False when it is to end instead: the
 * loop stops, or enough threads are idle already. */
static bool wait_for_role_locked(struct loop *l)
{
	while (!l->role_free && !l->stopping) {
		if (l->idle >= l->opt.max_idle)
			return false;
		l->idle++;
		pthread_cond_wait(&l->role_cv, &l->lock);
		l->idle--;
	}
	if (l->stopping)
		return false;
	l->role_free = false;
	pthread_cond_signal(&l->monitor_cv); /* there is a leader to watch again */
	return true;
}

static void stop_locked(struct loop *l, int error)
{
	if (l->stopping)
		return;
	if (error < 0)
		l->error = error;
	l->stopping = true;
	fuse_session_exit(l->se); /* a leader between reads sees it */
	if (eventfd_write(l->stop_fd, 1) < 0)
		log_debug("cannot wake the request threads: %m");
	pthread_cond_broadcast(&l->role_cv);
	pthread_cond_broadcast(&l->monitor_cv);
}

/* ---- Reading ---------------------------------------------------------------- */

/* Until the device has a request (or is gone), or the loop stops. */
static void sleep_until_readable(struct loop *l)
{
	struct pollfd p[] = {{.fd = l->fd, .events = POLLIN}, {.fd = l->stop_fd, .events = POLLIN}};

	pthread_mutex_lock(&l->lock);
	l->leader_sleeps = true;
	pthread_mutex_unlock(&l->lock);
	while (poll(p, 2, -1) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&l->lock);
	l->leader_sleeps = false;
	pthread_cond_signal(&l->monitor_cv);
	pthread_mutex_unlock(&l->lock);
}

/* The next request into BUF: its size, 0 when the session ended, or -errno.
 * The device is non-blocking: the leader reads again until the spin is
 * over, then sleeps in poll(2). */
static int next_request(struct loop *l, struct fuse_buf *buf)
{
	uint64_t spin_ns = (uint64_t)l->opt.spin_us * 1000u;
	uint64_t deadline = 0;

	for (;;) {
		if (fuse_session_exited(l->se))
			return 0;
		int r = fuse_session_receive_buf(l->se, buf);
		if (r >= 0 || (r != -EAGAIN && r != -EINTR))
			return r;
		uint64_t now = loop_now_ns();
		if (!deadline)
			deadline = now + spin_ns;
		if (now >= deadline) {
			sleep_until_readable(l);
			deadline = 0;
		} else {
			sched_yield(); /* a spin takes no CPU that a runnable task wants */
		}
	}
}

/* Requests that may wait on the disk for long: file I/O through the daemon,
 * and syncs. */
static bool slow_request(const struct fuse_buf *buf, size_t size)
{
	struct fuse_in_header h;

	if ((buf->flags & FUSE_BUF_IS_FD) || size < sizeof(h))
		return false;
	memcpy(&h, buf->mem, sizeof(h));
	switch (h.opcode) {
	case FUSE_READ:
	case FUSE_WRITE:
	case FUSE_FSYNC:
	case FUSE_FSYNCDIR:
	case FUSE_FALLOCATE:
	case FUSE_COPY_FILE_RANGE:
	case FUSE_SETATTR: /* a truncation frees blocks */
		return true;
	default:
		return false;
	}
}

/* ---- Workers ---------------------------------------------------------------- */

/* Leads, handling what it reads, until the role is handed on; then waits to
 * lead again. Called and returns with the lock held. */
static void serve_locked(struct loop *l, struct fuse_buf *buf)
{
	while (wait_for_role_locked(l)) {
		while (!l->stopping) {
			pthread_mutex_unlock(&l->lock);
			int r = next_request(l, buf);
			pthread_mutex_lock(&l->lock);
			if (r <= 0) {
				stop_locked(l, r);
				return;
			}
			uint64_t generation = l->generation;
			l->begun++;
			l->busy = true;
			if (slow_request(buf, (size_t)r))
				hand_on_locked(l);
			pthread_mutex_unlock(&l->lock);
			fuse_session_process_buf(l->se, buf);
			pthread_mutex_lock(&l->lock);
			if (generation != l->generation)
				break; /* handed on meanwhile */
			l->busy = false;
		}
	}
}

static void *worker(void *arg)
{
	struct loop *l = arg;
	struct fuse_buf buf = {.mem = NULL};

	pthread_mutex_lock(&l->lock);
	serve_locked(l, &buf);
	if (--l->threads == 0)
		pthread_cond_broadcast(&l->done_cv);
	pthread_mutex_unlock(&l->lock);
	free(buf.mem);
	return NULL;
}

/* Hands the role on when the leader's request has run through a whole tick
 * (between HANDOFF_NS and twice that). Sleeps while the leader does. */
static void *monitor(void *arg)
{
	struct loop *l = arg;
	uint64_t seen = UINT64_MAX;
	const struct timespec tick = {.tv_nsec = HANDOFF_NS};

	pthread_mutex_lock(&l->lock);
	while (!l->stopping) {
		if (l->leader_sleeps || l->role_free) {
			pthread_cond_wait(&l->monitor_cv, &l->lock);
			continue;
		}
		pthread_mutex_unlock(&l->lock);
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&l->lock);
		if (l->busy && l->begun == seen && !l->role_free)
			hand_on_locked(l);
		seen = l->begun;
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/* ---- The loop --------------------------------------------------------------- */

/* The signals that end the session (libfuse's handlers for them only set a
 * flag, which nothing would look at in time). */
static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
}

/* Until the loop stops by itself (the unmount) or one of SIGNALS (a
 * signalfd) comes, which stops it. */
static void wait_for_stop(struct loop *l, int signals)
{
	struct pollfd p[] = {{.fd = signals, .events = POLLIN}, {.fd = l->stop_fd, .events = POLLIN}};
	struct signalfd_siginfo si;

	while (poll(p, 2, -1) < 0 && errno == EINTR)
		;
	if (read(signals, &si, sizeof(si)) == (ssize_t)sizeof(si))
		log_debug("signal %u: unmounting", si.ssi_signo);
	pthread_mutex_lock(&l->lock);
	stop_locked(l, 0);
	pthread_mutex_unlock(&l->lock);
}

/* Runs the loop with the stop signals read from a signalfd by this thread
 * (every other thread blocks them already: see loop_start_thread). */
static int run_until_stopped(struct loop *l)
{
	sigset_t set, old;

	stop_signals(&set);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	int signals = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	int r = signals < 0 ? -errno : 0;
	pthread_t mon;

	if (r == 0)
		r = loop_start_thread(monitor, l, &mon);
	if (r == 0) {
		pthread_mutex_lock(&l->lock);
		l->threads = 1;
		r = loop_start_thread(worker, l, NULL);
		if (r < 0)
			l->threads = 0;
		pthread_mutex_unlock(&l->lock);
		if (r == 0)
			wait_for_stop(l, signals);
		pthread_mutex_lock(&l->lock);
		stop_locked(l, r);
		while (l->threads > 0)
			pthread_cond_wait(&l->done_cv, &l->lock);
		pthread_mutex_unlock(&l->lock);
		pthread_join(mon, NULL);
	}
	if (signals >= 0)
		close(signals);
	/* A stop signal still pending goes to libfuse's handler. */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r < 0 ? r : l->error;
}

int loop_run(struct fuse_session *se, const struct loop_options *opt)
{
	struct loop l = {
	        .se = se,
	        .opt = *opt,
	        .fd = fuse_session_fd(se),
	        .lock = PTHREAD_MUTEX_INITIALIZER,
	        .role_cv = PTHREAD_COND_INITIALIZER,
	        .monitor_cv = PTHREAD_COND_INITIALIZER,
	        .done_cv = PTHREAD_COND_INITIALIZER,
	        .role_free = true,
	};

	if (l.opt.max_threads < 1)
		l.opt.max_threads = 1;
	int fl = fcntl(l.fd, F_GETFL);
	if (fl < 0 || fcntl(l.fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	l.stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l.stop_fd < 0)
		return -errno;
	int r = run_until_stopped(&l);
	close(l.stop_fd);
	return r;
}
