/* FUSE over io_uring (Linux 6.14): requests come in per CPU, through one
 * ring per possible CPU served by a thread pinned to that CPU, and each
 * answer and the fetch of the next request are one io_uring_enter, with no
 * read or write of /dev/fuse.
 *
 * The kernel still sends INIT, FORGET and INTERRUPT through /dev/fuse, and
 * notifications and backing-file ioctls still go there: the request loop
 * (fs/loop.h) keeps running beside the rings. A ring thread rebuilds each
 * request as /dev/fuse would have delivered it and hands it to libfuse
 * (kernel-io.c's read hook sees it first, as it sees every request); libfuse
 * replies through kernel-io.c's writev hook, which passes the reply to
 * uring_reply. The reply is committed at once, not when the handler
 * returns: a handler may go on to notify the kernel (op_rename's
 * invalidation), which waits for the lock the unanswered request holds.
 *
 * Each entry of a queue has a thread and a ring of its own, pinned to the
 * queue's CPU: the kernel gives a request to a free entry of the caller's
 * CPU, so a request that blocks in the daemon (an open that waits for a
 * lease to break, a read from a slow disk) holds up only its own thread,
 * and a CPU's requests wait for an entry only when all of them are busy.
 * A thread's entry is its only one: a second would let a blocked thread
 * hold a request that another could serve.
 *
 * After the requests it found, the queue's last thread to serve (the kernel
 * gives the next request to the entry made free last) looks for the next
 * one for a short while before it sleeps, yielding the CPU between looks.
 * Its CPU is the caller's: a thread that slept at once had the caller it
 * woke moved to the other, idle CPU, whose thread then had to be woken for
 * the next request, an interrupt between CPUs each time. The spin is much
 * shorter than the /dev/fuse leader's, since here it takes turns on the CPU
 * with the callers. Measured on two CPUs, warm grep -r of 20k files / git
 * status right after a cold one: no spin 1.23-1.52 / 0.16-0.20 s; 10 us
 * 1.01-1.03 / 0.17-0.19 s; 200 us 0.95-0.98 / 0.27-0.28 s. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

struct fuse_session;

/* Entries (and threads) per queue: the requests of one CPU that the daemon
 * works on at once. */
#define URING_QUEUE_DEPTH 4
#define URING_SPIN_MAX_US 10

/* Before the INIT reply that accepts the ring: makes the queues, one per
 * possible CPU, with their entries (PAYLOAD_SIZE bytes of payload each,
 * uring_payload_size) and their threads, which wait for uring_start. DEV_FD
 * is SE's /dev/fuse. Returns 0, or -errno with nothing left behind: the
 * kernel, once told, waits for every queue, so the reply may accept the
 * ring only when everything is in place. */
int uring_prepare(struct fuse_session *se, int dev_fd, size_t payload_size);
/* The request loop's spin (fs/loop.h), of which a ring thread spins at most
 * URING_SPIN_MAX_US; set before the INIT request comes. */
void uring_set_spin(unsigned spin_us);
/* After the INIT reply went out: the threads register their entries. */
void uring_start(void);
/* Ends the threads and frees the rings (nothing when none were made), and
 * logs the requests each queue served. */
void uring_stop(void);
/* The writev hook's part: when IOV is the reply to the request this ring
 * thread is handling, commits it through the ring, sets *WRITTEN as
 * writev(2) would, and returns true. */
bool uring_reply(const struct iovec *iov, int count, ssize_t *written);
