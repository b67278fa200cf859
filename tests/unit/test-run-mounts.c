#include "config.h"

/* The sandbox's mounts (tools/run/mounts.h): which path lies within which,
 * a mount point reached without following a link anywhere, folders and
 * files made for mount points, and, as root in a private mount namespace,
 * a tmpfs and a copy attached over a folder, read-only when asked. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tests/unit/private-ns.h"
#include "tests/unit/scratch-dir.h"
#include "tools/run/mounts.h"

static int dirfd_ = -1;

static void setup(void)
{
	scratch_make();
	dirfd_ = open(scratch_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dirfd_, 0);
}

static void teardown(void)
{
	close(dirfd_);
	scratch_remove();
}

TestSuite(mounts, .init = setup, .fini = teardown);

Test(mounts, path_within)
{
	static const struct {
		const char *path, *base;
		bool within;
	} cases[] = {
	        {"/", "/", true},
	        {"/a", "/", true},
	        {"/a/b/c", "/", true},
	        {"relative", "/", false},
	        {"/a/b", "/a/b", true},
	        {"/a/b/c", "/a/b", true},
	        {"/a/bc", "/a/b", false},
	        {"/a/b", "/a/bc", false},
	        {"/a", "/a/b", false},
	        {"/x/a/b", "/a/b", false},
	        {".ssh", ".ssh", true},
	        {".ssh/x", ".ssh", true},
	        {".ssh", ".ssh/x", false},
	        {".sshx", ".ssh", false},
	        {".config/gh", ".config", true},
	        {".config", ".config/gh", false},
	        {"/.ssh", ".ssh", false},
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		cr_expect_eq(mounts_path_within(cases[i].path, cases[i].base), cases[i].within, "'%s' within '%s'",
		             cases[i].path, cases[i].base);
}

static void assert_same(int fd, const char *path)
{
	struct stat a, b;

	cr_assert_eq(fstat(fd, &a), 0);
	cr_assert_eq(stat(path, &b), 0, "%s", path);
	cr_assert(a.st_dev == b.st_dev && a.st_ino == b.st_ino, "%s", path);
	cr_assert_eq(fcntl(fd, F_GETFL) & O_PATH, O_PATH);
	cr_assert_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
}

Test(mounts, open_reaches_an_absolute_path)
{
	_cleanup_free_ char *sub = scratch_path("a/b");
	_cleanup_free_ char *twice = NULL;
	_cleanup_close_ int fd = -1, root = -1, again = -1;

	scratch_mkdir("a");
	scratch_mkdir("a/b");
	fd = mounts_open(sub);
	cr_assert_geq(fd, 0, "%d", fd);
	assert_same(fd, sub);
	root = mounts_open("/");
	cr_assert_geq(root, 0, "%d", root);
	assert_same(root, "/");
	cr_assert_neq(asprintf(&twice, "/%s//a/b", scratch_dir), -1);
	again = mounts_open(twice);
	cr_assert_geq(again, 0, "%d", again);
	assert_same(again, sub);
}

Test(mounts, open_refuses_a_relative_path)
{
	cr_assert_eq(mounts_open("tmp"), -EINVAL);
	cr_assert_eq(mounts_open(""), -EINVAL);
}

Test(mounts, open_refuses_a_link_on_the_way_and_at_the_end)
{
	_cleanup_free_ char *through = scratch_path("link/b"), *at_end = scratch_path("link"),
	                    *real = scratch_path("real");
	_cleanup_free_ char *dangling = scratch_path("dangling");

	scratch_mkdir("real");
	scratch_mkdir("real/b");
	scratch_symlink(real, "link");
	scratch_symlink("nowhere", "dangling");
	cr_assert_eq(mounts_open(through), -ELOOP);
	cr_assert_eq(mounts_open(at_end), -ELOOP);
	cr_assert_eq(mounts_open(dangling), -ELOOP);
	cr_assert_eq(mounts_open_at(dirfd_, "link"), -ELOOP);
	cr_assert_eq(mounts_open_at(dirfd_, "link/b"), -ELOOP);
	/* relative links too */
	cr_assert_eq(symlinkat("real", dirfd_, "rel"), 0);
	cr_assert_eq(mounts_open_at(dirfd_, "rel/b"), -ELOOP);
	cr_assert_eq(mounts_open_at(dirfd_, "missing"), -ENOENT);
}

Test(mounts, make_dirs_makes_the_missing_and_reuses_the_rest)
{
	_cleanup_free_ char *made = scratch_path("x/y/z");
	_cleanup_close_ int fd = -1, again = -1, same = -1;
	struct stat st;

	fd = mounts_make_dirs(dirfd_, "x/y/z");
	cr_assert_geq(fd, 0, "%d", fd);
	assert_same(fd, made);
	cr_assert_eq(stat(made, &st), 0);
	cr_assert(S_ISDIR(st.st_mode));
	scratch_write("x/y/kept", "kept");
	again = mounts_make_dirs(dirfd_, "x/y/z");
	cr_assert_geq(again, 0, "%d", again);
	assert_same(again, made);
	cr_assert_eq(faccessat(dirfd_, "x/y/kept", F_OK, 0), 0);
	/* empty: the folder itself */
	same = mounts_make_dirs(dirfd_, "");
	cr_assert_geq(same, 0, "%d", same);
	assert_same(same, scratch_dir);
}

Test(mounts, make_file_makes_an_empty_file_and_its_folders)
{
	_cleanup_free_ char *made = scratch_path("p/q/file");
	_cleanup_close_ int fd = -1, again = -1;
	struct stat st;

	fd = mounts_make_file(dirfd_, "p/q/file");
	cr_assert_geq(fd, 0, "%d", fd);
	assert_same(fd, made);
	cr_assert_eq(stat(made, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(st.st_size, 0);
	/* an existing one is used as it is, its bytes kept */
	scratch_write("p/q/file", "bytes");
	again = mounts_make_file(dirfd_, "p/q/file");
	cr_assert_geq(again, 0, "%d", again);
	assert_same(again, made);
	cr_assert_eq(stat(made, &st), 0);
	cr_assert_eq(st.st_size, 5);
}

Test(mounts, make_refuses_a_link_on_the_way_or_at_the_end)
{
	_cleanup_free_ char *real = scratch_path("real");
	struct stat st;

	scratch_mkdir("real");
	scratch_symlink(real, "link");
	scratch_symlink("nowhere", "dangling");
	cr_assert_eq(mounts_make_dirs(dirfd_, "link/sub"), -ELOOP);
	cr_assert_eq(mounts_make_dirs(dirfd_, "link"), -ELOOP);
	cr_assert_eq(mounts_make_file(dirfd_, "link/file"), -ELOOP);
	cr_assert_eq(mounts_make_file(dirfd_, "dangling"), -ELOOP);
	cr_assert_eq(mounts_make_dirs(dirfd_, "dangling"), -ELOOP);
	/* nothing was made through the links */
	cr_assert_eq(fstatat(dirfd_, "real/sub", &st, AT_SYMLINK_NOFOLLOW), -1);
	cr_assert_eq(fstatat(dirfd_, "real/file", &st, AT_SYMLINK_NOFOLLOW), -1);
	cr_assert_eq(fstatat(dirfd_, "nowhere", &st, AT_SYMLINK_NOFOLLOW), -1);
}

Test(mounts, make_through_a_file_is_enotdir)
{
	scratch_write("f", "");
	cr_assert_eq(mounts_make_dirs(dirfd_, "f/sub"), -ENOTDIR);
	cr_assert_eq(mounts_make_file(dirfd_, "f/sub"), -ENOTDIR);
}

static int write_in(const char *folder, const char *name)
{
	_cleanup_free_ char *p = NULL;
	int fd;

	if (asprintf(&p, "%s/%s", folder, name) < 0)
		return -ENOMEM;
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return negative_errno();
	close(fd);
	return 0;
}

struct tmpfs_case {
	const char *target;
	bool ro;
};

static int tmpfs_over_a_folder(void *arg)
{
	const struct tmpfs_case *c = arg;
	_cleanup_close_ int at = mounts_open(c->target), m = -1;
	struct statvfs sv;
	struct stat st;

	NS_CHECK(at >= 0);
	NS_CHECK(!scratch_empty_folder(c->target));
	m = mounts_new_tmpfs(0750, c->ro);
	NS_CHECK(m >= 0);
	NS_CHECK(mounts_attach(m, at) == 0);
	NS_CHECK(scratch_empty_folder(c->target));
	NS_CHECK(stat(c->target, &st) == 0 && (st.st_mode & 07777) == 0750);
	NS_CHECK(statvfs(c->target, &sv) == 0 && (sv.f_flag & ST_NOSUID) && (sv.f_flag & ST_NODEV));
	NS_CHECK(!!(sv.f_flag & ST_RDONLY) == c->ro);
	NS_CHECK(write_in(c->target, "new") == (c->ro ? -EROFS : 0));
	return 0;
}

/* A tmpfs (RO or not) over scratch/t, which holds a file. */
static void tmpfs_case(bool ro)
{
	_cleanup_free_ char *target = scratch_path("t");
	struct tmpfs_case c = {.target = target, .ro = ro};

	need_root("mounting a tmpfs");
	scratch_mkdir("t");
	scratch_write("t/hidden", "x");
	in_private_mounts(tmpfs_over_a_folder, &c);
	/* the machine never saw it: the file is there, nothing new beside it */
	cr_assert(!scratch_empty_folder(target));
	cr_assert_eq(faccessat(dirfd_, "t/new", F_OK, 0), -1);
}

Test(mounts, a_tmpfs_attached_over_a_folder_shows_it_empty)
{
	tmpfs_case(false);
}

Test(mounts, a_read_only_tmpfs_refuses_writes)
{
	tmpfs_case(true);
}

struct clone_case {
	const char *source, *target;
};

/* PATH made a tmpfs of its own: the O_PATH descriptor of its root, or -1. */
static int own_tmpfs(const char *path)
{
	_cleanup_close_ int at = mounts_open(path), m = mounts_new_tmpfs(0755, false);

	if (at < 0 || m < 0 || mounts_attach(m, at) < 0)
		return -1;
	return mounts_open(path);
}

static int clone_then_readonly(void *arg)
{
	const struct clone_case *c = arg;
	_cleanup_close_ int src = own_tmpfs(c->source), at = mounts_open(c->target), copy = -1, root = -1;
	_cleanup_free_ char *seen = NULL;
	struct statvfs sv;

	NS_CHECK(src >= 0 && at >= 0);
	NS_CHECK(write_in(c->source, "shared") == 0);
	copy = mounts_clone(src, false);
	NS_CHECK(copy >= 0);
	NS_CHECK(mounts_set_readonly(copy, true, false) == 0);
	NS_CHECK(mounts_attach(copy, at) == 0);
	NS_CHECK(asprintf(&seen, "%s/shared", c->target) >= 0 && access(seen, F_OK) == 0);
	NS_CHECK(statvfs(c->target, &sv) == 0 && (sv.f_flag & ST_RDONLY) && (sv.f_flag & ST_NOSUID));
	NS_CHECK(write_in(c->target, "via-copy") == -EROFS);
	/* the source keeps its own flags */
	NS_CHECK(statvfs(c->source, &sv) == 0 && !(sv.f_flag & ST_RDONLY));
	NS_CHECK(write_in(c->source, "still") == 0);

	/* and read-only can be cleared again */
	root = mounts_open(c->target);
	NS_CHECK(root >= 0);
	NS_CHECK(mounts_set_readonly(root, false, false) == 0);
	NS_CHECK(write_in(c->target, "via-copy") == 0);
	return 0;
}

static int recursive_clone(void *arg)
{
	const struct clone_case *c = arg;
	_cleanup_close_ int src = own_tmpfs(c->source), inner = -1, at = -1, copy = -1;
	_cleanup_free_ char *inner_path = NULL, *seen = NULL;
	struct statvfs sv;

	NS_CHECK(src >= 0);
	/* a mount below the source */
	NS_CHECK((inner = mounts_make_dirs(src, "inner")) >= 0);
	NS_CHECK(asprintf(&inner_path, "%s/inner", c->source) >= 0);
	close(TAKE_FD(inner));
	NS_CHECK((inner = own_tmpfs(inner_path)) >= 0 && write_in(inner_path, "deep") == 0);

	NS_CHECK((copy = mounts_clone(src, true)) >= 0);
	NS_CHECK(mounts_set_readonly(copy, true, true) == 0);
	NS_CHECK((at = mounts_open(c->target)) >= 0 && mounts_attach(copy, at) == 0);
	NS_CHECK(asprintf(&seen, "%s/inner/deep", c->target) >= 0 && access(seen, F_OK) == 0);
	free(TAKE_PTR(seen));
	NS_CHECK(asprintf(&seen, "%s/inner", c->target) >= 0);
	NS_CHECK(statvfs(seen, &sv) == 0 && (sv.f_flag & ST_RDONLY));
	NS_CHECK(write_in(seen, "no") == -EROFS);
	return 0;
}

/* FN on scratch folders src and dst, which the machine sees empty after. */
static void clone_case(int (*fn)(void *))
{
	_cleanup_free_ char *source = scratch_path("src"), *target = scratch_path("dst");
	struct clone_case c = {.source = source, .target = target};

	need_root("mounting copies");
	scratch_mkdir("src");
	scratch_mkdir("dst");
	in_private_mounts(fn, &c);
	cr_assert(scratch_empty_folder(source));
	cr_assert(scratch_empty_folder(target));
}

Test(mounts, a_clone_is_made_read_only_on_its_own)
{
	clone_case(clone_then_readonly);
}

Test(mounts, a_recursive_clone_takes_the_mounts_below_read_only)
{
	clone_case(recursive_clone);
}

static int proc_mount(void *arg)
{
	const char *target = arg;
	_cleanup_close_ int at = mounts_open(target), m = mounts_new_proc();
	_cleanup_free_ char *self = NULL;

	NS_CHECK(at >= 0 && m >= 0);
	NS_CHECK(mounts_attach(m, at) == 0);
	NS_CHECK(asprintf(&self, "%s/self", target) >= 0 && access(self, F_OK) == 0);
	return 0;
}

Test(mounts, a_new_proc)
{
	_cleanup_free_ char *target = scratch_path("proc");

	need_root("mounting a proc");
	scratch_mkdir("proc");
	in_private_mounts(proc_mount, target);
	cr_assert(scratch_empty_folder(target));
}

Test(mounts, attach_refuses_what_is_not_a_detached_mount)
{
	_cleanup_close_ int at = -1;

	scratch_mkdir("t");
	at = mounts_open_at(dirfd_, "t");
	cr_assert_geq(at, 0);
	cr_assert_lt(mounts_attach(-1, at), 0);
	cr_assert_eq(mounts_clone(-1, false), -EBADF);
	cr_assert_eq(mounts_set_readonly(-1, true, false), -EBADF);
}
