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
#include "tests/unit/tree-fixture.h"

static struct git_model *model;
static const struct policy_snapshot *snap;

static void teardown(void)
{
	policy_snapshot_release(snap);
	git_model_free(model);
	fixture_remove();
}

TestSuite(model, .init = fixture_make, .fini = teardown);

static void git_init(void)
{
	fixture_sh("git init -q .");
}

/* Builds the model and takes the current snapshot into snap. */
static void build(const struct policy_config *cfg)
{
	char *err = NULL;
	int r = git_model_new(fixture_rootfd, NULL, cfg, &model, &err);

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
	int r = git_model_new(fixture_rootfd, NULL, NULL, &m, &msg);

	cr_assert_eq(r, err, "got %d (%s), want %d", r, msg ? msg : "", err);
	cr_assert_null(m);
	cr_assert_not_null(msg);
	cr_assert_not_null(strstr(msg, what), "'%s' does not say '%s'", msg, what);
	cr_assert_null(strchr(msg, '\n'));
}

static struct policy_id id_of(const char *path)
{
	struct stat st;

	cr_assert_eq(fstatat(fixture_rootfd, path, &st, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH), 0, "%s", path);
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
	fixture_sh("mkdir -p .git/hooks/lib && echo x > .git/hooks/lib/helper && echo y > .git/hooks/pre-commit");
	build(NULL);

	cr_assert_eq(flags_of(".git"), POLICY_ANCHOR);
	cr_assert_eq(flags_of(".git/hooks"), CFA);
	cr_assert_eq(flags_of(".git/hooks/pre-commit.sample"), CA);
	cr_assert_eq(flags_of(".git/hooks/pre-commit"), CA);
	cr_assert_eq(flags_of(".git/hooks/lib"), CFA);
	cr_assert_eq(flags_of(".git/hooks/lib/helper"), CA);
	cr_assert_eq(flags_of(".git/config"), CAR);
	cr_assert_eq(flags_of(".git/HEAD"), 0);
	cr_assert_eq(flags_of(".git/info"), POLICY_ANCHOR); /* on the way to info/attributes */
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, ".git/info", "attributes"), POLICY_RULE_MISSING);
	cr_assert_eq(flags_of(".git/info/exclude"), 0);
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
	fixture_sh("cp .git/config .git/config.lock");
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
	fixture_sh("git config extensions.worktreeConfig true && git config --worktree core.bare false");
	build(NULL);
	cr_assert_eq(flags_of(".git/config.worktree"), CAR);
	cr_assert_str_eq(object_verdict(POLICY_OP_TRUNCATE, ".git/config.worktree"), POLICY_RULE_PROTECTED);
}

Test(model, missing_hooks_and_config)
{
	git_init();
	fixture_sh("rm -rf .git/hooks .git/config");
	build(NULL);
	cr_assert_str_eq(add_verdict(POLICY_OP_MKDIR, ".git", "hooks"), POLICY_RULE_MISSING);
	cr_assert_str_eq(add_verdict(POLICY_OP_SYMLINK, ".git", "hooks"), POLICY_RULE_MISSING);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, ".git", "config"), POLICY_RULE_MISSING);
	cr_assert_str_eq(add_verdict(POLICY_OP_MKNOD, ".git", "config"), POLICY_RULE_MISSING);
}

Test(model, symlinked_hooks_refused)
{
	git_init();
	fixture_sh("mv .git/hooks hooks-elsewhere && ln -s ../hooks-elsewhere .git/hooks");
	assert_refused(-ELOOP, "'.git/hooks' is a symbolic link");
}

Test(model, symlink_inside_hooks_refused)
{
	git_init();
	fixture_sh("echo evil > evil.sh && ln -s ../../evil.sh .git/hooks/pre-commit");
	assert_refused(-ELOOP, "'.git/hooks/pre-commit' is a symbolic link");
}

Test(model, fifo_config_refused)
{
	git_init();
	fixture_sh("rm .git/config && mkfifo .git/config");
	assert_refused(-EINVAL, "'.git/config' is a FIFO");
}

Test(model, symlinked_config_refused)
{
	git_init();
	fixture_sh("mv .git/config my-config && ln -s ../my-config .git/config");
	assert_refused(-ELOOP, "'.git/config' is a symbolic link");
}

Test(model, commondir_refused)
{
	git_init();
	fixture_sh("echo .. > .git/commondir");
	assert_refused(-EEXIST, "git writes commondir only in a linked worktree's folder");
}

Test(model, git_file)
{
	fixture_sh("mkdir -p elsewhere && git init -q --separate-git-dir=elsewhere/repo.git .");
	build(NULL);
	cr_assert_eq(flags_of(".git"), CA);
	cr_assert_str_eq(object_verdict(POLICY_OP_WRITE, ".git"), POLICY_RULE_PROTECTED);
	cr_assert_str_eq(remove_verdict(POLICY_OP_UNLINK, "", ".git"), POLICY_RULE_PROTECTED);
	/* What it names lies in the tree: held as .git's own. */
	cr_assert_eq(flags_of("elsewhere/repo.git/config"), CAR);
	cr_assert_eq(flags_of("elsewhere/repo.git/hooks"), CFA);
	cr_assert_eq(flags_of("elsewhere/repo.git"), POLICY_ANCHOR);
	cr_assert_eq(flags_of("elsewhere"), POLICY_ANCHOR);
	cr_assert_eq(flags_of("elsewhere/repo.git/HEAD"), 0);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "elsewhere/repo.git", "commondir"), POLICY_RULE_MISSING);
	cr_assert_str_eq(reason_of("elsewhere/repo.git/config"),
			 "configuration of the git directory elsewhere/repo.git, named by .git: it can name programs "
			 "git runs");
}

Test(model, git_symlink_refused)
{
	fixture_sh("mkdir real && git init -q real && ln -s real/.git .git");
	assert_refused(-ELOOP, "'.git' is a symbolic link");
}

Test(model, no_git)
{
	fixture_sh("echo hello > file");
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
	fixture_sh("mkdir -p .claude/commands && echo '{}' > .claude/settings.json && echo x > .claude/commands/c.md");
	fixture_sh("echo 'export A=1' > .envrc");
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

	fixture_sh("mkdir .vscode");
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
	fixture_sh("mkdir .vscode && echo '{}' > .vscode/tasks.json && echo '{}' > .vscode/settings.json");
	build(NULL);
	cr_assert_eq(flags_of(".vscode"), POLICY_ANCHOR);
	cr_assert_eq(flags_of(".vscode/tasks.json"), CA);
	cr_assert_eq(flags_of(".vscode/settings.json"), 0);
	cr_assert_str_eq(reason_of(".vscode/tasks.json"), "VS Code runs the tasks it lists");
}

Test(model, file_on_the_way_is_an_anchor)
{
	git_init();
	fixture_sh("echo not-a-folder > .vscode");
	build(NULL);
	cr_assert_eq(flags_of(".vscode"), POLICY_ANCHOR);
	cr_assert_str_eq(remove_verdict(POLICY_OP_UNLINK, "", ".vscode"), POLICY_RULE_ANCHOR);
}

Test(model, symlink_on_the_way_refused)
{
	git_init();
	fixture_sh("mkdir real && ln -s real .vscode");
	assert_refused(-ELOOP, "'.vscode' is a symbolic link");
}

static struct policy_config *load_config(const char *text)
{
	_cleanup_free_ char *file = NULL, *msg = NULL;
	struct policy_config *cfg = NULL;
	FILE *f;

	cr_assert_neq(asprintf(&file, "%s.conf", fixture_top), -1);
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
	fixture_sh("echo '{}' > .mcp.json && echo 'export A=1' > .envrc && mkdir -p .idea/x && echo y > .idea/x/ws.xml");
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

Test(model, denied_names_by_identity)
{
	struct policy_config *cfg = load_config("[deny]\nname = .env.agent\nname = .keys\n");
	_cleanup_free_ char *reason = NULL;

	git_init();
	fixture_sh("mkdir -p a/b .keys/sub && echo s > a/b/.env.agent && echo k > .keys/sub/id && echo p > plain "
	           "&& ln a/b/.env.agent alias && ln .keys/sub/id key-alias && ln -s .keys link && mkdir -p n/.git");
	build(cfg);
	cr_assert_neq(asprintf(&reason, "'.keys' is named in [deny] of %s", cfg->file), -1);
	policy_config_free(cfg);

	cr_assert_eq(flags_of("a/b/.env.agent"), POLICY_DENIED);
	cr_assert_eq(flags_of("alias"), POLICY_DENIED, "a hard link made before the mount is the same object");
	cr_assert_eq(flags_of(".keys"), POLICY_DENIED);
	cr_assert_eq(flags_of(".keys/sub"), POLICY_DENIED);
	cr_assert_eq(flags_of(".keys/sub/id"), POLICY_DENIED);
	cr_assert_eq(flags_of("key-alias"), POLICY_DENIED);
	cr_assert_str_eq(reason_of(".keys/sub/id"), reason);
	cr_assert_eq(flags_of("plain"), 0);
	cr_assert_eq(flags_of("link"), 0, "a link to a denied folder is not denied itself");
	cr_assert_eq(flags_of("a/b"), 0);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "a", ".env.agent"), POLICY_RULE_DENIED);
	cr_assert_str_eq(add_verdict(POLICY_OP_MKDIR, "n", ".keys"), POLICY_RULE_DENIED);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, ".keys", "new"), POLICY_RULE_DENIED);

	/* A rebuild keeps what the walk at start found. */
	fixture_sh("git config user.name x");
	git_model_changed(model, id_of(".git"), "config");
	refresh();
	cr_assert_eq(flags_of("alias"), POLICY_DENIED);
	cr_assert_eq(flags_of(".keys/sub/id"), POLICY_DENIED);
	cr_assert_str_eq(add_verdict(POLICY_OP_SYMLINK, "", ".env.agent"), POLICY_RULE_DENIED);
}

Test(model, nothing_is_denied_by_default)
{
	struct policy_verdict v = { 0 };

	git_init();
	fixture_sh("echo s > .env.agent && mkdir .keys && echo k > .keys/id");
	build(NULL);
	cr_assert_eq(flags_of(".env.agent"), 0);
	cr_assert_eq(flags_of(".keys/id"), 0);
	cr_assert_eq(policy_check_read(snap, id_of(".keys/id"), &v), 0);
	cr_assert_not(git_model_denies(model));
}

Test(model, depth_bound)
{
	git_init();
	fixture_sh("mkdir -p .git/hooks/1/2/3/4/5/6/7/8");
	build(NULL);
	cr_assert_eq(flags_of(".git/hooks/1/2/3/4/5/6/7/8"), CFA);
	git_model_free(model);
	model = NULL;
	policy_snapshot_release(snap);
	snap = NULL;
	fixture_sh("mkdir .git/hooks/1/2/3/4/5/6/7/8/9");
	assert_refused(-E2BIG, "more than 8 folders below '.git/hooks'");
}

Test(model, entry_bound)
{
	git_init();
	/* git init made some samples; make the total 10,001. */
	fixture_sh("cd .git/hooks && n=$(ls -A | wc -l) && seq 1 $((10001 - n)) | sed 's/^/h/' | xargs touch");
	assert_refused(-E2BIG, "'.git/hooks' holds more than 10000 entries");
}

/* As root, permissions do not stop anything: become nobody, owning the tree. */
static void become_nobody(void)
{
	if (geteuid() != 0)
		return;
	fixture_sh("chown -R 65534:65534 .");
	cr_assert_eq(setgroups(0, NULL), 0);
	cr_assert_eq(setresgid(65534, 65534, 65534), 0);
	cr_assert_eq(setresuid(65534, 65534, 65534), 0);
}

Test(model, unsearchable_folder_refused)
{
	git_init();
	become_nobody();
	fixture_sh("chmod 0 .git/hooks");
	assert_refused(-EACCES, "cannot look into '.git/hooks': Permission denied; give the daemon's user its "
				"access back (chmod u+rwx '.git/hooks')");
	fixture_sh("chmod 755 .git/hooks && chmod 0 .git");
	assert_refused(-EACCES, "(chmod u+rwx '.git')");
}

Test(model, failed_rebuild_keeps_the_last_snapshot)
{
	const struct policy_snapshot *before;

	git_init();
	build(NULL);
	before = snap;
	fixture_sh("rm .git/config && mkfifo .git/config");
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

/* ---- Discovery: git directories reached from the root's .git ---------------- */

static void commit_something(const char *dir)
{
	fixture_sh("echo x >>'%s/f' && git -C '%s' add f && git -C '%s' commit -qm x", dir, dir, dir);
}

Test(model, git_file_outside_the_tree)
{
	_cleanup_free_ char *cmd = NULL;
	char outside[] = P_tmpdir "/oz0-outside-XXXXXX";

	cr_assert_not_null(mkdtemp(outside));
	fixture_sh("git init -q --separate-git-dir='%s/repo.git' .", outside);
	build(NULL);
	cr_assert_eq(flags_of(".git"), CA);
	/* Left to the system: nothing in the tree but the file itself. */
	cr_assert_eq(policy_snapshot_objects(snap), 2); /* the root, an anchor, and .git */
	cr_assert_neq(asprintf(&cmd, "rm -rf '%s'", outside), -1);
	cr_assert_eq(system(cmd), 0);
}

Test(model, git_file_naming_a_missing_folder)
{
	fixture_sh("echo 'gitdir: later/repo.git' > .git");
	build(NULL);
	/* A folder made there would be the one git reads. */
	cr_assert_str_eq(add_verdict(POLICY_OP_MKDIR, "", "later"), "allow");
	cr_assert_str_eq(add_verdict(POLICY_OP_SYMLINK, "", "later"), POLICY_RULE_MISSING);
}

Test(model, git_file_refusals)
{
	fixture_sh("printf 'gitdir: a/../b\\n' > .git");
	assert_refused(-EINVAL, "cannot follow '.git': it has a '..' after a folder name");
	fixture_sh("printf 'gitdir: a\\0b\\n' > .git");
	assert_refused(-EINVAL, "it holds a NUL byte");
	fixture_sh("printf 'gitdir: a//b\\n' > .git");
	assert_refused(-EINVAL, "empty or '.' component");
	fixture_sh("printf 'nonsense\\n' > .git");
	assert_refused(-EINVAL, "it does not begin with 'gitdir: '");
	fixture_sh("mkdir -p real/repo.git && ln -s real link && printf 'gitdir: link/repo.git\\n' > .git");
	assert_refused(-ELOOP, "'link' is a symbolic link on the way to 'link/repo.git'");
	fixture_sh("head -c 2000000 /dev/zero > .git");
	assert_refused(-EFBIG, "cannot follow '.git'");
}

Test(model, linked_worktree_in_the_tree)
{
	git_init();
	commit_something(".");
	fixture_sh("git config extensions.worktreeConfig true && git worktree add -q wt -b side");
	fixture_sh("git -C wt config --worktree core.bare false");
	build(NULL);
	cr_assert_eq(flags_of(".git/worktrees/wt"), POLICY_ANCHOR);
	cr_assert_eq(flags_of(".git/worktrees/wt/commondir"), CA);
	cr_assert_eq(flags_of(".git/worktrees/wt/gitdir"), CA);
	cr_assert_eq(flags_of(".git/worktrees/wt/config.worktree"), CAR);
	cr_assert_eq(flags_of(".git/worktrees/wt/HEAD"), 0);
	cr_assert_eq(flags_of(".git/worktrees/wt/index"), 0);
	cr_assert_eq(flags_of("wt/.git"), CA);
	cr_assert_str_eq(reason_of(".git/worktrees/wt/commondir"),
			 "commondir of the linked worktree's folder .git/worktrees/wt: it would send git to another "
			 "folder's hooks and configuration");
	/* Its hooks and config are the common directory's: none of its own. */
	cr_assert_str_eq(add_verdict(POLICY_OP_MKDIR, ".git/worktrees/wt", "hooks"), "allow");
}

Test(model, linked_worktree_missing_config_worktree)
{
	git_init();
	commit_something(".");
	fixture_sh("git worktree add -q wt -b side");
	build(NULL);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, ".git/worktrees/wt", "config.worktree"), POLICY_RULE_MISSING);
	/* A worktree added during the mount is the agent's own. */
	fixture_sh("git worktree add -q wt2 -b side2");
	git_model_changed(model, id_of(""), ".vscode");
	refresh();
	cr_assert_eq(flags_of(".git/worktrees/wt2/commondir"), 0);
	cr_assert_eq(flags_of("wt2/.git"), 0);
	cr_assert_eq(flags_of(".git/worktrees/wt/commondir"), CA);
}

/* The tree is a linked worktree of a repository kept in the tree. */
Test(model, tree_is_a_linked_worktree)
{
	fixture_sh("git init -q repo && echo x > repo/f && git -C repo add f && git -C repo commit -qm x");
	fixture_sh("git -C repo worktree add -q ../wt -b side && cp wt/.git .git");
	build(NULL);
	cr_assert_eq(flags_of(".git"), CA);
	cr_assert_eq(flags_of("repo/.git/worktrees/wt/commondir"), CA);
	cr_assert_eq(flags_of("repo/.git/config"), CAR);
	cr_assert_eq(flags_of("repo/.git/hooks"), CFA);
	cr_assert_eq(flags_of("repo/.git/worktrees/wt/HEAD"), 0);
}

Test(model, commondir_outside_a_worktree_folder_refused)
{
	fixture_sh("mkdir -p other/repo.git && echo 'gitdir: other/repo.git' > .git && echo .. > other/repo.git/commondir");
	assert_refused(-EEXIST, "'other/repo.git/commondir' exists");
}

Test(model, commondir_stand_in)
{
	git_init();
	fixture_sh("echo . > .git/commondir");
	build(NULL);
	cr_assert_eq(flags_of(".git/commondir"), CA);
}

/* Submodules two levels deep, made by real git, their git directories
 * below .git/modules. */
Test(model, nested_submodules)
{
	fixture_sh("mkdir srcs && git init -q srcs/inner && echo i > srcs/inner/i && git -C srcs/inner add i && "
	   "git -C srcs/inner commit -qm i");
	fixture_sh("git init -q srcs/mid && echo m > srcs/mid/m && git -C srcs/mid add m && git -C srcs/mid commit -qm m");
	fixture_sh("git -C srcs/mid -c protocol.file.allow=always submodule add -q '%s/srcs/inner' inner && "
	   "git -C srcs/mid commit -qm s",
	   fixture_top);
	git_init();
	commit_something(".");
	fixture_sh("git -c protocol.file.allow=always submodule add -q '%s/srcs/mid' mid && git commit -qm s", fixture_top);
	fixture_sh("git -c protocol.file.allow=always submodule update -q --init --recursive");
	build(NULL);
	cr_assert_eq(flags_of(".git/modules/mid"), POLICY_ANCHOR);
	cr_assert_eq(flags_of(".git/modules/mid/config"), CAR);
	cr_assert_eq(flags_of(".git/modules/mid/hooks"), CFA);
	cr_assert_eq(flags_of(".git/modules/mid/modules/inner/config"), CAR);
	cr_assert_eq(flags_of(".git/modules/mid/modules/inner/hooks"), CFA);
	cr_assert_eq(flags_of(".git/modules/mid/modules"), POLICY_ANCHOR);
	cr_assert_eq(flags_of(".git/modules/mid/HEAD"), 0);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, ".git/modules/mid/modules/inner", "commondir"),
			 POLICY_RULE_MISSING);
	cr_assert_str_eq(reason_of(".git/modules/mid/modules/inner/hooks"),
			 "hooks of the git directory .git/modules/mid/modules/inner, a submodule's: git runs them");
	/* A new submodule's git directory is the agent's own. */
	cr_assert_str_eq(add_verdict(POLICY_OP_MKDIR, ".git/modules", "new"), "allow");
}

/* A name with '/' is a path of folders; only a folder with a HEAD is a git
 * directory. */
Test(model, submodule_name_with_a_slash)
{
	git_init();
	fixture_sh("mkdir -p .git/modules/libs/a/hooks && touch .git/modules/libs/a/HEAD .git/modules/libs/a/config");
	build(NULL);
	cr_assert_eq(flags_of(".git/modules/libs/a/config"), CAR);
	cr_assert_eq(flags_of(".git/modules/libs/a/hooks"), CFA);
	cr_assert_eq(flags_of(".git/modules/libs"), POLICY_ANCHOR);
}

static void fake_modules(unsigned n)
{
	fixture_sh("for i in $(seq %u); do mkdir -p .git/modules/m$i/hooks && touch .git/modules/m$i/HEAD; done", n);
}

Test(model, modules_bound_by_count)
{
	git_init();
	fake_modules(32);
	build(NULL);
	cr_assert_eq(flags_of(".git/modules/m32/hooks"), CFA);
	cr_assert_eq(flags_of(".git/modules/m32/HEAD"), 0);
	policy_snapshot_release(snap);
	git_model_free(model);
	snap = NULL;
	model = NULL;
	fake_modules(33);
	build(NULL);
	/* Past 32 the part is read-only as a whole. */
	cr_assert_eq(flags_of(".git/modules"), CFA);
	cr_assert_eq(flags_of(".git/modules/m33/HEAD"), CA);
	cr_assert_str_eq(add_verdict(POLICY_OP_MKDIR, ".git/modules", "new"), POLICY_RULE_FROZEN);
	cr_assert_not_null(strstr(reason_of(".git/modules/m1/HEAD"), "read-only as a whole"));
}

Test(model, modules_bound_by_depth)
{
	git_init();
	fixture_sh("mkdir -p .git/modules/a/b/c/d/e/f/g/h && touch .git/modules/a/b/c/d/e/f/g/h/HEAD");
	build(NULL);
	cr_assert_eq(flags_of(".git/modules/a/b/c/d/e/f/g/h/HEAD"), 0);
	policy_snapshot_release(snap);
	git_model_free(model);
	snap = NULL;
	model = NULL;
	fixture_sh("rm .git/modules/a/b/c/d/e/f/g/h/HEAD && mkdir .git/modules/a/b/c/d/e/f/g/h/i && "
	   "touch .git/modules/a/b/c/d/e/f/g/h/i/HEAD");
	build(NULL);
	cr_assert_eq(flags_of(".git/modules/a/b/c/d/e/f/g/h/i/HEAD"), CA);
}

Test(model, symlinked_module_refused)
{
	git_init();
	fixture_sh("mkdir -p elsewhere/x && touch elsewhere/x/HEAD && mkdir -p .git/modules && ln -s ../../elsewhere/x "
	   ".git/modules/x");
	assert_refused(-ELOOP, "'.git/modules/x' is a symbolic link");
}

Test(model, symlinked_nested_modules_refused)
{
	git_init();
	fake_modules(1);
	fixture_sh("mkdir -p elsewhere/y && touch elsewhere/y/HEAD && ln -s ../../../elsewhere .git/modules/m1/modules");
	assert_refused(-ELOOP, "'.git/modules/m1/modules' is a symbolic link");
}

Test(model, symlinked_worktree_folder_refused)
{
	git_init();
	fixture_sh("mkdir -p elsewhere/wt .git/worktrees && ln -s ../../elsewhere/wt .git/worktrees/wt");
	assert_refused(-ELOOP, "'.git/worktrees/wt' is a symbolic link");
}

Test(model, commondir_in_a_module_refused)
{
	git_init();
	fake_modules(1);
	fixture_sh("echo ../.. > .git/modules/m1/commondir");
	assert_refused(-EEXIST, "'.git/modules/m1/commondir' exists");
}

Test(model, git_dir_bound)
{
	git_init();
	fixture_sh("for i in $(seq 255); do mkdir -p .git/worktrees/w$i; done");
	build(NULL);
	cr_assert_eq(flags_of(".git/worktrees/w255"), POLICY_ANCHOR);
	policy_snapshot_release(snap);
	git_model_free(model);
	snap = NULL;
	model = NULL;
	fixture_sh("mkdir .git/worktrees/w256");
	assert_refused(-E2BIG, "past the 256 that oz0fs reads");
}

/* ---- Submodules from every index ------------------------------------------- */

/* An embedded repository at DIR, committed and recorded as a gitlink in the
 * repository at PARENT. */
static void embedded_repo(const char *parent, const char *dir)
{
	fixture_sh("git init -q '%s/%s' && echo s > '%s/%s/s' && git -C '%s/%s' add s && git -C '%s/%s' commit -qm s", parent, dir,
	   parent, dir, parent, dir, parent, dir);
	fixture_sh("git -C '%s' add '%s'", parent, dir);
}

Test(model, submodule_with_its_own_git_folder)
{
	git_init();
	commit_something(".");
	embedded_repo(".", "sub");
	embedded_repo("sub", "deeper");
	fixture_sh("mkdir -p sub/.git/modules/x sub/.git/worktrees/y && touch sub/.git/modules/x/HEAD");
	build(NULL);
	cr_assert_eq(flags_of("sub/.git"), POLICY_ANCHOR);
	cr_assert_eq(flags_of("sub/.git/hooks"), CFA);
	cr_assert_eq(flags_of("sub/.git/config"), CAR);
	cr_assert_eq(flags_of("sub/.git/HEAD"), 0);
	cr_assert_eq(flags_of("sub/.git/modules"), CFA);
	cr_assert_eq(flags_of("sub/.git/modules/x/HEAD"), CA);
	cr_assert_eq(flags_of("sub/.git/worktrees/y"), CFA);
	cr_assert_eq(flags_of("sub"), POLICY_ANCHOR);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "sub/.git", "commondir"), POLICY_RULE_MISSING);
	/* Two levels down: recorded by the submodule's own index. */
	cr_assert_eq(flags_of("sub/deeper/.git/config"), CAR);
	cr_assert_eq(flags_of("sub/deeper/.git/hooks"), CFA);
}

Test(model, untracked_nested_repository)
{
	git_init();
	fixture_sh("mkdir -p deep/er && git init -q deep/er/nested && git -C deep/er/nested config core.fsmonitor tools/m.sh");
	fixture_sh("git init -q deep/er/nested/inner");
	build(NULL);
	cr_assert_eq(flags_of("deep/er/nested/.git/config"), CAR);
	cr_assert_eq(flags_of("deep/er/nested/.git/hooks"), CFA);
	cr_assert_eq(flags_of("deep/er/nested/inner/.git/config"), CAR);
	cr_assert_str_eq(add_verdict(POLICY_OP_SYMLINK, "deep/er/nested", "tools"), POLICY_RULE_MISSING);
	/* One made during the mount is the settler's; those found at start stay. */
	fixture_sh("git init -q later");
	git_model_changed(model, id_of(""), ".vscode");
	refresh();
	cr_assert_eq(flags_of("later/.git/config"), 0);
	cr_assert_eq(flags_of("deep/er/nested/.git/config"), CAR);
}

Test(model, nested_repository_through_a_symlinked_git_refused)
{
	fixture_sh("mkdir -p a/real && git init -q a/real && mv a/real/.git a/real-git && ln -s ../real-git a/real/.git");
	assert_refused(-ELOOP, "'a/real/.git' is a symbolic link");
}

Test(model, submodule_git_file_naming_a_folder_in_the_tree)
{
	git_init();
	commit_something(".");
	fixture_sh("mkdir store && git init -q --separate-git-dir=store/x.git sub && echo s > sub/s && git -C sub add s && "
	   "git -C sub commit -qm s && git add sub");
	build(NULL);
	cr_assert_eq(flags_of("sub/.git"), CA);
	cr_assert_eq(flags_of("store/x.git/config"), CAR);
	cr_assert_eq(flags_of("store/x.git/hooks"), CFA);
	cr_assert_eq(flags_of("store"), POLICY_ANCHOR);
}

Test(model, submodule_in_a_linked_worktree_index)
{
	git_init();
	commit_something(".");
	fixture_sh("git worktree add -q wt -b side");
	embedded_repo("wt", "inwt");
	build(NULL);
	cr_assert_eq(flags_of("wt/inwt/.git/config"), CAR);
}

Test(model, sha256_repository)
{
	fixture_sh("git init -q --object-format=sha256 .");
	commit_something(".");
	fixture_sh("git init -q --object-format=sha256 sub && echo s > sub/s && git -C sub add s && git -C sub commit -qm s");
	fixture_sh("git add sub");
	build(NULL);
	cr_assert_eq(flags_of("sub/.git/config"), CAR);
}

Test(model, bad_index_refused)
{
	git_init();
	commit_something(".");
	/* The checksum's last byte made another one than it is (an 'X' may be
	 * what it was). */
	fixture_sh("n=$(($(stat -c %%s .git/index) - 1)) && b=$(tail -c 1 .git/index | od -An -tu1 | tr -d ' ') && "
	           "printf \"\\\\$(printf %%o $(((b + 1) %% 256)))\" | dd of=.git/index bs=1 seek=$n conv=notrunc 2>/dev/null");
	assert_refused(-EINVAL, "cannot read the index '.git/index'");
}

Test(model, symlinked_submodule_git_refused)
{
	git_init();
	commit_something(".");
	embedded_repo(".", "sub");
	fixture_sh("mv sub/.git sub-git && ln -s ../sub-git sub/.git");
	assert_refused(-ELOOP, "'sub/.git' is a symbolic link");
}

/* ---- What the configuration names ------------------------------------------ */

Test(model, hooks_path_in_the_tree)
{
	git_init();
	fixture_sh("mkdir -p .husky/_ && echo x > .husky/_/pre-commit && git config core.hooksPath .husky/_");
	build(NULL);
	cr_assert_eq(flags_of(".husky/_"), CFA);
	cr_assert_eq(flags_of(".husky/_/pre-commit"), CA);
	cr_assert_eq(flags_of(".husky"), POLICY_ANCHOR);
	cr_assert_str_eq(reason_of(".husky/_"), "the path of core.hookspath in .git/config:6, for the work tree .");
}

Test(model, included_files)
{
	git_init();
	fixture_sh("echo '[core]' > shared.cfg && git config include.path ../shared.cfg && "
	   "git config --add include.path ../later.cfg");
	build(NULL);
	cr_assert_eq(flags_of("shared.cfg"), CA);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "", "later.cfg"), POLICY_RULE_MISSING);
}

/* "~/" in an include path is the home git would see: one inside the tree
 * (a sandbox whose HOME is its work tree) makes the included file ours to
 * protect. */
Test(model, included_file_in_home_inside_the_tree)
{
	_cleanup_free_ char *home = NULL;

	git_init();
	fixture_sh("mkdir home && echo '[core]' > home/inc.cfg && git config include.path '~/inc.cfg'");
	cr_assert_neq(asprintf(&home, "%s/home", fixture_top), -1);
	cr_assert_eq(setenv("HOME", home, 1), 0);
	build(NULL);
	cr_assert_eq(flags_of("home/inc.cfg"), CA);
}

Test(model, configured_programs)
{
	git_init();
	fixture_sh("mkdir tools scripts && touch tools/fsmon.sh tools/conv.py scripts/x.sh tools/cred.sh");
	fixture_sh("git config core.fsmonitor tools/fsmon.sh && git config alias.x '!cd scripts && ./x.sh'");
	fixture_sh("git config filter.conv.clean 'python3 -W ignore tools/conv.py' && git config credential.helper "
	   "'!tools/cred.sh' && git config remote.r.url 'ext::tools/ext.sh %%S' && git config core.pager true");
	build(NULL);
	cr_assert_eq(flags_of("tools/fsmon.sh"), CA);
	cr_assert_eq(flags_of("scripts/x.sh"), CA);
	cr_assert_eq(flags_of("tools/conv.py"), CA);
	cr_assert_eq(flags_of("tools/cred.sh"), CA);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "tools", "ext.sh"), POLICY_RULE_MISSING);
	cr_assert_eq(flags_of("tools"), POLICY_ANCHOR);
	cr_assert_str_eq(reason_of("tools/fsmon.sh"),
			 "a program of the command of core.fsmonitor in .git/config:6, for the work tree .");
	/* The line may run x.sh where it started, too (cd can fail). */
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "", "x.sh"), POLICY_RULE_MISSING);
}

Test(model, configured_programs_in_other_spellings)
{
	git_init();
	fixture_sh("mkdir tools && touch a1.sh a2.sh pg.sh cred2.sh tools/cred tools/rh");
	fixture_sh("printf '[alias \"x\"]\\n\\ty = !./a1.sh\\n[alias.Y]\\n\\tz = !./a2.sh\\n"
	           "[pager \"x\"]\\n\\ty = ./pg.sh\\n' >>.git/config");
	fixture_sh("git config credential.helper tools/cred && git config --add credential.helper 'x; ./cred2.sh' && "
	           "git config --add credential.helper store && git config remote.r.vcs tools/rh && "
	           "git config 'url.ext::./urlcmd.sh %%S.insteadOf' https://example.invalid/");
	build(NULL);
	cr_assert_eq(flags_of("a1.sh"), CA);
	cr_assert_eq(flags_of("a2.sh"), CA);
	cr_assert_eq(flags_of("pg.sh"), CA);
	cr_assert_eq(flags_of("cred2.sh"), CA);
	/* git runs git credential-tools/cred: git-credential-tools/cred at the top */
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "", "git-credential-tools"), POLICY_RULE_MISSING);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "", "git-remote-tools"), POLICY_RULE_MISSING);
	cr_assert_eq(flags_of("tools/cred"), 0, "git never runs tools/cred itself");
	cr_assert_eq(flags_of("tools/rh"), 0);
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "", "urlcmd.sh"), POLICY_RULE_MISSING);
}

/* A configured line that is not valid sh to its end: sh runs its complete
 * commands before the error (git x runs ./al.sh, then sh meets 'if then
 * fi'), so their programs are held; what follows the error never runs. */
Test(model, configured_lines_not_valid_to_their_end)
{
	git_init();
	fixture_sh("mkdir tools && touch al.sh ssh.sh c.sh never.sh");
	fixture_sh("printf '[alias]\\n\\tx = \"!./al.sh\\\\nif then fi\\\\n./never.sh\"\\n"
	           "[core]\\n\\tsshCommand = \"./ssh.sh\\\\n{ }\"\\n"
	           "[credential]\\n\\thelper = \"!./c.sh\\\\ndone\"\\n"
	           "\\thelper = \"tools/cred\\\\nif then fi\"\\n' >>.git/config");
	build(NULL);
	cr_assert_eq(flags_of("al.sh"), CA);
	cr_assert_eq(flags_of("ssh.sh"), CA);
	cr_assert_eq(flags_of("c.sh"), CA);
	cr_assert_eq(flags_of("never.sh"), 0, "sh stops at the error");
	/* git credential-tools/cred, a line of its own before the error */
	cr_assert_str_eq(add_verdict(POLICY_OP_CREATE, "", "git-credential-tools"), POLICY_RULE_MISSING);
}

Test(model, configured_program_in_every_work_tree)
{
	git_init();
	commit_something(".");
	fixture_sh("git worktree add -q wt -b side && git config core.fsmonitor tools/fsmon.sh");
	build(NULL);
	cr_assert_str_eq(add_verdict(POLICY_OP_MKDIR, "", "tools"), "allow");
	cr_assert_str_eq(add_verdict(POLICY_OP_MKDIR, "wt", "tools"), "allow");
	cr_assert_str_eq(add_verdict(POLICY_OP_SYMLINK, "wt", "tools"), POLICY_RULE_MISSING);
}

Test(model, configured_program_outside_the_tree)
{
	git_init();
	fixture_sh("git config core.editor /usr/bin/vi && git config core.sshCommand '~/bin/ssh'");
	build(NULL);
	cr_assert_eq(flags_of(".git/config"), CAR);
}

Test(model, configured_path_with_dotdot_refused)
{
	git_init();
	fixture_sh("git config core.hooksPath 'a/../b'");
	assert_refused(-EINVAL, "cannot tell where 'a/../b' of core.hookspath in .git/config:6 leads");
}

/* ---- An unfinished rebase --------------------------------------------------- */

/* A rebase stopped at an exec step that fails, as a person left it. */
static void stopped_rebase(void)
{
	git_init();
	commit_something(".");
	commit_something(".");
	commit_something(".");
	fixture_sh("mkdir tools && printf '#!/bin/sh\\nexit 1\\n' > tools/check.sh && chmod +x tools/check.sh");
	fixture_sh("git rebase -q -x tools/check.sh HEAD~2 || true");
	fixture_sh("grep -q '^exec tools/check.sh' .git/rebase-merge/git-rebase-todo");
}

Test(model, existing_rebase)
{
	stopped_rebase();
	build(NULL);
	cr_assert_eq(flags_of(".git/rebase-merge"), CFA);
	cr_assert_eq(flags_of(".git/rebase-merge/git-rebase-todo"), CA);
	cr_assert_eq(flags_of("tools/check.sh"), CA);
	cr_assert_str_eq(reason_of("tools/check.sh"), "a program of the command of an exec step of "
						      ".git/rebase-merge/git-rebase-todo, for the work tree .");
}

Test(model, rebase_started_during_the_mount_is_the_agents)
{
	git_init();
	commit_something(".");
	commit_something(".");
	build(NULL);
	fixture_sh("mkdir tools && printf '#!/bin/sh\\nexit 1\\n' > tools/check.sh && chmod +x tools/check.sh");
	fixture_sh("git rebase -q -x tools/check.sh HEAD~1 || true");
	git_model_changed(model, id_of(""), ".vscode");
	refresh();
	cr_assert_eq(flags_of(".git/rebase-merge"), 0);
	cr_assert_eq(flags_of(".git/rebase-merge/git-rebase-todo"), 0);
}

/* An index is no protected file: a gitlink the agent drops from it must not
 * drop what was held at start. */
Test(model, dropped_gitlink_stays_held)
{
	git_init();
	commit_something(".");
	embedded_repo(".", "sub");
	fixture_sh("git commit -qm sub");
	build(NULL);
	cr_assert_eq(flags_of("sub/.git/hooks"), CFA);
	fixture_sh("git rm -q --cached sub");
	git_model_changed(model, id_of(""), ".vscode");
	refresh();
	cr_assert_eq(flags_of("sub/.git/hooks"), CFA);
	cr_assert_eq(flags_of("sub/.git/config"), CAR);
}
