/* The mount's user.oz0fs.why without a mount: the name an fd has below the
 * tree (common/fd-name.h), the answer (fs/why.h), which must be what
 * --explain's parts give for that name, and the name taken out of a list. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fd-name.h"
#include "fs/why.h"
#include "policy/explain-judge.h"
#include "policy/explain-text.h"
#include "tests/unit/explain-fixture.h"
#include "tests/unit/scratch-dir.h"

static int procfd = -1;

static void setup(void)
{
	explain_fixture_make();
	procfd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(procfd, 0);
}

static void teardown(void)
{
	close(procfd);
	explain_fixture_remove();
}

TestSuite(why, .init = setup, .fini = teardown);

static int open_below(const char *rel)
{
	int fd = openat(fixture_root, rel, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	cr_assert_geq(fd, 0, "%s: %m", rel);
	return fd;
}

/* fd_name_below's answer for FD, "-errno" on an error. */
static char *name_of(int rootfd, int fd)
{
	char *rel = NULL;
	int r = fd_name_below(procfd, rootfd, fd, &rel);

	if (r < 0) {
		cr_assert_null(rel);
		cr_assert_neq(asprintf(&rel, "%d", r), -1);
	}
	return rel;
}

/* ---- The name ------------------------------------------------------------- */

Test(why, names_below_the_tree)
{
	static const char *const rels[] = {".git/hooks/pre-commit", "src", "src/main.c", "lnk", "fifo"};
	_cleanup_free_ char *root = name_of(fixture_root, fixture_root);

	cr_expect_str_eq(root, ".");
	for (size_t i = 0; i < ELEMENTSOF(rels); i++) {
		_cleanup_close_ int fd = open_below(rels[i]);
		_cleanup_free_ char *rel = name_of(fixture_root, fd);

		cr_expect_str_eq(rel, rels[i]);
	}
}

Test(why, a_name_follows_a_rename_and_a_link_shows_the_name_it_was_reached_by)
{
	_cleanup_close_ int fd = open_below("src/main.c"), linked = -1;
	_cleanup_free_ char *renamed = NULL, *second = NULL;

	cr_assert_eq(renameat(fixture_root, "src/main.c", fixture_root, "moved.c"), 0);
	renamed = name_of(fixture_root, fd);
	cr_expect_str_eq(renamed, "moved.c");
	cr_assert_eq(linkat(fixture_root, "moved.c", fixture_root, "src/second.c", 0), 0);
	linked = open_below("src/second.c");
	second = name_of(fixture_root, linked);
	cr_expect_str_eq(second, "src/second.c");
}

Test(why, no_name_without_a_link_or_outside_the_tree)
{
	_cleanup_close_ int tmp = openat(fixture_root, "src", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	_cleanup_close_ int gone = open_below("src/main.c"), src = open_below("src"), out = open_below(".git/config");
	_cleanup_free_ char *tmp_name = NULL, *gone_name = NULL, *out_name = NULL;

	cr_assert_geq(tmp, 0, "O_TMPFILE: %m");
	tmp_name = name_of(fixture_root, tmp);
	cr_expect_str_eq(tmp_name, "-2"); /* -ENOENT */
	cr_assert_eq(unlinkat(fixture_root, "src/main.c", 0), 0);
	gone_name = name_of(fixture_root, gone);
	cr_expect_str_eq(gone_name, "-2");
	out_name = name_of(src, out);      /* .git/config is not below src */
	cr_expect_str_eq(out_name, "-18"); /* -EXDEV */
}

Test(why, a_name_below_the_root_of_everything)
{
	_cleanup_close_ int top = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), fd = open_below("src/main.c");
	_cleanup_free_ char *rel = name_of(top, fd), *want = scratch_path("src/main.c");
	_cleanup_free_ char *real = realpath(want, NULL);

	cr_assert_not_null(real);
	cr_expect_str_eq(rel, real + 1);
}

/* A name that only starts like the root's is not below it. */
Test(why, a_sibling_with_the_root_as_prefix_is_not_below)
{
	_cleanup_close_ int root = -1, fd = -1;
	_cleanup_free_ char *rel = NULL;

	scratch_mkdir("tree");
	scratch_write("tree2", "x");
	root = open_below("tree");
	fd = open_below("tree2");
	rel = name_of(root, fd);
	cr_expect_str_eq(rel, "-18");
}

/* ---- The answer ------------------------------------------------------------ */

/* user.oz0fs.why for FD. */
static char *why_of(int fd)
{
	char *text = NULL;
	size_t len = 0;
	struct stat st;

	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(why_answer(procfd, fixture_root, fd, (struct policy_id){st.st_dev, st.st_ino}, fixture_snap, &text,
	                        &len),
	             0);
	cr_expect_eq(strlen(text), len);
	return text;
}

Test(why, the_answer_is_what_explain_prints)
{
	static const char *const rels[] = {
	        ".", ".git", ".git/hooks", ".git/hooks/pre-commit", ".git/config", "src", "src/main.c", "lnk", "fifo"};

	for (size_t i = 0; i < ELEMENTSOF(rels); i++) {
		_cleanup_close_ int fd = open_below(rels[i]);
		_cleanup_free_ char *got = why_of(fd), *want = explain_fixture_text(rels[i]);

		cr_expect_str_eq(got, want, "%s", rels[i]);
	}
}

Test(why, an_object_without_a_name_is_judged_by_identity)
{
	_cleanup_close_ int hook = open_below(".git/hooks/pre-commit");
	_cleanup_close_ int tmp = openat(fixture_root, "src", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	_cleanup_free_ char *hook_why = NULL, *tmp_why = NULL;

	cr_assert_geq(tmp, 0, "O_TMPFILE: %m");
	tmp_why = why_of(tmp);
	cr_expect_str_eq(tmp_why, "(no name in the tree: made with O_TMPFILE, or removed while open; judged by its "
	                          "identity alone): not protected\n"
	                          "  type: file\n"
	                          "  write: allowed\n"
	                          "  chmod: allowed\n");
	/* Removed while open, the hook keeps its identity, and so its rule. */
	cr_assert_eq(unlinkat(fixture_root, ".git/hooks/pre-commit", 0), 0);
	hook_why = why_of(hook);
	cr_expect_str_eq(hook_why, "(no name in the tree: made with O_TMPFILE, or removed while open; judged by its "
	                           "identity alone): protected (rule protected): a hook\n"
	                           "  type: file\n"
	                           "  write: refused (protected .git/hooks/pre-commit)\n"
	                           "  chmod: refused (protected .git/hooks/pre-commit)\n");
}

Test(why, an_object_moved_out_of_the_tree)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *text = NULL, *out = scratch_path("../oz0-why-out");

	scratch_write("src/leaving.c", "x");
	fd = open_below("src/leaving.c");
	cr_assert_eq(renameat(fixture_root, "src/leaving.c", AT_FDCWD, out), 0, "%m");
	text = why_of(fd);
	unlink(out);
	cr_expect_str_eq(text, "(no name below the tree that the daemon can see; judged by its identity alone): not "
	                       "protected\n"
	                       "  type: file\n"
	                       "  write: allowed\n"
	                       "  chmod: allowed\n");
}

/* A name that no longer leads to the object, however often it is read: the
 * file keeps another link, and the name its descriptor was reached by now
 * names another file (the kernel says "NAME (deleted)"). */
Test(why, a_name_that_leads_elsewhere)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *text = NULL;

	scratch_write("src/x.c", "x");
	cr_assert_eq(linkat(fixture_root, "src/x.c", fixture_root, "src/kept.c", 0), 0);
	fd = open_below("src/x.c");
	scratch_write("src/y.c", "y");
	cr_assert_eq(renameat(fixture_root, "src/y.c", fixture_root, "src/x.c"), 0);
	text = why_of(fd);
	cr_expect_str_eq(text, "(src/x.c (deleted), its name, leads elsewhere now: renamed while asked, or covered; "
	                       "judged by its identity alone): not protected\n"
	                       "  type: file\n"
	                       "  write: allowed\n"
	                       "  chmod: allowed\n");
}

/* A folder the daemon cannot search: the answer says so, by identity. As
 * root, permissions stop nothing: become nobody, owning the tree. */
Test(why, a_folder_the_daemon_cannot_walk)
{
	_cleanup_close_ int fd = open_below("src/main.c");
	_cleanup_free_ char *text = NULL, *cmd = NULL, *src = scratch_path("src");

	if (geteuid() == 0) {
		cr_assert_neq(asprintf(&cmd, "chown -R 65534:65534 '%s'", scratch_dir), -1);
		cr_assert_eq(system(cmd), 0);
		cr_assert_eq(setgroups(0, NULL), 0);
		cr_assert_eq(setresgid(65534, 65534, 65534), 0);
		cr_assert_eq(setresuid(65534, 65534, 65534), 0);
	}
	cr_assert_eq(chmod(src, 0), 0);
	text = why_of(fd);
	cr_assert_eq(chmod(src, 0755), 0);
	cr_expect_str_eq(text,
	                 "(src/main.c, which the daemon cannot walk: cannot look at 'main.c' in 'src': Permission "
	                 "denied; judged by its identity alone): not protected\n"
	                 "  type: file\n"
	                 "  write: allowed\n"
	                 "  chmod: allowed\n");
}

/* ---- The list ---------------------------------------------------------------- */

static void expect_hidden(const char *list, size_t n, const char *want, size_t want_n)
{
	char buf[256];
	size_t got;

	cr_assert_leq(n, sizeof(buf));
	memcpy(buf, list, n);
	got = why_hide(buf, n);
	cr_expect_eq(got, want_n);
	cr_expect_eq(memcmp(buf, want, want_n), 0);
}

#define HIDE(list, want) expect_hidden(list, sizeof(list) - 1, want, sizeof(want) - 1)

Test(why, listxattr_never_lists_it)
{
	HIDE("user.a\0user.oz0fs.why\0user.b\0", "user.a\0user.b\0");
	HIDE("user.oz0fs.why\0user.b\0", "user.b\0");
	HIDE("user.a\0user.oz0fs.why\0", "user.a\0");
	HIDE("user.oz0fs.why\0", "");
	HIDE("", "");
	HIDE("user.a\0security.selinux\0", "user.a\0security.selinux\0");
	/* Only the name itself: not one it begins, nor one that begins it. */
	HIDE("user.oz0fs.whyx\0user.oz0fs.wh\0", "user.oz0fs.whyx\0user.oz0fs.wh\0");
	/* A list without its last NUL loses nothing else. */
	HIDE("user.a\0user.oz0fs.why", "user.a\0");
	HIDE("user.oz0fs.why\0user.a", "user.a");
}
