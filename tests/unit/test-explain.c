/* --explain's parts: the walk (common/explain-resolve.h), the judgement
 * (policy/explain-judge.h) and its words (policy/explain-text.h), which the
 * mount's user.oz0fs.why answers with too. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/explain-resolve.h"
#include "common/safe-open.h"
#include "policy/explain-judge.h"
#include "policy/explain-text.h"
#include "tests/unit/explain-fixture.h"
#include "tests/unit/scratch-dir.h"

TestSuite(explain, .init = explain_fixture_make, .fini = explain_fixture_remove);

/* ---- The walk ------------------------------------------------------------- */

/* Walks REL into T, which the caller frees; fails the test on an error. */
static void walk(const char *rel, struct explain_target *t)
{
	_cleanup_free_ char *err = NULL;
	int r = explain_resolve(fixture_root, rel, t, &err);

	cr_assert_eq(r, 0, "%s: %d %s", rel, r, err ? err : "");
}

/* The error of walking REL, and its reason in *ERR. */
static int walk_fails(const char *rel, char **err)
{
	struct explain_target t;
	int r = explain_resolve(fixture_root, rel, &t, err);

	explain_target_free(&t);
	return r;
}

Test(explain, resolve_the_tree_itself)
{
	struct explain_target t;

	walk(".", &t);
	cr_expect_str_eq(t.path, ".");
	cr_expect_null(t.name);
	cr_expect(t.exists && S_ISDIR(t.st.st_mode));
	cr_expect_eq(t.n_folders, 1);
	cr_expect_str_eq(t.folders[0].path, ".");
	cr_expect_eq(t.st.st_ino, explain_fixture_id(".").ino);
	explain_target_free(&t);
}

Test(explain, resolve_a_file_and_its_folders)
{
	struct explain_target t;

	walk(".git/hooks/pre-commit", &t);
	cr_expect_str_eq(t.path, ".git/hooks/pre-commit");
	cr_expect_str_eq(t.name, "pre-commit");
	cr_assert_eq(t.n_folders, 3);
	cr_expect_str_eq(t.folders[1].path, ".git");
	cr_expect_str_eq(t.folders[2].path, ".git/hooks");
	cr_expect_eq(t.folders[2].ino, explain_fixture_id(".git/hooks").ino);
	cr_expect_eq(t.folders[2].dev, explain_fixture_id(".git/hooks").dev);
	cr_expect_eq(t.st.st_ino, explain_fixture_id(".git/hooks/pre-commit").ino);
	cr_expect_null(t.rest);
	explain_target_free(&t);
}

Test(explain, resolve_dots_and_slashes)
{
	static const struct {
		const char *rel, *path;
		size_t n_folders;
	} cases[] = {
	        {"src/../.git/config", ".git/config", 2},
	        {"./src//main.c", "src/main.c", 2},
	        {"src/..", ".", 1},
	        {"src/./", "src", 1},
	        {".git/hooks/../../src/main.c", "src/main.c", 2},
	        {"/src/main.c", "src/main.c", 2},
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct explain_target t;

		walk(cases[i].rel, &t);
		cr_expect_str_eq(t.path, cases[i].path, "%s", cases[i].rel);
		cr_expect_eq(t.n_folders, cases[i].n_folders, "%s", cases[i].rel);
		cr_expect(t.exists, "%s", cases[i].rel);
		explain_target_free(&t);
	}
}

Test(explain, resolve_stops_at_a_link_and_at_a_missing_name)
{
	struct explain_target t;

	walk("lnk/main.c", &t);
	cr_expect_str_eq(t.path, "lnk");
	cr_expect(t.exists && S_ISLNK(t.st.st_mode));
	cr_expect_str_eq(t.rest, "main.c");
	explain_target_free(&t);
	walk(".vscode/tasks.json", &t);
	cr_expect_str_eq(t.path, ".vscode");
	cr_expect_not(t.exists);
	cr_expect_str_eq(t.rest, "tasks.json");
	explain_target_free(&t);
	walk(".git/commondir", &t);
	cr_expect_not(t.exists);
	cr_expect_null(t.rest);
	explain_target_free(&t);
}

Test(explain, resolve_refuses_to_leave_the_tree_or_pass_a_file)
{
	_cleanup_free_ char *e1 = NULL, *e2 = NULL, *e3 = NULL;

	cr_expect_eq(walk_fails("..", &e1), -EXDEV);
	cr_expect_str_eq(e1, "'..' in the path leaves the tree");
	cr_expect_eq(walk_fails("src/../..", &e2), -EXDEV);
	cr_expect_eq(walk_fails("src/main.c/x", &e3), -ENOTDIR);
	cr_expect_str_eq(e3, "'main.c' in 'src' is not a folder");
}

/* DEPTH nested folders "d/d/.../d" below the tree; their path. */
static char *nest(size_t depth)
{
	char *rel = calloc(depth, 2);

	cr_assert(rel);
	for (size_t i = 0; i < depth; i++) {
		if (i)
			rel[2 * i - 1] = '/';
		rel[2 * i] = 'd';
		cr_assert_eq(mkdirat(fixture_root, rel, 0755), 0, "%m");
	}
	return rel;
}

/* The highest descriptor open. */
static int highest_fd(void)
{
	int top = 0;

	for (int fd = 0; fd < 4096; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			top = fd;
	return top;
}

/* A walk as deep as safe_openat allows holds two descriptors, not one per
 * folder: the daemon walks in its fd budget. */
Test(explain, resolve_deep_in_few_descriptors)
{
	_cleanup_free_ char *rel = nest(SAFE_OPEN_MAX_DEPTH - 1), *down_up = NULL;
	struct explain_target t;
	struct rlimit few;

	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &few), 0);
	few.rlim_cur = (rlim_t)highest_fd() + 3; /* room for two more */
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &few), 0, "%m");
	walk(rel, &t);
	cr_expect_eq(t.n_folders, SAFE_OPEN_MAX_DEPTH - 1);
	cr_expect_str_eq(t.name, "d");
	explain_target_free(&t);
	cr_assert_neq(asprintf(&down_up, "%s/../d", rel), -1);
	walk(down_up, &t);
	cr_expect_eq(t.n_folders, SAFE_OPEN_MAX_DEPTH - 1);
	explain_target_free(&t);
}

Test(explain, resolve_past_the_depth_limit_fails)
{
	_cleanup_free_ char *rel = nest(SAFE_OPEN_MAX_DEPTH + 1), *err = NULL;

	cr_expect_eq(walk_fails(rel, &err), -ENAMETOOLONG);
}

/* ---- The judgement and its words ------------------------------------------ */

Test(explain, text_of_a_hook)
{
	_cleanup_free_ char *text = explain_fixture_text(".git/hooks/pre-commit");

	cr_expect_str_eq(text, ".git/hooks/pre-commit: protected (rule protected, frozen-dir .git/hooks): a hook\n"
	                       "  type: file\n"
	                       "  because: .git/hooks/pre-commit (protected): a hook\n"
	                       "  because: .git/hooks (frozen-dir): hooks: git runs them\n"
	                       "  because: .git (anchor): the git directory\n"
	                       "  because: . (anchor): on the way to .git\n"
	                       "  write: refused (protected .git/hooks/pre-commit)\n"
	                       "  chmod: refused (protected .git/hooks/pre-commit)\n"
	                       "  rename-away: refused (frozen-dir .git/hooks)\n"
	                       "  replace: refused (frozen-dir .git/hooks)\n");
}

Test(explain, text_of_the_rewritable_config)
{
	_cleanup_free_ char *text = explain_fixture_text(".git/config");

	cr_expect_str_eq(text, ".git/config: protected (rule protected): config\n"
	                       "  type: file\n"
	                       "  because: .git/config (protected): config\n"
	                       "  because: .git (anchor): the git directory\n"
	                       "  because: . (anchor): on the way to .git\n"
	                       "  write: refused (protected .git/config)\n"
	                       "  chmod: refused (protected .git/config)\n"
	                       "  rename-away: refused (protected .git/config)\n"
	                       "  replace: refused unless the new bytes are identical or a harmless configuration "
	                       "change (protected .git/config)\n");
}

Test(explain, text_of_a_missing_folder_mkdir_may_make)
{
	_cleanup_free_ char *text = explain_fixture_text(".vscode/tasks.json");

	cr_expect_str_eq(
	        text,
	        ".vscode/tasks.json: .vscode on the way does not exist; protected name (rule protected-name): on the "
	        "way to .vscode/tasks.json\n"
	        "  type: missing\n"
	        "  only an empty folder made by mkdir may take this name; the model then protects what lies in it\n"
	        "  because: .vscode (protected-name): on the way to .vscode/tasks.json\n"
	        "  because: . (anchor): on the way to .git\n"
	        "  create: refused (protected-name .vscode)\n"
	        "  mkdir: allowed\n");
}

Test(explain, text_of_a_missing_protected_name)
{
	_cleanup_free_ char *text = explain_fixture_text(".git/commondir");

	cr_expect_str_eq(text, ".git/commondir: protected name (rule protected-name): commondir redirects git\n"
	                       "  type: missing\n"
	                       "  because: .git/commondir (protected-name): commondir redirects git\n"
	                       "  because: .git (anchor): the git directory\n"
	                       "  because: . (anchor): on the way to .git\n"
	                       "  create: refused (protected-name .git/commondir)\n"
	                       "  mkdir: refused (protected-name .git/commondir)\n");
}

Test(explain, text_of_a_link_on_the_way)
{
	_cleanup_free_ char *text = explain_fixture_text("lnk/main.c");

	cr_expect_str_eq(text, "lnk/main.c: lnk on the way is a symbolic link, explained itself (the mount judges no "
	                       "path through a link: what it names is judged by its own identity); not protected\n"
	                       "  type: symbolic link\n"
	                       "  because: . (anchor): on the way to .git\n"
	                       "  write: allowed\n"
	                       "  chmod: allowed\n"
	                       "  rename-away: allowed\n"
	                       "  replace: allowed\n");
}

Test(explain, text_of_the_tree_and_a_plain_file)
{
	_cleanup_free_ char *root = explain_fixture_text("."), *plain = explain_fixture_text("src/main.c"),
	                    *folder = explain_fixture_text("src");

	cr_expect_str_eq(root, ".: protected (rule anchor): on the way to .git\n"
	                       "  type: folder\n"
	                       "  because: . (anchor): on the way to .git\n"
	                       "  add-entry: allowed\n"
	                       "  chmod: refused (anchor .)\n");
	cr_expect_str_eq(plain, "src/main.c: not protected\n"
	                        "  type: file\n"
	                        "  because: . (anchor): on the way to .git\n"
	                        "  write: allowed\n"
	                        "  chmod: allowed\n"
	                        "  rename-away: allowed\n"
	                        "  replace: allowed\n");
	cr_expect_str_eq(folder, "src: not protected\n"
	                         "  type: folder\n"
	                         "  because: . (anchor): on the way to .git\n"
	                         "  add-entry: allowed\n"
	                         "  chmod: allowed\n"
	                         "  rename-away: allowed\n"
	                         "  replace: allowed\n");
}

/* An object known only by identity (no folders): what its identity says. */
Test(explain, by_identity_alone)
{
	_cleanup_free_ struct explanation *e = calloc(1, sizeof(*e));
	_cleanup_free_ char *text = NULL;
	struct explain_target t = {.exists = true};
	size_t len;

	cr_assert(e);
	cr_assert_eq(fstatat(fixture_root, ".git/hooks/pre-commit", &t.st, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert_eq(explain_existing(e, fixture_snap, &t), 0);
	cr_assert_eq(explain_text(e, &t, "(unnamed)", &text, &len), 0);
	cr_expect_str_eq(text, "(unnamed): protected (rule protected): a hook\n"
	                       "  type: file\n"
	                       "  write: refused (protected .git/hooks/pre-commit)\n"
	                       "  chmod: refused (protected .git/hooks/pre-commit)\n");
}

Test(explain, type_words)
{
	static const struct {
		const char *rel, *type;
	} cases[] = {{"src/main.c", "file"},
	             {"src", "folder"},
	             {"lnk", "symbolic link"},
	             {"fifo", "FIFO"},
	             {"none", "missing"}};
	struct explain_target dev = {.exists = true};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct explain_target t;

		walk(cases[i].rel, &t);
		cr_expect_str_eq(explain_type(&t), cases[i].type, "%s", cases[i].rel);
		explain_target_free(&t);
	}
	cr_assert_eq(stat("/dev/null", &dev.st), 0);
	cr_expect_str_eq(explain_type(&dev), "device");
}
