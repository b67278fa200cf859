/* oz0run's command line (see oz0run --help and contrib/oz0run.1). */
#pragma once

#include <stdbool.h>

#include "tools/run/limits.h"

enum run_network { RUN_NETWORK_NONE, RUN_NETWORK_HOST };

struct run_args {
	enum run_profile profile;
	struct run_limits asked;  /* the profile's, with the options' on top */
	unsigned timeout_s;       /* 0: none */
	const char *tree, *workspace, *home, *config, *audit, *report;
	enum run_network network;
	bool settle;
	char *const *argv;        /* after "--" */
};

/* Fills A from ARGV, or says what is wrong in one line on stderr and
 * returns -EINVAL (--help and --version print and return 1). */
int run_args_parse(int argc, char **argv, struct run_args *a);
