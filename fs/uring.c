#define FUSE_USE_VERSION 314
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "common/read-file.h"
#include "fs/kernel-io.h"
#include "fs/loop.h"
#include "fs/uring-msg.h"
#include "fs/uring.h"

#define POSSIBLE_CPUS "/sys/devices/system/cpu/possible"
/* The index of /dev/fuse among each ring's registered files. */
#define DEV_FILE 0
/* The user data of the stop eventfd's poll (entries' are their address). */
#define STOP_TAG ((uint64_t)1)

struct entry {
	struct fuse_uring_req_header *hdr;
	void *payload;
	struct iovec iov[2]; /* read by the kernel at registration */
	uint64_t commit_id;  /* the request it holds */
	bool registered;     /* the kernel took the registration */
};

/* A worker: one thread and its ring, serving one entry of queue QID. */
struct worker {
	struct pool *pool;
	unsigned qid;
	struct io_uring ring;
	bool ring_made;
	int stop_fd;
	pthread_t thread;
	bool thread_made;
	char *request; /* the request being handled, as /dev/fuse gives it */
	size_t room;
	uint64_t served;
	struct entry entry;
};

struct pool {
	struct fuse_session *se;
	int dev_fd;
	size_t payload_size;
	unsigned n_queues;
	unsigned n_threads; /* n_queues * URING_QUEUE_DEPTH */
	pthread_mutex_t lock;
	pthread_cond_t start_cv;
	bool started; /* under lock */
	bool stopping; /* under lock */
	struct worker *workers;
	/* Per queue, the thread that may spin: the one that served last. */
	_Atomic(struct worker *) *spinner;
};

static struct pool *pool;
static uint64_t spin_ns;

void uring_set_spin(unsigned spin_us)
{
	spin_ns = (uint64_t)(spin_us < URING_SPIN_MAX_US ? spin_us : URING_SPIN_MAX_US) * 1000u;
}

/* The ring thread's own, and the entry whose request it handles until the
 * reply is committed. */
static _Thread_local struct worker *this_worker;
static _Thread_local struct entry *this_entry;

/* ---- Submitting ----------------------------------------------------------- */

static struct io_uring_sqe *next_sqe(struct worker *q)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);

	if (!sqe && io_uring_submit(&q->ring) >= 0)
		sqe = io_uring_get_sqe(&q->ring);
	return sqe;
}

/* Queues command OP for entry E (not yet submitted). */
static int queue_command(struct worker *q, struct entry *e, enum fuse_uring_cmd op)
{
	struct io_uring_sqe *sqe = next_sqe(q);

	if (!sqe)
		return -EBUSY;
	memset(sqe, 0, 2 * sizeof(*sqe)); /* a 128-byte SQE */
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->flags = IOSQE_FIXED_FILE;
	sqe->fd = DEV_FILE;
	sqe->cmd_op = op;
	if (op == FUSE_IO_URING_CMD_REGISTER) {
		sqe->addr = (uint64_t)(uintptr_t)e->iov;
		sqe->len = 2;
	}
	struct fuse_uring_cmd_req cmd = {.commit_id = e->commit_id, .qid = (uint16_t)q->qid};
	memcpy(sqe->cmd, &cmd, sizeof(cmd));
	io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)e);
	return 0;
}

/* Sends the reply in E and takes E's next request, now. */
static void commit(struct worker *q, struct entry *e)
{
	int r = queue_command(q, e, FUSE_IO_URING_CMD_COMMIT_AND_FETCH);

	if (r == 0)
		r = io_uring_submit(&q->ring);
	if (r < 0)
		log_warning("fuse over io_uring: queue %u cannot answer request %llu: %s", q->qid,
		            (unsigned long long)e->commit_id, strerror(-r));
}

bool uring_reply(const struct iovec *iov, int count, ssize_t *written)
{
	struct entry *e = this_entry;
	struct fuse_out_header out;

	if (!e || count < 1 || iov[0].iov_len != sizeof(out))
		return false;
	memcpy(&out, iov[0].iov_base, sizeof(out));
	if (out.unique != e->commit_id)
		return false; /* another request's (an interrupt's, a notification) */
	ssize_t n = uring_reply_write(iov, count, e->hdr, e->payload, this_worker->pool->payload_size);
	this_entry = NULL;
	commit(this_worker, e);
	if (n < 0) {
		log_warning("fuse over io_uring: reply to request %llu too long for the ring (%s)",
		            (unsigned long long)out.unique, strerror((int)-n));
		errno = EIO;
		*written = -1;
	} else {
		*written = n;
	}
	return true;
}

/* ---- Serving ----------------------------------------------------------------- */

static void serve(struct worker *q, struct entry *e)
{
	struct fuse_in_header in;

	memcpy(&in, e->hdr->in_out, sizeof(in));
	e->commit_id = e->hdr->ring_ent_in_out.commit_id;
	ssize_t n = uring_request_read(e->hdr, e->payload, q->pool->payload_size, q->request, q->room);
	q->served++;
	if (n < 0) {
		log_warning("fuse over io_uring: request %llu (opcode %u) is malformed", (unsigned long long)in.unique,
		            in.opcode);
		uring_reply_error(e->hdr, e->commit_id, EIO);
		commit(q, e);
		return;
	}
	kernel_io_note_request(q->request, (size_t)n);
	struct fuse_buf buf = {.mem = q->request, .size = (size_t)n};
	this_entry = e;
	fuse_session_process_buf(q->pool->se, &buf);
	if (this_entry) {
		/* No reply: the kernel would wait for it, and the entry with it. */
		this_entry = NULL;
		log_warning("fuse over io_uring: no reply to request %llu (opcode %u)", (unsigned long long)in.unique,
		            in.opcode);
		uring_reply_error(e->hdr, e->commit_id, EIO);
		commit(q, e);
	}
}

/* One completion: a request in the entry, or its end. False when the
 * thread is to end. */
static bool complete(struct worker *q, uint64_t tag, int res)
{
	struct entry *e = &q->entry;

	if (tag == STOP_TAG)
		return false;
	if (res == 0) {
		e->registered = true;
		serve(q, e);
		return true;
	}
	if (res == -EAGAIN && !e->registered) {
		/* The kernel had not yet taken the INIT reply in. */
		if (queue_command(q, e, FUSE_IO_URING_CMD_REGISTER) == 0)
			return true;
	}
	/* ENOTCONN, ECANCELED: the connection ends. */
	if (res != -ENOTCONN && res != -ECANCELED)
		log_warning("fuse over io_uring: queue %u lost an entry: %s", q->qid, strerror(-res));
	return false;
}

/* Submits what is queued and waits for a completion: until SPIN_UNTIL, while
 * it is its queue's spinner, by yielding the CPU and looking again (the
 * sched_yield also runs the task work that posts a fetched request's
 * completion); then asleep in the kernel. */
static int submit_and_wait(struct worker *q, uint64_t spin_until)
{
	struct io_uring_cqe *cqe;

	if (spin_until) {
		int r = io_uring_submit(&q->ring);
		if (r < 0)
			return r;
		_Atomic(struct worker *) *spinner = &q->pool->spinner[q->qid];
		while (io_uring_peek_cqe(&q->ring, &cqe) != 0 && atomic_load(spinner) == q &&
		       loop_now_ns() < spin_until)
			sched_yield();
		if (io_uring_cq_ready(&q->ring))
			return 0;
	}
	return io_uring_submit_and_wait(&q->ring, 1);
}

static void serve_entry(struct worker *q)
{
	uint64_t spin_until = 0;

	for (;;) {
		int r = submit_and_wait(q, spin_until);
		if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
			log_warning("fuse over io_uring: queue %u stops: %s", q->qid, strerror(-r));
			return;
		}
		struct io_uring_cqe *cqe;
		while (io_uring_peek_cqe(&q->ring, &cqe) == 0) {
			uint64_t tag = io_uring_cqe_get_data64(cqe);
			int res = cqe->res;
			io_uring_cqe_seen(&q->ring, cqe);
			if (!complete(q, tag, res))
				return;
		}
		spin_until = 0;
		if (spin_ns) {
			atomic_store(&q->pool->spinner[q->qid], q);
			spin_until = loop_now_ns() + spin_ns;
		}
	}
}

/* The kernel queues a request on the queue of the CPU it was made on: the
 * thread that answers it runs there too, when this process may. */
static void pin(unsigned cpu)
{
	cpu_set_t allowed, one;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0 || !CPU_ISSET(cpu, &allowed))
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		log_debug("fuse over io_uring: cannot pin queue %u to its CPU: %m", cpu);
}

/* False when the pool stops before it starts. */
static bool wait_for_start(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	while (!p->started && !p->stopping)
		pthread_cond_wait(&p->start_cv, &p->lock);
	bool go = !p->stopping;
	pthread_mutex_unlock(&p->lock);
	return go;
}

static int register_entry(struct worker *q)
{
	struct io_uring_sqe *sqe = next_sqe(q);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_poll_add(sqe, q->stop_fd, POLLIN);
	io_uring_sqe_set_data64(sqe, STOP_TAG);
	return queue_command(q, &q->entry, FUSE_IO_URING_CMD_REGISTER);
}

static void *worker_thread(void *arg)
{
	struct worker *q = arg;

	this_worker = q;
	pin(q->qid);
	if (!wait_for_start(q->pool))
		return NULL;
	int r = register_entry(q);
	if (r < 0)
		log_warning("fuse over io_uring: queue %u cannot register: %s", q->qid, strerror(-r));
	else
		serve_entry(q);
	return NULL;
}

/* ---- Setting up and tearing down ------------------------------------------- */

static void entry_free(struct entry *e)
{
	free(e->hdr);
	free(e->payload);
}

/* Page-aligned buffers: the kernel pins the pages it copies to. */
static int entry_init(struct entry *e, size_t payload_size)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t align = page > 0 ? (size_t)page : 4096;

	if (posix_memalign((void **)&e->hdr, align, sizeof(*e->hdr)) != 0 ||
	    posix_memalign(&e->payload, align, payload_size) != 0)
		return -ENOMEM;
	memset(e->hdr, 0, sizeof(*e->hdr));
	e->iov[0] = (struct iovec){.iov_base = e->hdr, .iov_len = sizeof(*e->hdr)};
	e->iov[1] = (struct iovec){.iov_base = e->payload, .iov_len = payload_size};
	return 0;
}

static int worker_init(struct worker *q, struct pool *p, unsigned qid)
{
	struct io_uring_params params = {.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQSIZE};

	q->pool = p;
	q->qid = qid;
	q->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (q->stop_fd < 0)
		return -errno;
	/* The entry's command and the stop poll. */
	params.cq_entries = 4;
	int r = io_uring_queue_init_params(2, &q->ring, &params);
	if (r < 0)
		return r;
	q->ring_made = true;
	r = io_uring_register_files(&q->ring, &p->dev_fd, 1);
	if (r < 0)
		return r;
	q->room = uring_request_room(p->payload_size);
	q->request = malloc(q->room);
	if (!q->request)
		return -ENOMEM;
	if ((r = entry_init(&q->entry, p->payload_size)) < 0)
		return r;
	r = loop_start_thread(worker_thread, q, &q->thread);
	q->thread_made = r == 0;
	return r;
}

static void worker_free(struct worker *q)
{
	if (q->ring_made)
		io_uring_queue_exit(&q->ring);
	if (q->stop_fd >= 0)
		close(q->stop_fd);
	entry_free(&q->entry);
	free(q->request);
}

static int queues_wanted(void)
{
	_cleanup_close_ int fd = open(POSSIBLE_CPUS, O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *list = NULL;
	size_t len;

	if (fd < 0)
		return -errno;
	int r = read_fd_bounded(fd, 0, 4096, &list, &len);
	return r < 0 ? r : uring_queue_count(list);
}

/* Wakes every thread, waiting or serving, and waits for it to end. */
static void stop_threads(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	pthread_cond_broadcast(&p->start_cv);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->n_threads; i++)
		if (p->workers[i].stop_fd >= 0 && eventfd_write(p->workers[i].stop_fd, 1) < 0)
			log_debug("fuse over io_uring: cannot wake queue %u: %m", p->workers[i].qid);
	for (unsigned i = 0; i < p->n_threads; i++) {
		if (p->workers[i].thread_made)
			pthread_join(p->workers[i].thread, NULL);
		p->workers[i].thread_made = false;
	}
}

static void free_pool(struct pool *p)
{
	stop_threads(p);
	for (unsigned i = 0; i < p->n_threads; i++)
		worker_free(&p->workers[i]);
	free(p->workers);
	free(p->spinner);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->start_cv);
	free(p);
}

int uring_prepare(struct fuse_session *se, int dev_fd, size_t payload_size)
{
	int n = queues_wanted();

	if (n <= 0)
		return n < 0 ? n : -EINVAL;
	struct pool *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	*p = (struct pool){.se = se, .dev_fd = dev_fd, .payload_size = payload_size, .n_queues = (unsigned)n};
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->start_cv, NULL);
	p->workers = calloc((size_t)n * URING_QUEUE_DEPTH, sizeof(*p->workers));
	p->spinner = calloc((size_t)n, sizeof(*p->spinner));
	if (!p->workers || !p->spinner) {
		free_pool(p);
		return -ENOMEM;
	}
	int r = 0;
	for (; p->n_threads < (unsigned)n * URING_QUEUE_DEPTH && r == 0; p->n_threads++) {
		p->workers[p->n_threads].stop_fd = -1;
		r = worker_init(&p->workers[p->n_threads], p, p->n_threads / URING_QUEUE_DEPTH);
	}
	if (r < 0) {
		free_pool(p);
		return r;
	}
	pool = p;
	return 0;
}

void uring_start(void)
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->started = true;
	pthread_cond_broadcast(&pool->start_cv);
	pthread_mutex_unlock(&pool->lock);
	log_info("fuse over io_uring: %u queues of %u entries (a thread each), %zu KiB of payload each",
	         pool->n_queues, URING_QUEUE_DEPTH, pool->payload_size / 1024);
}

/* "N requests (queue 0: A, queue 1: B)". */
static void log_served(const struct pool *p)
{
	char per[256] = "";
	size_t at = 0;
	uint64_t total = 0;

	for (unsigned qid = 0; qid < p->n_queues; qid++) {
		uint64_t served = 0;
		for (unsigned k = 0; k < URING_QUEUE_DEPTH; k++)
			served += p->workers[qid * URING_QUEUE_DEPTH + k].served;
		total += served;
		if (at < sizeof(per))
			at += (size_t)snprintf(per + at, sizeof(per) - at, "%squeue %u: %llu", qid ? ", " : "", qid,
			                       (unsigned long long)served);
	}
	log_info("fuse over io_uring: served %llu requests (%s)", (unsigned long long)total, per);
}

void uring_stop(void)
{
	struct pool *p = TAKE_PTR(pool);

	if (!p)
		return;
	stop_threads(p);
	if (p->started)
		log_served(p);
	free_pool(p);
}
