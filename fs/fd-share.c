#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "fs/caller.h"
#include "fs/fd-share.h"

#define HOLDER_BUCKETS 256
/* A pool smaller than this is not worth sharing out. */
#define FD_SHARE_POOL_MIN 16

/* A thread that holds places. */
struct fd_holder {
	struct fd_holder *next;
	pid_t tid;     /* immutable */
	pid_t process; /* 0 until asked; under the lock */
	unsigned held; /* under the lock; freed at 0 */
};

struct fd_share {
	pthread_mutex_t lock;
	unsigned pool;                             /* immutable */
	int proc_fd;                               /* immutable, borrowed */
	unsigned taken;                            /* under lock */
	struct fd_holder *holders[HOLDER_BUCKETS]; /* under lock */
	struct fd_holder **owner;                  /* the holder of each bound fd; under lock */
	size_t n_owner;                            /* entries in owner; under lock */
};

/* Descriptors open in this process. */
static unsigned fds_in_use(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;

	if (!d)
		return 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n > 3 ? n - 3 : 0; /* ".", ".." and the listing's own */
}

unsigned fd_share_pool_size(unsigned reserve)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return FD_SHARE_POOL_MIN;
	unsigned long limit = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > UINT_MAX ? UINT_MAX : rl.rlim_cur;
	unsigned long own = (unsigned long)fds_in_use() + reserve;
	unsigned long pool = limit > own ? limit - own : 0;
	if (pool < limit / 4)
		pool = limit / 4;
	return pool < FD_SHARE_POOL_MIN ? FD_SHARE_POOL_MIN : (unsigned)pool;
}

int fd_share_new(unsigned pool, int proc_fd, struct fd_share **out)
{
	struct fd_share *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	s->pool = pool;
	s->proc_fd = proc_fd;
	*out = s;
	return 0;
}

void fd_share_free(struct fd_share *s)
{
	if (!s)
		return;
	for (size_t k = 0; k < HOLDER_BUCKETS; k++) {
		struct fd_holder *h = s->holders[k], *next;
		for (; h; h = next) {
			next = h->next;
			free(h);
		}
	}
	free(s->owner);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

unsigned fd_share_pool(const struct fd_share *s)
{
	return s->pool;
}

unsigned fd_share_taken(struct fd_share *s)
{
	pthread_mutex_lock(&s->lock);
	unsigned n = s->taken;
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* ---- Holders (under lock) --------------------------------------------------- */

static struct fd_holder **holder_slot(struct fd_share *s, pid_t tid)
{
	struct fd_holder **p = &s->holders[(uint32_t)tid % HOLDER_BUCKETS];

	while (*p && (*p)->tid != tid)
		p = &(*p)->next;
	return p;
}

static void holder_put(struct fd_share *s, struct fd_holder *h)
{
	s->taken--;
	if (--h->held > 0)
		return;
	struct fd_holder **p = holder_slot(s, h->tid);
	*p = h->next;
	free(h);
}

static pid_t process_of(struct fd_share *s, struct fd_holder *h)
{
	if (!h->process)
		h->process = caller_process(h->tid, s->proc_fd);
	return h->process;
}

/* The places H's process holds: every thread of it that holds any. */
static unsigned process_held(struct fd_share *s, struct fd_holder *h)
{
	pid_t process = process_of(s, h);
	unsigned held = 0;

	for (size_t k = 0; k < HOLDER_BUCKETS; k++)
		for (struct fd_holder *o = s->holders[k]; o; o = o->next)
			if (o->held && process_of(s, o) == process)
				held += o->held;
	return held;
}

/* Whether H's process may take one more place: it holds less than the pool
 * has free. While the pool is less than half taken that holds for every
 * process, so no process need be asked for. */
static bool within_share(struct fd_share *s, struct fd_holder *h)
{
	if (s->taken >= s->pool)
		return false;
	if (s->taken < s->pool / 2)
		return true;
	return process_held(s, h) < s->pool - s->taken;
}

/* ---- Places ----------------------------------------------------------------- */

int fd_share_claim(struct fd_share *s, pid_t tid, struct fd_claim *c)
{
	int r = 0;

	*c = (struct fd_claim){.share = s};
	pthread_mutex_lock(&s->lock);
	struct fd_holder **slot = holder_slot(s, tid);
	struct fd_holder *h = *slot;
	if (!h && (h = calloc(1, sizeof(*h)))) {
		h->tid = tid;
		*slot = h;
	}
	if (!h) {
		r = -ENOMEM;
	} else if (!within_share(s, h)) {
		r = -EMFILE;
		if (!h->held) {
			*slot = h->next;
			free(h);
		}
	} else {
		h->held++;
		s->taken++;
		c->holder = h;
	}
	pthread_mutex_unlock(&s->lock);
	return r;
}

/* Makes room in the owner table for FD. Under lock. */
static bool owner_room(struct fd_share *s, int fd)
{
	if ((size_t)fd < s->n_owner)
		return true;
	size_t n = s->n_owner ? s->n_owner : 1024;
	while (n <= (size_t)fd)
		n *= 2;
	struct fd_holder **o = realloc(s->owner, n * sizeof(*o));
	if (!o)
		return false;
	for (size_t k = s->n_owner; k < n; k++)
		o[k] = NULL;
	s->owner = o;
	s->n_owner = n;
	return true;
}

void fd_share_bind(struct fd_claim *c, int fd)
{
	struct fd_share *s = c->share;

	if (!c->holder || fd < 0)
		return;
	pthread_mutex_lock(&s->lock);
	if (owner_room(s, fd)) {
		s->owner[fd] = c->holder;
	} else {
		holder_put(s, c->holder); /* uncounted rather than lost */
	}
	pthread_mutex_unlock(&s->lock);
	c->holder = NULL;
}

void fd_share_unclaim(struct fd_claim *c)
{
	struct fd_share *s = c->share;

	if (!c->holder)
		return;
	pthread_mutex_lock(&s->lock);
	holder_put(s, c->holder);
	pthread_mutex_unlock(&s->lock);
	c->holder = NULL;
}

void fd_share_release(struct fd_share *s, int fd)
{
	if (fd < 0)
		return;
	pthread_mutex_lock(&s->lock);
	if ((size_t)fd < s->n_owner && s->owner[fd]) {
		holder_put(s, s->owner[fd]);
		s->owner[fd] = NULL;
	}
	pthread_mutex_unlock(&s->lock);
}
