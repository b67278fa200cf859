#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "tools/tool-args.h"
#include "tools/write-args.h"

const char write_usage[] =
        "usage: oz0fs --write [--tree DIR] [--audit FILE] [--config FILE] [--] PATH\n"
        "Writes standard input to PATH (relative to DIR, default the current folder, or absolute inside it)\n"
        "for an agent: a regular file only, reached following no link, never in a .git folder or git\n"
        "directory, nor where a mount on DIR would refuse; a run.file_write line reaches the audit log\n"
        "(FILE, else the configuration's, else stderr) first, or nothing is written.\n"
        "Exit 0 written, 1 refused (one line on stderr), 2 usage.\n";

enum { OPT_TREE = 256, OPT_AUDIT, OPT_CONFIG, OPT_HELP };

static const struct option options[] = {
        {"tree", required_argument, NULL, OPT_TREE},
        {"audit", required_argument, NULL, OPT_AUDIT},
        {"config", required_argument, NULL, OPT_CONFIG},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
};

static int usage_error(const char *what)
{
	fprintf(stderr, "oz0fs --write: %s\n%s", what, write_usage);
	return -EINVAL;
}

/* An empty value is a mistake, never "the default". */
static int set(const char **slot, const char *value, const char *empty)
{
	if (!*value)
		return usage_error(empty);
	*slot = value;
	return 0;
}

static int one_option(int c, struct write_args *a)
{
	switch (c) {
	case OPT_TREE:
		return set(&a->tree, optarg, "--tree '': an empty folder name");
	case OPT_AUDIT:
		return set(&a->audit, optarg, "--audit '': an empty file name");
	case OPT_CONFIG:
		return set(&a->config, optarg, TOOL_ARGS_EMPTY_CONFIG);
	case OPT_HELP:
		fputs(write_usage, stdout);
		return 1;
	default:
		return usage_error("unknown option or missing value (a PATH that starts with '-' comes after '--')");
	}
}

int write_args_parse(int argc, char **argv, struct write_args *a)
{
	int c, r;

	*a = (struct write_args){0};
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1)
		if ((r = one_option(c, a)) != 0)
			return r;
	if (argc - optind != 1)
		return usage_error(argc - optind ? "one PATH at a time" : "expected the PATH to write");
	a->path = argv[optind];
	if (!*a->path)
		return usage_error("an empty PATH");
	return 0;
}
