/* The settler (git/settle/): record a scratch tree, change it as a run
 * would, settle, and check what it said and what the tree then holds. */
#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git/settle/settle.h"
#include "tree-fixture.h"

struct outcome {
	int r;
	char *lines;
};

static struct settle_state before;

static void record(void)
{
	char *err = NULL;

	settle_state_done(&before);
	cr_assert_eq(settle_record(fixture_rootfd, fixture_top, NULL, &before, &err), 0, "%s", err ? err : "");
}

static struct outcome settle_as(bool dry_run)
{
	struct outcome o = {0};
	size_t len;
	FILE *out = open_memstream(&o.lines, &len);
	struct settle_opts opts = {.dry_run = dry_run, .out = out};
	char *err = NULL;

	cr_assert(out);
	o.r = settle_tree(fixture_rootfd, &before, &opts, &err);
	fclose(out);
	cr_assert_geq(o.r, 0, "%s", err ? err : "");
	return o;
}

static struct outcome settle(void)
{
	return settle_as(false);
}

/* Settling again finds nothing. */
static void settled(void)
{
	struct outcome o = settle();

	cr_expect_eq(o.r, 0, "a second settle said: %s", o.lines);
	free(o.lines);
}

static bool exists(const char *path)
{
	struct stat st;

	return fstatat(fixture_rootfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static void setup(void)
{
	fixture_make();
	fixture_sh("git init -q -b main . && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m first");
}

static void teardown(void)
{
	settle_state_done(&before);
	fixture_remove();
}

TestSuite(settle, .init = setup, .fini = teardown);

Test(settle, plain_init_and_ordinary_work_pass)
{
	record();
	fixture_sh("git init -q new && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m second && "
	           "git branch b && git init -q --bare bare.git");
	struct outcome o = settle();
	cr_expect_eq(o.r, 0, "%s", o.lines);
	free(o.lines);
}

Test(settle, new_hooks_beyond_samples_go_aside)
{
	record();
	fixture_sh("git init -q new && echo run > new/.git/hooks/pre-commit");
	struct outcome o = settle();
	cr_expect_eq(o.r, 1);
	cr_expect(strstr(o.lines, "moved aside: new/.git/hooks -> new/.git/hooks.sandbox-refused: "), "%s", o.lines);
	cr_expect(exists("new/.git/hooks.sandbox-refused/pre-commit"));
	cr_expect(!exists("new/.git/hooks"));
	free(o.lines);
	settled();
}

Test(settle, a_hooks_link_in_a_new_repository_goes_aside)
{
	record();
	fixture_sh("git init -q new && rm -r new/.git/hooks && ln -s /tmp new/.git/hooks");
	struct outcome o = settle();
	cr_expect(strstr(o.lines, "moved aside: new/.git/hooks -> "), "%s", o.lines);
	free(o.lines);
}

Test(settle, a_new_config_that_chooses_a_program_goes_aside)
{
	record();
	fixture_sh("git init -q a && git -C a config alias.st '!sh evil' && git init -q b && "
	           "git -C b config include.path x && git init -q c && git -C c config remote.o.url https://x/y");
	struct outcome o = settle();
	cr_expect(strstr(o.lines, "moved aside: a/.git/config -> a/.git/config.sandbox-refused: "), "%s", o.lines);
	cr_expect(strstr(o.lines, "(alias.st)"), "%s", o.lines);
	cr_expect(strstr(o.lines, "moved aside: b/.git/config -> "), "%s", o.lines);
	cr_expect(!strstr(o.lines, "c/.git"), "%s", o.lines);
	free(o.lines);
	settled();
}

Test(settle, commondir_and_config_worktree_of_a_new_repository_are_removed)
{
	record();
	fixture_sh("git init -q new && echo ../../.git > new/.git/commondir && echo > new/.git/config.worktree");
	struct outcome o = settle();
	cr_expect(strstr(o.lines, "removed: new/.git/commondir: "), "%s", o.lines);
	cr_expect(strstr(o.lines, "removed: new/.git/config.worktree: "), "%s", o.lines);
	cr_expect(!exists("new/.git/commondir") && !exists("new/.git/config.worktree"));
	free(o.lines);
}

Test(settle, a_new_dotgit_link_is_removed)
{
	record();
	fixture_sh("mkdir d && ln -s ../.git d/.git");
	struct outcome o = settle();
	cr_expect(strstr(o.lines, "removed: d/.git: "), "%s", o.lines);
	cr_expect(!exists("d/.git"));
	cr_expect(exists(".git/HEAD"), "the link's target stays");
	free(o.lines);
}

Test(settle, a_new_dotgit_file_naming_an_existing_git_directory_is_removed)
{
	record();
	fixture_sh("mkdir d && echo 'gitdir: ../.git' > d/.git && mkdir e && echo 'gitdir: /nowhere' > e/.git");
	struct outcome o = settle();
	cr_expect(strstr(o.lines, "removed: d/.git: a new .git file that names a git directory that already existed"),
	          "%s", o.lines);
	cr_expect(strstr(o.lines, "removed: e/.git: "), "%s", o.lines);
	free(o.lines);
	settled();
}

Test(settle, an_existing_dotgit_file_is_restored_and_another_spelling_stays)
{
	fixture_sh("git init -q --bare mods/a && git init -q --bare mods/b && mkdir a b && "
	           "echo 'gitdir: ../mods/a' > a/.git && echo 'gitdir: ../mods/b' > b/.git");
	record();
	fixture_sh("echo 'gitdir: ../mods/b' > a/.git && echo \"gitdir: $PWD/mods/b\" > b/.git");
	struct outcome o = settle();
	cr_expect(strstr(o.lines, "restored: a/.git: "), "%s", o.lines);
	cr_expect(!strstr(o.lines, "b/.git"), "%s", o.lines);
	free(o.lines);
	fixture_sh("grep -qx 'gitdir: ../mods/a' a/.git");
	settled();
}

Test(settle, exec_steps_are_commented_out_and_the_persons_list_stays)
{
	fixture_sh("mkdir -p .git/sequencer && printf 'pick 1\\nexec make\\n' > .git/sequencer/todo");
	record();
	fixture_sh("mkdir -p .git/rebase-merge && printf 'pick 1\\n  x ./evil\\nexec   evil\\nexecutable\\n' > "
	           ".git/rebase-merge/git-rebase-todo");
	struct outcome o = settle();
	cr_expect(strstr(o.lines, "commented out exec steps: .git/rebase-merge/git-rebase-todo: "), "%s", o.lines);
	cr_expect(!strstr(o.lines, "sequencer"), "%s", o.lines);
	free(o.lines);
	fixture_sh("printf 'pick 1\\n#   x ./evil\\n# exec   evil\\nexecutable\\n' | cmp - .git/rebase-merge/git-rebase-todo");
	fixture_sh("printf 'pick 1\\nexec make\\n' | cmp - .git/sequencer/todo");
	settled();
}

Test(settle, a_dry_run_says_the_same_and_changes_nothing)
{
	record();
	fixture_sh("git init -q new && echo run > new/.git/hooks/pre-commit && mkdir d && ln -s ../.git d/.git");
	struct outcome dry = settle_as(true);
	cr_expect(exists("new/.git/hooks/pre-commit") && exists("d/.git"));
	struct outcome o = settle();
	cr_expect_eq(dry.r, o.r);
	cr_expect_str_eq(dry.lines, o.lines);
	free(dry.lines);
	free(o.lines);
}

Test(settle, an_aside_name_taken_gets_the_next_number)
{
	record();
	fixture_sh("git init -q new && echo run > new/.git/hooks/pre-commit && mkdir new/.git/hooks.sandbox-refused");
	struct outcome o = settle();
	cr_expect(strstr(o.lines, "-> new/.git/hooks.sandbox-refused.2: "), "%s", o.lines);
	free(o.lines);
}

Test(settle, access_the_run_took_is_given_back_and_the_persons_stays)
{
	fixture_sh("mkdir mine && chmod 500 mine");
	record();
	fixture_sh("mkdir -p taken/inner && git init -q taken/inner/r && echo x > taken/inner/r/.git/hooks/post-merge && "
	           "chmod 000 taken");
	struct outcome o = settle();
	cr_expect_eq(o.r, 1);
	cr_expect(strstr(o.lines, "gave the owner access back: taken: "), "%s", o.lines);
	cr_expect(strstr(o.lines, "moved aside: taken/inner/r/.git/hooks -> "), "%s", o.lines);
	cr_expect(!strstr(o.lines, "mine"), "%s", o.lines);
	free(o.lines);
	struct stat st;
	cr_assert_eq(fstatat(fixture_rootfd, "mine", &st, 0), 0);
	cr_expect_eq(st.st_mode & 0777, 0500);
	fixture_sh("chmod 700 mine");
}

Test(settle, an_index_that_cannot_be_read_goes_aside)
{
	record();
	fixture_sh("printf 'DIRC garbage' > .git/index");
	struct outcome o = settle();
	cr_expect(strstr(o.lines, "moved aside: .git/index -> .git/index.sandbox-refused: "), "%s", o.lines);
	free(o.lines);
	settled();
}

Test(settle, more_than_64_modules_below_an_empty_modules_folder_go_aside_whole)
{
	record();
	fixture_sh("for i in $(seq 65); do git init -q --bare .git/modules/m$i; done");
	struct outcome o = settle();
	cr_expect(strstr(o.lines, "moved aside: .git/modules -> .git/modules.sandbox-refused: "), "%s", o.lines);
	free(o.lines);
	settled();
}

Test(settle, past_256_git_directories_the_runs_own_go_aside)
{
	record();
	fixture_sh("for i in $(seq 260); do mkdir -p r/$i && git init -q r/$i; done");
	struct outcome o = settle();
	cr_expect_eq(o.r, 1);
	size_t n = 0;
	for (const char *p = o.lines; (p = strstr(p, "past the 256")); p++)
		n++;
	cr_expect_eq(n, 5, "the tree's own .git and 255 of the run's stay: %s", o.lines);
	free(o.lines);
	settled();
}
