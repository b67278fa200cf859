/* The callers' share of the daemon's descriptors.
 *
 * Every file or folder a caller holds open through the mount is an open
 * descriptor of the daemon's (with passthrough too: the daemon answers
 * fstat and ftruncate through it), and the daemon has one RLIMIT_NOFILE for
 * all of them and for its own work: lookups, the model's reads, the audit.
 * A caller that held thousands of open files took the daemon to its limit,
 * and every other process on the mount then got EMFILE for every lookup,
 * open and create. So the callers' open files may take a pool, the limit
 * less a reserve for the daemon's own, and no process may hold more of the
 * pool than it leaves free for all the others: a process alone may take half
 * of it, a second half of the rest, and so on. The process that holds the
 * files gets EMFILE first; one that holds few can still open.
 *
 * The kernel names the calling thread in a request, not its process: a
 * thread's process is read from /proc only once the pool is half taken.
 * Below that no process can be past its share, so nothing is asked. A thread
 * that ended while its process kept its files counts on its own.
 *
 * Thread-safe: one mutex.
 */
#pragma once

#include <sys/types.h>

struct fd_share;

/* The pool this process can give its callers: its RLIMIT_NOFILE less the
 * descriptors open now and RESERVE for its own work; a quarter of the limit
 * at least. */
unsigned fd_share_pool_size(unsigned reserve);
/* POOL descriptors for the callers; PROC_FD is an fd of /proc (borrowed). */
int fd_share_new(unsigned pool, int proc_fd, struct fd_share **out);
void fd_share_free(struct fd_share *s);

/* A place in the pool, taken before the open (an open refused after a create
 * would leave the file behind) and given the fd once there is one. */
struct fd_claim {
	struct fd_share *share;
	struct fd_holder *holder; /* NULL once bound or given back */
};
/* Takes a place for thread TID; -EMFILE when its process holds its share,
 * or the pool is full. */
int fd_share_claim(struct fd_share *s, pid_t tid, struct fd_claim *c);
/* The daemon's FD now holds the place: fd_share_release(FD) gives it back. */
void fd_share_bind(struct fd_claim *c, int fd);
/* Gives back a place that was never bound; a no-op after fd_share_bind. */
void fd_share_unclaim(struct fd_claim *c);
#define _cleanup_claim_ __attribute__((cleanup(fd_share_unclaim)))
/* FD, bound to a place, is being closed; a no-op for an fd never bound. */
void fd_share_release(struct fd_share *s, int fd);

/* The pool's size and the places taken, for tests. */
unsigned fd_share_pool(const struct fd_share *s);
unsigned fd_share_taken(struct fd_share *s);
