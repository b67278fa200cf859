#include "config.h"

/* libFuzzer harness for the program finder and the command rules, which both
 * walk the parser's tree. Beyond "no crash, no leak, no hang": every held
 * path and folder is non-empty, and a verdict is allowed, refused or out of
 * memory, nothing else. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/command-rules.h"
#include "policy/shell/find.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Half the names "exist", so both the found and the not-found branches of
 * the finder's look-ups run. */
static bool exists_odd(const char *path, void *userdata)
{
	(void)userdata;
	return strlen(path) % 2 == 1;
}

static void check_find(const char *buf, size_t size)
{
	struct shell_find_options opts = {.exists = exists_odd};
	struct shell_finding *fd = NULL;

	if (shell_find(buf, size, "fuzz", &opts, &fd) < 0)
		return;
	for (size_t i = 0; i < fd->n_held; i++)
		if (!fd->held[i].path[0] || !fd->held[i].folder[0])
			abort();
	shell_finding_free(fd);
}

static void check_rules(const char *buf, size_t size)
{
	const char *argv[3] = {"sh", "-c", NULL};
	struct command_verdict v;
	char *line = strndup(buf, size);
	int k;

	if (!line)
		return;
	argv[2] = line;
	k = command_rules_check(&(struct command_rules){0}, argv, 3, &v);
	if (k != 0 && k != -EACCES && k != -ENOMEM)
		abort();
	command_verdict_clear(&v);
	free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_find((const char *)data, size);
	check_rules((const char *)data, size);
	return 0;
}
