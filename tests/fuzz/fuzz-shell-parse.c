#include "config.h"

/* libFuzzer harness for the shell parser. Beyond "no crash, no leak, no
 * hang": a parse either gives a tree and no error, or an error whose code is
 * the return value and whose position lies inside the input; the complete
 * commands the error says come before it end no later than it, and
 * shell_parse_runs reads them, with the same error. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "policy/shell/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shell_ast *ast = NULL;
	struct shell_error err;
	int k = shell_parse((const char *)data, size, "fuzz", &ast, &err);

	if (k < 0 && (ast || err.code != k || err.pos > size || !err.what))
		abort();
	if (k >= 0 && !ast)
		abort();
	shell_ast_free(ast);
	if (k < 0 && k != -ENOMEM && err.complete > 0) {
		struct shell_error again;
		int r = shell_parse_runs((const char *)data, size, "fuzz", &ast, &again);

		if (r == 0 && (err.complete > err.pos || !ast || again.code != k || again.pos != err.pos))
			abort();
		shell_ast_free(ast);
	}
	return 0;
}
