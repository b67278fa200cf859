/* Publication of snapshots: readers take a reference for one operation; a
 * refresh swaps in a whole new snapshot.
 *
 * The common case takes no lock and writes no shared memory. Each thread
 * caches one reference of its own to the snapshot it last acquired, with the
 * holder's stamp at that moment. Stamps come from one process-wide counter:
 * every holder_new() and every publish() takes a fresh one, so a stamp names
 * one snapshot of one holder forever, even after that holder is freed and
 * its address reused. acquire() compares the holder's stamp with the cached
 * one; when they are equal the cached snapshot is the current one, and it is
 * lent out ("borrowed") without touching its reference count. Otherwise the
 * locked path runs: it takes a counted reference under the lock and swaps the
 * cache to it.
 *
 * Memory ordering. The fast path reads only the holder's stamp and this
 * thread's own variables: the cached snapshot was read, with its stamp, under
 * the holder's lock by this very thread, so its contents are visible here by
 * that lock's ordering, and the cache's reference keeps it alive whatever
 * other threads do. The stamp is stored with release under the lock after
 * the new pointer and loaded with acquire, so a thread that sees a new stamp
 * (or that synchronised with the publisher in any other way) takes the lock
 * and reads the new pointer; a thread that still sees the old stamp simply
 * acquired just before the publication, as with the plain lock.
 *
 * Borrowed references are counted per thread (borrows): release() of the
 * cached snapshot while borrows is not 0 only counts it down, and the cache
 * is swapped only when nothing of it is lent, so a caller holding a snapshot
 * across a second acquire (tools/tree-model.c) keeps it alive. A reference
 * must therefore be released by the thread that acquired it. A thread's cached
 * reference is dropped when it next acquires after a publication, when it
 * frees that holder, or when it exits (the pthread key's destructor). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>

#include "snapshot-internal.h"

struct policy_holder {
	pthread_mutex_t lock;
	struct policy_snapshot *current; /* protected by lock; holds one reference */
	atomic_uint_fast64_t stamp;      /* written under lock; read lock-free */
};

/* The next stamp; 0 is never handed out, so an empty cache matches nothing. */
static atomic_uint_fast64_t next_stamp = 1;

/* This thread's cached reference. Only this thread reads or writes it. */
struct snapshot_cache {
	uint_fast64_t stamp;                /* the holder's stamp when snap was cached, or 0 */
	const struct policy_holder *holder; /* whose; compared only while it lives */
	struct policy_snapshot *snap;       /* holds one reference when stamp is not 0 */
	unsigned long borrows;              /* uncounted references to snap handed out */
};

static __thread struct snapshot_cache cache;

/* Its value is the cached snapshot, so that the destructor drops it when the
 * thread exits. */
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;
static bool cache_key_ok;

static void snapshot_unref(struct policy_snapshot *s)
{
	if (s && atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
		policy_snapshot_free(s);
}

static void snapshot_ref(struct policy_snapshot *s)
{
	atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
}

static void cache_drop(void)
{
	struct policy_snapshot *s = cache.snap;

	cache = (struct snapshot_cache){0};
	if (cache_key_ok)
		pthread_setspecific(cache_key, NULL);
	snapshot_unref(s);
}

/* Thread exit. Borrows left over would be a caller's bug; the reference is
 * dropped regardless, as the thread can release nothing any more. */
static void cache_key_destroy(void *value)
{
	(void)value; /* the same as cache.snap */
	cache_drop();
}

static void cache_key_init(void)
{
	cache_key_ok = pthread_key_create(&cache_key, cache_key_destroy) == 0;
}

/* Makes S (one counted reference, handed over) this thread's cache. Returns
 * false when it cannot, without taking S. */
static bool cache_set(const struct policy_holder *h, struct policy_snapshot *s, uint_fast64_t stamp)
{
	struct policy_snapshot *old = cache.snap;

	pthread_once(&cache_key_once, cache_key_init);
	if (!cache_key_ok || pthread_setspecific(cache_key, s) != 0)
		return false;
	cache = (struct snapshot_cache){.stamp = stamp, .holder = h, .snap = s};
	snapshot_unref(old);
	return true;
}

struct policy_holder *policy_holder_new(struct policy_snapshot *initial)
{
	struct policy_holder *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	pthread_mutex_init(&h->lock, NULL);
	h->current = initial;
	atomic_init(&h->stamp, atomic_fetch_add_explicit(&next_stamp, 1, memory_order_relaxed));
	return h;
}

void policy_holder_free(struct policy_holder *h)
{
	if (!h)
		return;
	/* Other threads' caches keep their own references. This thread's may
	 * go whenever nothing of it is lent; it goes here so that a program
	 * that frees its holder leaves no snapshot behind in this thread. */
	if (cache.holder == h && cache.borrows == 0)
		cache_drop();
	snapshot_unref(h->current);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

void policy_holder_publish(struct policy_holder *h, struct policy_snapshot *s)
{
	struct policy_snapshot *old;

	pthread_mutex_lock(&h->lock);
	old = h->current;
	h->current = s;
	atomic_store_explicit(&h->stamp, atomic_fetch_add_explicit(&next_stamp, 1, memory_order_relaxed),
	                      memory_order_release);
	pthread_mutex_unlock(&h->lock);
	snapshot_unref(old);
}

/* The locked path: a counted reference to the current snapshot, which
 * becomes this thread's cache (and is then lent) when nothing of the old
 * cache is lent out. */
static const struct policy_snapshot *acquire_locked(struct policy_holder *h)
{
	struct policy_snapshot *s;
	uint_fast64_t stamp;

	pthread_mutex_lock(&h->lock);
	s = h->current;
	stamp = atomic_load_explicit(&h->stamp, memory_order_relaxed);
	if (s)
		snapshot_ref(s);
	pthread_mutex_unlock(&h->lock);
	if (s && cache.borrows == 0 && cache_set(h, s, stamp))
		cache.borrows = 1;
	return s;
}

const struct policy_snapshot *policy_holder_acquire(struct policy_holder *h)
{
	if (cache.stamp == atomic_load_explicit(&h->stamp, memory_order_acquire)) {
		cache.borrows++;
		return cache.snap;
	}
	return acquire_locked(h);
}

void policy_snapshot_release(const struct policy_snapshot *cs)
{
	struct policy_snapshot *s = (struct policy_snapshot *)cs;

	/* References are interchangeable: which of several to the cached
	 * snapshot this one was does not matter, only that the cache's own
	 * stays while any is lent. */
	if (s && s == cache.snap && cache.borrows > 0) {
		cache.borrows--;
		return;
	}
	snapshot_unref(s);
}
