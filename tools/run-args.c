#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tools/run-args.h"

static const char usage[] =
        "Usage: oz0run [--profile harness|mcp|command] [--memory-mb N] [--pids N] [--cpus N]\n"
        "              [--timeout SECONDS] [--tree DIR] [--workspace PATH] [--home DIR]\n"
        "              [--network none|host] [--config FILE] [--audit FILE] [--report FILE]\n"
        "              [--no-settle] -- ARGV...\n"
        "       oz0run --check [--json] [--config FILE] [DIR]\n"
        "Runs ARGV (as given, never through a shell) in memory, process and CPU limits,\n"
        "in namespaces of its own, seeing the tree DIR only through an oz0fs mount, and\n"
        "settles what it left in Git state once every one of its processes has ended.\n"
        "\n"
        "  --profile P       the limits' defaults: harness 4096 MiB, 1024 processes, 2 CPUs;\n"
        "                    mcp 1024, 256, 1; command 2048, 512, 2, 3600 s timeout (default)\n"
        "  --memory-mb N, --pids N, --cpus N (a decimal)   override the profile's\n"
        "  --timeout S       SIGTERM every process after S seconds, SIGKILL 10 s later\n"
        "  --tree DIR        the working tree (default: the current directory)\n"
        "  --workspace PATH  where the command sees it and works (default: DIR's own path)\n"
        "  --home DIR        the command's HOME (default: a new empty folder)\n"
        "  --network M       none (default: only a loopback of its own) or host\n"
        "  --config FILE     the configuration ([ceiling], [commands], [protect], ...)\n"
        "  --audit FILE      the mount's audit file (also read-only inside at $OZ0_AUDIT)\n"
        "  --report FILE     one JSON object on how the run went\n"
        "  --no-settle       do not record and settle the tree's Git state\n"
        "\n"
        "Exit: the command's status (128+N for signal N); 3 it exited 0 but the settler\n"
        "acted; 124 timeout; 125 oz0run refused or could not start; 126/127 ARGV[0]\n"
        "cannot be executed / is not found; 137 out of memory.\n";

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;

	fputs("oz0run: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see oz0run --help)\n", stderr);
	return -EINVAL;
}

static int whole(const char *opt, const char *value, uint64_t max, uint64_t *out)
{
	if (run_parse_whole(value, max, out) == 0)
		return 0;
	return bad("%s '%s': a whole number above 0 is needed", opt, value);
}

static int path(const char *opt, const char *value, const char **out)
{
	if (!*value)
		return bad("%s: an empty path", opt);
	*out = value;
	return 0;
}

enum {
	OPT_PROFILE = 256, OPT_MEMORY, OPT_PIDS, OPT_CPUS, OPT_TIMEOUT, OPT_TREE, OPT_WORKSPACE, OPT_HOME,
	OPT_NETWORK, OPT_CONFIG, OPT_AUDIT, OPT_REPORT, OPT_NO_SETTLE, OPT_HELP, OPT_VERSION,
};

/* The options that set limits, each once the profile is known. */
struct asked {
	const char *memory, *pids, *cpus, *timeout;
};

static int option(int c, const char *v, struct run_args *a, struct asked *l)
{
	switch (c) {
	case OPT_PROFILE:
		return run_profile_parse(v, &a->profile) == 0 ? 0 : bad("--profile '%s': harness, mcp or command", v);
	case OPT_MEMORY: l->memory = v; return 0;
	case OPT_PIDS: l->pids = v; return 0;
	case OPT_CPUS: l->cpus = v; return 0;
	case OPT_TIMEOUT: l->timeout = v; return 0;
	case OPT_TREE: return path("--tree", v, &a->tree);
	case OPT_WORKSPACE:
		if (v[0] != '/')
			return bad("--workspace '%s': an absolute path is needed", v);
		return path("--workspace", v, &a->workspace);
	case OPT_HOME: return path("--home", v, &a->home);
	case OPT_NETWORK:
		if (strcmp(v, "none") == 0 || strcmp(v, "host") == 0) {
			a->network = strcmp(v, "none") == 0 ? RUN_NETWORK_NONE : RUN_NETWORK_HOST;
			return 0;
		}
		return bad("--network '%s': none or host", v);
	case OPT_CONFIG: return path("--config", v, &a->config);
	case OPT_AUDIT: return path("--audit", v, &a->audit);
	case OPT_REPORT: return path("--report", v, &a->report);
	case OPT_NO_SETTLE: a->settle = false; return 0;
	case OPT_HELP: fputs(usage, stdout); return 1;
	case OPT_VERSION: printf("oz0run %s\n", PACKAGE_VERSION); return 1;
	default: return bad("%s: an unknown option, or one without its value", v);
	}
}

static int limits(struct run_args *a, const struct asked *l)
{
	uint64_t n;

	a->asked = run_profile_limits(a->profile);
	a->timeout_s = run_profile_timeout(a->profile);
	if (l->memory && whole("--memory-mb", l->memory, RUN_MEMORY_MB_MAX, &a->asked.memory_mb) < 0)
		return -EINVAL;
	if (l->pids && whole("--pids", l->pids, RUN_PIDS_MAX, &a->asked.pids) < 0)
		return -EINVAL;
	if (l->cpus && run_parse_cpus(l->cpus, &a->asked.cpu_millis) < 0)
		return bad("--cpus '%s': a decimal above 0 is needed (at most 3 digits after the point)", l->cpus);
	if (l->timeout) {
		if (whole("--timeout", l->timeout, 100 * 365 * 86400ULL, &n) < 0)
			return -EINVAL;
		a->timeout_s = (unsigned)n;
	}
	return 0;
}

int run_args_parse(int argc, char **argv, struct run_args *a)
{
	static const struct option opts[] = {
	        {"profile", required_argument, NULL, OPT_PROFILE}, {"memory-mb", required_argument, NULL, OPT_MEMORY},
	        {"pids", required_argument, NULL, OPT_PIDS},       {"cpus", required_argument, NULL, OPT_CPUS},
	        {"timeout", required_argument, NULL, OPT_TIMEOUT}, {"tree", required_argument, NULL, OPT_TREE},
	        {"workspace", required_argument, NULL, OPT_WORKSPACE},
	        {"home", required_argument, NULL, OPT_HOME},       {"network", required_argument, NULL, OPT_NETWORK},
	        {"config", required_argument, NULL, OPT_CONFIG},   {"audit", required_argument, NULL, OPT_AUDIT},
	        {"report", required_argument, NULL, OPT_REPORT},   {"no-settle", no_argument, NULL, OPT_NO_SETTLE},
	        {"help", no_argument, NULL, OPT_HELP},             {"version", no_argument, NULL, OPT_VERSION},
	        {0},
	};
	struct asked l = {0};
	const char *last_value = NULL;
	int c, k;

	*a = (struct run_args){.profile = RUN_PROFILE_COMMAND, .tree = ".", .settle = true};
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if ((k = option(c, c == '?' || c == ':' ? argv[optind - 1] : optarg, a, &l)) != 0)
			return k;
		last_value = optarg;
	}
	if ((k = limits(a, &l)) < 0)
		return k;
	/* the "--" that ends the options, not the value of one (--tree --) */
	if (optind < 2 || strcmp(argv[optind - 1], "--") != 0 || argv[optind - 1] == last_value)
		return bad("the command must follow '--': oz0run [OPTIONS] -- ARGV...");
	if (optind >= argc || !*argv[optind])
		return bad("no command after '--'");
	a->argv = argv + optind;
	return 0;
}
