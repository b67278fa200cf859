/* Publication of snapshots: readers take a reference for one operation; a
 * refresh swaps in a whole new snapshot. The lock covers only the pointer
 * swap and the reference increment, never a decision. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>

#include "snapshot-internal.h"

struct policy_holder {
	pthread_mutex_t lock;
	struct policy_snapshot *current; /* protected by lock; holds one reference */
};

struct policy_holder *policy_holder_new(struct policy_snapshot *initial)
{
	struct policy_holder *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	pthread_mutex_init(&h->lock, NULL);
	h->current = initial;
	return h;
}

void policy_holder_free(struct policy_holder *h)
{
	if (!h)
		return;
	policy_snapshot_release(h->current);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

void policy_holder_publish(struct policy_holder *h, struct policy_snapshot *s)
{
	struct policy_snapshot *old;

	pthread_mutex_lock(&h->lock);
	old = h->current;
	h->current = s;
	pthread_mutex_unlock(&h->lock);
	policy_snapshot_release(old);
}

const struct policy_snapshot *policy_holder_acquire(struct policy_holder *h)
{
	struct policy_snapshot *s;

	pthread_mutex_lock(&h->lock);
	s = h->current;
	if (s)
		atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&h->lock);
	return s;
}

void policy_snapshot_release(const struct policy_snapshot *cs)
{
	struct policy_snapshot *s = (struct policy_snapshot *)cs;

	if (s && atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
		policy_snapshot_free(s);
}
