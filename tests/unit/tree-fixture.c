#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tests/unit/tree-fixture.h"

char fixture_top[] = P_tmpdir "/oz0-model-XXXXXX";
int fixture_rootfd = -1;

void fixture_sh(const char *fmt, ...)
{
	_cleanup_free_ char *cmd = NULL, *full = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	cr_assert_neq(r, -1);
	cr_assert_neq(asprintf(&full, "cd '%s' && { %s; } >/dev/null 2>&1", fixture_top, cmd), -1);
	cr_assert_eq(system(full), 0, "failed: %s", cmd);
}

void fixture_make(void)
{
	cr_assert_not_null(mkdtemp(fixture_top));
	fixture_rootfd = open(fixture_top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fixture_rootfd, 0);
}

void fixture_remove(void)
{
	_cleanup_free_ char *cmd = NULL;

	closep(&fixture_rootfd);
	cr_assert_neq(asprintf(&cmd, "chmod -R u+rwx '%s'; rm -rf '%s'", fixture_top, fixture_top), -1);
	cr_assert_eq(system(cmd), 0);
}
