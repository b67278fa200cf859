#include "config.h"

/* The Git model's speed (issue 4), a benchmark rather than a timed test:
 *   model-bench DIR [RUNS]
 * on a tree tests/bench/model-tree.sh made (1,000 submodules, 100,000 index
 * entries), prints the median, min and max over RUNS of
 *   - a build: the whole model, as the mount builds it before going live;
 *   - a refresh after `git add`: what the mount does when git renames a new
 *     index into place (the live model re-reads that index, and only it);
 *   - a full rebuild, what a change of a watched protected name costs.
 * `make bench-model` runs it; nothing fails on a slow machine. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/model.h"
#include "policy/audit.h"

#define MAX_RUNS 100

static double clock_ms(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Wall time, and this thread's CPU time, which a machine busy with other
 * work inflates far less. */
struct span {
	double wall, cpu;
};

static struct span start_span(void)
{
	return (struct span){clock_ms(CLOCK_MONOTONIC), clock_ms(CLOCK_THREAD_CPUTIME_ID)};
}

static void end_span(struct span s, double *wall, double *cpu)
{
	*wall = clock_ms(CLOCK_MONOTONIC) - s.wall;
	*cpu = clock_ms(CLOCK_THREAD_CPUTIME_ID) - s.cpu;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void row(const char *what, double *ms, double *cpu, int n)
{
	qsort(ms, (size_t)n, sizeof(*ms), by_value);
	qsort(cpu, (size_t)n, sizeof(*cpu), by_value);
	printf("| %s | %.1f | %.1f | %.1f | %.1f |\n", what, ms[n / 2], ms[0], ms[n - 1], cpu[n / 2]);
}

static struct git_model *build(int rootfd)
{
	_cleanup_free_ char *err = NULL;
	struct git_model *m = NULL;

	if (git_model_new(rootfd, NULL, NULL, &m, &err) < 0) {
		fprintf(stderr, "model-bench: %s\n", err ? err : "cannot build the model");
		exit(1);
	}
	return m;
}

/* Stages one more file, as `git add` does: a new index renamed into place. */
static void git_add(const char *dir, int i)
{
	_cleanup_free_ char *cmd = NULL;

	if (asprintf(&cmd, "cd '%s' && echo %d >bench-added-%d.c && git add bench-added-%d.c", dir, i, i, i) < 0 ||
	    system(cmd) != 0) {
		fprintf(stderr, "model-bench: git add failed in %s\n", dir);
		exit(1);
	}
}

static struct policy_id id_of(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		exit(1);
	return (struct policy_id){.dev = (uint64_t)st.st_dev, .ino = (uint64_t)st.st_ino};
}

int main(int argc, char **argv)
{
	double built[MAX_RUNS], refreshed[MAX_RUNS], rebuilt[MAX_RUNS];
	double built_cpu[MAX_RUNS], refreshed_cpu[MAX_RUNS], rebuilt_cpu[MAX_RUNS];
	int runs = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 11;
	struct audit *quiet = NULL;
	_cleanup_close_ int rootfd = -1, gitfd = -1;
	struct git_model *m;

	if (argc < 2 || runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: model-bench DIR [RUNS <= %d]\n", MAX_RUNS);
		return 2;
	}
	rootfd = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
	gitfd = openat(rootfd, ".git", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || gitfd < 0 || audit_open(AUDIT_FILE, "/dev/null", &quiet) < 0) {
		perror(argv[1]);
		return 1;
	}
	for (int i = 0; i < runs; i++) {
		struct span t = start_span();

		m = build(rootfd);
		end_span(t, &built[i], &built_cpu[i]);
		git_model_free(m);
	}
	m = build(rootfd);
	git_model_set_audit(m, quiet);
	for (int i = 0; i < runs; i++) {
		git_add(argv[1], i);
		struct span t = start_span();
		if (git_model_follows(m, id_of(gitfd), "index"))
			git_model_note(m, gitfd, id_of(gitfd), "index");
		end_span(t, &refreshed[i], &refreshed_cpu[i]);
		t = start_span();
		git_model_changed(m, id_of(gitfd), "index");
		end_span(t, &rebuilt[i], &rebuilt_cpu[i]);
	}
	git_model_free(m);
	audit_close(quiet);
	printf("| Model of %s (%d runs) | median ms | min | max | median CPU ms |\n|---|---:|---:|---:|---:|\n",
	       argv[1], runs);
	row("build at start", built, built_cpu, runs);
	row("refresh after git add (the index re-read)", refreshed, refreshed_cpu, runs);
	row("full rebuild (a watched protected name changed)", rebuilt, rebuilt_cpu, runs);
	return 0;
}
