/* The static Git model on real trees made with `git init`: what it protects,
 * with which flags, what the judge then answers, and what it refuses. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/model.h"
#include "policy/conf.h"
#include "policy/policy.h"

static char top[] = P_tmpdir "/oz0-model-XXXXXX";
static int rootfd = -1;
static struct git_model *model;
static const struct policy_snapshot *snap;

/* Runs a shell command in the tree. */
static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	_cleanup_free_ char *cmd = NULL, *full = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	cr_assert_neq(r, -1);
	cr_assert_neq(asprintf(&full, "cd '%s' && { %s; } >/dev/null 2>&1", top, cmd), -1);
	cr_assert_eq(system(full), 0, "failed: %s", cmd);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(top));
	rootfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(rootfd, 0);
}

static void teardown(void)
{
	_cleanup_free_ char *cmd = NULL;

	policy_snapshot_release(snap);
	git_model_free(model);
	closep(&rootfd);
	cr_assert_neq(asprintf(&cmd, "chmod -R u+rwx '%s'; rm -rf '%s'", top, top), -1);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(model, .init = setup, .fini = teardown);

static void git_init(void)
{
	sh("git init -q .");
}

/* Builds the model and takes the current snapshot into snap. */
static void build(const struct policy_config *cfg)
{
	char *err = NULL;
	int r = git_model_new(rootfd, cfg, &model, &err);

	cr_assert_eq(r, 0, "git_model_new: %d %s", r, err ? err : "");
	cr_assert_null(err);
	snap = policy_holder_acquire(git_model_holder(model));
	cr_assert_not_null(snap);
}

static void refresh(void)
{
	policy_snapshot_release(snap);
	snap = policy_holder_acquire(git_model_holder(model));
}

/* Asserts that building refuses with ERR and a message containing WHAT. */
static void assert_refused(int err, const char *what)
{
	_cleanup_free_ char *msg = NULL;
	struct git_model *m = NULL;
	int r = git_model_new(rootfd, NULL, &m, &msg);

	cr_assert_eq(r, err, "got %d (%s), want %d", r, msg ? msg : "", err);
	cr_assert_null(m);
	cr_assert_not_null(msg);
	cr_assert_not_null(strstr(msg, what), "'%s' does not say '%s'", msg, what);
	cr_assert_null(strchr(msg, '\n'));
}

static struct policy_id id_of(const char *path)
{
	struct stat st;

	cr_assert_eq(fstatat(rootfd, path, &st, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH), 0, "%s", path);
	return (struct policy_id){ .dev = (uint64_t)st.st_dev, .ino = (uint64_t)st.st_ino };
}

static unsigned flags_of(const char *path)
{
	return policy_lookup(snap, id_of(path), NULL, NULL);
}

static const char *reason_of(const char *path)
{
	const char *reason = NULL, *where = NULL;

	cr_assert_neq(policy_lookup(snap, id_of(path), &where, &reason), 0, "%s is not protected", path);
	cr_assert_str_eq(where, *path ? path : ".");
	return reason;
}

#define CFA (POLICY_CONTENT | POLICY_FROZEN | POLICY_ANCHOR)
#define CA (POLICY_CONTENT | POLICY_ANCHOR)
/* A Git configuration: harmless rewrites may still reach it (fs/replace.h). */
#define CAR (CA | POLICY_REWRITABLE)

/* policy_check_add's answer and, for a denial, its rule. */
static const char *add_verdict(enum policy_op op, const char *parent, const char *name)
{
	struct policy_verdict v = { 0 };
	int r = policy_check_add(snap, op, id_of(parent), name, &v);

	if (r == 0)
		return "allow";
	cr_assert_eq(r, -EACCES);
	return v.rule;
}

static const char *object_verdict(enum policy_op op, const char *path)
{
	struct policy_verdict v = { 0 };
	int r = policy_check_object(snap, op, id_of(path), &v);

	if (r == 0)
		return "allow";
	cr_assert_eq(r, -EACCES);
	return v.rule;
}

static const char *remove_verdict(enum policy_op op, const char *parent, const char *name)
{
	struct policy_verdict v = { 0 };
	_cleanup_free_ char *path = NULL;
	int r;

	cr_assert_neq(asprintf(&path, "%s%s%s", parent, *parent ? "/" : "", name), -1);
	r = policy_check_remove(snap, op, id_of(parent), name, id_of(path), &v);
	if (r == 0)
		return "allow";
	cr_assert_eq(r, -EACCES);
	return v.rule;
}

Test(model, git_directory)
{
	git_init();
	sh("mkdir -p .git/hooks/lib && echo x > .git/hooks/lib/helper && echo y > .git/hooks/pre-commit");
	build(NULL);

	cr_assert_eq(flags_of(".git"), POLICY_ANCHOR);
	cr_assert_eq(flags_of(".git/hooks"), CFA);
	cr_assert_eq(flags_of(".git/hooks/pre-commit.sample"), CA);
	cr_assert_eq(flags_of(".git/hooks/pre-commit"), CA);
	cr_assert_eq(flags_of(".git/hooks/lib"), CFA);
	cr_assert_eq(flags_of(".git/hooks/lib/helper"), CA);
	cr_assert_eq(flags_of(".git/config"), CAR);
	cr_assert_eq(flags_of(".git/HEAD"), 0);
	cr_assert_eq(flags_of(".git/info"), 0);
	cr_assert_str_eq(reason_of(".git/hooks/lib/helper"), "hooks of the git directory .git: git runs them");
	cr_assert_str_eq(reason_of(".git/config"),
			 "configuration of the git directory .git: it can name programs git runs");

	/* What the judge makes of it. */
	cr_assert_str_eq(object_verdict(POLICY_OP_WRITE, ".git/hooks/pre-commit.sample"), POLICY_RULE_PROTECTED);
	cr_assert_str_eq(object_verdict(POLICY_OP_CHMOD, ".git/hooks/pre-commit.sample"), POLICY_RULE_PROTECTED);
	cr_assert_str_eq(object_verdict(POLICY_OP_WRITE, ".git/config"), POLICY_RULE_PROTECTED);
	cr_assert_str_eq(object_verdict(POLICY_OP_WRITE, ".git/HEAD"), "allow");
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, ".git/hooks", "post-checkout"), POLICY_RULE_FROZEN);
	cr_assert_str_eq(add_verdict(POLICY_OP_SYMLINK, ".git/hooks/lib", "x"), POLICY_RULE_FROZEN);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, ".git", "index.lock"), "allow");
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, ".git", "config.worktree"), POLICY_RULE_MISSING);
	cr_assert_str_eq(add_verdict(POLICY_OP_MKDIR, ".git", "config.worktree"), POLICY_RULE_MISSING);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, ".git", "commondir"), POLICY_RULE_MISSING);
	cr_assert_str_eq(remove_verdict(POLICY_OP_RMDIR, "", ".git"), POLICY_RULE_ANCHOR);
	cr_assert_str_eq(remove_verdict(POLICY_OP_RMDIR, ".git", "hooks"), POLICY_RULE_PROTECTED);
	cr_assert_str_eq(remove_verdict(POLICY_OP_UNLINK, ".git/hooks", "pre-commit"), POLICY_RULE_FROZEN);
	cr_assert_str_eq(remove_verdict(POLICY_OP_UNLINK, ".git", "HEAD"), "allow");
}

Test(model, git_rewrites_config_through_a_lock)
{
	struct policy_verdict v = { 0 };
	struct policy_id config;

	git_init();
	sh("cp .git/config .git/config.lock");
	build(NULL);
	config = id_of(".git/config");
	/* git config's rename of config.lock over config: only identical bytes pass. */
	cr_assert_eq(policy_check_rename(snap, id_of(".git"), "config.lock", id_of(".git/config.lock"), id_of(".git"),
					 "config", &config, 0, &v),
		     POLICY_IF_IDENTICAL);
	cr_assert_str_eq(v.path, ".git/config");
	/* A second name for a hook would be a way around the frozen folder. */
	cr_assert_eq(policy_check_link(snap, id_of(".git/hooks/pre-commit.sample"), id_of(""), "x", &v), -EACCES);
	cr_assert_str_eq(v.rule, POLICY_RULE_PROTECTED);
}

Test(model, config_worktree_present)
{
	git_init();
	sh("git config extensions.worktreeConfig true && git config --worktree core.bare false");
	build(NULL);
	cr_assert_eq(flags_of(".git/config.worktree"), CAR);
	cr_assert_str_eq(object_verdict(POLICY_OP_TRUNCATE, ".git/config.worktree"), POLICY_RULE_PROTECTED);
}

Test(model, missing_hooks_and_config)
{
	git_init();
	sh("rm -rf .git/hooks .git/config");
	build(NULL);
	cr_assert_str_eq(add_verdict(POLICY_OP_MKDIR, ".git", "hooks"), POLICY_RULE_MISSING);
	cr_assert_str_eq(add_verdict(POLICY_OP_SYMLINK, ".git", "hooks"), POLICY_RULE_MISSING);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, ".git", "config"), POLICY_RULE_MISSING);
	cr_assert_str_eq(add_verdict(POLICY_OP_MKNOD, ".git", "config"), POLICY_RULE_MISSING);
}

Test(model, symlinked_hooks_refused)
{
	git_init();
	sh("mv .git/hooks hooks-elsewhere && ln -s ../hooks-elsewhere .git/hooks");
	assert_refused(-ELOOP, "'.git/hooks' is a symbolic link");
}

Test(model, symlink_inside_hooks_refused)
{
	git_init();
	sh("echo evil > evil.sh && ln -s ../../evil.sh .git/hooks/pre-commit");
	assert_refused(-ELOOP, "'.git/hooks/pre-commit' is a symbolic link");
}

Test(model, fifo_config_refused)
{
	git_init();
	sh("rm .git/config && mkfifo .git/config");
	assert_refused(-EINVAL, "'.git/config' is a FIFO");
}

Test(model, symlinked_config_refused)
{
	git_init();
	sh("mv .git/config my-config && ln -s ../my-config .git/config");
	assert_refused(-ELOOP, "'.git/config' is a symbolic link");
}

Test(model, commondir_refused)
{
	git_init();
	sh("echo .. > .git/commondir");
	assert_refused(-EEXIST, "git writes commondir only in a linked worktree's folder");
}

Test(model, git_file)
{
	sh("mkdir -p elsewhere && git init -q --separate-git-dir=elsewhere/repo.git .");
	build(NULL);
	cr_assert_eq(flags_of(".git"), CA);
	cr_assert_str_eq(object_verdict(POLICY_OP_WRITE, ".git"), POLICY_RULE_PROTECTED);
	cr_assert_str_eq(remove_verdict(POLICY_OP_UNLINK, "", ".git"), POLICY_RULE_PROTECTED);
	/* What it names is the live model's, next issue. */
	cr_assert_eq(flags_of("elsewhere/repo.git/config"), 0);
}

Test(model, git_symlink_refused)
{
	sh("mkdir real && git init -q real && ln -s real/.git .git");
	assert_refused(-ELOOP, "'.git' is a symbolic link");
}

Test(model, no_git)
{
	sh("echo hello > file");
	build(NULL);
	cr_assert_str_eq(add_verdict(POLICY_OP_MKDIR, "", ".git"), "allow");
	cr_assert_eq(flags_of("file"), 0);
	/* The tool paths are protected all the same. */
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "", ".envrc"), POLICY_RULE_MISSING);
	cr_assert_eq(flags_of(""), POLICY_ANCHOR);
}

Test(model, tool_paths)
{
	git_init();
	sh("mkdir -p .claude/commands && echo '{}' > .claude/settings.json && echo x > .claude/commands/c.md");
	sh("echo 'export A=1' > .envrc");
	build(NULL);
	cr_assert_eq(flags_of(".claude"), CFA);
	cr_assert_eq(flags_of(".claude/commands"), CFA);
	cr_assert_eq(flags_of(".claude/settings.json"), CA);
	cr_assert_eq(flags_of(".claude/commands/c.md"), CA);
	cr_assert_str_eq(reason_of(".claude/settings.json"), "Claude Code settings can run commands");
	cr_assert_eq(flags_of(".envrc"), CA);
	cr_assert_str_eq(reason_of(".envrc"), "direnv runs it when a shell enters the folder");
	cr_assert_str_eq(object_verdict(POLICY_OP_WRITE, ".envrc"), POLICY_RULE_PROTECTED);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, ".claude", "settings.local.json"), POLICY_RULE_FROZEN);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "", ".codex"), POLICY_RULE_MISSING);
	cr_assert_str_eq(add_verdict(POLICY_OP_MKDIR, "", ".cursor"), POLICY_RULE_MISSING);
	/* The root is on the way to them all. */
	cr_assert_eq(flags_of(""), POLICY_ANCHOR);
	cr_assert_str_eq(object_verdict(POLICY_OP_CHMOD, ""), POLICY_RULE_ANCHOR);
	cr_assert_str_eq(object_verdict(POLICY_OP_UTIMES, ""), "allow");
}

Test(model, vscode_folder_made_during_the_mount)
{
	struct policy_id root;

	git_init();
	build(NULL);
	root = id_of("");
	/* .vscode may come only as an empty folder, and the model wants to hear of it. */
	cr_assert_str_eq(add_verdict(POLICY_OP_MKDIR, "", ".vscode"), "allow");
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "", ".vscode"), POLICY_RULE_MISSING);
	cr_assert_str_eq(add_verdict(POLICY_OP_RENAME, "", ".vscode"), POLICY_RULE_MISSING);
	cr_assert(policy_watched(snap, root, ".vscode"));
	cr_assert_not(policy_watched(snap, root, ".git"));

	sh("mkdir .vscode");
	git_model_changed(model, root, ".vscode");
	refresh();
	cr_assert_eq(flags_of(".vscode"), POLICY_ANCHOR);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, ".vscode", "tasks.json"), POLICY_RULE_MISSING);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, ".vscode", "settings.json"), "allow");
	cr_assert_str_eq(remove_verdict(POLICY_OP_RMDIR, "", ".vscode"), POLICY_RULE_ANCHOR);
	cr_assert_str_eq(reason_of(".vscode"), "on the way to .vscode/tasks.json: VS Code runs the tasks it lists");
}

Test(model, vscode_tasks_present)
{
	git_init();
	sh("mkdir .vscode && echo '{}' > .vscode/tasks.json && echo '{}' > .vscode/settings.json");
	build(NULL);
	cr_assert_eq(flags_of(".vscode"), POLICY_ANCHOR);
	cr_assert_eq(flags_of(".vscode/tasks.json"), CA);
	cr_assert_eq(flags_of(".vscode/settings.json"), 0);
	cr_assert_str_eq(reason_of(".vscode/tasks.json"), "VS Code runs the tasks it lists");
}

Test(model, file_on_the_way_is_an_anchor)
{
	git_init();
	sh("echo not-a-folder > .vscode");
	build(NULL);
	cr_assert_eq(flags_of(".vscode"), POLICY_ANCHOR);
	cr_assert_str_eq(remove_verdict(POLICY_OP_UNLINK, "", ".vscode"), POLICY_RULE_ANCHOR);
}

Test(model, symlink_on_the_way_refused)
{
	git_init();
	sh("mkdir real && ln -s real .vscode");
	assert_refused(-ELOOP, "'.vscode' is a symbolic link");
}

static struct policy_config *load_config(const char *text)
{
	_cleanup_free_ char *file = NULL, *msg = NULL;
	struct policy_config *cfg = NULL;
	FILE *f;

	cr_assert_neq(asprintf(&file, "%s.conf", top), -1);
	f = fopen(file, "we");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	cr_assert_eq(policy_config_load(file, &cfg, &msg), 0, "%s", msg);
	unlink(file);
	return cfg;
}

Test(model, protect_and_unprotect)
{
	struct policy_config *cfg = load_config("[protect]\npath = .mcp.json\npath = .github/workflows\n"
						"path = .idea\n[unprotect]\npath = .envrc\n");
	_cleanup_free_ char *reason = NULL;

	git_init();
	sh("echo '{}' > .mcp.json && echo 'export A=1' > .envrc && mkdir -p .idea/x && echo y > .idea/x/ws.xml");
	build(cfg);
	cr_assert_neq(asprintf(&reason, "named in [protect] of %s", cfg->file), -1);
	policy_config_free(cfg); /* the model keeps its own copy */

	cr_assert_eq(flags_of(".mcp.json"), CA);
	cr_assert_str_eq(reason_of(".mcp.json"), reason);
	cr_assert_eq(flags_of(".idea"), CFA);
	cr_assert_eq(flags_of(".idea/x/ws.xml"), CA);
	cr_assert_eq(flags_of(".envrc"), 0);
	cr_assert_str_eq(object_verdict(POLICY_OP_WRITE, ".envrc"), "allow");
	cr_assert_str_eq(add_verdict(POLICY_OP_MKDIR, "", ".github"), "allow");
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "", ".github"), POLICY_RULE_MISSING);
	/* Still the defaults that were not freed. */
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "", ".claude"), POLICY_RULE_MISSING);
}

Test(model, depth_bound)
{
	git_init();
	sh("mkdir -p .git/hooks/1/2/3/4/5/6/7/8");
	build(NULL);
	cr_assert_eq(flags_of(".git/hooks/1/2/3/4/5/6/7/8"), CFA);
	git_model_free(model);
	model = NULL;
	policy_snapshot_release(snap);
	snap = NULL;
	sh("mkdir .git/hooks/1/2/3/4/5/6/7/8/9");
	assert_refused(-E2BIG, "more than 8 folders below '.git/hooks'");
}

Test(model, entry_bound)
{
	git_init();
	/* git init made some samples; make the total 10,001. */
	sh("cd .git/hooks && n=$(ls -A | wc -l) && seq 1 $((10001 - n)) | sed 's/^/h/' | xargs touch");
	assert_refused(-E2BIG, "'.git/hooks' holds more than 10000 entries");
}

/* As root, permissions do not stop anything: become nobody, owning the tree. */
static void become_nobody(void)
{
	if (geteuid() != 0)
		return;
	sh("chown -R 65534:65534 .");
	cr_assert_eq(setgroups(0, NULL), 0);
	cr_assert_eq(setresgid(65534, 65534, 65534), 0);
	cr_assert_eq(setresuid(65534, 65534, 65534), 0);
}

Test(model, unsearchable_folder_refused)
{
	git_init();
	become_nobody();
	sh("chmod 0 .git/hooks");
	assert_refused(-EACCES, "cannot look into '.git/hooks': Permission denied; give the daemon's user its "
				"access back (chmod u+rwx '.git/hooks')");
	sh("chmod 755 .git/hooks && chmod 0 .git");
	assert_refused(-EACCES, "(chmod u+rwx '.git')");
}

Test(model, failed_rebuild_keeps_the_last_snapshot)
{
	const struct policy_snapshot *before;

	git_init();
	build(NULL);
	before = snap;
	sh("rm .git/config && mkfifo .git/config");
	git_model_changed(model, id_of(""), ".vscode");
	refresh();
	cr_assert_eq(snap, before, "a failed rebuild published something");
	/* The old answers stand. */
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, ".git/hooks", "pre-push"), POLICY_RULE_FROZEN);
}

static void *rebuild_often(void *arg)
{
	for (int i = 0; i < 50; i++)
		git_model_changed(arg, (struct policy_id){ 0 }, ".vscode");
	return NULL;
}

Test(model, concurrent_rebuilds)
{
	pthread_t threads[4];

	git_init();
	build(NULL);
	for (size_t i = 0; i < ELEMENTSOF(threads); i++)
		cr_assert_eq(pthread_create(&threads[i], NULL, rebuild_often, model), 0);
	for (int i = 0; i < 200; i++) {
		const struct policy_snapshot *s = policy_holder_acquire(git_model_holder(model));
		struct policy_verdict v;

		cr_assert_eq(policy_check_add(s, POLICY_OP_CREATE, id_of(".git/hooks"), "x", &v), -EACCES);
		policy_snapshot_release(s);
	}
	for (size_t i = 0; i < ELEMENTSOF(threads); i++)
		pthread_join(threads[i], NULL);
	refresh();
	cr_assert_eq(flags_of(".git/hooks"), CFA);
}
