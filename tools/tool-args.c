#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "tools/tool-args.h"

enum { OPT_JSON = 256, OPT_CONFIG, OPT_HELP };

static const struct option options[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"config", required_argument, NULL, OPT_CONFIG},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
};

static int usage_error(const char *mode, const char *what, const char *usage)
{
	fprintf(stderr, "oz0fs %s: %s\n%s", mode, what, usage);
	return -EINVAL;
}

int tool_args_parse(int argc, char **argv, int min_rest, int max_rest, const char *usage, struct tool_args *a)
{
	int c;

	*a = (struct tool_args){0};
	opterr = 0;
	optind = 1;
	/* Options may follow the arguments; a PATH that starts with '-' comes after '--'. */
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_CONFIG:
			if (!*optarg)
				return usage_error(argv[0], TOOL_ARGS_EMPTY_CONFIG, usage);
			a->config = optarg;
			break;
		case OPT_HELP:
			fputs(usage, stdout);
			return 1;
		default:
			return usage_error(argv[0], "unknown option or missing value", usage);
		}
	}
	a->rest = argv + optind;
	a->n_rest = argc - optind;
	if (a->n_rest < min_rest)
		return usage_error(argv[0], "missing argument", usage);
	if (a->n_rest > max_rest)
		return usage_error(argv[0], "too many arguments", usage);
	return 0;
}
