/* The inode table: identity by (dev, ino), a bounded fd cache, reopening by
 * handle after eviction, growth and removal. Handles need CAP_DAC_READ_SEARCH,
 * so the handle tests skip (a failure in CI) when not run as root. */
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
#include "fs/inode.h"

static char dir[64];
static int dirfd_;
static struct inode_table *table;

static void make_tree(void)
{
	snprintf(dir, sizeof(dir), "%s/oz0fs-inode-XXXXXX", P_tmpdir);
	cr_assert_not_null(mkdtemp(dir));
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dirfd_, 0);
}

static void remove_tree(void)
{
	char cmd[128];

	inode_table_free(table);
	table = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

static void new_table(unsigned cache, bool handles)
{
	int fd = fcntl(dirfd_, F_DUPFD_CLOEXEC, 3);
	cr_assert_geq(fd, 0);
	cr_assert_eq(inode_table_new(fd, cache, handles, &table), 0);
	if (handles && !inode_table_uses_handles(table))
		cr_skip_test("file handles need CAP_DAC_READ_SEARCH (run as root)");
}

static void write_file(const char *name, const char *text)
{
	int fd = openat(dirfd_, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "create %s: %s", name, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void make_files(int n)
{
	char name[32];

	for (int k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "f%d", k);
		write_file(name, name);
	}
}

static struct inode *lookup(struct inode *parent, const char *name)
{
	struct inode *i;
	struct stat st;

	int r = inode_lookup(table, parent, name, &st, &i);
	cr_assert_eq(r, 0, "lookup %s: %s", name, strerror(-r));
	cr_assert_eq(inode_id(i).ino, st.st_ino);
	return i;
}

static struct inode **lookup_files(int n)
{
	struct inode **all = calloc((size_t)n, sizeof(*all));
	char name[32];

	cr_assert_not_null(all);
	for (int k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "f%d", k);
		all[k] = lookup(inode_table_root(table), name);
	}
	return all;
}

TestSuite(inode, .init = make_tree, .fini = remove_tree);

Test(inode, same_object_same_inode)
{
	new_table(16, true);
	write_file("a", "x");
	cr_assert_eq(linkat(dirfd_, "a", dirfd_, "b", 0), 0);
	struct inode *a = lookup(inode_table_root(table), "a");
	struct inode *b = lookup(inode_table_root(table), "b");
	cr_assert_eq(a, b, "a hard link is the same inode");
	cr_assert_eq(inode_table_count(table), 1);
	inode_forget(table, a, 1);
	cr_assert_eq(inode_table_count(table), 1, "one lookup reference is left");
	inode_forget(table, b, 1);
	cr_assert_eq(inode_table_count(table), 0);
}

Test(inode, hold_takes_one_more_reference)
{
	new_table(16, true);
	write_file("a", "x");
	struct inode *a = lookup(inode_table_root(table), "a");
	inode_hold(table, a);
	inode_forget(table, a, 1);
	cr_assert_eq(inode_table_count(table), 1, "the held reference keeps it");
	cr_assert_eq(lookup(inode_table_root(table), "a"), a, "still the same inode");
	inode_forget(table, a, 2);
	cr_assert_eq(inode_table_count(table), 0);
	inode_hold(table, inode_table_root(table));
	inode_forget(table, inode_table_root(table), 1); /* the root stays whatever is asked */
}

Test(inode, lookup_does_not_follow_links)
{
	new_table(16, true);
	cr_assert_eq(symlinkat("/", dirfd_, "l"), 0);
	struct stat st;
	struct inode *out;
	cr_assert_eq(inode_lookup(table, inode_table_root(table), "l", &st, &out), 0);
	cr_assert(S_ISLNK(st.st_mode), "the link itself, not what it names");
	cr_assert_eq(inode_lookup(table, inode_table_root(table), "missing", &st, &out), -ENOENT);
}

Test(inode, fd_cache_is_bounded)
{
	new_table(8, true);
	make_files(100);
	_cleanup_free_ struct inode **all = lookup_files(100);

	cr_assert_eq(inode_table_count(table), 100);
	/* The cache plus the root's pinned fd. */
	cr_assert_leq(inode_table_fds(table), 8 + 1);
}

Test(inode, reopens_by_handle_after_eviction)
{
	new_table(2, true);
	make_files(10);
	_cleanup_free_ struct inode **all = lookup_files(10);

	struct ifd f;
	struct stat st;
	cr_assert_eq(inode_fd_acquire(table, all[0], &f), 0, "f0's fd was evicted and is reopened");
	cr_assert_eq(fstat(f.fd, &st), 0);
	cr_assert_eq(st.st_ino, inode_id(all[0]).ino);
	inode_fd_release(&f);

	char buf[8] = {0};
	int fd = inode_open(table, all[0], O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(read(fd, buf, sizeof(buf) - 1), 2);
	cr_assert_str_eq(buf, "f0");
	close(fd);
	cr_assert_leq(inode_table_fds(table), 2 + 1);
}

Test(inode, held_fd_is_not_evicted)
{
	new_table(1, true);
	make_files(4);
	_cleanup_free_ struct inode **all = lookup_files(4);
	struct ifd held;
	struct stat st;

	cr_assert_eq(inode_fd_acquire(table, all[0], &held), 0);
	for (int k = 1; k < 4; k++) {
		struct ifd f;
		cr_assert_eq(inode_fd_acquire(table, all[k], &f), 0);
		inode_fd_release(&f);
	}
	cr_assert_eq(fstat(held.fd, &st), 0, "a held fd stays open");
	cr_assert_eq(st.st_ino, inode_id(all[0]).ino);
	inode_fd_release(&held);
	cr_assert_leq(inode_table_fds(table), 1 + 1, "released, it may go");
}

Test(inode, lookup_below_an_evicted_directory)
{
	new_table(1, true);
	cr_assert_eq(mkdirat(dirfd_, "d", 0755), 0);
	write_file("d/inner", "in");
	make_files(3);
	struct inode *d = lookup(inode_table_root(table), "d");
	_cleanup_free_ struct inode **files = lookup_files(3); /* evicts d's fd */
	struct inode *inner = lookup(d, "inner");
	char buf[4] = {0};
	int fd = inode_open(table, inner, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(read(fd, buf, sizeof(buf) - 1), 2);
	cr_assert_str_eq(buf, "in");
	close(fd);
}

Test(inode, removed_object_is_stale)
{
	new_table(1, true);
	make_files(2);
	_cleanup_free_ struct inode **all = lookup_files(2); /* f0's fd is evicted */
	cr_assert_eq(unlinkat(dirfd_, "f0", 0), 0);
	struct ifd f;
	cr_assert_eq(inode_fd_acquire(table, all[0], &f), -ESTALE, "a handle never names another object");
}

Test(inode, grows_and_shrinks)
{
	new_table(64, true);
	make_files(5000);
	_cleanup_free_ struct inode **all = lookup_files(5000);
	cr_assert_eq(inode_table_count(table), 5000);
	for (int k = 0; k < 5000; k++)
		inode_forget(table, all[k], 1);
	cr_assert_eq(inode_table_count(table), 0);
	cr_assert_eq(inode_table_fds(table), 1, "only the root's fd is left");
}

Test(inode, gives_cached_fds_back_when_out_of_fds)
{
	new_table(16, true);
	make_files(16);
	_cleanup_free_ struct inode **all = lookup_files(16);

	/* No descriptor left: the next open must make room in the cache. */
	int next = dup(0);
	cr_assert_geq(next, 0);
	close(next);
	struct rlimit rl = {.rlim_cur = (rlim_t)next, .rlim_max = (rlim_t)next};
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	cr_assert_lt(dup(0), 0);

	int fd = inode_open(table, all[0], O_RDONLY);
	cr_assert_geq(fd, 0, "inode_open: %s", strerror(-fd));
	close(fd);
}

Test(inode, pinned_mode_holds_one_fd_per_inode)
{
	new_table(4, false);
	cr_assert_not(inode_table_uses_handles(table));
	make_files(20);
	_cleanup_free_ struct inode **all = lookup_files(20);
	cr_assert_eq(inode_table_fds(table), 20 + 1, "every inode pins its fd");
	int fd = inode_open(table, all[3], O_RDONLY);
	cr_assert_geq(fd, 0, "reopened through /proc/self/fd");
	close(fd);
	for (int k = 0; k < 20; k++)
		inode_forget(table, all[k], 1);
	cr_assert_eq(inode_table_fds(table), 1);
}
