/* The request loop: how the daemon's threads take requests from /dev/fuse.
 *
 * A round trip through FUSE costs the caller two context switches, and the
 * daemon two more when its thread sleeps in read(2) between requests: on a
 * virtual machine each wake-up of an idle CPU is an interrupt sent between
 * CPUs, and the switches, not the work, are most of a request's time. So one
 * thread at a time, the leader, reads the device, and after each request it
 * handles it keeps looking for the next one for a short while (SPIN) before
 * it sleeps: the next request of a caller that works through a tree usually
 * comes within a few microseconds. Only the leader reads, so a request wakes
 * no thread that would find nothing to do.
 *
 * The leader handles what it reads itself. A request that may take long (one
 * that does file I/O, or any that has run for a while) hands the role to an
 * idle thread first, started if there is none, so that other callers'
 * requests are not held up behind it.
 */
#pragma once

#include <pthread.h>
#include <stdint.h>

struct fuse_session;

struct loop_options {
	unsigned spin_us;     /* how long the leader looks before sleeping; 0: never */
	unsigned max_threads; /* threads handling requests at once */
	unsigned max_idle;    /* idle threads kept; more end */
};

/* Serves SE until it is unmounted or SIGTERM, SIGINT or SIGHUP comes: the
 * calling thread blocks those meanwhile and reads them itself, so that the
 * stop wakes every thread at once (libfuse's handlers only set a flag).
 * Returns 0, or -errno when reading the device failed. */
int loop_run(struct fuse_session *se, const struct loop_options *opt);

/* CLOCK_MONOTONIC in nanoseconds: a spin's deadline. */
uint64_t loop_now_ns(void);
/* The CPUs this process may run on (its affinity). */
int loop_usable_cpus(void);
/* The spin that suits this process: none when it may run on one CPU only
 * (the leader would then keep the caller it waits for off the CPU). */
unsigned loop_default_spin_us(void);
/* Starts FN(ARG) on a thread that blocks the signals that end the session
 * (loop_run's thread reads them), detached when OUT is NULL. Returns 0 or
 * -errno. */
int loop_start_thread(void *(*fn)(void *), void *arg, pthread_t *out);
