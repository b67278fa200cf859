#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "tools/check-path-judge.h"
#include "tools/check-path-report.h"
#include "tools/check-path-setup.h"
#include "tools/check-path.h"
#include "tools/tool-args.h"

static const char usage_text[] =
        "usage: oz0fs --check-path [--read|--write] [--json] [--config FILE] [--tree DIR] -- PATH...\n"
        "Says whether a harness may read or write (the default) each PATH: refused under ~/.ssh, ~/.gnupg,\n"
        "~/.config/solana, ~/.oms, a home's credential paths and [deny] roots, through '..', '~' and links;\n"
        "a write also where a mount on DIR (default: the current folder) would refuse it.\n";

struct options {
	bool json, read, write;
	const char *config, *tree;
	char **paths;
	int n_paths;
};

static int usage_error(const char *what)
{
	fprintf(stderr, "oz0fs --check-path: %s\n%s", what, usage_text);
	return TOOL_EXIT_USAGE;
}

/* Returns -1 when parsed, else the exit status (0 after --help). */
static int parse_options(int argc, char **argv, struct options *o)
{
	int i = 1;

	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		bool value = i + 1 < argc;

		if (strcmp(argv[i], "--json") == 0)
			o->json = true;
		else if (strcmp(argv[i], "--read") == 0)
			o->read = true;
		else if (strcmp(argv[i], "--write") == 0)
			o->write = true;
		else if (strcmp(argv[i], "--config") == 0 && value)
			o->config = argv[++i];
		else if (strcmp(argv[i], "--tree") == 0 && value)
			o->tree = argv[++i];
		else if (strcmp(argv[i], "--help") == 0) {
			fputs(usage_text, stdout);
			return 0;
		} else
			return usage_error("unknown option or missing value (paths come after '--')");
	}
	if (o->read && o->write)
		return usage_error("--read and --write: ask one at a time");
	if (o->config && !*o->config)
		return usage_error(TOOL_ARGS_EMPTY_CONFIG);
	if (o->tree && !*o->tree)
		return usage_error("--tree '': an empty folder name");
	if (i + 1 >= argc)
		return usage_error("expected '--' and at least one PATH");
	o->paths = argv + i + 1;
	o->n_paths = argc - i - 1;
	return -1;
}

struct run {
	struct options o;
	struct path_setup setup;
	struct path_verdict *verdicts;
};

static void run_free(struct run *r)
{
	for (int i = 0; r->verdicts && i < r->o.n_paths; i++)
		path_verdict_clear(&r->verdicts[i]);
	free(r->verdicts);
	path_setup_free(&r->setup);
}

/* Everything the paths are judged against. Returns 0, -ENOMEM, or
 * TOOL_EXIT_USAGE after saying why the configuration cannot be read. */
static int prepare(struct run *r, struct path_check *c)
{
	_cleanup_free_ char *err = NULL;
	int k = path_setup_prepare(&r->setup, r->o.tree, r->o.config, !r->o.read, c, &err);

	if (k < 0 && k != -ENOMEM) {
		fprintf(stderr, "oz0fs --check-path: %s\n", err ? err : strerror(-k));
		return TOOL_EXIT_USAGE;
	}
	return k;
}

static int judge_all(struct run *r, const struct path_check *c)
{
	int refused = 0;

	r->verdicts = calloc((size_t)r->o.n_paths, sizeof(*r->verdicts));
	if (!r->verdicts)
		return -ENOMEM;
	for (int i = 0; i < r->o.n_paths; i++) {
		if (path_check(c, r->o.paths[i], &r->verdicts[i]) < 0)
			return -ENOMEM;
		refused |= r->verdicts[i].rule != NULL;
	}
	if (r->o.json)
		path_report_json(r->verdicts, (size_t)r->o.n_paths, c->write, r->setup.n_tree ? r->setup.tree[0] : NULL);
	else
		path_report_text(r->verdicts, (size_t)r->o.n_paths);
	return refused;
}

int path_check_main(int argc, char **argv)
{
	struct run r = {0};
	struct path_check c = {0};
	int k = parse_options(argc, argv, &r.o);

	if (k >= 0)
		return k;
	k = prepare(&r, &c);
	if (k == 0)
		k = judge_all(&r, &c);
	run_free(&r);
	if (k == -ENOMEM) {
		fputs("oz0fs --check-path: out of memory: every path refused\n", stderr);
		return 1;
	}
	return k;
}
