/* The command line of oz0fs --write:
 *   oz0fs --write [--tree DIR] [--audit FILE] [--config FILE] [--] PATH
 * ARGC/ARGV start at the word "--write", which stands in for the program
 * name. */
#pragma once

struct write_args {
	const char *tree;   /* NULL: the current folder */
	const char *audit;  /* NULL: the configuration's [audit] file, else stderr */
	const char *config; /* NULL: the default file when present */
	const char *path;   /* relative to the tree, or absolute inside it */
};

extern const char write_usage[];

/* Returns 0; 1 when --help was asked (the usage printed to stdout); or
 * -EINVAL after printing one line and the usage to stderr. */
int write_args_parse(int argc, char **argv, struct write_args *a);
