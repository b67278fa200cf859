/* The holder: publication is seen by the next acquire in any thread, and a
 * snapshot goes once no thread holds it, though each thread caches one. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>

#include "policy/snapshot-internal.h"

#define DEV 9

/* A snapshot that protects (DEV, MARK) only, so a lookup tells which it is. */
static struct policy_snapshot *marked(uint64_t mark)
{
	struct policy_builder *b = policy_builder_new();
	struct policy_snapshot *s;

	cr_assert(b);
	cr_assert_eq(policy_builder_protect(b, (struct policy_id){DEV, mark}, POLICY_CONTENT, "f", "r"), 0);
	s = policy_builder_finish(b);
	cr_assert(s);
	return s;
}

static bool is_marked(const struct policy_snapshot *s, uint64_t mark)
{
	return s && policy_lookup(s, (struct policy_id){DEV, mark}, NULL, NULL) == POLICY_CONTENT;
}

/* The mark of the snapshot H hands out now, acquired and released. */
static uint64_t current_mark(struct policy_holder *h)
{
	const struct policy_snapshot *s = policy_holder_acquire(h);
	uint64_t mark = 0;

	for (uint64_t m = 1; m <= 64 && !mark; m++)
		if (is_marked(s, m))
			mark = m;
	policy_snapshot_release(s);
	return mark;
}

static size_t alive(void)
{
	return atomic_load(&policy_snapshots_alive);
}

Test(holder, publication_is_seen_by_the_next_acquire_in_the_same_thread)
{
	size_t before = alive();
	struct policy_holder *h = policy_holder_new(marked(1));

	cr_assert(h);
	cr_expect_eq(current_mark(h), 1);
	cr_expect_eq(current_mark(h), 1);
	policy_holder_publish(h, marked(2));
	cr_expect_eq(current_mark(h), 2);
	/* the first is gone: neither the holder nor this thread holds it */
	cr_expect_eq(alive(), before + 1);
	policy_holder_free(h);
	cr_expect_eq(alive(), before);
}

Test(holder, a_reference_held_across_a_publication_stays_valid)
{
	size_t before = alive();
	struct policy_holder *h = policy_holder_new(marked(1));
	const struct policy_snapshot *a, *b, *c;

	a = policy_holder_acquire(h);
	policy_holder_publish(h, marked(2));
	b = policy_holder_acquire(h);
	cr_expect(is_marked(a, 1));
	cr_expect(is_marked(b, 2));
	c = policy_holder_acquire(h);
	cr_expect(is_marked(c, 2));
	policy_snapshot_release(a);
	cr_expect(is_marked(b, 2));
	cr_expect(is_marked(c, 2));
	policy_snapshot_release(c);
	policy_snapshot_release(b);
	cr_expect_eq(current_mark(h), 2);
	cr_expect_eq(alive(), before + 1);
	policy_holder_free(h);
	cr_expect_eq(alive(), before);
}

Test(holder, an_empty_holder_fails_closed)
{
	struct policy_holder *h = policy_holder_new(NULL);
	struct policy_verdict v;
	const struct policy_snapshot *s;

	s = policy_holder_acquire(h);
	cr_expect_null(s);
	cr_expect_eq(policy_check_object(s, POLICY_OP_WRITE, (struct policy_id){DEV, 1}, &v), -EACCES);
	policy_snapshot_release(s);
	policy_holder_publish(h, marked(3));
	cr_expect_eq(current_mark(h), 3);
	policy_holder_free(h);
}

/* A reader thread, stepped by the test through two barriers per step. */
struct reader {
	pthread_t thread;
	struct policy_holder *h;
	pthread_barrier_t go, done;
	int steps;
	uint64_t seen[4];
};

static void *reader_run(void *arg)
{
	struct reader *r = arg;

	for (int i = 0; i < r->steps; i++) {
		pthread_barrier_wait(&r->go);
		r->seen[i] = current_mark(r->h);
		pthread_barrier_wait(&r->done);
	}
	return NULL;
}

static void reader_start(struct reader *r, struct policy_holder *h, int steps)
{
	*r = (struct reader){.h = h, .steps = steps};
	pthread_barrier_init(&r->go, NULL, 2);
	pthread_barrier_init(&r->done, NULL, 2);
	cr_assert_eq(pthread_create(&r->thread, NULL, reader_run, r), 0);
}

static void reader_step(struct reader *r)
{
	pthread_barrier_wait(&r->go);
	pthread_barrier_wait(&r->done);
}

static void reader_join(struct reader *r)
{
	pthread_join(r->thread, NULL);
	pthread_barrier_destroy(&r->go);
	pthread_barrier_destroy(&r->done);
}

Test(holder, publication_is_seen_by_other_threads_and_the_old_snapshot_goes_with_its_last_reader)
{
	size_t before = alive();
	struct policy_holder *h = policy_holder_new(marked(1));
	struct reader r;

	reader_start(&r, h, 3);
	reader_step(&r); /* the reader caches the first */
	cr_expect_eq(r.seen[0], 1);
	cr_expect_eq(current_mark(h), 1); /* and so does this thread */
	policy_holder_publish(h, marked(2));
	cr_expect_eq(alive(), before + 2);
	cr_expect_eq(current_mark(h), 2);
	cr_expect_eq(alive(), before + 2, "the reader still caches the first");
	reader_step(&r);
	cr_expect_eq(r.seen[1], 2);
	cr_expect_eq(alive(), before + 1, "nobody holds the first any more");
	reader_step(&r);
	cr_expect_eq(r.seen[2], 2);
	reader_join(&r);
	policy_holder_free(h);
	cr_expect_eq(alive(), before);
}

Test(holder, a_thread_drops_its_reference_when_it_exits)
{
	size_t before = alive();
	struct policy_holder *h = policy_holder_new(marked(1));
	struct reader r;

	reader_start(&r, h, 1);
	reader_step(&r);
	cr_expect_eq(r.seen[0], 1);
	reader_join(&r);
	policy_holder_publish(h, marked(2));
	cr_expect_eq(alive(), before + 1, "the exited reader's cache is gone");
	policy_holder_free(h);
	cr_expect_eq(alive(), before);
}

Test(holder, a_holder_freed_while_a_thread_caches_its_snapshot)
{
	size_t before = alive();
	struct policy_holder *h = policy_holder_new(marked(1));
	struct reader r;

	reader_start(&r, h, 2);
	reader_step(&r);
	policy_holder_free(h);
	cr_expect_eq(alive(), before + 1, "the reader's cache keeps it");
	/* a new holder, likely at the same address, is not mistaken for it */
	h = policy_holder_new(marked(2));
	r.h = h;
	reader_step(&r);
	cr_expect_eq(r.seen[1], 2);
	reader_join(&r);
	policy_holder_free(h);
	cr_expect_eq(alive(), before);
}

Test(holder, many_holders_each_hand_out_their_own)
{
	enum { N = 8 };
	size_t before = alive();
	struct policy_holder *h[N];
	const struct policy_snapshot *held[N];

	for (int i = 0; i < N; i++)
		h[i] = policy_holder_new(marked(1 + i));
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < N; i++)
			cr_expect_eq(current_mark(h[(i * 3 + round) % N]), 1 + (i * 3 + round) % N);
	/* all held at once, then a publication on each */
	for (int i = 0; i < N; i++)
		held[i] = policy_holder_acquire(h[i]);
	for (int i = 0; i < N; i++)
		policy_holder_publish(h[i], marked(1 + N + i));
	for (int i = 0; i < N; i++) {
		cr_expect(is_marked(held[i], 1 + i));
		cr_expect_eq(current_mark(h[i]), 1 + N + i);
	}
	for (int i = 0; i < N; i++)
		policy_snapshot_release(held[i]);
	/* this thread still caches the first holder's first snapshot: it was
	 * lent out when the publication came; the next acquire drops it */
	cr_expect_eq(alive(), before + N + 1);
	cr_expect_eq(current_mark(h[0]), 1 + N);
	cr_expect_eq(alive(), before + N);
	for (int i = N - 1; i >= 0; i--)
		policy_holder_free(h[i]);
	cr_expect_eq(alive(), before);
}

/* Readers check that every acquire hands out a whole snapshot of this
 * holder, while the test publishes as fast as it can. */
static void *hammer(void *arg)
{
	struct policy_holder *h = arg;

	for (int i = 0; i < 50000; i++) {
		const struct policy_snapshot *s = policy_holder_acquire(h);

		cr_assert_eq(policy_snapshot_objects(s), 1);
		cr_assert(is_marked(s, 5));
		policy_snapshot_release(s);
	}
	return NULL;
}

Test(holder, readers_and_a_publisher_race)
{
	size_t before = alive();
	struct policy_holder *h = policy_holder_new(marked(5));
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, hammer, h), 0);
	for (int i = 0; i < 500; i++)
		policy_holder_publish(h, marked(5));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	cr_expect_eq(alive(), before + 1);
	policy_holder_free(h);
	cr_expect_eq(alive(), before);
}
