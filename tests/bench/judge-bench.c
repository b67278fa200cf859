#include "config.h"

/* The judge alone (issue 5), a benchmark rather than a timed test:
 *   judge-bench [OUTPUT.md]
 * builds snapshots with 1,000 and 100,000 protected objects and measures
 * decisions per second for the mix of operations a mount sees, on one thread
 * and on two, each decision with its policy_holder_acquire() and
 * policy_snapshot_release() as fs/judge.c does them. Prints one Markdown
 * table (and a CSV line per row on stderr); writes the table to OUTPUT.md
 * when given. `make bench-judge` runs it; nothing fails on a slow machine. */
#include <errno.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cleanup.h"
#include "policy/policy.h"

#define BENCH_SECONDS 1.0
#define BENCH_ROUNDS  3    /* runs per row; the best counts, as others share the cores */
#define BENCH_OPS     8192 /* one thread's cycle of prepared operations */
#define BENCH_NAMES   4096 /* distinct unprotected entry names */
#define BENCH_THREADS 2
#define BENCH_DEV     0x801u
#define BENCH_CHECK   1024 /* operations between two looks at the clock */

enum bench_kind {
	BENCH_OPEN,   /* open for writing / setattr on an existing object */
	BENCH_CREATE, /* create or mkdir of a new name */
	BENCH_UNLINK, /* unlink of an existing name */
	BENCH_RENAME, /* rename within a folder (editors' and git's lock files) */
};

struct bench_op {
	enum bench_kind kind;
	struct policy_id parent, obj;
	const char *name;
};

struct bench_tree {
	size_t n_protected;
	struct policy_snapshot *snap;
	struct policy_id *protected_ids; /* what the snapshot protects, for hits */
	struct policy_id *protected_dirs;
	size_t n_dirs;
	char (*names)[32];
};

/* A small deterministic generator: the same mix on every run. */
static uint64_t next_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Protected objects live at inode numbers below 10 * N, unprotected ones
 * are drawn from a range twenty times wider, as a working tree dwarfs its
 * .git; one folder in sixteen is frozen, as .git/hooks and refs are. */
static int bench_tree_build(struct bench_tree *t, size_t n)
{
	struct policy_builder *b = policy_builder_new();
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	if (!b)
		return -ENOMEM;
	t->n_protected = n;
	t->protected_ids = calloc(n, sizeof(*t->protected_ids));
	t->protected_dirs = calloc(n / 16 + 1, sizeof(*t->protected_dirs));
	t->names = calloc(BENCH_NAMES, sizeof(*t->names));
	if (!t->protected_ids || !t->protected_dirs || !t->names) {
		policy_builder_free(b);
		return -ENOMEM;
	}
	for (size_t i = 0; i < BENCH_NAMES; i++)
		snprintf(t->names[i], sizeof(t->names[i]), "src-%zu.%s", i, i % 3 ? "c" : "o.tmp");
	for (size_t i = 0; i < n; i++) {
		struct policy_id id = {BENCH_DEV, 1 + next_rand(&seed) % (10 * n)};
		unsigned flags = POLICY_CONTENT | POLICY_ANCHOR;
		char path[64];

		if (i % 16 == 0) {
			flags |= POLICY_FROZEN;
			t->protected_dirs[t->n_dirs++] = id;
		} else if (i % 16 == 1) {
			flags = POLICY_ANCHOR; /* a folder on the way */
		} else if (i % 16 == 2) {
			flags |= POLICY_REWRITABLE;
		}
		snprintf(path, sizeof(path), ".git/objects/%02zx/%zu", i % 256, i);
		t->protected_ids[i] = id;
		if (policy_builder_protect(b, id, flags, path, "git's own data") < 0)
			goto oom;
		/* One missing name in ten: lock files, commondir, new hooks. */
		if (i % 10 == 0 && policy_builder_protect_missing(b, id, "commondir", POLICY_MISSING_NONE, path,
		                                                  "commondir redirects git") < 0)
			goto oom;
		if (i % 100 == 0 && policy_builder_watch(b, id, "config") < 0)
			goto oom;
	}
	t->snap = policy_builder_finish(b);
	return t->snap ? 0 : -ENOMEM;
oom:
	policy_builder_free(b);
	return -ENOMEM;
}

static void bench_tree_free(struct bench_tree *t)
{
	if (t->snap)
		policy_snapshot_release(t->snap);
	free(t->protected_ids);
	free(t->protected_dirs);
	free(t->names);
}

static struct policy_id unprotected_id(const struct bench_tree *t, uint64_t *seed)
{
	return (struct policy_id){BENCH_DEV, 10 * t->n_protected + 1 + next_rand(seed) % (200 * t->n_protected)};
}

/* The mix a build or an agent's edits show: 60% opens/setattrs, 20% new
 * names, 10% unlinks, 5% renames of unprotected objects; 5% touch protected
 * ones (a write to .git/config, a new hook, a lock file in a frozen folder). */
static void bench_ops_fill(const struct bench_tree *t, struct bench_op *ops, uint64_t seed)
{
	for (size_t i = 0; i < BENCH_OPS; i++) {
		unsigned pick = next_rand(&seed) % 100;
		struct bench_op *op = &ops[i];

		op->parent = unprotected_id(t, &seed);
		op->obj = unprotected_id(t, &seed);
		op->name = t->names[next_rand(&seed) % BENCH_NAMES];
		if (pick < 60) {
			op->kind = BENCH_OPEN;
		} else if (pick < 80) {
			op->kind = BENCH_CREATE;
		} else if (pick < 90) {
			op->kind = BENCH_UNLINK;
		} else if (pick < 95) {
			op->kind = BENCH_RENAME;
		} else if (pick < 97) {
			op->kind = BENCH_OPEN;
			op->obj = t->protected_ids[next_rand(&seed) % t->n_protected];
		} else if (pick < 99) {
			op->kind = BENCH_CREATE;
			op->parent = t->protected_dirs[next_rand(&seed) % t->n_dirs];
		} else {
			op->kind = BENCH_CREATE;
			op->parent =
			        t->protected_ids[(next_rand(&seed) % (t->n_protected / 10 + 1)) * 10 % t->n_protected];
			op->name = "commondir";
		}
	}
}

static int decide(const struct policy_snapshot *s, const struct bench_op *op)
{
	struct policy_verdict v;

	switch (op->kind) {
	case BENCH_OPEN:
		return policy_check_object(s, POLICY_OP_WRITE, op->obj, &v);
	case BENCH_CREATE:
		return policy_check_add(s, POLICY_OP_CREATE, op->parent, op->name, &v);
	case BENCH_UNLINK:
		return policy_check_remove(s, POLICY_OP_UNLINK, op->parent, op->name, op->obj, &v);
	case BENCH_RENAME:
		return policy_check_rename(s, op->parent, op->name, op->obj, op->parent, "renamed", NULL, 0, &v);
	}
	return -EINVAL;
}

struct bench_worker {
	pthread_t thread;
	struct policy_holder *holder;
	const struct bench_op *ops;
	pthread_barrier_t *start;
	double seconds;
	uint64_t decisions, denials;
};

static void *bench_worker_run(void *arg)
{
	struct bench_worker *w = arg;
	double start, end;
	uint64_t n = 0, denied = 0;

	pthread_barrier_wait(w->start);
	start = now();
	end = start + BENCH_SECONDS;
	do {
		for (size_t i = 0; i < BENCH_CHECK; i++) {
			const struct policy_snapshot *s = policy_holder_acquire(w->holder);

			denied += decide(s, &w->ops[(n + i) % BENCH_OPS]) != 0;
			policy_snapshot_release(s);
		}
		n += BENCH_CHECK;
	} while (now() < end);
	w->seconds = now() - start;
	w->decisions = n;
	w->denials = denied;
	return NULL;
}

struct bench_result {
	size_t objects;
	int threads;
	double per_second; /* all threads together */
	double denied;     /* the share of decisions that denied */
};

static void bench_run(struct policy_holder *h, const struct bench_tree *t, int threads, struct bench_result *res)
{
	static struct bench_op ops[BENCH_THREADS][BENCH_OPS];
	struct bench_worker w[BENCH_THREADS] = {0};
	pthread_barrier_t start;
	uint64_t decisions = 0, denials = 0;
	double rate = 0;

	pthread_barrier_init(&start, NULL, (unsigned)threads);
	for (int i = 0; i < threads; i++) {
		bench_ops_fill(t, ops[i], 0x2545f4914f6cdd1dull + (uint64_t)i);
		w[i] = (struct bench_worker){.holder = h, .ops = ops[i], .start = &start};
		if (pthread_create(&w[i].thread, NULL, bench_worker_run, &w[i]) != 0) {
			fprintf(stderr, "cannot start a thread\n");
			exit(EXIT_FAILURE);
		}
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(w[i].thread, NULL);
		decisions += w[i].decisions;
		denials += w[i].denials;
		rate += (double)w[i].decisions / w[i].seconds;
	}
	pthread_barrier_destroy(&start);
	*res = (struct bench_result){.objects = t->n_protected,
	                             .threads = threads,
	                             .per_second = rate,
	                             .denied = (double)denials / (double)decisions};
}

static void print_table(FILE *f, const struct bench_result *r, size_t n)
{
	fprintf(f, "| protected objects | threads | decisions/s | per thread | ns/decision | denied |\n");
	fprintf(f, "|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "| %zu | %d | %.1f M | %.1f M | %.1f | %.1f%% |\n", r[i].objects, r[i].threads,
		        r[i].per_second / 1e6, r[i].per_second / r[i].threads / 1e6,
		        1e9 * r[i].threads / r[i].per_second, 100 * r[i].denied);
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = {1000, 100000};
	struct bench_result results[4];
	size_t n = 0;

	if (argc > 2) {
		fprintf(stderr, "usage: %s [OUTPUT.md]\n", argv[0]);
		return EXIT_FAILURE;
	}
	for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
		struct bench_tree t = {0};
		struct policy_holder *h;

		if (bench_tree_build(&t, sizes[i]) < 0) {
			fprintf(stderr, "cannot build a snapshot of %zu objects: out of memory\n", sizes[i]);
			return EXIT_FAILURE;
		}
		h = policy_holder_new(t.snap);
		if (!h) {
			fprintf(stderr, "out of memory\n");
			return EXIT_FAILURE;
		}
		t.snap = NULL; /* the holder owns it */
		for (int threads = 1; threads <= BENCH_THREADS; threads++, n++)
			for (int round = 0; round < BENCH_ROUNDS; round++) {
				struct bench_result r;

				bench_run(h, &t, threads, &r);
				if (round == 0 || r.per_second > results[n].per_second)
					results[n] = r;
			}
		policy_holder_free(h);
		bench_tree_free(&t);
	}
	print_table(stdout, results, n);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "judge,%zu,%d,%.0f\n", results[i].objects, results[i].threads, results[i].per_second);
	if (argc == 2) {
		FILE *f = fopen(argv[1], "w");

		if (!f) {
			fprintf(stderr, "cannot write '%s': %m\n", argv[1]);
			return EXIT_FAILURE;
		}
		fprintf(f, "# The judge alone\n\n");
		fprintf(f,
		        "`make bench-judge`: decisions per second, each with its acquire and release, for a mix of\n"
		        "60%% opens, 20%% creates, 10%% unlinks, 5%% renames of unprotected objects and 5%%\n"
		        "operations on protected ones; the best of %d runs of %.0f s per row.\n\n",
		        BENCH_ROUNDS, BENCH_SECONDS);
		print_table(f, results, n);
		if (fclose(f) != 0) {
			fprintf(stderr, "cannot write '%s': %m\n", argv[1]);
			return EXIT_FAILURE;
		}
	}
	return EXIT_SUCCESS;
}
