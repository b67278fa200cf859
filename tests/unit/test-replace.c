/* fs/replace.c: what a rename onto a protected file may do instead. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/replace.h"

static char dir[] = P_tmpdir "/oz0-replace-XXXXXX";
static int dirfd_ = -1;

static void setup(void)
{
	cr_assert(mkdtemp(dir));
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dirfd_, 0);
}

static void teardown(void)
{
	char cmd[256];

	close(dirfd_);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(replace, .init = setup, .fini = teardown);

static void put(const char *name, const char *text)
{
	int fd = openat(dirfd_, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static struct policy_id id_of(const char *name)
{
	struct stat st;

	cr_assert_eq(fstatat(dirfd_, name, &st, AT_SYMLINK_NOFOLLOW), 0);
	return (struct policy_id){ st.st_dev, st.st_ino };
}

static char *contents(const char *name)
{
	static char buf[4096];
	int fd = openat(dirfd_, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	cr_assert_geq(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	cr_assert_geq(n, 0);
	buf[n] = '\0';
	return buf;
}

static int replace(bool rewritable, const char **why)
{
	return replace_protected(NULL, rewritable, dirfd_, "config.lock", id_of("config.lock"), dirfd_, "config",
				 id_of("config"), why);
}

#define BASE "[core]\n\tbare = false\n"

Test(replace, identical_bytes_keep_the_target)
{
	const char *why;

	put("config", BASE);
	put("config.lock", BASE);
	cr_expect_eq(replace(false, &why), REPLACE_KEPT);
}

Test(replace, different_bytes_are_refused_unless_rewritable)
{
	const char *why;

	put("config", BASE);
	put("config.lock", BASE "[remote \"o\"]\n\turl = https://example.com/r.git\n");
	cr_expect_eq(replace(false, &why), REPLACE_REFUSED);
	cr_expect_str_eq(contents("config"), BASE);
}

Test(replace, harmless_rewrite_lands_in_the_same_inode)
{
	const char *why;
	struct policy_id before;

	put("config", BASE);
	put("config.lock", BASE "[remote \"o\"]\n\turl = https://example.com/r.git\n");
	before = id_of("config");
	cr_expect_eq(replace(true, &why), REPLACE_REWRITTEN);
	cr_expect_str_eq(contents("config"), BASE "[remote \"o\"]\n\turl = https://example.com/r.git\n");
	cr_expect_eq(id_of("config").ino, before.ino);
}

Test(replace, shorter_rewrite_is_cut_to_length)
{
	const char *why;

	put("config", BASE "[branch \"x\"]\n\tremote = .\n\tmerge = refs/heads/main\n");
	put("config.lock", BASE);
	cr_expect_eq(replace(true, &why), REPLACE_REWRITTEN);
	cr_expect_str_eq(contents("config"), BASE);
}

Test(replace, harmful_rewrite_is_refused_with_the_key)
{
	const char *why = NULL;

	put("config", BASE);
	put("config.lock", "[core]\n\tbare = false\n\tfsmonitor = tools/mon.sh\n");
	cr_expect_eq(replace(true, &why), REPLACE_REFUSED);
	cr_assert(why);
	cr_expect(strstr(why, "fsmonitor"), "%s", why);
	cr_expect_str_eq(contents("config"), BASE);
}

Test(replace, a_name_that_moved_on_is_stale)
{
	const char *why;
	struct policy_id old;

	put("config", BASE);
	put("config.lock", BASE);
	old = id_of("config");
	put("other", BASE); /* made while config lives, so it has another inode */
	cr_assert_eq(renameat(dirfd_, "other", dirfd_, "config"), 0);
	cr_expect_eq(replace_protected(NULL, true, dirfd_, "config.lock", id_of("config.lock"), dirfd_, "config",
				       old, &why),
		     -ESTALE);
}

Test(replace, special_files_are_never_opened)
{
	const char *why;

	put("config", BASE);
	cr_assert_eq(mkfifoat(dirfd_, "config.lock", 0600), 0);
	cr_expect_eq(replace(true, &why), REPLACE_REFUSED);
}
