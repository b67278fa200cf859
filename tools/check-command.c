#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "policy/command-rules.h"
#include "policy/conf.h"
#include "tools/check-command.h"
#include "tools/json.h"

static void report(bool json, int k, const struct command_verdict *v)
{
	if (!json) {
		if (k == 0)
			puts("allowed");
		else
			printf("refused: %s: %s (in '%s')\n", v->rule, v->reason, v->node);
		return;
	}
	if (k == 0) {
		puts("{\"allowed\":true}");
		return;
	}
	fputs("{\"allowed\":false,\"rule\":", stdout);
	json_string(stdout, v->rule);
	fputs(",\"reason\":", stdout);
	json_string(stdout, v->reason);
	fputs(",\"node\":", stdout);
	json_string(stdout, v->node);
	printf(",\"pos\":%u}\n", v->pos);
}

static int usage(void)
{
	fputs("usage: oz0fs --check-command [--json] [--config FILE] [--deny NAME]... [--allow NAME]... "
	      "[--allow-rm] [--allow-sudo] -- ARGV...\n",
	      stderr);
	return 2;
}

/* What the command line says; its --deny and --allow names point into ARGV. */
struct check_options {
	bool json, allow_rm, allow_sudo;
	const char *config;
	const char **deny, **allow; /* room for ARGC names each */
	size_t n_deny, n_allow;
};

/* Returns the index of the first word of the argv to judge, or -1 for a
 * usage error. */
static int parse_options(int argc, char **argv, struct check_options *o)
{
	int i = 0;

	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--json") == 0)
			o->json = true;
		else if (strcmp(argv[i], "--allow-rm") == 0)
			o->allow_rm = true;
		else if (strcmp(argv[i], "--allow-sudo") == 0)
			o->allow_sudo = true;
		else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			o->config = argv[++i];
		else if (strcmp(argv[i], "--deny") == 0 && i + 1 < argc)
			o->deny[o->n_deny++] = argv[++i];
		else if (strcmp(argv[i], "--allow") == 0 && i + 1 < argc)
			o->allow[o->n_allow++] = argv[++i];
		else
			return -1;
	}
	if (i + 1 >= argc) /* no '--', or nothing after it */
		return -1;
	return i + 1;
}

/* The configured names, then the command line's, in one list of N + M. */
static const char **join_names(char *const *conf, size_t n, const char **cli, size_t m)
{
	const char **v = calloc(n + m + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = conf[i];
	for (size_t i = 0; i < m; i++)
		v[n + i] = cli[i];
	return v;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct policy_config *, policy_config_free)

int command_check_main(int argc, char **argv)
{
	_cleanup_free_ const char **cli_deny = calloc((size_t)argc + 1, sizeof(char *));
	_cleanup_free_ const char **cli_allow = calloc((size_t)argc + 1, sizeof(char *));
	_cleanup_(policy_config_freep) struct policy_config *cfg = NULL;
	_cleanup_free_ const char **denied = NULL, **allowed = NULL;
	_cleanup_free_ char *errmsg = NULL;
	struct check_options o = {.deny = cli_deny, .allow = cli_allow};
	struct command_rules rules;
	struct command_verdict v = {0};
	int i, k;

	if (!cli_deny || !cli_allow) {
		fputs("oz0fs: out of memory\n", stderr);
		return 2;
	}
	i = parse_options(argc, argv, &o);
	if (i < 0)
		return usage();
	/* without --config, the default file when there is one: a host without
	 * a configuration still gets the built-in rules */
	if (!o.config && access(POLICY_CONFIG_DEFAULT_FILE, F_OK) == 0)
		o.config = POLICY_CONFIG_DEFAULT_FILE;
	k = policy_config_load(o.config, &cfg, &errmsg);
	if (k < 0) {
		fprintf(stderr, "oz0fs: %s\n", errmsg ? errmsg : strerror(-k));
		return 2;
	}
	denied = join_names(cfg->command_deny, cfg->n_command_deny, o.deny, o.n_deny);
	allowed = join_names(cfg->command_allow, cfg->n_command_allow, o.allow, o.n_allow);
	if (!denied || !allowed) {
		fputs("oz0fs: out of memory\n", stderr);
		return 2;
	}
	rules = (struct command_rules){
		.denied = denied,
		.n_denied = cfg->n_command_deny + o.n_deny,
		.allowed = allowed,
		.n_allowed = cfg->n_command_allow + o.n_allow,
		.allow_rm = cfg->command_allow_rm || o.allow_rm,
		.allow_sudo = cfg->command_allow_sudo || o.allow_sudo,
	};
	k = command_rules_check(&rules, (const char *const *)argv + i, (size_t)(argc - i), &v);
	if (k == -ENOMEM) {
		fputs("oz0fs: out of memory\n", stderr);
		return 2;
	}
	report(o.json, k, &v);
	command_verdict_clear(&v);
	return k == 0 ? 0 : 1;
}
