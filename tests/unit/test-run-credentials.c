#include "config.h"

/* Hiding a home's credential paths (tools/run/credentials.h), as root in
 * a private mount namespace, on a fake home: what exists reads as empty
 * (a folder empty and read-only, a file empty and read-only), a link is
 * left as it is with what it points at still readable, a missing one
 * stays missing and can be made, and nothing that holds the tree or lies
 * in it is hidden. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/read-file.h"
#include "tests/unit/private-ns.h"
#include "tests/unit/scratch-dir.h"
#include "tools/run/credentials.h"
#include "tools/run/mounts.h"

static char *home;

/* home/: .ssh/id_rsa, .aws/credentials, .netrc, .docker/config.json,
 * .config/gh/hosts.yml, .config/other, .kube -> ../kube-real (a folder
 * outside it), and no .gnupg. */
static void setup(void)
{
	scratch_make();
	home = scratch_path("home");
	scratch_mkdir("home");
	scratch_mkdir("home/.ssh");
	scratch_write("home/.ssh/id_rsa", "PRIVATE KEY");
	scratch_mkdir("home/.aws");
	scratch_write("home/.aws/credentials", "aws secret");
	scratch_write("home/.netrc", "machine x password y");
	scratch_mkdir("home/.docker");
	scratch_write("home/.docker/config.json", "{\"auths\":{}}");
	scratch_mkdir("home/.config");
	scratch_mkdir("home/.config/gh");
	scratch_write("home/.config/gh/hosts.yml", "oauth_token: t");
	scratch_write("home/.config/other", "not a credential");
	scratch_mkdir("kube-real");
	scratch_write("kube-real/config", "the tests' kubeconfig");
	scratch_symlink("../kube-real", "home/.kube");
}

static void teardown(void)
{
	free(home);
	scratch_remove();
}

TestSuite(credentials, .init = setup, .fini = teardown);

static char *in_home(const char *rest)
{
	char *p;

	if (asprintf(&p, "%s/%s", home, rest) < 0)
		return NULL;
	return p;
}

/* The bytes of the file REST in the home, or NULL. */
static char *read_home(const char *rest)
{
	_cleanup_free_ char *p = in_home(rest);
	_cleanup_close_ int fd = p ? open(p, O_RDONLY | O_CLOEXEC) : -1;
	char *text = NULL;
	size_t n;

	if (fd < 0 || read_fd_bounded(fd, 0, 65536, &text, &n) < 0)
		return NULL;
	return text;
}

static bool reads_as(const char *rest, const char *want)
{
	_cleanup_free_ char *text = read_home(rest);

	return text && strcmp(text, want) == 0;
}

static bool empty_folder(const char *rest)
{
	_cleanup_free_ char *p = in_home(rest);

	return p && scratch_empty_folder(p);
}

/* -errno of making something in the folder REST (or writing the file REST). */
static int try_write(const char *rest, bool folder)
{
	_cleanup_free_ char *p = in_home(rest), *inside = NULL;
	int fd;

	if (!p)
		return -ENOMEM;
	if (folder) {
		if (asprintf(&inside, "%s/planted", p) < 0)
			return -ENOMEM;
		return mkdir(inside, 0700) < 0 ? negative_errno() : 0;
	}
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	close(fd);
	return 0;
}

/* An O_PATH descriptor of an empty file on a read-only tmpfs, mounted at
 * dir/blank, as the view makes one. */
static int empty_file(void)
{
	_cleanup_free_ char *at = scratch_path("blank"), *file = scratch_path("blank/empty");
	_cleanup_close_ int fs = mounts_new_tmpfs(0555, false), f = -1, target = -1;

	if (fs < 0 || mkdir(at, 0755) < 0)
		return -1;
	f = openat(fs, "empty", O_CREAT | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (f < 0)
		return -1;
	close(TAKE_FD(f));
	target = mounts_open(at);
	if (target < 0 || mounts_set_readonly(fs, true, false) < 0 || mounts_attach(fs, target) < 0)
		return -1;
	return mounts_open(file);
}

struct hide_case {
	const char *tree;
	int covered;
};

static int hide(const struct hide_case *c)
{
	_cleanup_close_ int homefd = mounts_open(home), empty = empty_file();
	const char *failed = NULL;
	int n;

	NS_CHECK(homefd >= 0);
	NS_CHECK(empty >= 0);
	n = credentials_hide(homefd, empty, c->tree, &failed);
	if (n != c->covered)
		fprintf(stderr, "covered %d, not %d (failed: %s)\n", n, c->covered, failed ? failed : "-");
	NS_CHECK(n == c->covered);
	return 0;
}

/* What is left as it was in every case. */
static int untouched(void)
{
	NS_CHECK(reads_as(".config/other", "not a credential"));
	NS_CHECK(try_write(".config", true) == 0);
	/* the link is covered itself, an empty file; what it points at is
	 * not looked at and reads as it was */
	NS_CHECK(reads_as(".kube", ""));
	NS_CHECK(reads_as("../kube-real/config", "the tests' kubeconfig"));
	NS_CHECK(try_write("../kube-real", true) == 0);
	/* the missing one stays missing, and can be made */
	NS_CHECK(try_write(".gnupg", true) == -ENOENT);
	return 0;
}

static int make_gnupg(void)
{
	_cleanup_free_ char *p = in_home(".gnupg");

	NS_CHECK(p && mkdir(p, 0700) == 0);
	NS_CHECK(try_write(".gnupg", true) == 0);
	return 0;
}

/* A folder holding a hidden path is pinned: renaming it (to a name the
 * next run would not hide) is refused. */
static bool renamed_away_is_busy(const char *name)
{
	_cleanup_free_ char *from = in_home(name), *to = in_home(".elsewhere");

	return from && to && rename(from, to) < 0 && errno == EBUSY;
}

static int hide_all(void *arg)
{
	(void)arg;
	NS_CHECK(hide(&(struct hide_case){.tree = NULL, .covered = 6}) == 0);
	/* folders: empty and read-only */
	NS_CHECK(empty_folder(".ssh"));
	NS_CHECK(!reads_as(".ssh/id_rsa", "PRIVATE KEY"));
	NS_CHECK(try_write(".ssh", true) == -EROFS);
	NS_CHECK(empty_folder(".aws"));
	NS_CHECK(try_write(".aws", true) == -EROFS);
	NS_CHECK(empty_folder(".config/gh"));
	NS_CHECK(try_write(".config/gh", true) == -EROFS);
	/* files: empty, and they stay so */
	NS_CHECK(reads_as(".netrc", ""));
	NS_CHECK(try_write(".netrc", false) == -EROFS);
	NS_CHECK(reads_as(".docker/config.json", ""));
	NS_CHECK(try_write(".docker/config.json", false) == -EROFS);
	/* the folder that holds a hidden file is not hidden */
	NS_CHECK(try_write(".docker", true) == 0);
	NS_CHECK(untouched() == 0);
	NS_CHECK(renamed_away_is_busy(".config") && renamed_away_is_busy(".docker"));
	return make_gnupg();
}

Test(credentials, every_present_path_reads_as_empty)
{
	need_root("hiding credentials with mounts");
	in_private_mounts(hide_all, NULL);
	/* the machine's view of the home is as it was */
	cr_assert(reads_as(".ssh/id_rsa", "PRIVATE KEY"));
	cr_assert(reads_as(".netrc", "machine x password y"));
	cr_assert_eq(access(home, F_OK), 0);
	cr_assert_neq(try_write(".gnupg", true), 0);
}

static int hide_around_ssh_tree(void *arg)
{
	(void)arg;
	/* the tree in .ssh: .ssh holds it and is not hidden, the rest is */
	NS_CHECK(hide(&(struct hide_case){.tree = ".ssh/x", .covered = 5}) == 0);
	NS_CHECK(reads_as(".ssh/id_rsa", "PRIVATE KEY"));
	NS_CHECK(try_write(".ssh", true) == 0);
	NS_CHECK(empty_folder(".aws"));
	NS_CHECK(reads_as(".netrc", ""));
	return untouched();
}

Test(credentials, a_tree_inside_a_credential_folder_keeps_it)
{
	need_root("hiding credentials with mounts");
	scratch_mkdir("home/.ssh/x");
	in_private_mounts(hide_around_ssh_tree, NULL);
}

static int hide_around_config_tree(void *arg)
{
	(void)arg;
	/* the tree is .config: .config/gh lies in it and is not hidden */
	NS_CHECK(hide(&(struct hide_case){.tree = ".config", .covered = 5}) == 0);
	NS_CHECK(reads_as(".config/gh/hosts.yml", "oauth_token: t"));
	NS_CHECK(empty_folder(".ssh"));
	return 0;
}

Test(credentials, a_credential_folder_inside_the_tree_is_kept)
{
	need_root("hiding credentials with mounts");
	in_private_mounts(hide_around_config_tree, NULL);
}

static int hide_beside_sshx_tree(void *arg)
{
	(void)arg;
	/* ".sshx" is no part of ".ssh": everything is hidden */
	NS_CHECK(hide(&(struct hide_case){.tree = ".sshx", .covered = 6}) == 0);
	NS_CHECK(empty_folder(".ssh"));
	return 0;
}

Test(credentials, a_tree_named_like_a_credential_folder_is_no_part_of_it)
{
	need_root("hiding credentials with mounts");
	in_private_mounts(hide_beside_sshx_tree, NULL);
}

static int hide_odd_shapes(void *arg)
{
	(void)arg;
	/* .ssh a file, .aws a link to a file (covered itself, not
	 * followed), .docker a file (so .docker/config.json is not a path at
	 * all) */
	NS_CHECK(hide(&(struct hide_case){.tree = NULL, .covered = 5}) == 0);
	NS_CHECK(reads_as(".ssh", ""));
	NS_CHECK(try_write(".ssh", false) == -EROFS);
	NS_CHECK(reads_as(".aws", ""));
	NS_CHECK(reads_as(".docker", "a file"));
	NS_CHECK(reads_as(".netrc", ""));
	NS_CHECK(empty_folder(".config/gh"));
	return 0;
}

Test(credentials, a_file_where_a_folder_is_expected_is_covered_too)
{
	_cleanup_free_ char *aws = scratch_path("aws-real");

	need_root("hiding credentials with mounts");
	scratch_remove_below("home/.ssh");
	scratch_remove_below("home/.aws");
	scratch_remove_below("home/.docker");
	scratch_write("home/.ssh", "not a folder");
	scratch_write("home/.docker", "a file");
	scratch_write("aws-real", "aws secret");
	scratch_symlink(aws, "home/.aws");
	in_private_mounts(hide_odd_shapes, NULL);
}
