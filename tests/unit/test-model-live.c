/* The live model (git/model-live.h) on real trees made with git: the events
 * it writes when told of a change, once each, and what it forgets. */
#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/read-file.h"
#include "git/model.h"
#include "policy/audit.h"
#include "tests/unit/tree-fixture.h"

static struct git_model *model;
static struct audit *audit;
static char log_path[] = P_tmpdir "/oz0-live-audit-XXXXXX";

static void setup(void)
{
	int fd;

	fixture_make();
	fixture_sh("git init -q . && git commit -q --allow-empty -m one");
	fd = mkstemp(log_path);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(audit_open(AUDIT_FILE, log_path, &audit), 0);
}

static void teardown(void)
{
	git_model_free(model);
	audit_close(audit);
	unlink(log_path);
	fixture_remove();
}

TestSuite(live, .init = setup, .fini = teardown);

static void start(void)
{
	_cleanup_free_ char *err = NULL;

	cr_assert_eq(git_model_new(fixture_rootfd, NULL, NULL, &model, &err), 0, "%s", err ? err : "");
	git_model_set_audit(model, audit);
}

static struct policy_id id_at(int fd, const char *name)
{
	struct stat st;

	cr_assert_eq(fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH), 0, "%s", name);
	return (struct policy_id){.dev = (uint64_t)st.st_dev, .ino = (uint64_t)st.st_ino};
}

/* What the fs does after an operation made, replaced or removed DIR/NAME. */
static void note(const char *dir, const char *name)
{
	_cleanup_close_ int fd = openat(fixture_rootfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	cr_assert_geq(fd, 0, "%s", dir);
	if (git_model_follows(model, id_at(fd, ""), name))
		git_model_note(model, fd, id_at(fd, ""), name);
}

/* How many lines of the audit log hold each of TEXT and MORE. */
static int lines_with(const char *text, const char *more)
{
	_cleanup_close_ int fd = open(log_path, O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *data = NULL;
	size_t len = 0;
	int n = 0;

	cr_assert_geq(fd, 0);
	cr_assert_eq(read_fd_bounded(fd, 0, 1 << 20, &data, &len), 0);
	for (char *line = data, *end; line < data + len; line = end + 1) {
		end = strchr(line, '\n');
		cr_assert_not_null(end);
		*end = '\0';
		n += strstr(line, text) && strstr(line, more);
	}
	return n;
}

Test(live, a_new_repository_and_its_dangers_are_said_once)
{
	start();
	fixture_sh("git init -q sub");
	note("sub", ".git");
	cr_expect_eq(lines_with("\"new-git-dir\",\"path\":\"sub/.git\"", "made during the mount"), 1);
	fixture_sh("git -C sub config core.hooksPath h");
	note("sub/.git", "config");
	note("sub/.git", "config");
	cr_expect_eq(lines_with("dangerous-change", "core.hookspath = h"), 1);
	fixture_sh("git -C sub config alias.x '!./x.sh'");
	note("sub/.git", "config");
	cr_expect_eq(lines_with("dangerous-change", "alias.x = !./x.sh"), 1);
	cr_expect_eq(lines_with("dangerous-change", "core.hookspath = h"), 1);
	fixture_sh("printf '#!/bin/sh\\n' >sub/.git/hooks/pre-commit && cp sub/.git/hooks/pre-commit sub/.git/hooks/a.sample");
	note("sub/.git/hooks", "pre-commit");
	note("sub/.git/hooks", "a.sample");
	cr_expect_eq(lines_with("sub/.git/hooks/pre-commit", "git runs it"), 1);
	cr_expect_eq(lines_with("a.sample", ""), 0);
}

Test(live, follows_only_what_concerns_it)
{
	_cleanup_close_ int root = -1;

	start();
	fixture_sh("mkdir -p plain && git init -q sub");
	root = openat(fixture_rootfd, "plain", O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(root, 0);
	cr_expect_not(git_model_follows(model, id_at(root, ""), "file.c"));
	cr_expect(git_model_follows(model, id_at(root, ""), ".git"));
	cr_expect(git_model_follows(model, id_at(fixture_rootfd, ".git"), "index"));
	note("sub", ".git");
	cr_expect(git_model_follows(model, id_at(fixture_rootfd, "sub/.git"), "anything"));
}

Test(live, a_removed_git_directory_is_forgotten)
{
	start();
	fixture_sh("git init -q gone");
	note("gone", ".git");
	git_model_forget(model, id_at(fixture_rootfd, "gone/.git"));
	cr_expect_not(git_model_follows(model, id_at(fixture_rootfd, "gone/.git"), "config"));
	fixture_sh("git -C gone config core.fsmonitor ./x");
	note("gone/.git", "config");
	cr_expect_eq(lines_with("core.fsmonitor", ""), 0);
}

Test(live, a_new_gitlink_is_said_when_the_index_changes)
{
	fixture_sh("git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),old");
	start();
	fixture_sh("git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),new");
	note(".git", "index");
	note(".git", "index");
	cr_expect_eq(lines_with("new-submodule", "the submodule new:"), 1);
	cr_expect_eq(lines_with("new-submodule", "the submodule old:"), 0);
}

Test(live, a_git_file_made_empty_is_looked_at_once_written)
{
	struct policy_id id;

	start();
	fixture_sh("git init -q --bare inner.git && mkdir co && : >co/.git");
	note("co", ".git");
	id = id_at(fixture_rootfd, "co/.git");
	cr_expect(git_model_follows_file(model, id));
	cr_expect_eq(lines_with("co/.git", ""), 0);
	fixture_sh("echo 'gitdir: ../inner.git' >co/.git");
	git_model_note_written(model, id);
	cr_expect_eq(lines_with("\"new-git-file\",\"path\":\"co/.git\"", "names inner.git"), 1);
	cr_expect_eq(lines_with("\"new-git-dir\",\"path\":\"inner.git\"", ""), 1);
}

Test(live, past_the_bound_it_says_so_once)
{
	start();
	fixture_sh("seq 1 4100 | sed 's,.*,r&/.git,' | xargs mkdir -p");
	for (int i = 1; i <= 4100; i++) {
		char dir[16];

		snprintf(dir, sizeof(dir), "r%d", i);
		note(dir, ".git");
	}
	cr_expect_eq(lines_with("\"untracked\"", "the settler alone"), 1);
	/* The tree's own .git is followed too. */
	cr_expect_eq(lines_with("new-git-dir", ""), 4095);
}

Test(live, a_removed_folder_gives_its_place_back)
{
	start();
	cr_assert_eq(mkdirat(fixture_rootfd, "keep", 0755), 0);
	for (int i = 1; i <= 4100; i++) {
		char kept[32];

		cr_assert_eq(mkdirat(fixture_rootfd, "r", 0755), 0);
		cr_assert_eq(mkdirat(fixture_rootfd, "r/.git", 0755), 0);
		note("r", ".git");
		git_model_forget(model, id_at(fixture_rootfd, "r/.git"));
		cr_assert_eq(unlinkat(fixture_rootfd, "r/.git", AT_REMOVEDIR), 0);
		cr_assert_eq(unlinkat(fixture_rootfd, "r", AT_REMOVEDIR), 0);
		/* a folder kept between takes the freed inode number */
		snprintf(kept, sizeof(kept), "keep/%d", i);
		cr_assert_eq(mkdirat(fixture_rootfd, kept, 0755), 0);
	}
	cr_expect_eq(lines_with("\"untracked\"", ""), 0);
	fixture_sh("git init -q last");
	note("last", ".git");
	fixture_sh("git -C last config core.fsmonitor ./x");
	note("last/.git", "config");
	cr_expect_eq(lines_with("\"dangerous-change\",\"path\":\"last/.git\"", "core.fsmonitor = ./x"), 1);
}

Test(live, a_renamed_repository_is_known_by_its_new_path)
{
	_cleanup_close_ int root = -1;
	struct stat st;

	start();
	fixture_sh("git init -q before");
	note("before", ".git");
	fixture_sh("mv before after");
	root = openat(fixture_rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(root, 0);
	cr_assert_eq(fstatat(root, "after", &st, AT_SYMLINK_NOFOLLOW), 0);
	git_model_renamed(model, root, "before", root, "after",
	                  (struct policy_id){.dev = (uint64_t)st.st_dev, .ino = (uint64_t)st.st_ino}, true);
	fixture_sh("git -C after config core.fsmonitor ./x");
	note("after/.git", "config");
	cr_expect_eq(lines_with("\"dangerous-change\",\"path\":\"after/.git\"", "core.fsmonitor = ./x"), 1);
	cr_expect_eq(lines_with("Not a directory", ""), 0);
	cr_expect_eq(lines_with("\"dangerous-change\",\"path\":\"before", ""), 0);
}
