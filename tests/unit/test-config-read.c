#include "config.h"

/* gitcfg_read()'s API: which files it reports and how, the errors it names,
 * its bounds. That the entries equal git's is the oracle's job
 * (tests/git-config-includes/). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/config-read.h"

static char top[] = P_tmpdir "/oz0-config-read-XXXXXX";
static char root[PATH_MAX];
static int rootfd = -1;

static void put(const char *name, const char *text)
{
	_cleanup_free_ char *dir = strdup(name);
	int fd;

	cr_assert_not_null(dir);
	/* make each folder on the way, as mkdir -p */
	for (char *slash = strchr(dir, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdirat(rootfd, dir, 0755);
		*slash = '/';
	}
	fd = openat(rootfd, name, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "create %s", name);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(top));
	cr_assert_not_null(realpath(top, root));
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(rootfd, 0);
	cr_assert_eq(mkdirat(rootfd, ".git", 0755), 0);
	put(".git/HEAD", "ref: refs/heads/main\n");
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	close(rootfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(config_read, .init = setup, .fini = teardown, .timeout = 10);

static int read_config(struct gitcfg_config **c, struct gitcfg_read_error *err)
{
	struct gitcfg_read_opts opts = {.root_path = root, .gitdir = ".git", .home = "/oz0-no-home"};

	return gitcfg_read(rootfd, &opts, c, err);
}

static const struct gitcfg_file *file_named(const struct gitcfg_config *c, const char *origin)
{
	for (size_t i = 0; i < c->n_files; i++)
		if (!strcmp(c->files[i].origin, origin))
			return &c->files[i];
	cr_assert_fail("no file %s", origin);
	return NULL;
}

Test(config_read, entries_carry_their_file_and_line)
{
	struct gitcfg_config *c = NULL;

	put(".git/config", "[core]\n\tbare = false\n[include]\n\tpath = ../inc.cfg\n[a]\n\tb\n");
	put("inc.cfg", "\n[x]\n\ty = z\n");
	cr_assert_eq(read_config(&c, NULL), 0);
	cr_assert_eq(c->n_entries, 4);
	cr_assert_str_eq(c->entries[1].name, "include.path");
	cr_assert_str_eq(c->entries[2].name, "x.y");
	cr_assert_str_eq(c->entries[2].value, "z");
	cr_assert_eq(c->entries[2].line, 3);
	cr_assert_str_eq(c->files[c->entries[2].file].origin, ".git/../inc.cfg");
	cr_assert_str_eq(c->files[c->entries[2].file].path, "inc.cfg");
	cr_assert_eq(c->files[c->entries[2].file].parent, 0);
	cr_assert_eq(c->files[c->entries[2].file].line, 4);
	cr_assert_str_eq(c->entries[3].name, "a.b");
	cr_assert_null(c->entries[3].value);
	cr_assert_eq(c->entries[3].file, 0);
	gitcfg_config_free(c);
}

Test(config_read, reports_missing_and_outside_includes)
{
	struct gitcfg_config *c = NULL;
	const struct gitcfg_file *f;

	put(".git/config", "[include]\n\tpath = gone.cfg\n\tpath = nodir/../x.cfg\n\tpath = /oz0-elsewhere/x.cfg\n"
	                   "\tpath = ~/x.cfg\n\tpath = ../../../../../../../../oz0-up.cfg\n");
	put(".git/x.cfg", "[never]\n\tread = 1\n");
	cr_assert_eq(read_config(&c, NULL), 0);
	cr_assert_eq(c->n_files, 6);
	f = file_named(c, ".git/gone.cfg");
	cr_assert_eq(f->state, GITCFG_FILE_MISSING);
	cr_assert_str_eq(f->path, ".git/gone.cfg");
	/* what must not be made is the folder that would let the path resolve */
	f = file_named(c, ".git/nodir/../x.cfg");
	cr_assert_eq(f->state, GITCFG_FILE_MISSING);
	cr_assert_str_eq(f->path, ".git/nodir");
	f = file_named(c, "/oz0-elsewhere/x.cfg");
	cr_assert_eq(f->state, GITCFG_FILE_OUTSIDE);
	cr_assert_null(f->path);
	cr_assert_eq(file_named(c, "/oz0-no-home/x.cfg")->state, GITCFG_FILE_OUTSIDE);
	cr_assert_eq(file_named(c, ".git/../../../../../../../../oz0-up.cfg")->state, GITCFG_FILE_OUTSIDE);
	cr_assert_eq(c->n_entries, 5);
	gitcfg_config_free(c);
}

Test(config_read, a_link_on_the_way_fails_naming_the_file)
{
	struct gitcfg_config *c = NULL;
	struct gitcfg_read_error err;

	put(".git/config", "[include]\n\tpath = sub/x.cfg\n");
	put("real/x.cfg", "[x]\n\ty = 1\n");
	cr_assert_eq(symlinkat("../real", rootfd, ".git/sub"), 0);
	cr_assert_eq(read_config(&c, &err), -ELOOP);
	cr_assert_null(c);
	cr_assert_str_eq(err.file, ".git/sub/x.cfg");
	cr_assert_not_null(strstr(err.reason, "symbolic link"), "%s", err.reason);
}

Test(config_read, a_fifo_fails_without_blocking, .timeout = 5)
{
	struct gitcfg_config *c = NULL;
	struct gitcfg_read_error err;

	put(".git/config", "[include]\n\tpath = fifo\n");
	cr_assert_eq(mkfifoat(rootfd, ".git/fifo", 0644), 0);
	cr_assert_eq(read_config(&c, &err), -EINVAL);
	cr_assert_str_eq(err.file, ".git/fifo");
	cr_assert_str_eq(err.reason, "cannot read it: not a regular file");
}

Test(config_read, a_parse_error_names_the_included_file_and_line)
{
	struct gitcfg_config *c = NULL;
	struct gitcfg_read_error err;

	put(".git/config", "[include]\n\tpath = a.cfg\n");
	put(".git/a.cfg", "[ok]\n\tk = v\n[broken\n");
	cr_assert_eq(read_config(&c, &err), -EINVAL);
	cr_assert_str_eq(err.file, ".git/a.cfg");
	cr_assert_eq(strncmp(err.reason, "bad config line 3", 17), 0, "%s", err.reason);
}

Test(config_read, a_cycle_fails_at_depth_eleven)
{
	struct gitcfg_config *c = NULL;
	struct gitcfg_read_error err;

	put(".git/config", "[include]\n\tpath = config\n");
	cr_assert_eq(read_config(&c, &err), -EINVAL);
	cr_assert_str_eq(err.file, ".git/config");
	cr_assert_not_null(strstr(err.reason, "more than 10 levels"), "%s", err.reason);
}

Test(config_read, hasconfig_pass_reports_its_files_as_urls_only)
{
	struct gitcfg_config *c = NULL;

	put(".git/config", "[remote \"o\"]\n\turl = https://x.org/r\n"
	                   "[includeIf \"hasconfig:remote.*.url:https://nomatch/**\"]\n\tpath = h.cfg\n");
	put(".git/h.cfg", "[h]\n\tk = v\n");
	cr_assert_eq(read_config(&c, NULL), 0);
	/* weighing the condition runs the URL pass, which reads both files for
	 * their URLs; then the listing takes the include, which does not hold,
	 * as dormant */
	cr_assert_eq(c->n_files, 4);
	cr_assert_not(c->files[0].urls_only);
	cr_assert(c->files[1].urls_only);
	cr_assert_str_eq(c->files[2].origin, ".git/h.cfg");
	cr_assert(c->files[2].urls_only);
	cr_assert_str_eq(c->files[3].origin, ".git/h.cfg");
	cr_assert(c->files[3].dormant);
	cr_assert_not(c->files[3].urls_only);
	cr_assert_eq(c->n_entries, 3);
	cr_assert_str_eq(c->entries[2].name, "h.k");
	cr_assert(c->files[c->entries[2].file].dormant);
	gitcfg_config_free(c);
}

Test(config_read, an_include_whose_condition_does_not_hold_is_read_dormant)
{
	struct gitcfg_config *c = NULL;

	put(".git/config", "[includeIf \"onbranch:other\"]\n\tpath = ../b.cfg\n"
	                   "[includeIf \"gitdir:/nowhere/\"]\n\tpath = ../g.cfg\n"
	                   "[includeIf \"onbranch:main\"]\n\tpath = ../live.cfg\n");
	put("b.cfg", "[core]\n\tfsmonitor = ./mon\n[include]\n\tpath = nested.cfg\n");
	put("nested.cfg", "[x]\n\ty = z\n");
	put("live.cfg", "[l]\n\tk = v\n");
	cr_assert_eq(read_config(&c, NULL), 0);
	cr_assert(file_named(c, ".git/../b.cfg")->dormant);
	cr_assert(file_named(c, ".git/../nested.cfg")->dormant, "what a dormant file includes is dormant");
	cr_assert(file_named(c, ".git/../g.cfg")->dormant);
	cr_assert_eq(file_named(c, ".git/../g.cfg")->state, GITCFG_FILE_MISSING);
	cr_assert_not(file_named(c, ".git/../live.cfg")->dormant);
	gitcfg_config_free(c);
}

Test(config_read, a_dormant_cycle_or_bad_path_fails_nothing_git_reads)
{
	struct gitcfg_config *c = NULL;

	/* git dies on these only once the condition holds */
	put(".git/config", "[includeIf \"onbranch:other\"]\n\tpath = config\n\tpath\n\tpath = ~nosuchuser/x\n");
	cr_assert_eq(read_config(&c, NULL), 0);
	cr_assert_geq(c->n_files, 2);
	gitcfg_config_free(c);
}

Test(config_read, an_include_outside_is_read_for_what_it_includes_back)
{
	_cleanup_free_ char *outside = NULL, *back = NULL;
	struct gitcfg_config *c = NULL;
	char dir[] = P_tmpdir "/oz0-config-outside-XXXXXX";
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_geq(asprintf(&outside, "%s/out.cfg", dir), 0);
	cr_assert_geq(asprintf(&back, "[include]\n\tpath = %s/back.cfg\n[o]\n\tk = v\n", root), 0);
	f = fopen(outside, "w");
	cr_assert_not_null(f);
	fputs(back, f);
	fclose(f);
	free(back);
	cr_assert_geq(asprintf(&back, "[include]\n\tpath = %s\n", outside), 0);
	put(".git/config", back);
	put("back.cfg", "[b]\n\tk = v\n");
	cr_assert_eq(read_config(&c, NULL), 0);
	cr_assert_eq(file_named(c, outside)->state, GITCFG_FILE_OUTSIDE);
	cr_assert_eq(file_named(c, outside)->parent, 0);
	cr_assert_eq(c->n_entries, 4);
	cr_assert_str_eq(c->entries[1].name, "include.path");
	cr_assert_str_eq(c->entries[2].name, "b.k");
	cr_assert_str_eq(c->files[c->entries[2].file].path, "back.cfg");
	cr_assert_eq(c->files[c->entries[2].file].state, GITCFG_FILE_READ);
	gitcfg_config_free(c);
	unlink(outside);
	rmdir(dir);
}

Test(config_read, a_path_through_a_link_outside_back_into_the_tree_is_the_tree_file)
{
	_cleanup_free_ char *link = NULL, *cfg = NULL;
	struct gitcfg_config *c = NULL;
	char dir[] = P_tmpdir "/oz0-config-link-XXXXXX";

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_geq(asprintf(&link, "%s/tree", dir), 0);
	cr_assert_eq(symlink(root, link), 0);
	cr_assert_geq(asprintf(&cfg, "[include]\n\tpath = %s/inc.cfg\n\tpath = %s/missing.cfg\n", link, link), 0);
	put(".git/config", cfg);
	put("inc.cfg", "[i]\n\tk = v\n");
	cr_assert_eq(read_config(&c, NULL), 0);
	cr_assert_eq(c->files[1].state, GITCFG_FILE_READ);
	cr_assert_str_eq(c->files[1].path, "inc.cfg");
	cr_assert_eq(c->files[2].state, GITCFG_FILE_MISSING);
	cr_assert_str_eq(c->files[2].path, "missing.cfg");
	gitcfg_config_free(c);
	unlink(link);
	rmdir(dir);
}

Test(config_read, a_path_where_git_sees_the_tree_is_in_the_tree)
{
	struct gitcfg_read_opts opts = {.root_path = root, .gitdir = ".git", .seen_as = "/workspace"};
	struct gitcfg_config *c = NULL;

	put(".git/config", "[include]\n\tpath = /workspace/inc.cfg\n"
	                   "[includeIf \"gitdir:/workspace/\"]\n\tpath = /workspace/g.cfg\n");
	put("inc.cfg", "[i]\n\tk = v\n");
	cr_assert_eq(gitcfg_read(rootfd, &opts, &c, NULL), 0);
	cr_assert_eq(file_named(c, "/workspace/inc.cfg")->state, GITCFG_FILE_READ);
	cr_assert_str_eq(file_named(c, "/workspace/inc.cfg")->path, "inc.cfg");
	cr_assert_eq(file_named(c, "/workspace/g.cfg")->state, GITCFG_FILE_MISSING);
	cr_assert_not(file_named(c, "/workspace/g.cfg")->dormant, "gitdir: matches where git sees the tree");
	gitcfg_config_free(c);
}

Test(config_read, worktree_config_is_read_when_the_format_asks)
{
	struct gitcfg_config *c = NULL;
	struct gitcfg_read_opts opts = {.root_path = root, .gitdir = ".git/worktrees/w", .commondir = ".git"};

	put(".git/config", "[extensions]\n\tworktreeConfig = on\n");
	put(".git/worktrees/w/config.worktree", "[w]\n\tk = v\n");
	put(".git/worktrees/w/HEAD", "ref: refs/heads/w\n");
	cr_assert_eq(gitcfg_read(rootfd, &opts, &c, NULL), 0);
	cr_assert_eq(c->n_files, 2);
	cr_assert_str_eq(c->files[1].origin, ".git/worktrees/w/config.worktree");
	cr_assert_str_eq(c->entries[1].name, "w.k");
	gitcfg_config_free(c);
}

Test(config_read, a_missing_config_is_an_empty_one)
{
	struct gitcfg_config *c = NULL;

	cr_assert_eq(read_config(&c, NULL), 0);
	cr_assert_eq(c->n_entries, 0);
	cr_assert_eq(c->n_files, 1);
	cr_assert_eq(c->files[0].state, GITCFG_FILE_MISSING);
	gitcfg_config_free(c);
}

Test(config_read, too_many_files_is_e2big)
{
	struct gitcfg_config *c = NULL;
	struct gitcfg_read_error err;
	char text[64 * (GITCFG_READ_MAX_FILES + 1)];
	size_t n = 0;

	n += (size_t)snprintf(text, sizeof(text), "[include]\n");
	for (int i = 0; i <= GITCFG_READ_MAX_FILES; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "\tpath = none%d.cfg\n", i);
	put(".git/config", text);
	cr_assert_eq(read_config(&c, &err), -E2BIG);
	cr_assert_not_null(strstr(err.reason, "configuration files"));
}

Test(config_read, refuses_bad_options)
{
	static const struct gitcfg_read_opts bad[] = {
		{.root_path = "relative", .gitdir = ".git"},
		{.root_path = "/a/", .gitdir = ".git"},
		{.root_path = "/a/../b", .gitdir = ".git"},
		{.root_path = "/a", .gitdir = "/abs"},
		{.root_path = "/a", .gitdir = ""},
		{.root_path = "/a", .gitdir = ".git", .commondir = "/abs"},
	};
	struct gitcfg_config *c = NULL;

	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		cr_expect_eq(gitcfg_read(rootfd, &bad[i], &c, NULL), -EINVAL, "case %zu", i);
}

Test(config_read, free_accepts_null)
{
	cr_assert_null(gitcfg_config_free(NULL));
}
