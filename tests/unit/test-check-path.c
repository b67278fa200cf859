/* The spellings oz0fs --check-path judges (tools/check-path-forms.h): "~"
 * and relative paths made absolute, "." and ".." folded, links followed;
 * the roots they are matched with (tools/check-path-roots.h), with and
 * without case; and whether a volume ignores case (tools/check-path-case.h). */
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
#include "tools/check-path-case.h"
#include "tools/check-path-forms.h"
#include "tools/check-path-roots.h"

static void expect_absolute(const char *path, const char *want)
{
	_cleanup_free_ char *out = NULL;

	cr_assert_eq(path_absolute(path, "/home/u", "/work/tree", &out), 0, "%s", path);
	cr_assert_str_eq(out, want, "%s", path);
}

Test(check_path, absolute)
{
	expect_absolute("a", "/work/tree/a");
	expect_absolute("../x", "/work/tree/../x");
	expect_absolute("/etc/passwd", "//etc/passwd");
	expect_absolute("~", "/home/u/");
	expect_absolute("~/.ssh/id", "/home/u/.ssh/id");
	expect_absolute("./~/x", "/work/tree/./~/x");
}

Test(check_path, absolute_refuses)
{
	_cleanup_free_ char *out = NULL;

	cr_assert_eq(path_absolute("", "/h", "/c", &out), -EINVAL);
	cr_assert_eq(path_absolute("~bob/x", "/h", "/c", &out), -EINVAL);
	cr_assert_eq(path_absolute("~/x", NULL, "/c", &out), -EINVAL);
	cr_assert_eq(path_absolute("~/x", "relative", "/c", &out), -EINVAL);
	cr_assert_eq(path_absolute("x", "/h", NULL, &out), -EINVAL);
	cr_assert_eq(path_absolute("/x", NULL, NULL, &out), 0);
	cr_assert_str_eq(out, "//x");
}

/* The spellings of PATH (relative to CWD) as paths relative to REAL, "|"
 * between them. */
static void expect_forms(const char *real, const char *path, const char *want)
{
	struct path_forms f;
	_cleanup_free_ char *err = NULL;
	char got[4 * PATH_MAX] = "";
	size_t n = strlen(real);

	cr_assert_eq(path_forms_get(path, real, real, &f, &err), 0, "%s: %s", path, err);
	for (size_t i = 0; i < f.n; i++) {
		cr_assert(strncmp(f.form[i], real, n) == 0, "%s: %s", path, f.form[i]);
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? "|" : "",
		         f.form[i][n] ? f.form[i] + n + 1 : ".");
	}
	cr_assert_str_eq(got, want, "%s", path);
	path_forms_free(&f);
}

static void make_fixture(char *dir, char *real)
{
	char p[PATH_MAX + 32];

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(realpath(dir, real));
	snprintf(p, sizeof(p), "%s/tree", real);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/.ssh", real);
	cr_assert_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/tree/keys", real);
	cr_assert_eq(symlink("../.ssh", p), 0);
	snprintf(p, sizeof(p), "%s/tree/new", real);
	cr_assert_eq(symlink("../.ssh/new", p), 0);
	snprintf(p, sizeof(p), "%s/tree/file", real);
	cr_assert_eq(symlink("/dev/null", p), 0);
}

static void remove_fixture(const char *real)
{
	static const char *const names[] = {"tree/keys", "tree/new", "tree/file", "tree", ".ssh", ""};
	char p[PATH_MAX + 32];

	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		snprintf(p, sizeof(p), "%s/%s", real, names[i]);
		cr_assert_eq(remove(p), 0, "%s", p);
	}
}

Test(check_path, forms)
{
	char dir[] = P_tmpdir "/oz0-check-path-XXXXXX", real[PATH_MAX];

	make_fixture(dir, real);
	expect_forms(real, "tree/a", "tree/a");
	expect_forms(real, "tree/./a//b/", "tree/a/b");
	expect_forms(real, "tree/../.ssh/id", ".ssh/id");
	expect_forms(real, "~/tree/x/../../.ssh", ".ssh");
	/* a link on the way: the plain spelling, and where it leads */
	expect_forms(real, "tree/keys/id", "tree/keys/id|.ssh/id");
	/* a missing name below a dangling link */
	expect_forms(real, "tree/new", "tree/new|.ssh/new");
	/* ".." after a link: the kernel climbs from where it leads, a harness
	 * that folds the path first from the link's folder */
	expect_forms(real, "tree/keys/../tree/x", "tree/tree/x|tree/x");
	expect_forms(real, "tree/keys/../.ssh/x", "tree/.ssh/x|.ssh/x");
	remove_fixture(real);
}

Test(check_path, forms_refuse_what_cannot_be_resolved)
{
	char dir[] = P_tmpdir "/oz0-check-path-XXXXXX", real[PATH_MAX], p[PATH_MAX + 32];
	struct path_forms f;
	char *err = NULL;

	make_fixture(dir, real);
	snprintf(p, sizeof(p), "%s/tree/file/x", real);
	cr_assert_eq(path_forms_get(p, real, real, &f, &err), -ENOTDIR);
	cr_assert_not_null(strstr(err, "cannot resolve"), "%s", err);
	free(err);
	path_forms_free(&f);
	cr_assert_eq(path_forms_get("", real, real, &f, &err), -EINVAL);
	cr_assert_not_null(strstr(err, "empty"), "%s", err);
	free(err);
	path_forms_free(&f);
	cr_assert_eq(path_forms_get("~x/y", real, real, &f, &err), -EINVAL);
	cr_assert_not_null(strstr(err, "~user"), "%s", err);
	free(err);
	path_forms_free(&f);
	remove_fixture(real);
}

Test(check_path, within)
{
	cr_assert(path_within("/h/.ssh", "/h/.ssh", false));
	cr_assert(path_within("/h/.ssh/id", "/h/.ssh", false));
	cr_assert_not(path_within("/h/.sshd", "/h/.ssh", false));
	cr_assert_not(path_within("/h/.SSH/id", "/h/.ssh", false));
	cr_assert(path_within("/h/.SSH/id", "/h/.ssh", true));
	cr_assert(path_within("/anything", "/", false));
	cr_assert(path_within("a/b", "a", false));
	cr_assert_not(path_within("ab", "a", false));
}

Test(check_path, case_on_this_volume)
{
	char dir[] = P_tmpdir "/oz0-check-case-XXXXXX", p[PATH_MAX + 32];

	cr_assert_not_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/Name", dir);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/NAME", dir);
	/* a volume where two spellings are two names does not fold case */
	if (mkdir(p, 0755) == 0) {
		rmdir(p);
		snprintf(p, sizeof(p), "%s/Name/missing/x", dir);
		cr_assert_not(path_folds_case(p));
		snprintf(p, sizeof(p), "%s", dir);
		cr_assert_not(path_folds_case(p));
	} else {
		cr_assert_eq(errno, EEXIST);
		cr_assert(path_folds_case(p));
	}
	snprintf(p, sizeof(p), "%s/Name", dir);
	rmdir(p);
	rmdir(dir);
}

static const struct policy_config no_config = {0};

Test(check_path, roots)
{
	char *homes[] = {"/h", "/u"}, *tree[] = {"/h"};
	struct denied_roots r;
	const char *matched;
	const struct denied_root *d;

	cr_assert_eq(denied_roots_place(&no_config, homes, 2, NULL, 0, &r), 0);
	d = denied_roots_match(&r, "/h/.ssh/id", false, &matched);
	cr_assert_not_null(d);
	cr_assert_str_eq(d->rule, CHECK_RULE_DENIED_ROOT);
	cr_assert_str_eq(matched, "/h/.ssh");
	d = denied_roots_match(&r, "/u/.aws/credentials", false, &matched);
	cr_assert_str_eq(d->rule, CHECK_RULE_CREDENTIAL);
	cr_assert_null(denied_roots_match(&r, "/h/.SSH/id", false, &matched));
	d = denied_roots_match(&r, "/h/.SSH/id", true, &matched);
	cr_assert_str_eq(d->shown, "~/.ssh");
	cr_assert_null(denied_roots_match(&r, "/h/.sshd", true, &matched));
	cr_assert_null(denied_roots_match(&r, "/h/src/x", false, &matched));
	denied_roots_free(&r);

	/* the tree is the home: its credential paths are the tree's own files,
	 * the key folders are still refused */
	cr_assert_eq(denied_roots_place(&no_config, homes, 1, tree, 1, &r), 0);
	cr_assert_null(denied_roots_match(&r, "/h/.npmrc", false, &matched));
	cr_assert_str_eq(denied_roots_match(&r, "/h/.ssh/id", false, &matched)->rule, CHECK_RULE_DENIED_ROOT);
	cr_assert_str_eq(denied_roots_match(&r, "/h/.gnupg", false, &matched)->rule, CHECK_RULE_DENIED_ROOT);
	denied_roots_free(&r);
}

Test(check_path, deny_roots)
{
	char *deny[] = {"~/.config/op", "/srv/keys"}, *homes[] = {"/h", "/u"};
	struct policy_config cfg = {.deny_paths = deny, .n_deny_paths = 2, .file = "/etc/x.conf"};
	struct denied_roots r;
	const char *matched;
	const struct denied_root *d;

	cr_assert_eq(denied_roots_place(&cfg, homes, 2, NULL, 0, &r), 0);
	d = denied_roots_match(&r, "/u/.config/op/token", false, &matched);
	cr_assert_str_eq(d->rule, CHECK_RULE_DENY);
	cr_assert_str_eq(d->why, "named in [deny] of /etc/x.conf");
	cr_assert_str_eq(denied_roots_match(&r, "/srv/keys", false, &matched)->rule, CHECK_RULE_DENY);
	cr_assert_null(denied_roots_match(&r, "/srv/keysx", false, &matched));
	denied_roots_free(&r);
}
