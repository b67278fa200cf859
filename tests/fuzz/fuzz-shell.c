#include "config.h"

/* libFuzzer harness for the shell reader: the parser, the program finder
 * and the command rules over the same bytes. Properties beyond "no crash,
 * no leak, no hang": a parse either gives a tree or an error with a position
 * inside the input; every held path is non-empty. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/command-rules.h"
#include "policy/shell-find.h"
#include "policy/shell.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool exists_odd(const char *path, void *userdata)
{
	(void)userdata;
	return strlen(path) % 2 == 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct shell_find_options opts = {.exists = exists_odd};
	struct shell_finding *fd = NULL;
	struct shell_ast *ast = NULL;
	struct shell_error err;
	struct command_verdict v;
	char *line;
	const char *argv[3] = {"sh", "-c", NULL};
	int k = shell_parse(buf, size, "fuzz", &ast, &err);

	if (k < 0 && (ast || err.code != k || err.pos > size || !err.what))
		abort();
	shell_ast_free(ast);
	if (shell_find(buf, size, "fuzz", &opts, &fd) == 0) {
		for (size_t i = 0; i < fd->n_held; i++)
			if (!fd->held[i].path[0] || !fd->held[i].folder[0])
				abort();
		shell_finding_free(fd);
	}
	line = strndup(buf, size);
	if (!line)
		return 0;
	argv[2] = line;
	k = command_rules_check(&(struct command_rules){0}, argv, 3, &v);
	if (k != 0 && k != -EACCES && k != -ENOMEM)
		abort();
	command_verdict_clear(&v);
	free(line);
	return 0;
}
