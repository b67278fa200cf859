/* Where the kernel takes an absolute path (common/physical-path.h): the
 * lexical reading and the physical one, through links and past what exists. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/physical-path.h"

static void expect_lexical(const char *abs, const char *want)
{
	_cleanup_free_ char *out = NULL;

	cr_assert_eq(lexical_path(abs, &out), 0, "%s", abs);
	cr_assert_str_eq(out, want, "%s", abs);
}

Test(physical_path, lexical)
{
	expect_lexical("/", "/");
	expect_lexical("/a/b/../c", "/a/c");
	expect_lexical("/a/./b//c/", "/a/b/c");
	expect_lexical("/../..", "/");
	expect_lexical("/a/b/../../../x", "/x");
}

Test(physical_path, refuses_what_is_not_absolute)
{
	_cleanup_free_ char *out = NULL;

	cr_assert_eq(lexical_path("a/b", &out), -EINVAL);
	cr_assert_eq(physical_path("a/b", &out), -EINVAL);
	cr_assert_null(out);
}

Test(physical_path, through_links_and_past_what_exists)
{
	char dir[] = P_tmpdir "/oz0-physical-XXXXXX";
	char real[PATH_MAX], path[PATH_MAX + 64], want[PATH_MAX + 64];
	_cleanup_free_ char *out = NULL;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(realpath(dir, real));
	snprintf(path, sizeof(path), "%s/tree", real);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/link", real);
	cr_assert_eq(symlink("tree", path), 0);

	snprintf(path, sizeof(path), "%s/link/missing/../x/y", dir);
	snprintf(want, sizeof(want), "%s/tree/x/y", real);
	cr_assert_eq(physical_path(path, &out), 0);
	cr_assert_str_eq(out, want);
	free(out);
	out = NULL;
	/* ".." after a link climbs from where the link leads */
	snprintf(path, sizeof(path), "%s/link/../tree", dir);
	snprintf(want, sizeof(want), "%s/tree", real);
	cr_assert_eq(physical_path(path, &out), 0);
	cr_assert_str_eq(out, want);

	snprintf(path, sizeof(path), "%s/link", real);
	unlink(path);
	snprintf(path, sizeof(path), "%s/tree", real);
	rmdir(path);
	rmdir(real);
}
