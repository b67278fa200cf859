/* The judge on [deny] names: a denied object is neither read nor changed,
 * nothing in a denied folder is reached, and a denied name comes into
 * existence nowhere; without denied names, reads are never refused. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <linux/fs.h>
#include <string.h>

#include "policy/policy.h"

#define ROOT ((struct policy_id){ 1, 1 })
#define SRC ((struct policy_id){ 1, 2 })     /* src */
#define PLAIN ((struct policy_id){ 1, 3 })   /* src/main.c */
#define ENV ((struct policy_id){ 1, 4 })     /* src/.env.agent, denied */
#define KEYS ((struct policy_id){ 1, 5 })    /* .keys, a denied folder */
#define KEY ((struct policy_id){ 1, 6 })     /* .keys/id, in it */
#define CONFIG ((struct policy_id){ 1, 7 })  /* .git/config, protected */

#define REASON_ENV "'.env.agent' is named in [deny] of test.conf"
#define REASON_KEYS "'.keys' is named in [deny] of test.conf"

static struct policy_snapshot *snap;

static void build(void)
{
	struct policy_builder *b = policy_builder_new();

	cr_assert(b);
	cr_assert_eq(policy_builder_deny_name(b, ".env.agent", REASON_ENV), 0);
	cr_assert_eq(policy_builder_deny_name(b, ".keys", REASON_KEYS), 0);
	cr_assert_eq(policy_builder_protect(b, ENV, POLICY_DENIED, "src/.env.agent", REASON_ENV), 0);
	cr_assert_eq(policy_builder_protect(b, KEYS, POLICY_DENIED, ".keys", REASON_KEYS), 0);
	cr_assert_eq(policy_builder_protect(b, KEY, POLICY_DENIED, ".keys/id", REASON_KEYS), 0);
	cr_assert_eq(policy_builder_protect(b, CONFIG, POLICY_CONTENT | POLICY_ANCHOR, ".git/config", "config"), 0);
	snap = policy_builder_finish(b);
	cr_assert(snap);
}

static void teardown(void)
{
	policy_snapshot_release(snap);
}

TestSuite(deny, .init = build, .fini = teardown);

static void expect_denied(int r, const struct policy_verdict *v, const char *path, const char *reason)
{
	cr_expect_eq(r, -EACCES);
	cr_expect_str_eq(v->rule, POLICY_RULE_DENIED);
	cr_expect_str_eq(v->path, path);
	cr_expect_str_eq(v->reason, reason);
}

Test(deny, reads_of_denied_objects_are_refused)
{
	struct policy_verdict v = {0};

	expect_denied(policy_check_read(snap, ENV, &v), &v, "src/.env.agent", REASON_ENV);
	expect_denied(policy_check_read(snap, KEYS, &v), &v, ".keys", REASON_KEYS);
	expect_denied(policy_check_read(snap, KEY, &v), &v, ".keys/id", REASON_KEYS);
	cr_expect_eq(policy_check_read(snap, PLAIN, &v), 0);
	cr_expect_eq(policy_check_read(snap, SRC, &v), 0);
	cr_expect_eq(policy_check_read(snap, CONFIG, &v), 0, "a protected file is read");
}

Test(deny, every_change_of_a_denied_object_is_refused)
{
	for (enum policy_op op = POLICY_OP_WRITE; op <= POLICY_OP_COPY_INTO; op++) {
		struct policy_verdict v = {0};

		expect_denied(policy_check_object(snap, op, ENV, &v), &v, "src/.env.agent", REASON_ENV);
		expect_denied(policy_check_object(snap, op, KEYS, &v), &v, ".keys", REASON_KEYS);
		cr_expect_eq(policy_check_object(snap, op, PLAIN, &v), 0, "%s", policy_op_name(op));
	}
}

Test(deny, a_denied_name_is_made_nowhere)
{
	static const enum policy_op adds[] = { POLICY_OP_CREATE, POLICY_OP_MKNOD, POLICY_OP_MKDIR, POLICY_OP_SYMLINK };
	static const struct policy_id folders[] = { ROOT, SRC, { 9, 9 } };

	for (size_t i = 0; i < sizeof(adds) / sizeof(adds[0]); i++)
		for (size_t j = 0; j < sizeof(folders) / sizeof(folders[0]); j++) {
			struct policy_verdict v = {0};

			expect_denied(policy_check_add(snap, adds[i], folders[j], ".env.agent", &v), &v, ".env.agent",
			              REASON_ENV);
			cr_expect_str_eq(v.name, ".env.agent");
			expect_denied(policy_check_add(snap, adds[i], folders[j], ".keys", &v), &v, ".keys", REASON_KEYS);
			cr_expect_eq(policy_check_add(snap, adds[i], folders[j], ".env", &v), 0);
			cr_expect_eq(policy_check_add(snap, adds[i], folders[j], ".env.agent2", &v), 0);
		}
}

Test(deny, nothing_is_added_to_or_removed_from_a_denied_folder)
{
	struct policy_verdict v = {0};

	expect_denied(policy_check_add(snap, POLICY_OP_CREATE, KEYS, "new", &v), &v, ".keys", REASON_KEYS);
	expect_denied(policy_check_remove(snap, POLICY_OP_UNLINK, KEYS, "id", KEY, &v), &v, ".keys", REASON_KEYS);
	expect_denied(policy_check_rename(snap, SRC, "main.c", PLAIN, KEYS, "main.c", NULL, 0, &v), &v, ".keys",
	              REASON_KEYS);
	expect_denied(policy_check_link(snap, PLAIN, KEYS, "main.c", &v), &v, ".keys", REASON_KEYS);
}

Test(deny, a_denied_object_keeps_its_place_and_gets_no_other_name)
{
	struct policy_verdict v = {0};

	expect_denied(policy_check_remove(snap, POLICY_OP_UNLINK, SRC, ".env.agent", ENV, &v), &v, "src/.env.agent",
	              REASON_ENV);
	expect_denied(policy_check_remove(snap, POLICY_OP_RMDIR, ROOT, ".keys", KEYS, &v), &v, ".keys", REASON_KEYS);
	expect_denied(policy_check_rename(snap, SRC, ".env.agent", ENV, SRC, "env.txt", NULL, 0, &v), &v,
	              "src/.env.agent", REASON_ENV);
	expect_denied(policy_check_link(snap, ENV, SRC, "env.txt", &v), &v, "src/.env.agent", REASON_ENV);
	expect_denied(policy_check_link(snap, KEY, ROOT, "id", &v), &v, ".keys/id", REASON_KEYS);
	/* Replacing it is removing it. */
	expect_denied(policy_check_rename(snap, SRC, "main.c", PLAIN, SRC, ".env.agent", &ENV, 0, &v), &v,
	              ".env.agent", REASON_ENV);
	expect_denied(policy_check_rename(snap, SRC, "main.c", PLAIN, SRC, ".env.agent", &ENV, RENAME_EXCHANGE, &v),
	              &v, "src/.env.agent", REASON_ENV);
}

Test(deny, nothing_takes_a_denied_name_by_rename_or_link)
{
	struct policy_verdict v = {0};

	expect_denied(policy_check_rename(snap, SRC, "main.c", PLAIN, ROOT, ".env.agent", NULL, 0, &v), &v,
	              ".env.agent", REASON_ENV);
	expect_denied(policy_check_rename(snap, SRC, "main.c", PLAIN, ROOT, ".keys", NULL, RENAME_NOREPLACE, &v), &v,
	              ".keys", REASON_KEYS);
	expect_denied(policy_check_link(snap, PLAIN, SRC, ".env.agent", &v), &v, ".env.agent", REASON_ENV);
	cr_expect_eq(policy_check_rename(snap, SRC, "main.c", PLAIN, ROOT, "main.c", NULL, 0, &v), 0);
}

Test(deny, names_are_matched_whole_and_exactly)
{
	cr_expect_str_eq(policy_lookup_denied_name(snap, ".keys"), REASON_KEYS);
	cr_expect_null(policy_lookup_denied_name(snap, ".KEYS"));
	cr_expect_null(policy_lookup_denied_name(snap, ".keys2"));
	cr_expect_null(policy_lookup_denied_name(snap, "keys"));
	cr_expect(policy_snapshot_denies(snap));
}

Test(deny, without_denied_names_reads_are_never_refused)
{
	struct policy_builder *b = policy_builder_new();
	struct policy_verdict v = {0};
	struct policy_snapshot *s;

	cr_assert(b);
	cr_assert_eq(policy_builder_protect(b, CONFIG, POLICY_CONTENT | POLICY_ANCHOR, ".git/config", "config"), 0);
	s = policy_builder_finish(b);
	cr_assert(s);
	cr_expect_not(policy_snapshot_denies(s));
	cr_expect_eq(policy_check_read(s, CONFIG, &v), 0);
	cr_expect_eq(policy_check_add(s, POLICY_OP_CREATE, ROOT, ".env.agent", &v), 0);
	cr_expect_null(policy_lookup_denied_name(s, ".env.agent"));
	policy_snapshot_release(s);
}

Test(deny, no_snapshot_refuses_reads_closed)
{
	struct policy_verdict v = {0};

	cr_expect_eq(policy_check_read(NULL, PLAIN, &v), -EACCES);
	cr_expect_str_eq(v.rule, POLICY_RULE_FAIL_CLOSED);
}
