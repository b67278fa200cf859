#include "config.h"

/* The config-change judge: every allow-listed key with a good value passes,
 * the keys and values that run or redirect something do not, and the
 * rewrites real git makes in ordinary work pass. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "git/config-change.h"

/* What `git clone` of a remote writes, so additions have a remote to name. */
static const char base[] = "[core]\n"
                           "\trepositoryformatversion = 0\n"
                           "\tfilemode = true\n"
                           "\tbare = false\n"
                           "\tlogallrefupdates = true\n"
                           "[remote \"origin\"]\n"
                           "\turl = https://example.org/repo.git\n"
                           "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
                           "[branch \"main\"]\n"
                           "\tremote = origin\n"
                           "\tmerge = refs/heads/main\n";

static int judge(const char *old, const char *new, const char **why)
{
	*why = NULL;
	return gitcfg_change_is_safe(old, strlen(old), new, strlen(new), why);
}

/* base with text appended. */
static char *base_plus(const char *text)
{
	char *s = NULL;

	cr_assert_geq(asprintf(&s, "%s%s", base, text), 0);
	return s;
}

static void expect_safe_addition(const char *text)
{
	_cleanup_free_ char *new = base_plus(text);
	const char *why;

	cr_expect_eq(judge(base, new, &why), 1, "refused %s(%s)", text, why ? why : "");
}

/* Unsafe, and the reason names the key (lowercased as git names it). */
static void expect_unsafe_change(const char *old, const char *new, const char *key)
{
	const char *why;

	cr_expect_eq(judge(old, new, &why), 0, "allowed: %s", new);
	cr_expect(why && strstr(why, key), "why '%s' does not name %s", why ? why : "(null)", key);
}

static void expect_unsafe_addition(const char *text, const char *key)
{
	_cleanup_free_ char *new = base_plus(text);

	expect_unsafe_change(base, new, key);
}

Test(config_change, identical_and_reformatted_are_safe)
{
	const char *why;
	static const char reformatted[] = "# a comment\n"
	                                  "[core] repositoryformatversion=0 ; kept\n"
	                                  "filemode = \"true\"\n"
	                                  "\tbare = false\r\n"
	                                  "[core]\n"
	                                  "\tlogallrefupdates = tr\\\nue\n"
	                                  "[remote \"origin\"] url = https://example.org/repo.git\n"
	                                  "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	                                  "[branch.main]\n"
	                                  "\tREMOTE = origin\n"
	                                  "\tmerge = refs/heads/main # upstream\n";

	cr_assert_eq(judge(base, base, &why), 1);
	cr_assert_eq(judge(base, reformatted, &why), 1, "%s", why);
}

Test(config_change, every_allow_listed_key_with_a_good_value)
{
	static const char *const additions[] = {
	        "[submodule \"s\"]\n\turl = https://example.org/s.git\n",
	        "[submodule \"s\"]\n\turl = /srv/git/s\n",
	        "[submodule \"s\"]\n\turl = file:///srv/git/s\n",
	        "[submodule \"s\"]\n\turl = git@example.org:s.git\n",
	        "[submodule \"s\"]\n\tactive = true\n",
	        "[submodule \"s\"]\n\tactive\n",
	        "[submodule \"s\"]\n\tbranch = main\n",
	        "[submodule \"s\"]\n\tshallow = false\n",
	        "[submodule \"s\"]\n\tignore = dirty\n",
	        "[submodule \"s\"]\n\tfetchRecurseSubmodules = on-demand\n",
	        "[submodule \"s\"]\n\tupdate = rebase\n",
	        "[branch \"x\"]\n\tremote = origin\n",
	        "[branch \"x\"]\n\tremote = .\n",
	        "[branch \"x\"]\n\tpushRemote = origin\n",
	        "[branch \"x\"]\n\tmerge = refs/heads/x\n",
	        "[branch \"x\"]\n\trebase = merges\n",
	        "[branch \"x\"]\n\tdescription = Work on x; see #12\n",
	        "[remote \"up\"]\n\turl = https://example.org/up.git\n",
	        "[remote \"up\"]\n\turl = ssh://git@example.org:2222/up.git\n",
	        "[remote \"up\"]\n\turl = git://example.org/up.git\n",
	        "[remote \"up\"]\n\tpushurl = git@example.org:up.git\n",
	        "[remote \"up\"]\n\tfetch = +refs/heads/*:refs/remotes/up/*\n",
	        "[remote \"up\"]\n\tpush = refs/heads/main:refs/heads/main\n",
	        "[remote \"up\"]\n\ttagOpt = --no-tags\n",
	        "[remote \"up\"]\n\tprune = true\n",
	        "[remote \"up\"]\n\tpruneTags = yes\n",
	        "[remote \"up\"]\n\tmirror = off\n",
	        "[remote \"up\"]\n\tskipDefaultUpdate = 1\n",
	        "[remote \"up\"]\n\tskipFetchAll = false\n",
	        "[user]\n\tname = Ada Lovelace\n",
	        "[user]\n\temail = ada@example.org\n",
	        "[pull]\n\trebase = false\n",
	        "[pull]\n\tff = only\n",
	        "[push]\n\tdefault = current\n",
	        "[push]\n\tautoSetupRemote = true\n",
	        "[fetch]\n\tprune = true\n",
	        "[init]\n\tdefaultBranch = trunk\n",
	        "[advice]\n\tdetachedHead = false\n",
	};

	for (size_t i = 0; i < ELEMENTSOF(additions); i++)
		expect_safe_addition(additions[i]);
}

Test(config_change, allow_listed_keys_with_bad_values)
{
	static const struct {
		const char *text;
		const char *key;
	} cases[] = {
	        {"[submodule \"s\"]\n\tupdate = !sh -c 'touch pwned'\n", "submodule.s.update"},
	        {"[submodule \"s\"]\n\turl = ext::sh -c touch% pwned\n", "submodule.s.url"},
	        {"[submodule \"s\"]\n\turl = ../sibling\n", "submodule.s.url"},
	        {"[submodule \"s\"]\n\turl = -u./payload\n", "submodule.s.url"},
	        {"[submodule \"s\"]\n\tactive = maybe\n", "submodule.s.active"},
	        {"[submodule \"s\"]\n\tbranch = --force\n", "submodule.s.branch"},
	        {"[remote \"up\"]\n\turl = ext::sh -c x\n", "remote.up.url"},
	        {"[remote \"up\"]\n\turl = gcrypt::https://example.org/x\n", "remote.up.url"},
	        {"[remote \"up\"]\n\turl = evil://example.org/x\n", "remote.up.url"},
	        {"[remote \"up\"]\n\turl = HTTPS://example.org/x\n", "remote.up.url"},
	        {"[remote \"up\"]\n\turl = ssh://-oProxyCommand=sh/x\n", "remote.up.url"},
	        {"[remote \"up\"]\n\turl = user@-oProxyCommand=sh:x\n", "remote.up.url"},
	        {"[remote \"up\"]\n\turl = /srv/git/planted\n", "remote.up.url"},
	        {"[remote \"up\"]\n\turl = ./planted\n", "remote.up.url"},
	        {"[remote \"up\"]\n\turl = file:///srv/git/planted\n", "remote.up.url"},
	        {"[remote \"up\"]\n\turl = https://example.org/\\nx\n", "remote.up.url"},
	        {"[remote \"up\"]\n\turl\n", "remote.up.url"},
	        {"[remote \"up\"]\n\tpushurl = ../planted.git\n", "remote.up.pushurl"},
	        {"[remote \"up\"]\n\ttagOpt = --upload-pack=sh\n", "remote.up.tagopt"},
	        {"[branch \"x\"]\n\tremote = ext::sh -c x\n", "branch.x.remote"},
	        {"[branch \"x\"]\n\tremote = planted\n", "branch.x.remote"},
	        {"[branch \"x\"]\n\tpushRemote = ../planted\n", "branch.x.pushremote"},
	        {"[branch \"x\"]\n\trebase = exec sh\n", "branch.x.rebase"},
	        {"[user]\n\tname = Ada\\nLovelace\n", "user.name"},
	        {"[branch \"x\"]\n\tdescription = x\\b\n", "branch.x.description"},
	        {"[push]\n\tdefault = sh\n", "push.default"},
	        {"[advice]\n\tdetachedHead = !sh\n", "advice.detachedhead"},
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		expect_unsafe_addition(cases[i].text, cases[i].key);
}

Test(config_change, keys_that_run_or_redirect_are_refused)
{
	static const struct {
		const char *text;
		const char *key;
	} cases[] = {
	        {"[core]\n\tfsmonitor = tools/fsmon.sh\n", "core.fsmonitor"},
	        {"[core]\n\thooksPath = .husky/_\n", "core.hookspath"},
	        {"[core]\n\teditor = ./ed.sh\n", "core.editor"},
	        {"[core]\n\tsshCommand = ./ssh.sh\n", "core.sshcommand"},
	        {"[Core]\n\tHooksPath = x\n", "core.hookspath"},
	        {"[include]\n\tpath = ../payload.cfg\n", "include.path"},
	        {"[includeIf \"gitdir:/\"]\n\tpath = payload.cfg\n", "includeif.gitdir:/.path"},
	        {"[alias]\n\tx = !sh -c 'touch pwned'\n", "alias.x"},
	        {"[alias \"x\"]\n\tcommand = !sh\n", "alias.x.command"},
	        {"[filter \"lfs\"]\n\tsmudge = ./smudge.sh\n", "filter.lfs.smudge"},
	        {"[diff \"png\"]\n\ttextconv = ./conv.sh\n", "diff.png.textconv"},
	        {"[hook \"pre-commit\"]\n\tcommand = ./x.sh\n", "hook.pre-commit.command"},
	        {"[credential]\n\thelper = !./steal.sh\n", "credential.helper"},
	        {"[url \"ext::sh -c x \"]\n\tinsteadOf = https://\n", "insteadof"},
	        {"[remote \"origin\"]\n\tuploadpack = ./x.sh\n", "remote.origin.uploadpack"},
	        {"[remote \"origin\"]\n\treceivepack = ./x.sh\n", "remote.origin.receivepack"},
	        {"[remote \"origin\"]\n\tvcs = planted\n", "remote.origin.vcs"},
	        {"[remote \"origin\"]\n\tproxy = http://evil\n", "remote.origin.proxy"},
	        {"[branch \"main\"]\n\tmergeOptions = -s planted\n", "branch.main.mergeoptions"},
	        {"[gpg]\n\tprogram = ./gpg.sh\n", "gpg.program"},
	        {"[sequence]\n\teditor = ./x.sh\n", "sequence.editor"},
	        {"[core]\n\trepositoryformatversion = 1\n", "core.repositoryformatversion"},
	        {"[core]\n\tworktree = ../elsewhere\n", "core.worktree"},
	        {"[submodule \"../../x\"]\n\turl = https://example.org/x\n", "submodule.../../x.url"},
	        {"[remote \"-o\"]\n\turl = https://example.org/x\n", "remote.-o.url"},
	        {"top = level\n", "top"},
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		expect_unsafe_addition(cases[i].text, cases[i].key);
}

Test(config_change, a_split_key_is_not_safe)
{
	/* A key cannot be continued: git rejects the file, so must we. */
	expect_unsafe_addition("[core]\n\thooks\\\nPath = x\n", "new config");
}

Test(config_change, a_continued_value_is_read_whole)
{
	expect_unsafe_addition("[remote \"up\"]\n\turl = e\\\nxt::sh -c x\n", "remote.up.url");
}

/* Judges base against base with len bytes of text (NUL bytes and all)
 * appended. */
static int judge_with_bytes(const char *text, size_t len, const char **why)
{
	_cleanup_free_ char *new = malloc(sizeof(base) + len);

	cr_assert_not_null(new);
	memcpy(new, base, sizeof(base) - 1);
	memcpy(new + sizeof(base) - 1, text, len);
	return gitcfg_change_is_safe(base, sizeof(base) - 1, new, sizeof(base) - 1 + len, why);
}

Test(config_change, a_nul_cut_value_is_judged_as_git_reads_it)
{
	static const char good[] = "[remote \"up\"]\n\turl = https://example.org/x\0 ; \n";
	static const char bad[] = "[remote \"up\"]\n\turl = ext::sh -c x\0https://x/\n";
	const char *why;

	cr_assert_eq(judge_with_bytes(good, sizeof(good) - 1, &why), 1, "%s", why);
	cr_assert_eq(judge_with_bytes(bad, sizeof(bad) - 1, &why), 0);
	cr_assert(strstr(why, "remote.up.url"), "%s", why);
}

Test(config_change, a_nul_cut_subsection_is_the_key_git_sees)
{
	static const char text[] = "[CORE \"hooksPath\0\"] k = v\n";
	const char *why;

	cr_assert_eq(judge_with_bytes(text, sizeof(text) - 1, &why), 0);
	cr_assert(strstr(why, "core.hooksPath"), "%s", why);
}

Test(config_change, changed_derived_keys_are_refused)
{
	_cleanup_free_ char *bare = strdup(base);

	cr_assert_not_null(bare);
	memcpy(strstr(bare, "bare = false"), "bare = true ", 12);
	expect_unsafe_change(base, bare, "core.bare");
}

Test(config_change, removals)
{
	_cleanup_free_ char *hooks = base_plus("[core]\n\thooksPath = /srv/hooks\n");
	_cleanup_free_ char *sub = base_plus("[submodule \"s\"]\n\turl = ../x\n\tactive = true\n");
	const char *why;

	/* Dropping the person's hooks folder changes what runs. */
	expect_unsafe_change(hooks, base, "core.hookspath");
	/* Removing allow-listed keys is safe, whatever their old value. */
	cr_assert_eq(judge(sub, base, &why), 1, "%s", why);
}

Test(config_change, removing_a_remote_a_branch_names_is_refused)
{
	_cleanup_free_ char *old = base_plus("[remote \"up\"]\n\turl = https://example.org/x\n"
	                                     "[branch \"x\"]\n\tremote = up\n");
	_cleanup_free_ char *new = base_plus("[branch \"x\"]\n\tremote = up\n");

	/* git would then read "up" as a path, or from .git/remotes/up. */
	expect_unsafe_change(old, new, "branch.x.remote");
}

Test(config_change, existing_values_may_stay_whatever_they_are)
{
	/* The person's own local-path remote stays; the agent adds a branch. */
	_cleanup_free_ char *old = base_plus("[remote \"local\"]\n\turl = ../other\n");
	_cleanup_free_ char *new = base_plus("[remote \"local\"]\n\turl = ../other\n"
	                                     "[branch \"x\"]\n\tremote = local\n\tmerge = refs/heads/x\n");
	const char *why;

	cr_assert_eq(judge(old, new, &why), 1, "%s", why);
}

Test(config_change, changing_a_value_checks_the_new_one)
{
	_cleanup_free_ char *old = base_plus("[remote \"up\"]\n\turl = https://example.org/x\n");
	_cleanup_free_ char *good = base_plus("[remote \"up\"]\n\turl = https://example.org/y\n");
	_cleanup_free_ char *bad = base_plus("[remote \"up\"]\n\turl = ext::sh -c x\n");
	const char *why;

	cr_assert_eq(judge(old, good, &why), 1, "%s", why);
	expect_unsafe_change(old, bad, "remote.up.url");
}

Test(config_change, duplicating_an_existing_bad_value_is_an_addition)
{
	_cleanup_free_ char *old = base_plus("[remote \"local\"]\n\turl = ../other\n");
	_cleanup_free_ char *new = base_plus("[remote \"local\"]\n\turl = ../other\n\turl = ../other\n");

	expect_unsafe_change(old, new, "remote.local.url");
}

Test(config_change, reordering_fixed_keys_is_refused)
{
	_cleanup_free_ char *old = base_plus("[core]\n\tpager = less\n\tpager = more\n");
	_cleanup_free_ char *new = base_plus("[core]\n\tpager = more\n\tpager = less\n");

	expect_unsafe_change(old, new, "core.pager");
}

Test(config_change, new_config_that_git_rejects_is_unsafe)
{
	_cleanup_free_ char *new = base_plus("[remote \"up\"\n");
	const char *why;

	cr_assert_eq(judge(base, new, &why), 0);
	cr_assert(strstr(why, "new config"), "%s", why);
}

Test(config_change, old_config_that_git_rejects_is_an_error)
{
	const char *why;

	cr_assert_eq(judge("[core\n", base, &why), -EINVAL);
	cr_assert(strstr(why, "old config"), "%s", why);
	cr_assert_eq(gitcfg_change_is_safe("[core\n", 6, base, sizeof(base) - 1, NULL), -EINVAL);
}

/* ---- Rewrites real git makes ------------------------------------------- */

/* Builds a clone of a local repository and records .git/config before and
 * after each command as $T/pairs/NAME.before and NAME.after. */
static const char make_pairs_script[] =
        "set -eu\n"
        "export HOME=\"$T/home\" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null\n"
        "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org\n"
        "export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org\n"
        "P=$T/pairs; mkdir -p \"$HOME\" \"$P\"; cd \"$T\"\n"
        "pair() {\n"
        "\tname=$1; shift; cp .git/config \"$P/$name.before\"\n"
        "\t\"$@\" >/dev/null 2>&1 || { echo \"$name: $* failed\" >&2; exit 1; }\n"
        "\tcp .git/config \"$P/$name.after\"\n"
        "}\n"
        "git init -q -b main upstream && git -C upstream commit -q --allow-empty -m one\n"
        "git clone -q --bare upstream upstream.git && git clone -q upstream.git work && cd work\n"
        "pair submodule-add git -c protocol.file.allow=always submodule add -q \"$T/upstream\" sub\n"
        "git commit -q -m sub\n"
        "pair remote-add git remote add other https://example.org/other.git\n"
        "pair checkout-track git checkout -q -b feature --track origin/main\n"
        "git branch -q topic\n"
        "pair branch-u git branch -u origin/main topic\n"
        "printf 'Work on topic\\n\\nSecond paragraph.\\n' >\"$T/description\"\n"
        "pair branch-description env GIT_EDITOR=\"cp $T/description\" git branch --edit-description topic\n"
        "pair branch-unset-upstream git branch --unset-upstream topic\n"
        "pair branch-rename git branch -m feature feat2\n"
        "git checkout -q -b pushed\n"
        "pair push-u git push -q -u origin pushed\n"
        "git checkout -q main\n"
        "pair branch-D git branch -q -D pushed\n"
        "pair remote-set-url git remote set-url origin https://example.org/repo.git\n"
        "pair remote-rename git remote rename other fork\n"
        "pair remote-remove git remote remove fork\n"
        "pair user-email git config user.email ada@example.org\n"
        "pair pull-rebase git config pull.rebase false\n"
        "pair submodule-deinit git submodule deinit -q -f sub\n"
        "pair hooks-path git config core.hooksPath .husky\n"
        "pair alias-bang git config alias.x '!sh -c true'\n"
        "pair fsmonitor git config core.fsmonitor tools/fsmon.sh\n"
        "pair submodule-update-cmd git config submodule.sub.update '!sh -c true'\n"
        "pair insteadof git config url.ext::sh.insteadOf https://\n"
        "pair include git config include.path ../payload.cfg\n"
        "pair remote-add-local git remote add planted ../planted.git\n";

static char *read_all(const char *path, size_t *len)
{
	_cleanup_free_ char *buf = NULL;
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16;

	cr_assert_not_null(f, "%s: %m", path);
	buf = malloc(cap);
	cr_assert_not_null(buf);
	*len = fread(buf, 1, cap, f);
	fclose(f);
	cr_assert_lt(*len, cap, "%s: too large", path);
	return TAKE_PTR(buf);
}

/* Runs the script in a fresh directory; returns the directory. */
static char *make_pairs(void)
{
	char *dir = NULL;

	cr_assert_geq(asprintf(&dir, "%s/oz0-config-change-XXXXXX", P_tmpdir), 0);
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(setenv("T", dir, 1), 0);
	cr_assert_eq(system(make_pairs_script), 0, "git failed to build the fixtures");
	return dir;
}

static void remove_pairs(char *dir)
{
	_cleanup_free_ char *cmd = NULL;

	cr_assert_geq(asprintf(&cmd, "rm -rf '%s'", dir), 0);
	cr_expect_eq(system(cmd), 0);
	free(dir);
}

static void expect_pair(const char *dir, const char *name, int want)
{
	_cleanup_free_ char *before_path = NULL, *after_path = NULL;
	_cleanup_free_ char *before = NULL, *after = NULL;
	size_t before_len, after_len;
	const char *why = NULL;
	int r;

	cr_assert_geq(asprintf(&before_path, "%s/pairs/%s.before", dir, name), 0);
	cr_assert_geq(asprintf(&after_path, "%s/pairs/%s.after", dir, name), 0);
	before = read_all(before_path, &before_len);
	after = read_all(after_path, &after_len);
	/* A command that changed nothing would prove nothing. */
	cr_expect(before_len != after_len || memcmp(before, after, before_len) != 0,
	          "%s: git left the config unchanged", name);
	r = gitcfg_change_is_safe(before, before_len, after, after_len, &why);
	cr_expect_eq(r, want, "%s: judged %d (%s)", name, r, why ? why : "");
}

Test(config_change, ordinary_git_rewrites_are_safe, .timeout = 60)
{
	static const char *const names[] = {
	        "submodule-add",         "remote-add",    "checkout-track", "branch-u",    "branch-description",
	        "branch-unset-upstream", "branch-rename", "push-u",         "branch-D",    "remote-set-url",
	        "remote-rename",         "remote-remove", "user-email",     "pull-rebase", "submodule-deinit",
	};
	char *dir = make_pairs();

	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		expect_pair(dir, names[i], 1);
	remove_pairs(dir);
}

Test(config_change, git_config_of_programs_is_refused, .timeout = 60)
{
	static const char *const names[] = {
	        "hooks-path", "alias-bang", "fsmonitor",        "submodule-update-cmd",
	        "insteadof",  "include",    "remote-add-local",
	};
	char *dir = make_pairs();

	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		expect_pair(dir, names[i], 0);
	remove_pairs(dir);
}
