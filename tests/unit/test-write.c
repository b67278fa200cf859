/* oz0fs --write's parts on real trees: the command line, the .git name
 * rule, the walk (which follows no link and takes only a regular file or a
 * missing name), the judgement by identity against a model built with
 * git itself, and the put (unnamed or under a temporary name, renamed
 * onto a file or linked onto a missing name, never through a link). */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tests/unit/tree-fixture.h"
#include "tools/tree-model.h"
#include "tools/write-args.h"
#include "tools/write-judge.h"
#include "tools/write-put.h"
#include "tools/write-walk.h"

TestSuite(write, .init = fixture_make, .fini = fixture_remove);

/* ---- The command line ------------------------------------------------------ */

static int parse(struct write_args *a, int argc, ...)
{
	static char *argv[10];
	va_list ap;

	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[argc] = NULL;
	return write_args_parse(argc, argv, a);
}

Test(write, args)
{
	struct write_args a;

	cr_assert_eq(parse(&a, 2, "--write", "src/a.c"), 0);
	cr_assert_str_eq(a.path, "src/a.c");
	cr_assert_null(a.tree);
	cr_assert_null(a.audit);
	cr_assert_eq(parse(&a, 8, "--write", "--tree", "/t", "--audit", "/l", "--config", "/c", "x"), 0);
	cr_assert_str_eq(a.tree, "/t");
	cr_assert_str_eq(a.audit, "/l");
	cr_assert_str_eq(a.config, "/c");
	cr_assert_eq(parse(&a, 3, "--write", "--", "-dash"), 0);
	cr_assert_str_eq(a.path, "-dash");
	cr_assert_eq(parse(&a, 2, "--write", "--help"), 1);
}

Test(write, args_refused)
{
	struct write_args a;

	cr_assert_eq(parse(&a, 1, "--write"), -EINVAL);
	cr_assert_eq(parse(&a, 3, "--write", "a", "b"), -EINVAL);
	cr_assert_eq(parse(&a, 2, "--write", ""), -EINVAL);
	cr_assert_eq(parse(&a, 3, "--write", "--bogus", "a"), -EINVAL);
	cr_assert_eq(parse(&a, 4, "--write", "--tree", "", "a"), -EINVAL);
	cr_assert_eq(parse(&a, 4, "--write", "--audit", "", "a"), -EINVAL);
	cr_assert_eq(parse(&a, 4, "--write", "--config", "", "a"), -EINVAL);
	cr_assert_eq(parse(&a, 2, "--write", "--tree"), -EINVAL);
}

/* ---- The .git name ------------------------------------------------------------ */

static bool name_refused(const char *rel)
{
	struct write_refusal no = {0};
	int r = write_check_name(rel, &no);

	cr_assert_geq(r, 0);
	if (r)
		cr_assert_str_eq(no.rule, WRITE_RULE_GIT_NAME);
	write_refusal_clear(&no);
	return r == 1;
}

Test(write, git_name)
{
	cr_assert(name_refused(".git"));
	cr_assert(name_refused(".git/config"));
	cr_assert(name_refused("sub/.git"));
	cr_assert(name_refused("a/b/.git/hooks/x"));
	cr_assert(name_refused(".GIT/config"));
	cr_assert(name_refused("x/.Git"));
	cr_assert(name_refused(".git/../notes"));
	cr_assert(name_refused("a//.git//b"));
	cr_assert_not(name_refused(".github/x"));
	cr_assert_not(name_refused(".gitignore"));
	cr_assert_not(name_refused("x.git/y"));
	cr_assert_not(name_refused("store/n.git/config"), "a git directory elsewhere is known by identity");
	cr_assert_not(name_refused("git/x"));
}

/* ---- The walk ------------------------------------------------------------------- */

/* The rule the walk gives REL, or NULL when it takes it. */
static const char *walk_rule(const char *rel)
{
	static char rule[32];
	struct write_refusal no = {0};
	struct write_place p;
	int r = write_walk(fixture_rootfd, rel, &p, &no);

	cr_assert_geq(r, 0, "%s: %d", rel, r);
	snprintf(rule, sizeof(rule), "%s", r ? no.rule : "");
	if (r == 0) {
		cr_assert_geq(p.dirfd, 0, "%s", rel);
		cr_assert_not_null(p.t.name, "%s", rel);
	}
	write_refusal_clear(&no);
	write_place_free(&p);
	return r ? rule : NULL;
}

static void walk_fixture(void)
{
	fixture_sh("mkdir -p src/deep out && echo x > src/a.c && mkfifo fifo && ln -s src srclink && "
		   "ln -s src/a.c alink && ln -s /etc/passwd passwd && ln -s missing dangling");
}

Test(write, walk_takes_files_and_missing_names)
{
	walk_fixture();
	cr_assert_null(walk_rule("src/a.c"));
	cr_assert_null(walk_rule("src/new.c"));
	cr_assert_null(walk_rule("./src//deep/../a.c"));
	cr_assert_null(walk_rule("/src/a.c"), "a leading slash is the tree's");
	cr_assert_null(walk_rule("new"));
}

Test(write, walk_refuses)
{
	walk_fixture();
	cr_assert_str_eq(walk_rule("srclink/a.c"), WRITE_RULE_LINK);
	cr_assert_str_eq(walk_rule("alink"), WRITE_RULE_LINK);
	cr_assert_str_eq(walk_rule("passwd"), WRITE_RULE_LINK);
	cr_assert_str_eq(walk_rule("dangling"), WRITE_RULE_LINK);
	cr_assert_str_eq(walk_rule("fifo"), WRITE_RULE_NOT_FILE);
	cr_assert_str_eq(walk_rule("src"), WRITE_RULE_NOT_FILE);
	cr_assert_str_eq(walk_rule("src/"), WRITE_RULE_NOT_FILE);
	cr_assert_str_eq(walk_rule("src/new/"), WRITE_RULE_NOT_FILE);
	cr_assert_str_eq(walk_rule("src/deep/.."), WRITE_RULE_NOT_FILE);
	cr_assert_str_eq(walk_rule("."), WRITE_RULE_NOT_FILE);
	cr_assert_str_eq(walk_rule(""), WRITE_RULE_NOT_FILE);
	cr_assert_str_eq(walk_rule("missing/x"), WRITE_RULE_WALK);
	cr_assert_str_eq(walk_rule("src/a.c/x"), WRITE_RULE_WALK);
	cr_assert_str_eq(walk_rule(".."), WRITE_RULE_OUTSIDE);
	cr_assert_str_eq(walk_rule("../x"), WRITE_RULE_OUTSIDE);
	cr_assert_str_eq(walk_rule("src/../../x"), WRITE_RULE_OUTSIDE);
}

/* The folder is held by the walk: swapped for a link afterwards, it is
 * still the folder the walk found. */
Test(write, walk_holds_the_folder)
{
	struct write_refusal no = {0};
	struct write_place p;
	struct stat st;

	walk_fixture();
	cr_assert_eq(write_walk(fixture_rootfd, "src/a.c", &p, &no), 0);
	fixture_sh("mv src src.real && ln -s out src");
	cr_assert_eq(fstatat(p.dirfd, "a.c", &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(fstat(p.dirfd, &st), 0);
	cr_assert_eq(st.st_ino, p.parent.ino);
	write_place_free(&p);
	cr_assert_str_eq(walk_rule("src/a.c"), WRITE_RULE_LINK, "walked again, the link is seen");
}

/* ---- The judgement ---------------------------------------------------------------- */

static const char *judge_rule(const struct tree_model *tm, const char *rel)
{
	static char rule[32];
	struct write_refusal no = {0};
	struct write_place p;
	const char *op;
	int r = write_walk(fixture_rootfd, rel, &p, &no);

	cr_assert_eq(r, 0, "%s: %d %s", rel, r, no.reason ? no.reason : "");
	r = write_judge(tm, &p, ".oz0fs-write-0123456789abcdef", &op, &no);
	cr_assert_geq(r, 0);
	cr_assert_str_eq(op, p.exists ? "write" : "create");
	snprintf(rule, sizeof(rule), "%s", r ? no.rule : "");
	write_refusal_clear(&no);
	write_place_free(&p);
	return r ? rule : NULL;
}

Test(write, judge_by_identity)
{
	_cleanup_free_ char *err = NULL;
	struct tree_model tm;

	fixture_sh("git init -q . && mkdir store && git init -q --separate-git-dir=store/n.git apart && "
		   "mkdir -p store/n.git/rebase-merge && echo p > store/n.git/rebase-merge/git-rebase-todo && "
		   "ln .git/config cfg && echo x > notes && mkdir -p .git/hooks");
	cr_assert_eq(tree_model_open(fixture_top, NULL, &tm, &err), 0, "%s", err ? err : "");
	cr_assert_null(judge_rule(&tm, "notes"));
	cr_assert_null(judge_rule(&tm, "new"));
	cr_assert_null(judge_rule(&tm, "store/x"));
	cr_assert_str_eq(judge_rule(&tm, "cfg"), POLICY_RULE_PROTECTED);
	cr_assert_str_eq(judge_rule(&tm, ".envrc"), POLICY_RULE_MISSING);
	cr_assert_str_eq(judge_rule(&tm, "store/n.git/description"), WRITE_RULE_GIT_DIR);
	cr_assert_str_eq(judge_rule(&tm, "store/n.git/config"), WRITE_RULE_GIT_DIR);
	cr_assert_str_eq(judge_rule(&tm, "store/n.git/rebase-merge/x"), WRITE_RULE_GIT_DIR);
	cr_assert_str_eq(judge_rule(&tm, ".git/hooks/x"), WRITE_RULE_GIT_DIR, "by identity too");
	tree_model_close(&tm);
}

/* ---- The put ------------------------------------------------------------------------ */

static char *read_text(const char *rel)
{
	_cleanup_close_ int fd = openat(fixture_rootfd, rel, O_RDONLY | O_CLOEXEC);
	char *buf = calloc(1, 256);

	cr_assert_geq(fd, 0, "%s", rel);
	cr_assert_not_null(buf);
	cr_assert_geq(read(fd, buf, 255), 0);
	return buf;
}

static mode_t mode_of(const char *rel)
{
	struct stat st;

	cr_assert_eq(fstatat(fixture_rootfd, rel, &st, AT_SYMLINK_NOFOLLOW), 0, "%s", rel);
	return st.st_mode;
}

/* Nothing but the names the test made: no temporary file left. */
static void assert_no_temporary(void)
{
	fixture_sh("! ls -A | grep -q oz0fs-write");
}

static void put(const char *name, const char *text, mode_t mode, bool replace, int want)
{
	char tmp[WRITE_PUT_NAME_SIZE];
	struct write_put p;

	cr_assert_eq(write_put_name(tmp), 0);
	cr_assert_eq(strncmp(tmp, ".oz0fs-write-", 13), 0);
	cr_assert_eq(strlen(tmp), 29);
	cr_assert_eq(write_put_stage(&p, fixture_rootfd, tmp, text, strlen(text), mode), 0);
	cr_assert_eq(write_put_commit(&p, name, replace), want, "%s", name);
	assert_no_temporary();
}

static void put_cases(void)
{
	_cleanup_free_ char *a = NULL, *b = NULL, *c = NULL;

	fixture_sh("echo old > file && chmod 0640 file && ln -s outside-target link && echo taken > taken");
	put("file", "new bytes", 0751, true, 0);
	put("fresh", "fresh bytes", 0604, false, 0);
	put("taken", "lost", 0644, false, -EEXIST);
	put("link", "over the link", 0644, true, 0);
	a = read_text("file");
	b = read_text("fresh");
	c = read_text("taken");
	cr_assert_str_eq(a, "new bytes");
	cr_assert_eq(mode_of("file") & 07777, 0751, "the mode asked for, exactly");
	cr_assert_str_eq(b, "fresh bytes");
	cr_assert_eq(mode_of("fresh") & 07777, 0604);
	cr_assert_str_eq(c, "taken\n", "a name taken meanwhile is left alone");
	cr_assert(S_ISREG(mode_of("link")), "the link was replaced");
	cr_assert_eq(faccessat(fixture_rootfd, "outside-target", F_OK, AT_SYMLINK_NOFOLLOW), -1,
		     "nothing went where the link pointed");
}

Test(write, put_unnamed)
{
	put_cases();
}

Test(write, put_under_a_temporary_name)
{
	write_put_force_named(true);
	put_cases();
	write_put_force_named(false);
}

Test(write, discard_leaves_nothing)
{
	char tmp[WRITE_PUT_NAME_SIZE];
	struct write_put p;

	for (int named = 0; named < 2; named++) {
		write_put_force_named(named);
		cr_assert_eq(write_put_name(tmp), 0);
		cr_assert_eq(write_put_stage(&p, fixture_rootfd, tmp, "x", 1, 0644), 0);
		write_put_discard(&p);
		assert_no_temporary();
	}
	write_put_force_named(false);
}
