/* The judge: every operation against every kind of object, both answers. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <linux/fs.h>
#include <pthread.h>
#include <string.h>

#include "policy/policy.h"

/* The kinds of object, as (dev 1, ino N). */
#define ROOT ((struct policy_id){ 1, 1 })
#define GITDIR ((struct policy_id){ 1, 2 })  /* .git: anchor */
#define HOOKS ((struct policy_id){ 1, 3 })   /* .git/hooks: frozen, read-only */
#define HOOK ((struct policy_id){ 1, 4 })    /* .git/hooks/pre-commit: read-only */
#define CONFIG ((struct policy_id){ 1, 5 })  /* .git/config: read-only file */
#define PLAIN ((struct policy_id){ 1, 6 })   /* src/main.c */
#define SRC ((struct policy_id){ 1, 7 })     /* src */
#define VSCODE_NEW ((struct policy_id){ 1, 8 })

static struct policy_snapshot *snap;

static void build(void)
{
	struct policy_builder *b = policy_builder_new();

	cr_assert(b);
	cr_assert_eq(policy_builder_protect(b, GITDIR, POLICY_ANCHOR, ".git", "the git directory"), 0);
	cr_assert_eq(policy_builder_protect(b, HOOKS, POLICY_CONTENT | POLICY_FROZEN | POLICY_ANCHOR, ".git/hooks",
					    "hooks: git runs them"), 0);
	cr_assert_eq(policy_builder_protect(b, HOOK, POLICY_CONTENT | POLICY_ANCHOR, ".git/hooks/pre-commit",
					    "a hook"), 0);
	cr_assert_eq(policy_builder_protect(b, CONFIG, POLICY_CONTENT | POLICY_ANCHOR, ".git/config", "config"), 0);
	cr_assert_eq(policy_builder_protect_missing(b, GITDIR, "commondir", POLICY_MISSING_NONE, ".git/commondir",
						    "commondir redirects git"), 0);
	cr_assert_eq(policy_builder_protect_missing(b, ROOT, ".vscode", POLICY_MISSING_MKDIR_OK, ".vscode",
						    "on the way to .vscode/tasks.json"), 0);
	cr_assert_eq(policy_builder_watch(b, ROOT, ".vscode"), 0);
	snap = policy_builder_finish(b);
	cr_assert(snap);
}

static void teardown(void)
{
	policy_snapshot_release(snap);
}

TestSuite(policy, .init = build, .fini = teardown);

static const enum policy_op object_ops[] = {
	POLICY_OP_WRITE, POLICY_OP_TRUNCATE, POLICY_OP_CHMOD, POLICY_OP_CHOWN, POLICY_OP_UTIMES,
	POLICY_OP_SETXATTR, POLICY_OP_REMOVEXATTR, POLICY_OP_FALLOCATE, POLICY_OP_COPY_INTO,
};

Test(policy, object_ops_on_protected_file_are_denied)
{
	for (size_t i = 0; i < sizeof(object_ops) / sizeof(object_ops[0]); i++) {
		struct policy_verdict v = { 0 };

		cr_expect_eq(policy_check_object(snap, object_ops[i], CONFIG, &v), -EACCES, "%s",
			     policy_op_name(object_ops[i]));
		cr_expect_str_eq(v.rule, POLICY_RULE_PROTECTED);
		cr_expect_str_eq(v.path, ".git/config");
		cr_expect_str_eq(v.reason, "config");
		cr_expect_eq(policy_check_object(snap, object_ops[i], HOOK, &v), -EACCES);
		cr_expect_eq(policy_check_object(snap, object_ops[i], HOOKS, &v), -EACCES);
	}
}

Test(policy, object_ops_on_plain_file_are_allowed)
{
	for (size_t i = 0; i < sizeof(object_ops) / sizeof(object_ops[0]); i++) {
		struct policy_verdict v = { 0 };

		cr_expect_eq(policy_check_object(snap, object_ops[i], PLAIN, &v), 0, "%s",
			     policy_op_name(object_ops[i]));
	}
}

Test(policy, anchor_keeps_mode_and_owner_only)
{
	struct policy_verdict v;

	cr_expect_eq(policy_check_object(snap, POLICY_OP_CHMOD, GITDIR, &v), -EACCES);
	cr_expect_str_eq(v.rule, POLICY_RULE_ANCHOR);
	cr_expect_eq(policy_check_object(snap, POLICY_OP_CHOWN, GITDIR, &v), -EACCES);
	cr_expect_eq(policy_check_object(snap, POLICY_OP_UTIMES, GITDIR, &v), 0);
	cr_expect_eq(policy_check_object(snap, POLICY_OP_SETXATTR, GITDIR, &v), 0);
}

static const enum policy_op add_ops[] = {
	POLICY_OP_CREATE, POLICY_OP_MKNOD, POLICY_OP_MKDIR, POLICY_OP_SYMLINK, POLICY_OP_LINK, POLICY_OP_RENAME,
};

Test(policy, nothing_is_added_to_a_frozen_dir)
{
	for (size_t i = 0; i < sizeof(add_ops) / sizeof(add_ops[0]); i++) {
		struct policy_verdict v = { 0 };

		cr_expect_eq(policy_check_add(snap, add_ops[i], HOOKS, "post-checkout", &v), -EACCES);
		cr_expect_str_eq(v.rule, POLICY_RULE_FROZEN);
		cr_expect_str_eq(v.name, "post-checkout");
		cr_expect_str_eq(v.path, ".git/hooks");
	}
}

Test(policy, missing_protected_name_cannot_be_made)
{
	for (size_t i = 0; i < sizeof(add_ops) / sizeof(add_ops[0]); i++) {
		struct policy_verdict v = { 0 };

		cr_expect_eq(policy_check_add(snap, add_ops[i], GITDIR, "commondir", &v), -EACCES);
		cr_expect_str_eq(v.rule, POLICY_RULE_MISSING);
		cr_expect_str_eq(v.path, ".git/commondir");
	}
}

Test(policy, mkdir_ok_name_takes_only_mkdir)
{
	for (size_t i = 0; i < sizeof(add_ops) / sizeof(add_ops[0]); i++) {
		struct policy_verdict v = { 0 };
		int expected = add_ops[i] == POLICY_OP_MKDIR ? 0 : -EACCES;

		cr_expect_eq(policy_check_add(snap, add_ops[i], ROOT, ".vscode", &v), expected, "%s",
			     policy_op_name(add_ops[i]));
	}
	cr_expect(policy_watched(snap, ROOT, ".vscode"));
	cr_expect_not(policy_watched(snap, ROOT, ".vscodf"));
}

Test(policy, ordinary_names_are_added)
{
	for (size_t i = 0; i < sizeof(add_ops) / sizeof(add_ops[0]); i++) {
		struct policy_verdict v;

		cr_expect_eq(policy_check_add(snap, add_ops[i], SRC, "new.c", &v), 0);
		cr_expect_eq(policy_check_add(snap, add_ops[i], GITDIR, "index.lock", &v), 0);
	}
}

Test(policy, protected_inode_gets_no_new_name)
{
	struct policy_verdict v;

	cr_expect_eq(policy_check_link(snap, HOOK, SRC, "innocent", &v), -EACCES);
	cr_expect_str_eq(v.path, ".git/hooks/pre-commit");
	cr_expect_eq(policy_check_link(snap, CONFIG, SRC, "cfg", &v), -EACCES);
	cr_expect_eq(policy_check_link(snap, PLAIN, SRC, "alias.c", &v), 0);
	cr_expect_eq(policy_check_link(snap, PLAIN, HOOKS, "pre-push", &v), -EACCES);
	cr_expect_eq(policy_check_link(snap, PLAIN, GITDIR, "commondir", &v), -EACCES);
}

Test(policy, removal_of_each_kind)
{
	struct policy_verdict v;

	cr_expect_eq(policy_check_remove(snap, POLICY_OP_UNLINK, HOOKS, "pre-commit", HOOK, &v), -EACCES);
	cr_expect_str_eq(v.rule, POLICY_RULE_FROZEN);
	cr_expect_eq(policy_check_remove(snap, POLICY_OP_UNLINK, GITDIR, "config", CONFIG, &v), -EACCES);
	cr_expect_str_eq(v.rule, POLICY_RULE_PROTECTED);
	cr_expect_eq(policy_check_remove(snap, POLICY_OP_RMDIR, GITDIR, "hooks", HOOKS, &v), -EACCES);
	cr_expect_eq(policy_check_remove(snap, POLICY_OP_RMDIR, ROOT, ".git", GITDIR, &v), -EACCES);
	cr_expect_str_eq(v.rule, POLICY_RULE_ANCHOR);
	cr_expect_eq(policy_check_remove(snap, POLICY_OP_UNLINK, SRC, "main.c", PLAIN, &v), 0);
	/* a hard link elsewhere still names the protected inode */
	cr_expect_eq(policy_check_remove(snap, POLICY_OP_UNLINK, SRC, "old-link", CONFIG, &v), -EACCES);
}

Test(policy, rename_sources)
{
	struct policy_verdict v;

	cr_expect_eq(policy_check_rename(snap, ROOT, ".git", GITDIR, ROOT, "old-git", NULL, 0, &v), -EACCES);
	cr_expect_str_eq(v.rule, POLICY_RULE_ANCHOR);
	cr_expect_eq(policy_check_rename(snap, GITDIR, "hooks", HOOKS, GITDIR, "hooks.off", NULL, 0, &v), -EACCES);
	cr_expect_eq(policy_check_rename(snap, HOOKS, "pre-commit", HOOK, SRC, "x", NULL, 0, &v), -EACCES);
	cr_expect_eq(policy_check_rename(snap, SRC, "main.c", PLAIN, SRC, "main2.c", NULL, 0, &v), 0);
}

Test(policy, rename_targets)
{
	struct policy_verdict v;
	struct policy_id lock = { 1, 100 };

	/* config.lock over config: only with identical bytes */
	cr_expect_eq(policy_check_rename(snap, GITDIR, "config.lock", lock, GITDIR, "config", &CONFIG, 0, &v),
		     POLICY_IF_IDENTICAL);
	cr_expect_str_eq(v.path, ".git/config");
	cr_expect_eq(policy_check_rename(snap, SRC, "x", lock, HOOKS, "pre-commit", &HOOK, 0, &v), -EACCES);
	cr_expect_str_eq(v.rule, POLICY_RULE_FROZEN);
	cr_expect_eq(policy_check_rename(snap, SRC, "x", lock, HOOKS, "post-merge", NULL, 0, &v), -EACCES);
	cr_expect_eq(policy_check_rename(snap, SRC, "x", lock, GITDIR, "commondir", NULL, 0, &v), -EACCES);
	cr_expect_str_eq(v.rule, POLICY_RULE_MISSING);
	cr_expect_eq(policy_check_rename(snap, SRC, "x", lock, ROOT, ".vscode", NULL, 0, &v), -EACCES);
	cr_expect_eq(policy_check_rename(snap, SRC, "x", lock, ROOT, ".git", &GITDIR, 0, &v), -EACCES);
	cr_expect_eq(policy_check_rename(snap, SRC, "x", lock, SRC, "main.c", &PLAIN, 0, &v), 0);
}

Test(policy, rename_exchange_is_checked_both_ways)
{
	struct policy_verdict v;
	struct policy_id other = { 1, 101 };

	cr_expect_eq(policy_check_rename(snap, GITDIR, "other", other, GITDIR, "config", &CONFIG, RENAME_EXCHANGE,
					 &v), -EACCES);
	cr_expect_eq(policy_check_rename(snap, GITDIR, "config", CONFIG, GITDIR, "other", &other, RENAME_EXCHANGE,
					 &v), -EACCES);
	cr_expect_eq(policy_check_rename(snap, SRC, "a", other, SRC, "main.c", &PLAIN, RENAME_EXCHANGE, &v), 0);
}

Test(policy, noreplace_onto_existing_is_left_to_the_kernel)
{
	struct policy_verdict v;
	struct policy_id other = { 1, 101 };

	cr_expect_eq(policy_check_rename(snap, GITDIR, "x", other, GITDIR, "config", &CONFIG, RENAME_NOREPLACE, &v),
		     0);
}

Test(policy, no_snapshot_fails_closed)
{
	struct policy_verdict v;

	cr_expect_eq(policy_check_object(NULL, POLICY_OP_WRITE, PLAIN, &v), -EACCES);
	cr_expect_str_eq(v.rule, POLICY_RULE_FAIL_CLOSED);
	cr_expect_eq(policy_check_add(NULL, POLICY_OP_CREATE, SRC, "x", &v), -EACCES);
	cr_expect_eq(policy_check_link(NULL, PLAIN, SRC, "x", &v), -EACCES);
	cr_expect_eq(policy_check_remove(NULL, POLICY_OP_UNLINK, SRC, "x", PLAIN, &v), -EACCES);
	cr_expect_eq(policy_check_rename(NULL, SRC, "a", PLAIN, SRC, "b", NULL, 0, &v), -EACCES);
	cr_expect_not(policy_watched(NULL, ROOT, ".vscode"));
}

Test(policy, duplicates_merge_flags_and_keep_first_reason)
{
	struct policy_builder *b = policy_builder_new();
	struct policy_snapshot *s;
	const char *path, *reason;

	policy_builder_protect(b, PLAIN, POLICY_ANCHOR, "src/main.c", "first");
	policy_builder_protect(b, PLAIN, POLICY_CONTENT, "src/main.c", "second");
	policy_builder_protect_missing(b, ROOT, ".vscode", POLICY_MISSING_MKDIR_OK, ".vscode", "a");
	policy_builder_protect_missing(b, ROOT, ".vscode", POLICY_MISSING_NONE, ".vscode", "b");
	s = policy_builder_finish(b);
	cr_assert(s);
	cr_expect_eq(policy_lookup(s, PLAIN, &path, &reason), POLICY_CONTENT | POLICY_ANCHOR);
	cr_expect_str_eq(reason, "first");
	cr_expect_eq(policy_snapshot_objects(s), 1);
	cr_expect_eq(policy_snapshot_missing(s), 1);
	/* one listing forbids even mkdir: the stricter wins */
	struct policy_verdict v;
	cr_expect_eq(policy_check_add(s, POLICY_OP_MKDIR, ROOT, ".vscode", &v), -EACCES);
	policy_snapshot_release(s);
}

Test(policy, many_objects_are_all_found)
{
	struct policy_builder *b = policy_builder_new();
	struct policy_snapshot *s;

	for (uint64_t i = 0; i < 100000; i++)
		cr_assert_eq(policy_builder_protect(b, (struct policy_id){ 7, i * 7919 }, POLICY_CONTENT, "f", "r"),
			     0);
	s = policy_builder_finish(b);
	cr_assert(s);
	cr_expect_eq(policy_snapshot_objects(s), 100000);
	for (uint64_t i = 0; i < 100000; i++)
		cr_assert_eq(policy_lookup(s, (struct policy_id){ 7, i * 7919 }, NULL, NULL), POLICY_CONTENT);
	cr_expect_eq(policy_lookup(s, (struct policy_id){ 7, 1 }, NULL, NULL), 0);
	cr_expect_eq(policy_lookup(s, (struct policy_id){ 8, 0 }, NULL, NULL), 0);
	policy_snapshot_release(s);
}

static void *acquire_release_loop(void *arg)
{
	struct policy_holder *h = arg;

	for (int i = 0; i < 20000; i++) {
		const struct policy_snapshot *s = policy_holder_acquire(h);
		struct policy_verdict v;

		cr_assert_eq(policy_check_object(s, POLICY_OP_WRITE, CONFIG, &v), -EACCES);
		policy_snapshot_release(s);
	}
	return NULL;
}

Test(policy, holder_swaps_under_readers)
{
	struct policy_holder *h;
	pthread_t t[3];

	h = policy_holder_new(snap);
	snap = NULL;
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, acquire_release_loop, h);
	for (int i = 0; i < 200; i++) {
		build();
		policy_holder_publish(h, snap);
		snap = NULL;
	}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	policy_holder_free(h);
}

/* ---- Read-only iteration and the missing-name lookup (oz0fs --check, --explain) ---- */

Test(policy, lookup_missing_finds_a_protected_name)
{
	const char *path = NULL, *reason = NULL;
	unsigned flags = 99;

	cr_assert(policy_lookup_missing(snap, GITDIR, "commondir", &path, &reason, &flags));
	cr_expect_str_eq(path, ".git/commondir");
	cr_expect_str_eq(reason, "commondir redirects git");
	cr_expect_eq(flags, POLICY_MISSING_NONE);
	cr_assert(policy_lookup_missing(snap, ROOT, ".vscode", NULL, NULL, &flags));
	cr_expect_eq(flags, POLICY_MISSING_MKDIR_OK);
}

Test(policy, lookup_missing_misses_other_names_and_parents)
{
	const char *path = "x", *reason = "x";
	unsigned flags = 99;

	cr_expect_not(policy_lookup_missing(snap, GITDIR, "config", &path, &reason, &flags));
	cr_expect_null(path);
	cr_expect_null(reason);
	cr_expect_eq(flags, 0);
	/* the right name in the wrong folder */
	cr_expect_not(policy_lookup_missing(snap, ROOT, "commondir", NULL, NULL, NULL));
	cr_expect_not(policy_lookup_missing(NULL, GITDIR, "commondir", NULL, NULL, NULL));
}

struct seen {
	unsigned content, frozen, anchor_only, missing, mkdir_ok;
	bool hooks_seen;
};

static void count_object(const struct policy_entry *e, void *data)
{
	struct seen *seen = data;

	cr_expect_null(e->name);
	if (e->flags & POLICY_CONTENT)
		seen->content++;
	if (e->flags & POLICY_FROZEN)
		seen->frozen++;
	if (e->flags == POLICY_ANCHOR)
		seen->anchor_only++;
	if (e->id.ino == HOOKS.ino) {
		cr_expect_str_eq(e->path, ".git/hooks");
		cr_expect_str_eq(e->reason, "hooks: git runs them");
		seen->hooks_seen = true;
	}
}

static void count_missing(const struct policy_entry *e, void *data)
{
	struct seen *seen = data;

	cr_expect_not_null(e->name);
	seen->missing++;
	if (e->flags & POLICY_MISSING_MKDIR_OK) {
		cr_expect_str_eq(e->name, ".vscode");
		cr_expect_eq(e->id.ino, ROOT.ino);
		seen->mkdir_ok++;
	}
}

Test(policy, foreach_shows_every_entry_once)
{
	struct seen seen = { 0 };

	policy_snapshot_foreach_object(snap, count_object, &seen);
	policy_snapshot_foreach_missing(snap, count_missing, &seen);
	cr_expect_eq(seen.content, 3); /* hooks, the hook, config */
	cr_expect_eq(seen.frozen, 1);
	cr_expect_eq(seen.anchor_only, 1); /* .git */
	cr_expect(seen.hooks_seen);
	cr_expect_eq(seen.missing, 2);
	cr_expect_eq(seen.mkdir_ok, 1);
}

static void count_calls(const struct policy_entry *e, void *data)
{
	(*(unsigned *)data)++;
}

Test(policy, foreach_merges_an_object_protected_twice)
{
	struct policy_builder *b = policy_builder_new();
	struct policy_snapshot *s;
	unsigned calls = 0;

	cr_assert(b);
	cr_assert_eq(policy_builder_protect(b, CONFIG, POLICY_CONTENT, ".git/config", "first"), 0);
	cr_assert_eq(policy_builder_protect(b, CONFIG, POLICY_REWRITABLE, ".git/config", "second"), 0);
	s = policy_builder_finish(b);
	cr_assert(s);
	policy_snapshot_foreach_object(s, count_calls, &calls);
	cr_expect_eq(calls, 1);
	calls = 0;
	policy_snapshot_foreach_missing(s, count_calls, &calls);
	cr_expect_eq(calls, 0);
	policy_snapshot_release(s);
}

Test(policy, foreach_on_no_snapshot_calls_nothing)
{
	unsigned calls = 0;

	policy_snapshot_foreach_object(NULL, count_calls, &calls);
	policy_snapshot_foreach_missing(NULL, count_calls, &calls);
	cr_expect_eq(calls, 0);
}
