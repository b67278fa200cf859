/* Where the kernel takes an absolute path (common/physical-path.h): the
 * lexical reading and the physical one, through links and past what exists. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
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

/* A scratch folder (real spelling in REAL) holding tree/, tree/file,
 * link -> tree, keys/, and in tree: dangling -> ../keys/new, abs -> the
 * absolute keys, loop -> loop. */
static void reached_fixture(char *dir, char *real)
{
	char path[PATH_MAX + 64], keys[PATH_MAX + 64];

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(realpath(dir, real));
	snprintf(path, sizeof(path), "%s/tree", real);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/keys", real);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/tree/file", real);
	close(creat(path, 0644));
	snprintf(path, sizeof(path), "%s/link", real);
	cr_assert_eq(symlink("tree", path), 0);
	snprintf(path, sizeof(path), "%s/tree/dangling", real);
	cr_assert_eq(symlink("../keys/new", path), 0);
	snprintf(path, sizeof(path), "%s/tree/abs", real);
	snprintf(keys, sizeof(keys), "%s/keys", real);
	cr_assert_eq(symlink(keys, path), 0);
	snprintf(path, sizeof(path), "%s/tree/loop", real);
	cr_assert_eq(symlink("loop", path), 0);
}

static void remove_fixture(const char *real)
{
	static const char *const names[] = {"tree/loop", "tree/abs", "tree/dangling", "tree/file",
	                                    "link",      "keys",     "tree",          ""};
	char path[PATH_MAX + 64];

	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", real, names[i]);
		cr_assert_eq(remove(path), 0, "%s", path);
	}
}

/* reached_path of DIR/REL is REAL/WANT, or fails with ERROR. */
static void expect_reached(const char *dir, const char *real, const char *rel, const char *want, int error)
{
	char path[PATH_MAX + 64], expected[PATH_MAX + 64];
	_cleanup_free_ char *out = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(expected, sizeof(expected), "%s%s%s", real, *want ? "/" : "", want);
	cr_assert_eq(reached_path(path, &out), error, "%s", rel);
	if (!error)
		cr_assert_str_eq(out, expected, "%s", rel);
	else
		cr_assert_null(out, "%s", rel);
}

Test(reached_path, follows_links_where_physical_path_stops)
{
	char dir[] = P_tmpdir "/oz0-reached-XXXXXX", real[PATH_MAX];

	reached_fixture(dir, real);
	expect_reached(dir, real, "tree/file", "tree/file", 0);
	expect_reached(dir, real, "link/new/x", "tree/new/x", 0);
	/* a create through a dangling link lands where it points */
	expect_reached(dir, real, "tree/dangling", "keys/new", 0);
	expect_reached(dir, real, "link/dangling/../x", "keys/x", 0);
	expect_reached(dir, real, "tree/abs/id", "keys/id", 0);
	/* a ".." in the missing rest climbs back through a link */
	expect_reached(dir, real, "tree/missing/../abs/id", "keys/id", 0);
	expect_reached(dir, real, "tree/a/b/../../..", "", 0);
	expect_reached(dir, real, "tree/new/", "tree/new", 0);
	/* failures other than a missing name are errors, not cut off */
	expect_reached(dir, real, "tree/file/x", "", -ENOTDIR);
	expect_reached(dir, real, "tree/loop", "", -ELOOP);
	expect_reached(dir, real, "tree/loop/x", "", -ELOOP);
	remove_fixture(real);
}

Test(reached_path, refuses_what_is_not_absolute)
{
	_cleanup_free_ char *out = NULL;

	cr_assert_eq(reached_path("a/b", &out), -EINVAL);
	cr_assert_eq(reached_path("", &out), -EINVAL);
	cr_assert_null(out);
}
