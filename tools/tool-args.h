/* The command line shared by oz0fs --check and --explain:
 *   [--json] [--config FILE] [--help] ARG...
 * ARGC/ARGV start at the mode's own word ("--check"), which stands in for
 * the program name. */
#pragma once

#include <stdbool.h>

#define TOOL_EXIT_USAGE 2
/* The usage error for "--config ''", in every mode. */
#define TOOL_ARGS_EMPTY_CONFIG \
	"--config '': an empty file name: name the configuration file, or leave --config out for the default"

struct tool_args {
	bool json;
	const char *config; /* NULL: the default file when present */
	char **rest;        /* the arguments after the options */
	int n_rest;
};

/* Returns 0; 1 when --help was asked (USAGE printed to stdout); or
 * -EINVAL after printing one line and USAGE to stderr, when the options are
 * wrong or the arguments are not between MIN_REST and MAX_REST. */
int tool_args_parse(int argc, char **argv, int min_rest, int max_rest, const char *usage, struct tool_args *a);
