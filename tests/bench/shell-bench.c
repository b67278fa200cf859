#include "config.h"

/* The shell reader's speed (issue 3), a benchmark rather than a timed test:
 *   shell-bench TABLE CORPUS
 * reads every command line of tests/shell-find.table and
 * tests/shell-corpus.txt (as tests/shell-commands.py does) and prints
 *   - lines per second for the program finder over them, and
 *   - the time to read the commands of a realistic configuration: 50
 *     program-valued keys, each value read as git would hand it to sh.
 * `make bench-shell` runs it; nothing fails on a slow machine. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cleanup.h"
#include "policy/shell/find.h"

/* Bounds on what the benchmark reads: the table and corpus are far below. */
#define BENCH_MAX_LINES   8192
#define BENCH_MIN_SECONDS 1.0
#define BENCH_MAX_SAMPLES 65536

/* A configuration a project might carry: aliases (after their '!'), filters,
 * drivers, editors, pagers, helpers and tools, fifty values in all. */
static const char *const config_values[] = {
        "tools/fsmon.sh",
        "cd scripts && ./x.sh",
        "python3 -W ignore tools/conv.py",
        "python3 -W ignore tools/unconv.py",
        "git-lfs filter-process",
        "tools/textconv-pdf.sh",
        "tools/textconv-docx",
        "exiftool",
        "tools/merge-json %O %A %B %L %P",
        "tools/merge-po %O %A %B",
        "vim",
        "code --wait",
        "less -FRX",
        "delta --side-by-side",
        "ssh -i ~/.ssh/deploy -o IdentitiesOnly=yes",
        "tools/askpass.py",
        "tools/proxy.sh",
        "sed -i -e 's/^pick/edit/'",
        "tools/gpg-wrap",
        "python3.12 tools/ssh-sign.py",
        "sh -c 'tools/key.sh | head -1'",
        "gzip -cn",
        "tools/recent-objects",
        "tools/hooks/pre-commit.sh \"$@\"",
        "f() { test \"$1\" = get && tools/cred.sh; }; f",
        "cache --timeout=3600",
        "tools/difftool.sh \"$LOCAL\" \"$REMOTE\"",
        "meld \"$LOCAL\" \"$REMOTE\"",
        "tools/mt \"$BASE\" \"$LOCAL\" \"$REMOTE\" -o \"$MERGED\"",
        "kdiff3 \"$BASE\" \"$LOCAL\" \"$REMOTE\" -o \"$MERGED\"",
        "tools/open-url",
        "tools/trailer.sh $ARG",
        "./tools/get-maintainer.pl --nogit",
        "tools/upload-pack",
        "git log --oneline --graph --decorate --all",
        "git branch --merged | grep -v '\\*' | xargs -n 1 git branch -d",
        "f() { git checkout -b \"$1\" origin/\"$1\"; }; f",
        "cd -- ${GIT_PREFIX:-.} && git add -p",
        "git fetch --prune && git branch -vv | awk '/: gone]/{print $1}' | xargs -r git branch -D",
        "sh -c 'exec git \"$@\" --no-pager' --",
        "env -C tools ./lint.sh --fix",
        "PATH=tools:$PATH mon.sh",
        "cd \"$(git rev-parse --show-toplevel)\" && ./scripts/bootstrap",
        "timeout 30 node tools/check.js",
        "sudo -u build nice -n 10 tools/build.sh",
        "find . -name '*.orig' -exec tools/clean {} +",
        "trap 'tools/cleanup.sh' EXIT; tools/main.sh",
        "if test -x tools/pre; then tools/pre; fi; tools/run",
        "for d in a b c; do (cd \"$d\" && ../tools/each); done",
        "echo './x.sh' | sh",
};

DEFINE_TRIVIAL_CLEANUP_FUNC(FILE *, fclose)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct lines {
	char *v[BENCH_MAX_LINES];
	size_t n;
};

static void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
}

static int lines_push(struct lines *l, const char *s)
{
	if (l->n == BENCH_MAX_LINES)
		return -E2BIG;
	l->v[l->n] = strdup(s);
	if (!l->v[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

/* 'line+: TEXT' continues the table's last 'line: ', across a newline. */
static int lines_continue(struct lines *l, const char *s)
{
	char *joined = NULL;

	if (l->n == 0)
		return -EINVAL;
	if (asprintf(&joined, "%s\n%s", l->v[l->n - 1], s) < 0)
		return -ENOMEM;
	free(l->v[l->n - 1]);
	l->v[l->n - 1] = joined;
	return 0;
}

/* TABLE's 'line:' entries when IS_TABLE, else every line of a corpus but
 * blank ones and comments. */
static int read_lines(const char *file, bool is_table, struct lines *l)
{
	_cleanup_(fclosep) FILE *f = fopen(file, "re");
	_cleanup_free_ char *raw = NULL;
	size_t cap = 0;
	int k = 0;

	if (!f)
		return -errno;
	while (k >= 0 && getline(&raw, &cap, f) >= 0) {
		raw[strcspn(raw, "\n")] = '\0';
		if (!is_table && raw[0] && raw[0] != '#')
			k = lines_push(l, raw);
		else if (is_table && strncmp(raw, "line: ", 6) == 0)
			k = lines_push(l, raw + 6);
		else if (is_table && strncmp(raw, "line+: ", 7) == 0)
			k = lines_continue(l, raw + 7);
	}
	return k;
}

static int find_one(const char *line, size_t *held)
{
	struct shell_finding *fd = NULL;
	int k = shell_find(line, strlen(line), "bench", NULL, &fd);

	if (k < 0)
		return k;
	*held += fd->n_held;
	shell_finding_free(fd);
	return 0;
}

/* Finds every line of L as many times as fit in BENCH_MIN_SECONDS. */
static int bench_corpus(const struct lines *l)
{
	size_t rounds = 0, held = 0, bytes = 0;
	double start = now(), spent;

	for (size_t i = 0; i < l->n; i++)
		bytes += strlen(l->v[i]);
	do {
		for (size_t i = 0; i < l->n; i++)
			if (find_one(l->v[i], &held) < 0)
				return -ENOMEM;
		rounds++;
		spent = now() - start;
	} while (spent < BENCH_MIN_SECONDS);
	printf("corpus: %zu lines (%zu bytes), %zu rounds in %.2f s: %.0f lines/s, %.1f MB/s, %zu paths held a round\n",
	       l->n, bytes, rounds, spent, (double)(l->n * rounds) / spent, (double)(bytes * rounds) / spent / 1e6,
	       held / rounds);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One read of the whole configuration, timed many times: the median and the
 * 99th percentile, since a start-up reads it once and pays whatever that
 * read costs (the slowest alone would time the machine's other work). */
static int bench_config(void)
{
	static double took[BENCH_MAX_SAMPLES];
	size_t n = sizeof(config_values) / sizeof(config_values[0]), rounds = 0, held = 0;
	double start = now();

	do {
		double t = now();

		for (size_t i = 0; i < n; i++)
			if (find_one(config_values[i], &held) < 0)
				return -ENOMEM;
		took[rounds++] = now() - t;
	} while (rounds < BENCH_MAX_SAMPLES && now() - start < BENCH_MIN_SECONDS);
	qsort(took, rounds, sizeof(took[0]), cmp_double);
	printf("config: %zu program-valued keys read in %.1f us (median of %zu reads), %.1f us at the 99th "
	       "percentile\n",
	       n, took[rounds / 2] * 1e6, rounds, took[rounds * 99 / 100] * 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	static struct lines lines;
	int k;

	if (argc != 3) {
		fputs("usage: shell-bench TABLE CORPUS\n", stderr);
		return 2;
	}
	k = read_lines(argv[1], true, &lines);
	if (k >= 0)
		k = read_lines(argv[2], false, &lines);
	if (k < 0) {
		fprintf(stderr, "shell-bench: cannot read the lines: %s\n", strerror(-k));
		lines_free(&lines);
		return 1;
	}
	k = bench_corpus(&lines);
	if (k >= 0)
		k = bench_config();
	lines_free(&lines);
	if (k < 0) {
		fprintf(stderr, "shell-bench: %s\n", strerror(-k));
		return 1;
	}
	return 0;
}
