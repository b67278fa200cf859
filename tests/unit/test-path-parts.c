/* Walking a path's components (common/path-parts.c). */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "common/path-parts.h"

/* The components of PATH joined with '|', e.g. "a|b" for "/a//b/". */
static void expect_parts(const char *path, const char *want)
{
	char got[256] = "";
	const char *name;
	size_t len, used = 0;
	const char *p = path;

	while (path_next_part(&p, &name, &len)) {
		cr_assert_gt(len, 0, "%s", path);
		cr_assert_lt(used + len + 1, sizeof(got));
		used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%.*s", used ? "|" : "", (int)len, name);
	}
	cr_assert_str_eq(got, want, "'%s'", path);
	cr_assert_eq(p, path + strlen(path), "'%s': the cursor stops at the end", path);
}

Test(path_parts, nothing_or_only_slashes_has_no_component)
{
	expect_parts("", "");
	expect_parts("/", "");
	expect_parts("///", "");
}

Test(path_parts, dot_and_dot_dot_as_spelled)
{
	expect_parts(".", ".");
	expect_parts("..", "..");
	expect_parts("./a/../b", ".|a|..|b");
}

Test(path_parts, repeated_and_trailing_slashes_are_skipped)
{
	expect_parts("a//b/", "a|b");
	expect_parts("a/", "a");
	expect_parts("//a///b//c", "a|b|c");
	expect_parts("/abs/path", "abs|path");
	expect_parts("one", "one");
}

/* Each component points into the path itself, and the cursor stops just
 * past it: a caller may look at what follows. */
Test(path_parts, points_into_the_path)
{
	const char *path = "x//yz/";
	const char *p = path, *name;
	size_t len;

	cr_assert(path_next_part(&p, &name, &len));
	cr_assert_eq(name, path);
	cr_assert_eq(len, 1);
	cr_assert_eq(p, path + 1);
	cr_assert(path_next_part(&p, &name, &len));
	cr_assert_eq(name, path + 3);
	cr_assert_eq(len, 2);
	cr_assert_eq(p, path + 5);
	cr_assert_not(path_next_part(&p, &name, &len));
	cr_assert_eq(p, path + 6);
	cr_assert_not(path_next_part(&p, &name, &len), "the end stays the end");
}
