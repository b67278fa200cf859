#include "config.h"

/* Where a run keeps a tree's settler state (tools/run/state-place.h): the
 * folder the environment names, made 0700 where missing; one state and
 * one lock per tree, named by its device and inode; a second claim on a
 * tree held is -EBUSY, and works once the first lets go. The fallbacks for
 * a user who is not root are taken with an effective uid of nobody, as
 * root; without root they are taken as the caller. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tests/unit/scratch-dir.h"
#include "tools/run/state-place.h"

static int tree = -1;

static void setup(void)
{
	umask(022);
	scratch_make();
	tree = open(scratch_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(tree, 0);
	unsetenv("OZ0RUN_STATE_DIR");
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
}

static void teardown(void)
{
	close(tree);
	scratch_remove();
}

TestSuite(state_place, .init = setup, .fini = teardown);

/* The names the claim must give for our tree in FOLDER. */
static char *tree_name(const char *folder, const char *ext)
{
	struct stat st;
	char *p;

	cr_assert_eq(fstat(tree, &st), 0);
	cr_assert_neq(asprintf(&p, "%s/tree-%ju-%ju.%s", folder, (uintmax_t)st.st_dev, (uintmax_t)st.st_ino, ext), -1);
	return p;
}

static void assert_claimed(const char *folder, char *state, int lock, const char *errmsg)
{
	_cleanup_free_ char *want_state = tree_name(folder, "state"), *want_lock = tree_name(folder, "lock");
	struct stat st, lst;

	cr_assert_null(errmsg, "%s", errmsg);
	cr_assert_str_eq(state, want_state);
	cr_assert_geq(lock, 0);
	/* the lock is the file beside the state, which is not made */
	cr_assert_eq(stat(want_lock, &st), 0);
	cr_assert_eq(fstat(lock, &lst), 0);
	cr_assert_eq(st.st_ino, lst.st_ino);
	cr_assert_eq(st.st_mode & 07777, 0600, "%o", st.st_mode & 07777);
	cr_assert_eq(access(state, F_OK), -1);
	cr_assert_eq(stat(folder, &st), 0);
	cr_assert(S_ISDIR(st.st_mode));
	cr_assert_eq(st.st_mode & 07777, 0700, "%o", st.st_mode & 07777);
	cr_assert_eq(fcntl(lock, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
}

/* A claim refused with WANT and a one-line message holding NEEDLE and
 * PATH, leaving nothing to the caller. */
static void assert_refused(int k, int want, const char *state, int lock, const char *errmsg, const char *needle,
                           const char *path)
{
	cr_assert_eq(k, want, "%d: %s", k, errmsg);
	cr_assert_null(state);
	cr_assert_eq(lock, -1);
	cr_assert_not_null(errmsg);
	cr_assert_null(strchr(errmsg, '\n'), "%s", errmsg);
	cr_assert_not_null(strstr(errmsg, needle), "%s", errmsg);
	cr_assert_not_null(strstr(errmsg, path), "%s", errmsg);
}

Test(state_place, the_environments_folder_is_made_0700)
{
	_cleanup_free_ char *folder = scratch_path("a/b/state"), *parent = scratch_path("a/b");
	_cleanup_free_ char *state = NULL, *errmsg = NULL;
	_cleanup_close_ int lock = -1;
	struct stat st;

	setenv("OZ0RUN_STATE_DIR", folder, 1);
	cr_assert_eq(run_state_claim(tree, &state, &lock, &errmsg), 0, "%s", errmsg);
	assert_claimed(folder, state, lock, errmsg);
	/* the folders on the way are made too, only the last one private */
	cr_assert_eq(stat(parent, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0755, "%o", st.st_mode & 07777);
}

Test(state_place, an_existing_folder_is_used_as_it_is)
{
	_cleanup_free_ char *folder = scratch_path("mine");
	_cleanup_free_ char *state = NULL, *errmsg = NULL;
	_cleanup_close_ int lock = -1;

	cr_assert_eq(mkdir(folder, 0700), 0);
	setenv("OZ0RUN_STATE_DIR", folder, 1);
	cr_assert_eq(run_state_claim(tree, &state, &lock, &errmsg), 0, "%s", errmsg);
	assert_claimed(folder, state, lock, errmsg);
}

Test(state_place, a_second_claim_is_busy_until_the_first_lets_go)
{
	_cleanup_free_ char *folder = scratch_path("s"), *lock_path = NULL;
	_cleanup_free_ char *state = NULL, *errmsg = NULL, *state2 = NULL, *errmsg2 = NULL;
	_cleanup_close_ int lock = -1, lock2 = -1;

	setenv("OZ0RUN_STATE_DIR", folder, 1);
	lock_path = tree_name(folder, "lock");
	cr_assert_eq(run_state_claim(tree, &state, &lock, &errmsg), 0, "%s", errmsg);
	int k = run_state_claim(tree, &state2, &lock2, &errmsg2);
	assert_refused(k, -EBUSY, state2, lock2, errmsg2, "another run holds this tree", lock_path);
	free(TAKE_PTR(errmsg2));

	close(TAKE_FD(lock));
	cr_assert_eq(run_state_claim(tree, &state2, &lock2, &errmsg2), 0, "%s", errmsg2);
	assert_claimed(folder, state2, lock2, errmsg2);
}

Test(state_place, another_tree_is_claimed_beside)
{
	_cleanup_free_ char *folder = scratch_path("s"), *other = scratch_path("other");
	_cleanup_free_ char *state = NULL, *errmsg = NULL, *state2 = NULL, *errmsg2 = NULL;
	_cleanup_close_ int lock = -1, lock2 = -1, other_fd = -1;

	setenv("OZ0RUN_STATE_DIR", folder, 1);
	cr_assert_eq(mkdir(other, 0755), 0);
	other_fd = open(other, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(other_fd, 0);
	cr_assert_eq(run_state_claim(tree, &state, &lock, &errmsg), 0, "%s", errmsg);
	cr_assert_eq(run_state_claim(other_fd, &state2, &lock2, &errmsg2), 0, "%s", errmsg2);
	cr_assert_str_neq(state, state2);
}

Test(state_place, a_folder_that_cannot_be_made_says_so)
{
	_cleanup_free_ char *file = scratch_path("file"), *folder = scratch_path("file/state");
	_cleanup_free_ char *state = NULL, *errmsg = NULL;
	_cleanup_close_ int f = -1, lock = -1;

	f = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	cr_assert_geq(f, 0);
	setenv("OZ0RUN_STATE_DIR", folder, 1);
	int k = run_state_claim(tree, &state, &lock, &errmsg);
	assert_refused(k, -ENOTDIR, state, lock, errmsg, "cannot make the state folder", folder);
}

Test(state_place, a_link_planted_as_the_lock_is_not_followed)
{
	_cleanup_free_ char *folder = scratch_path("s"), *lock_path = NULL, *target = scratch_path("target");
	_cleanup_free_ char *state = NULL, *errmsg = NULL;
	_cleanup_close_ int lock = -1;

	cr_assert_eq(mkdir(folder, 0700), 0);
	setenv("OZ0RUN_STATE_DIR", folder, 1);
	lock_path = tree_name(folder, "lock");
	cr_assert_eq(symlink(target, lock_path), 0);
	int k = run_state_claim(tree, &state, &lock, &errmsg);
	assert_refused(k, -ELOOP, state, lock, errmsg, "cannot open the lock", lock_path);
	cr_assert_eq(access(target, F_OK), -1);
}

Test(state_place, a_tree_that_cannot_be_looked_at_says_so)
{
	_cleanup_free_ char *folder = scratch_path("s");
	_cleanup_free_ char *state = NULL, *errmsg = NULL;
	int lock = -1;

	setenv("OZ0RUN_STATE_DIR", folder, 1);
	int k = run_state_claim(-1, &state, &lock, &errmsg);
	assert_refused(k, -EBADF, state, lock, errmsg, "cannot look at", "the tree");
}

/* A claim by a user who is not root: nobody's effective uid as root (the
 * files it makes are nobody's, the scratch folder open to it), else the
 * caller as it is. */
static int claim_as_user(char **state, int *lock, char **errmsg)
{
	int k;

	if (geteuid() != 0)
		return run_state_claim(tree, state, lock, errmsg);
	cr_assert_eq(chmod(scratch_dir, 0777), 0);
	cr_assert_eq(seteuid(65534), 0);
	k = run_state_claim(tree, state, lock, errmsg);
	cr_assert_eq(seteuid(0), 0);
	return k;
}

/* The claim by a user in FOLDER, once the environment is set. */
static void assert_user_claims_in(const char *folder)
{
	_cleanup_free_ char *state = NULL, *errmsg = NULL;
	_cleanup_close_ int lock = -1;

	cr_assert_eq(claim_as_user(&state, &lock, &errmsg), 0, "%s", errmsg);
	assert_claimed(folder, state, lock, errmsg);
}

Test(state_place, a_user_gets_the_xdg_state_home)
{
	_cleanup_free_ char *xdg = scratch_path("xdg"), *folder = scratch_path("xdg/oz0run"),
	                    *home = scratch_path("home");

	setenv("XDG_STATE_HOME", xdg, 1);
	setenv("HOME", home, 1);
	assert_user_claims_in(folder);
}

Test(state_place, a_user_without_xdg_gets_the_home)
{
	_cleanup_free_ char *home = scratch_path("home"), *folder = scratch_path("home/.local/state/oz0run");

	/* a relative XDG_STATE_HOME is ignored, as the XDG spec says */
	setenv("XDG_STATE_HOME", "relative/state", 1);
	setenv("HOME", home, 1);
	assert_user_claims_in(folder);
}

Test(state_place, a_user_without_a_home_is_told_what_to_set)
{
	_cleanup_free_ char *state = NULL, *errmsg = NULL;
	int lock = -1;

	setenv("OZ0RUN_STATE_DIR", "", 1);
	setenv("HOME", "relative", 1);
	int k = claim_as_user(&state, &lock, &errmsg);
	assert_refused(k, -ENOENT, state, lock, errmsg, "no folder for the settler's state", "OZ0RUN_STATE_DIR");
}
