/* The pointers git follows between git directories (git/discover.h),
 * resolved as untrusted input against a tree at /t/tree. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/discover.h"

#define TREE "/t/tree"

/* "in:<path>", "outside", or "invalid:<why>". */
static char *resolved(const char *base, const char *pointer)
{
	_cleanup_free_ char *out = NULL;
	const char *why = NULL;
	char *answer = NULL;
	int r = discover_resolve(TREE, NULL, base, pointer, strlen(pointer), &out, &why);

	if (r == 1)
		cr_assert_neq(asprintf(&answer, "in:%s", out), -1);
	else if (r == 0)
		answer = strdup("outside");
	else
		cr_assert_neq(asprintf(&answer, "invalid:%s", why), -1);
	cr_assert(r == 0 || r == 1 || r == -EINVAL, "r = %d", r);
	cr_assert_not_null(answer);
	return answer;
}

static void expect(const char *base, const char *pointer, const char *want)
{
	_cleanup_free_ char *got = resolved(base, pointer);

	cr_assert_str_eq(got, want, "'%s' in '%s'", pointer, base);
}

Test(discover, absolute)
{
	expect("", TREE "/elsewhere/repo.git", "in:elsewhere/repo.git");
	expect("sub", TREE "/.git/worktrees/wt", "in:.git/worktrees/wt");
	expect("", TREE, "in:");
	expect("", TREE "/", "in:");
	expect("", "/t/tree2/repo.git", "outside");
	expect("", "/t/elsewhere", "outside");
	expect("", TREE "/a/../b", "invalid:it has a '..' after a folder name");
}

Test(discover, relative)
{
	expect("", "elsewhere/repo.git", "in:elsewhere/repo.git");
	expect("sub", "../.git/modules/sub", "in:.git/modules/sub");
	expect("a/b", "../../.git/modules/a/modules/b", "in:.git/modules/a/modules/b");
	expect(".git/worktrees/wt", "../..", "in:.git");
	expect(".git/worktrees/wt", "../../", "in:.git");
	/* A tree that is itself a submodule checkout: its git dir is outside. */
	expect("", "../.git/modules/x", "outside");
	expect("sub", "../../x", "outside");
}

Test(discover, stand_in)
{
	expect(".git", ".", "in:.git");
	expect("", ".", "in:");
}

Test(discover, malformed)
{
	_cleanup_free_ char *out = NULL;
	const char *why = NULL;

	expect("", "a/./b", "invalid:it has an empty or '.' component");
	expect("", "a//b", "invalid:it has an empty or '.' component");
	expect("", "./a", "invalid:it has an empty or '.' component");
	expect("", "a/../../b", "invalid:it has a '..' after a folder name");
	expect("", "", "invalid:it is empty");
	cr_assert_eq(discover_resolve(TREE, NULL, "", "a\0b", 3, &out, &why), -EINVAL);
	cr_assert_str_eq(why, "it holds a NUL byte");
	cr_assert_null(out);
}

Test(discover, too_long)
{
	char name[300];

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	expect("", name, "invalid:it is longer than a path may be");
}

Test(discover, out_and_back_in_by_its_own_name)
{
	expect("sub", "../../tree/.git/modules/x", "in:.git/modules/x");
	expect("", "../tree/y", "in:y");
	expect("a/b", "../../../../t/tree/z", "in:z");
	expect("", "/t/other/../tree/w", "in:w");
	expect("", "../tree2/y", "outside");
}

Test(discover, out_and_back_in_through_a_link_outside)
{
	char dir[] = P_tmpdir "/oz0-discover-XXXXXX";
	_cleanup_free_ char *tree = NULL, *link = NULL, *pointer = NULL, *out = NULL;
	const char *why = NULL;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_geq(asprintf(&tree, "%s/tree", dir), 0);
	cr_assert_geq(asprintf(&link, "%s/way-in", dir), 0);
	cr_assert_eq(mkdir(tree, 0755), 0);
	cr_assert_eq(symlink("tree", link), 0);
	cr_assert_geq(asprintf(&pointer, "%s/.git/modules/m", link), 0);
	cr_assert_eq(discover_resolve(tree, NULL, "", pointer, strlen(pointer), &out, &why), 1);
	cr_assert_str_eq(out, ".git/modules/m");
	free(out);
	out = NULL;
	cr_assert_eq(discover_resolve(tree, NULL, "sub", "../../way-in/g", 14, &out, &why), 1);
	cr_assert_str_eq(out, "g");
	unlink(link);
	rmdir(tree);
	rmdir(dir);
}
