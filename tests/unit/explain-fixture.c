#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "policy/explain-judge.h"
#include "policy/explain-text.h"
#include "tests/unit/explain-fixture.h"
#include "tests/unit/scratch-dir.h"

int fixture_root = -1;
struct policy_snapshot *fixture_snap;

struct policy_id explain_fixture_id(const char *rest)
{
	struct stat st;

	cr_assert_eq(fstatat(fixture_root, rest, &st, AT_SYMLINK_NOFOLLOW), 0, "stat %s: %m", rest);
	return (struct policy_id){st.st_dev, st.st_ino};
}

static void protect(struct policy_builder *b, const char *rest, unsigned flags, const char *reason)
{
	cr_assert_eq(policy_builder_protect(b, explain_fixture_id(rest), flags, rest, reason), 0);
}

void explain_fixture_make(void)
{
	_cleanup_free_ char *fifo = NULL;
	struct policy_builder *b;

	scratch_make();
	scratch_mkdir(".git");
	scratch_mkdir(".git/hooks");
	scratch_write(".git/hooks/pre-commit", "#!/bin/sh\n");
	scratch_write(".git/config", "[core]\n");
	scratch_mkdir("src");
	scratch_write("src/main.c", "int main;\n");
	scratch_symlink("src", "lnk");
	fifo = scratch_path("fifo");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	fixture_root = open(scratch_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fixture_root, 0);

	b = policy_builder_new();
	cr_assert(b);
	protect(b, ".", POLICY_ANCHOR, "on the way to .git");
	protect(b, ".git", POLICY_ANCHOR, "the git directory");
	protect(b, ".git/hooks", POLICY_CONTENT | POLICY_FROZEN | POLICY_ANCHOR, "hooks: git runs them");
	protect(b, ".git/hooks/pre-commit", POLICY_CONTENT | POLICY_ANCHOR, "a hook");
	protect(b, ".git/config", POLICY_CONTENT | POLICY_REWRITABLE, "config");
	cr_assert_eq(policy_builder_protect_missing(b, explain_fixture_id(".git"), "commondir", POLICY_MISSING_NONE,
	                                            ".git/commondir", "commondir redirects git"),
	             0);
	cr_assert_eq(policy_builder_protect_missing(b, explain_fixture_id("."), ".vscode", POLICY_MISSING_MKDIR_OK,
	                                            ".vscode", "on the way to .vscode/tasks.json"),
	             0);
	fixture_snap = policy_builder_finish(b);
	cr_assert(fixture_snap);
}

void explain_fixture_remove(void)
{
	policy_snapshot_release(fixture_snap);
	close(fixture_root);
	scratch_remove();
}

char *explain_fixture_text(const char *rel)
{
	_cleanup_free_ struct explanation *e = calloc(1, sizeof(*e));
	_cleanup_free_ char *err = NULL;
	struct explain_target t;
	char *text = NULL;
	size_t len;

	cr_assert(e);
	cr_assert_eq(explain_path(fixture_root, fixture_snap, rel, e, &t, &err), 0, "%s", err ? err : "");
	cr_assert_eq(explain_text(e, &t, rel, &text, &len), 0);
	cr_expect_eq(strlen(text), len);
	explain_target_free(&t);
	return text;
}
