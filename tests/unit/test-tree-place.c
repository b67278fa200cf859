/* Placing an opened object against a tree by identity (common/tree-place.c)
 * and reading /proc/self/mountinfo (common/mountinfo.c). The bind mounts are
 * made in a mount namespace of the test's own, which goes with it. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/mountinfo.h"
#include "common/tree-place.h"

/* TOP holds the tree (TOP/tree) and what lies beside it. */
static char top[] = P_tmpdir "/oz0-place-XXXXXX";
/* The bind mounts made, detached before TOP is removed: rm -rf would walk
 * through them. */
static char *mounted[8];
static size_t n_mounted;

static char *at(const char *rel)
{
	char *path;

	cr_assert_neq(asprintf(&path, "%s/%s", top, rel), -1);
	return path;
}

static void make_dir(const char *rel)
{
	_cleanup_free_ char *path = at(rel);

	cr_assert_eq(mkdir(path, 0700), 0, "mkdir %s: %m", path);
}

static void make_file(const char *rel)
{
	_cleanup_free_ char *path = at(rel);
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0, "create %s: %m", path);
}

static int open_at(const char *rel, int flags)
{
	_cleanup_free_ char *path = at(rel);
	int fd = open(path, flags | O_CLOEXEC);

	cr_assert_geq(fd, 0, "open %s: %m", path);
	return fd;
}

/* The place of REL against TOP/tree. */
static int place_of(const char *rel)
{
	_cleanup_close_ int tree = open_at("tree", O_RDONLY | O_DIRECTORY);
	_cleanup_close_ int fd = open_at(rel, O_PATH);

	return tree_place(fd, tree);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(top));
	make_dir("tree");
	make_dir("tree/sub");
	make_dir("tree/sub/deep");
	make_file("tree/sub/file");
	make_dir("beside");
	make_file("beside/file");
	make_dir("treeish"); /* a name that starts with the tree's */
}

static void teardown(void)
{
	_cleanup_free_ char *cmd = NULL;

	while (n_mounted > 0) {
		char *path = mounted[--n_mounted];
		cr_assert_eq(umount2(path, MNT_DETACH), 0, "umount %s: %m", path);
		free(path);
	}

	cr_assert_neq(asprintf(&cmd, "rm -rf '%s'", top), -1);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(tree_place, .init = setup, .fini = teardown);
TestSuite(mountinfo, .init = setup, .fini = teardown);

Test(tree_place, by_walking_up)
{
	cr_assert_eq(place_of("tree"), TREE_PLACE_TREE);
	cr_assert_eq(place_of("tree/sub"), TREE_PLACE_INSIDE);
	cr_assert_eq(place_of("tree/sub/deep"), TREE_PLACE_INSIDE);
	cr_assert_eq(place_of("tree/sub/file"), TREE_PLACE_INSIDE);
	cr_assert_eq(place_of("tree/sub/deep/.."), TREE_PLACE_INSIDE);
	cr_assert_eq(place_of("beside"), TREE_PLACE_OUTSIDE);
	cr_assert_eq(place_of("beside/file"), TREE_PLACE_OUTSIDE);
	cr_assert_eq(place_of("treeish"), TREE_PLACE_OUTSIDE);
	cr_assert_eq(place_of("."), TREE_PLACE_OUTSIDE);
}

Test(tree_place, through_links)
{
	_cleanup_free_ char *to_dir = at("tree/sub/deep"), *to_file = at("tree/sub/file"), *ldir = at("beside/ldir"),
	                    *lfile = at("beside/lfile"), *hard = at("beside/hard");

	cr_assert_eq(symlink(to_dir, ldir), 0);
	cr_assert_eq(symlink(to_file, lfile), 0);
	cr_assert_eq(place_of("beside/ldir"), TREE_PLACE_INSIDE);
	cr_assert_eq(place_of("beside/lfile"), TREE_PLACE_INSIDE);
	cr_assert_eq(link(to_file, hard), 0);
	cr_assert_eq(place_of("beside/hard"), TREE_PLACE_LINKED);
	cr_assert_eq(place_of("tree/sub/file"), TREE_PLACE_LINKED);
}

Test(tree_place, a_file_that_moved)
{
	_cleanup_close_ int tree = open_at("tree", O_RDONLY | O_DIRECTORY);
	_cleanup_close_ int fd = open_at("beside/file", O_RDONLY);
	_cleanup_free_ char *from = at("beside/file"), *to = at("tree/moved");

	cr_assert_eq(rename(from, to), 0);
	cr_assert_eq(tree_place(fd, tree), TREE_PLACE_INSIDE); /* placed where it is now */
	cr_assert_eq(unlink(to), 0);
	cr_assert_eq(tree_place(fd, tree), -ESTALE);
}

Test(tree_place, the_tree_must_be_a_folder)
{
	_cleanup_close_ int file = open_at("beside/file", O_RDONLY);
	_cleanup_close_ int dir = open_at("beside", O_RDONLY);

	cr_assert_eq(tree_place(dir, file), -ENOTDIR);
}

Test(tree_place, problems_are_said)
{
	cr_assert_null(tree_place_problem(TREE_PLACE_OUTSIDE));
	cr_assert_not_null(strstr(tree_place_problem(TREE_PLACE_INSIDE), "inside the tree"));
	cr_assert_not_null(strstr(tree_place_problem(TREE_PLACE_LINKED), "hard link"));
	cr_assert_not_null(strstr(tree_place_problem(TREE_PLACE_TREE), "the tree"));
}

/* A mount namespace of this test's own, so that its mounts go with it. */
static void private_mounts(void)
{
	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare(CLONE_NEWNS): %m (the test needs CAP_SYS_ADMIN)");
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0, "%m");
}

static void bind(const char *from_rel, const char *to_rel)
{
	_cleanup_free_ char *from = at(from_rel), *to = at(to_rel);

	cr_assert_lt(n_mounted, ELEMENTSOF(mounted));
	cr_assert_eq(mount(from, to, NULL, MS_BIND, NULL), 0, "bind %s on %s: %m", from, to);
	mounted[n_mounted++] = TAKE_PTR(to);
}

/* A walk up a bind mount of a subfolder leaves it where it is mounted: the
 * mount's root in its file system places it instead. */
Test(tree_place, through_bind_mounts)
{
	private_mounts();
	make_dir("beside/b");
	bind("tree/sub", "beside/b");
	cr_assert_eq(place_of("beside/b"), TREE_PLACE_INSIDE);
	cr_assert_eq(place_of("beside/b/deep"), TREE_PLACE_INSIDE);
	cr_assert_eq(place_of("beside/b/file"), TREE_PLACE_INSIDE);
	make_file("beside/single");
	bind("tree/sub/file", "beside/single");
	cr_assert_eq(place_of("beside/single"), TREE_PLACE_INSIDE);
	make_dir("tree/sub/mnt");
	bind("beside", "tree/sub/mnt");
	cr_assert_eq(place_of("tree/sub/mnt/file"), TREE_PLACE_INSIDE); /* reached through the tree */
	cr_assert_eq(place_of("beside/file"), TREE_PLACE_OUTSIDE);
}

Test(mountinfo, the_root_and_proc)
{
	_cleanup_(mount_entry_clear) struct mount_entry m = {.id = -1};
	_cleanup_close_ int root = open("/", O_PATH | O_CLOEXEC), proc = open("/proc/self", O_PATH | O_CLOEXEC);
	bool is_root;
	int id;

	cr_assert_eq(mount_of_fd(root, &id, &is_root), 0);
	cr_assert(is_root);
	cr_assert_eq(mountinfo_find(id, &m), 0);
	cr_assert_str_eq(m.mountpoint, "/");
	cr_assert_str_eq(m.root, "/");
	mount_entry_clear(&m);
	cr_assert_eq(mount_of_fd(proc, &id, &is_root), 0);
	cr_assert_not(is_root);
	cr_assert_eq(mountinfo_find(id, &m), 0);
	cr_assert_str_eq(m.fstype, "proc");
	cr_assert_eq(mountinfo_find(-5, &m), -ENOENT);
}

Test(mountinfo, escaped_paths)
{
	_cleanup_(mount_entry_clear) struct mount_entry m = {.id = -1};
	_cleanup_free_ char *want_point = at("beside/a b\\c");
	bool is_root;
	int id;

	private_mounts();
	make_dir("beside/a b\\c");
	make_dir("tree/x\ty");
	bind("tree/x\ty", "beside/a b\\c");
	_cleanup_close_ int fd = open_at("beside/a b\\c", O_PATH);
	cr_assert_eq(mount_of_fd(fd, &id, &is_root), 0);
	cr_assert(is_root);
	cr_assert_eq(mountinfo_find(id, &m), 0);
	cr_assert_str_eq(m.mountpoint, want_point);
	cr_assert_not_null(strstr(m.root, "/tree/x\ty"), "%s", m.root);
}
