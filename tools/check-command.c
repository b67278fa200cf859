#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/command-rules.h"
#include "tools/check-command.h"

static void json_string(const char *s)
{
	putchar('"');
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			printf("\\%c", *c);
		else if (*c < 0x20)
			printf("\\u%04x", *c);
		else
			putchar(*c);
	}
	putchar('"');
}

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
	json_string(v->rule);
	fputs(",\"reason\":", stdout);
	json_string(v->reason);
	fputs(",\"node\":", stdout);
	json_string(v->node);
	printf(",\"pos\":%u}\n", v->pos);
}

static int usage(void)
{
	fputs("usage: oz0fs --check-command [--json] [--deny NAME]... [--allow NAME]... [--allow-rm] [--allow-sudo] "
	      "-- ARGV...\n",
	      stderr);
	return 2;
}

int command_check_main(int argc, char **argv)
{
	_cleanup_free_ const char **denied = calloc((size_t)argc + 1, sizeof(char *));
	_cleanup_free_ const char **allowed = calloc((size_t)argc + 1, sizeof(char *));
	struct command_rules rules = {.denied = denied, .allowed = allowed};
	struct command_verdict v = {0};
	bool json = false;
	int i = 0, k;

	if (!denied || !allowed) {
		fputs("oz0fs: out of memory\n", stderr);
		return 2;
	}
	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--allow-rm") == 0)
			rules.allow_rm = true;
		else if (strcmp(argv[i], "--allow-sudo") == 0)
			rules.allow_sudo = true;
		else if (strcmp(argv[i], "--deny") == 0 && i + 1 < argc)
			denied[rules.n_denied++] = argv[++i];
		else if (strcmp(argv[i], "--allow") == 0 && i + 1 < argc)
			allowed[rules.n_allowed++] = argv[++i];
		else
			return usage();
	}
	if (i + 1 >= argc) /* no '--', or nothing after it */
		return usage();
	i++;
	k = command_rules_check(&rules, (const char *const *)argv + i, (size_t)(argc - i), &v);
	if (k == -ENOMEM) {
		fputs("oz0fs: out of memory\n", stderr);
		return 2;
	}
	report(json, k, &v);
	command_verdict_clear(&v);
	return k == 0 ? 0 : 1;
}
