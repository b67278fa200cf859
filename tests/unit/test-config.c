/* The INI configuration: good files give normalised lists; every bad one
 * refuses with FILE:LINE and a reason. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "policy/conf.h"

static char dir[] = P_tmpdir "/oz0-config-XXXXXX";
static char file[sizeof(dir) + 16];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/oz0fs.conf", dir);
}

static void teardown(void)
{
	unlink(file);
	rmdir(dir);
}

TestSuite(config, .init = setup, .fini = teardown);

static void write_file(const char *text, size_t len)
{
	_cleanup_close_ int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
}

static int load(const char *text, struct policy_config **cfg, char **msg)
{
	write_file(text, strlen(text));
	*cfg = NULL;
	return policy_config_load(file, cfg, msg);
}

/* Asserts that TEXT is refused with ERR at LINE and a message containing WHAT. */
static void assert_refused(const char *text, int err, int line, const char *what)
{
	struct policy_config *cfg;
	_cleanup_free_ char *msg = NULL, *prefix = NULL;
	int r = load(text, &cfg, &msg);

	cr_assert_eq(r, err, "'%s': got %d, want %d (%s)", text, r, err, msg ? msg : "no message");
	cr_assert_null(cfg);
	cr_assert_not_null(msg);
	cr_assert_neq(asprintf(&prefix, "%s:%d: ", file, line), -1);
	cr_assert(strncmp(msg, prefix, strlen(prefix)) == 0, "'%s' does not start with '%s'", msg, prefix);
	cr_assert_not_null(strstr(msg, what), "'%s' does not say '%s'", msg, what);
	cr_assert_null(strchr(msg, '\n'), "'%s' is not one line", msg);
}

Test(config, null_file_gives_defaults)
{
	struct policy_config *cfg = NULL;
	char *msg = NULL;

	cr_assert_eq(policy_config_load(NULL, &cfg, &msg), 0);
	cr_assert_null(msg);
	cr_assert_eq(cfg->n_protect, 0);
	cr_assert_eq(cfg->n_unprotect, 0);
	cr_assert_null(cfg->audit_file);
	cr_assert_null(cfg->file);
	cr_assert_not(cfg->audit_syslog);
	cr_assert_eq(cfg->n_command_deny, 0);
	cr_assert_eq(cfg->n_command_allow, 0);
	cr_assert_not(cfg->command_allow_rm);
	cr_assert_not(cfg->command_allow_sudo);
	cr_assert_not(cfg->commands_configured);
	cr_assert_null(cfg->ceiling.memory_mb);
	cr_assert_null(cfg->ceiling.pids);
	cr_assert_null(cfg->ceiling.cpus);
	cr_assert_null(cfg->ceiling.file);
	cr_assert_eq(cfg->n_deny_paths, 0);
	cr_assert_not(policy_config_unprotected(cfg, ".envrc"));
	policy_config_free(cfg);
}

Test(config, good_file_is_normalised)
{
	struct policy_config *cfg;
	char *msg = NULL;

	cr_assert_eq(load("; a comment\n"
			  "# another\n"
			  "[protect]\n"
			  "path = .mcp.json\n"
			  "path = ./.idea/\n"
			  "path = .github//workflows///\n"
			  "path = .idea\n" /* a duplicate */
			  "path = a/./b/.\n"
			  "\n"
			  "[unprotect]\n"
			  "path = .envrc\n"
			  "path = ./.vscode//tasks.json\n"
			  "[audit]\n"
			  "file = /var/log/oz0fs/audit.log\n"
			  "syslog = yes ; inline comment\n",
			  &cfg, &msg),
		     0, "%s", msg);
	cr_assert_eq(cfg->n_protect, 4);
	cr_assert_str_eq(cfg->protect[0], ".mcp.json");
	cr_assert_str_eq(cfg->protect[1], ".idea");
	cr_assert_str_eq(cfg->protect[2], ".github/workflows");
	cr_assert_str_eq(cfg->protect[3], "a/b");
	cr_assert_eq(cfg->n_unprotect, 2);
	cr_assert_str_eq(cfg->unprotect[0], ".envrc");
	cr_assert_str_eq(cfg->unprotect[1], ".vscode/tasks.json");
	cr_assert_str_eq(cfg->audit_file, "/var/log/oz0fs/audit.log");
	cr_assert_str_eq(cfg->file, file);
	cr_assert(cfg->audit_syslog);
	cr_assert(policy_config_unprotected(cfg, ".envrc"));
	cr_assert(policy_config_unprotected(cfg, ".vscode/tasks.json"));
	cr_assert_not(policy_config_unprotected(cfg, ".claude"));
	cr_assert_not(policy_config_unprotected(cfg, ".mcp.json"));
	cr_assert_not(policy_config_unprotected(NULL, ".envrc"));
	policy_config_free(cfg);
}

Test(config, syslog_values)
{
	static const struct {
		const char *value;
		bool on;
	} cases[] = {
		{ "yes", true }, { "true", true }, { "1", true }, { "no", false }, { "false", false }, { "0", false },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct policy_config *cfg;
		_cleanup_free_ char *text = NULL;
		char *msg = NULL;

		/* Start from the opposite value so a no-op parse cannot pass. */
		cr_assert_neq(asprintf(&text, "[audit]\nsyslog = %s\nsyslog = %s\n", cases[i].on ? "no" : "yes",
				       cases[i].value),
			      -1);
		cr_assert_eq(load(text, &cfg, &msg), 0, "%s", msg);
		cr_assert_eq(cfg->audit_syslog, cases[i].on, "syslog = %s", cases[i].value);
		policy_config_free(cfg);
	}
}

Test(config, default_tool_paths)
{
	const char *want[] = { ".claude", ".codex", ".cursor", ".vscode/tasks.json", ".envrc" };
	size_t n = 0;

	while (policy_default_tool_paths[n])
		n++;
	cr_assert_eq(n, ELEMENTSOF(want));
	for (size_t i = 0; i < n; i++)
		cr_assert_str_eq(policy_default_tool_paths[i], want[i]);
}

Test(config, bad_paths)
{
	assert_refused("[protect]\npath = /etc/passwd\n", -EINVAL, 2, "absolute");
	assert_refused("[protect]\npath = a\npath = a/../../x\n", -EINVAL, 3, "'..'");
	assert_refused("[protect]\npath = ..\n", -EINVAL, 2, "'..'");
	assert_refused("[protect]\npath = ./\n", -EINVAL, 2, "whole tree");
	assert_refused("[protect]\npath =\n", -EINVAL, 2, "empty path");
}

Test(config, deny_section)
{
	struct policy_config *cfg;
	char *msg = NULL;

	cr_assert_eq(load("[deny]\n"
	                  "path = ~/.aws\n"
	                  "path = /srv//keys/./\n"
	                  "path = ~/.config/./op/\n"
	                  "path = ~\n"
	                  "path = ~/\n" /* the home again */
	                  "path = /srv/keys\n",
	                  &cfg, &msg),
	             0, "%s", msg);
	cr_assert_eq(cfg->n_deny_paths, 4);
	cr_assert_str_eq(cfg->deny_paths[0], "~/.aws");
	cr_assert_str_eq(cfg->deny_paths[1], "/srv/keys");
	cr_assert_str_eq(cfg->deny_paths[2], "~/.config/op");
	cr_assert_str_eq(cfg->deny_paths[3], "~");
	cr_assert_eq(cfg->n_protect, 0);
	policy_config_free(cfg);
}

Test(config, bad_deny_paths)
{
	assert_refused("[deny]\npath = .aws\n", -EINVAL, 2, "neither absolute nor in the home");
	assert_refused("[deny]\npath = ~bob/.ssh\n", -EINVAL, 2, "neither absolute nor in the home");
	assert_refused("[deny]\npath = ~/a/../.ssh\n", -EINVAL, 2, "'..'");
	assert_refused("[deny]\npath = /srv/..\n", -EINVAL, 2, "'..'");
	assert_refused("[deny]\npath = //./\n", -EINVAL, 2, "whole file system");
	assert_refused("[deny]\npath =\n", -EINVAL, 2, "empty path");
}

Test(config, deny_names)
{
	struct policy_config *cfg;
	char *msg = NULL;

	cr_assert_eq(load("[deny]\nname = .env.agent\nname = .keys\nname = .env.agent\nname = ..x\n", &cfg, &msg), 0,
	             "%s", msg);
	cr_assert_eq(cfg->n_deny_names, 3);
	cr_assert_str_eq(cfg->deny_names[0], ".env.agent");
	cr_assert_str_eq(cfg->deny_names[1], ".keys");
	cr_assert_str_eq(cfg->deny_names[2], "..x");
	cr_assert_eq(cfg->n_deny_paths, 0);
	policy_config_free(cfg);
	cr_assert_eq(load("[protect]\npath = a\n", &cfg, &msg), 0, "%s", msg);
	cr_assert_eq(cfg->n_deny_names, 0, "nothing is denied by default");
	policy_config_free(cfg);
}

Test(config, bad_deny_names)
{
	_cleanup_free_ char *long_name = NULL;

	assert_refused("[deny]\nname = a/b\n", -EINVAL, 2, "not the name of one file or folder");
	assert_refused("[deny]\nname = /keys\n", -EINVAL, 2, "not the name of one file or folder");
	assert_refused("[deny]\nname = .\n", -EINVAL, 2, "not the name of one file or folder");
	assert_refused("[deny]\nname = ..\n", -EINVAL, 2, "not the name of one file or folder");
	assert_refused("[deny]\nname =\n", -EINVAL, 2, "not the name of one file or folder");
	assert_refused("[deny]\nname = .git\n", -EINVAL, 2, "'.git' cannot be denied");
	cr_assert_neq(asprintf(&long_name, "[deny]\nname = %0256d\n", 0), -1);
	assert_refused(long_name, -ENAMETOOLONG, 2, "longer than 255 bytes");
}

Test(config, deny_shares_the_bound)
{
	_cleanup_free_ char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	cr_assert_not_null(f);
	fputs("[protect]\npath = a\n[deny]\n", f);
	for (int i = 0; i < 4096; i++)
		fprintf(f, "path = /d%d\n", i);
	cr_assert_eq(fclose(f), 0);
	assert_refused(text, -E2BIG, 4099, "more than 4096 paths and command names");
}

Test(config, long_component)
{
	char name[300];
	_cleanup_free_ char *text = NULL;

	/* Longer than inih's 200-byte line: read whole all the same. */
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	cr_assert_neq(asprintf(&text, "[protect]\n\npath = %s\n", name), -1);
	assert_refused(text, -ENAMETOOLONG, 3, "longer than 255 bytes");
}

Test(config, unprotect_only_tool_paths)
{
	assert_refused("[unprotect]\npath = .git/hooks\n", -EINVAL, 2, "Git metadata");
	assert_refused("[unprotect]\npath = sub/.git/config\n", -EINVAL, 2, "Git metadata");
	assert_refused("[unprotect]\npath = .envrc\npath = .vscode\n", -EINVAL, 3, "frees only");
	assert_refused("[unprotect]\npath = .claude/settings.json\n", -EINVAL, 2, "frees only");
}

Test(config, unknown_names)
{
	assert_refused("[protect]\npath = a\n[protcet]\npath = b\n", -EINVAL, 3, "unknown section [protcet]");
	assert_refused("[protect]\npath = a\n[empty-unknown]\n", -EINVAL, 3, "unknown section [empty-unknown]");
	assert_refused("[audit]\nfiles = /x\n", -EINVAL, 2, "unknown key 'files' in [audit]");
	assert_refused("path = a\n", -EINVAL, 1, "outside a section");
}

Test(config, bad_audit_values)
{
	assert_refused("[audit]\n\nsyslog = maybe\n", -EINVAL, 3, "syslog = 'maybe'");
	assert_refused("[audit]\nfile = audit.log\n", -EINVAL, 2, "not an absolute path");
	assert_refused("[audit]\nfile = /a\nfile = /b\n", -EINVAL, 3, "twice");
}

Test(config, commands_section)
{
	struct policy_config *cfg;
	char *msg = NULL;

	cr_assert_eq(load("[commands]\n"
			  "deny = curl\n"
			  "deny = wget\n"
			  "deny = curl\n" /* a duplicate */
			  "allow = git\n"
			  "rm = allow\n"
			  "sudo = allow\n"
			  "sudo = refuse\n", /* the last one wins */
			  &cfg, &msg),
		     0, "%s", msg);
	cr_assert_eq(cfg->n_command_deny, 2);
	cr_assert_str_eq(cfg->command_deny[0], "curl");
	cr_assert_str_eq(cfg->command_deny[1], "wget");
	cr_assert_eq(cfg->n_command_allow, 1);
	cr_assert_str_eq(cfg->command_allow[0], "git");
	cr_assert(cfg->command_allow_rm);
	cr_assert_not(cfg->command_allow_sudo);
	cr_assert(cfg->commands_configured);
	policy_config_free(cfg);
}

/* Only a key in [commands] makes oz0run judge its command: a file without
 * one leaves the runner's ARGV free (./script.sh and all). */
Test(config, commands_configured_only_by_a_key)
{
	struct policy_config *cfg = NULL;
	char *msg = NULL;

	cr_assert_eq(load("[protect]\npath = .mcp.json\n[commands]\n", &cfg, &msg), 0, "%s", msg);
	cr_assert_not(cfg->commands_configured);
	policy_config_free(cfg);
	cr_assert_eq(load("[commands]\nsudo = refuse\n", &cfg, &msg), 0, "%s", msg);
	cr_assert(cfg->commands_configured);
	policy_config_free(cfg);
}

Test(config, ceiling_section)
{
	struct policy_config *cfg;
	char *msg = NULL;

	/* Kept as written: the runner judges the values, even "0.5" or "01". */
	cr_assert_eq(load("[ceiling]\n"
			  "memory_mb = 8192\n"
			  "pids = 01 ; inline comment\n"
			  "cpus = 0.5\n"
			  "file = /etc/oz0/ceiling.conf\n",
			  &cfg, &msg),
		     0, "%s", msg);
	cr_assert_str_eq(cfg->ceiling.memory_mb, "8192");
	cr_assert_str_eq(cfg->ceiling.pids, "01");
	cr_assert_str_eq(cfg->ceiling.cpus, "0.5");
	cr_assert_str_eq(cfg->ceiling.file, "/etc/oz0/ceiling.conf");
	policy_config_free(cfg);
}

Test(config, ceiling_keys_each_unset)
{
	struct policy_config *cfg;
	char *msg = NULL;

	cr_assert_eq(load("[ceiling]\ncpus = 4\n", &cfg, &msg), 0, "%s", msg);
	cr_assert_null(cfg->ceiling.memory_mb);
	cr_assert_null(cfg->ceiling.pids);
	cr_assert_str_eq(cfg->ceiling.cpus, "4");
	cr_assert_null(cfg->ceiling.file);
	policy_config_free(cfg);
	cr_assert_eq(load("[ceiling]\n", &cfg, &msg), 0, "%s", msg);
	cr_assert_null(cfg->ceiling.memory_mb);
	cr_assert_null(cfg->ceiling.cpus);
	policy_config_free(cfg);
}

Test(config, bad_ceiling)
{
	static const char *const keys[] = { "memory_mb", "pids", "cpus", "file" };

	for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
		_cleanup_free_ char *twice = NULL, *empty = NULL, *want = NULL;

		cr_assert_neq(asprintf(&twice, "[ceiling]\n%s = /1\n\n%s = /2\n", keys[i], keys[i]), -1);
		cr_assert_neq(asprintf(&want, "%s given twice in [ceiling]", keys[i]), -1);
		assert_refused(twice, -EINVAL, 4, want);
		cr_assert_neq(asprintf(&empty, "[ceiling]\n%s =\n", keys[i]), -1);
		assert_refused(empty, -EINVAL, 2, "is empty");
	}
	/* Twice across two [ceiling] sections is twice too. */
	assert_refused("[ceiling]\npids = 1\n[audit]\nsyslog = no\n[ceiling]\npids = 2\n", -EINVAL, 6,
		       "pids given twice");
	assert_refused("[ceiling]\nfile = ceiling.conf\n", -EINVAL, 2, "not an absolute path");
	assert_refused("[ceiling]\nmemory = 1\n", -EINVAL, 2, "unknown key 'memory' in [ceiling]");
	assert_refused("[ceilings]\n", -EINVAL, 1, "unknown section [ceilings]");
}

Test(config, commands_default_refuse)
{
	struct policy_config *cfg;
	char *msg = NULL;

	cr_assert_eq(load("[commands]\ndeny = curl\n", &cfg, &msg), 0, "%s", msg);
	cr_assert_not(cfg->command_allow_rm);
	cr_assert_not(cfg->command_allow_sudo);
	cr_assert_eq(cfg->n_command_allow, 0);
	policy_config_free(cfg);
}

Test(config, bad_commands)
{
	assert_refused("[commands]\ndeny = /usr/bin/curl\n", -EINVAL, 2, "not a bare command name");
	assert_refused("[commands]\n\nallow = git log\n", -EINVAL, 3, "not a bare command name");
	assert_refused("[commands]\ndeny =\n", -EINVAL, 2, "empty command name");
	assert_refused("[commands]\nrm = yes\n", -EINVAL, 2, "rm = 'yes': expected refuse or allow");
	assert_refused("[commands]\nsudo = 1\n", -EINVAL, 2, "sudo = '1'");
	assert_refused("[commands]\ndenied = curl\n", -EINVAL, 2, "unknown key 'denied' in [commands]");
}

Test(config, commands_share_the_bound)
{
	_cleanup_free_ char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	cr_assert_not_null(f);
	fputs("[protect]\n", f);
	for (int i = 0; i < 4000; i++)
		fprintf(f, "path = p%d\n", i);
	fputs("[commands]\n", f);
	for (int i = 0; i < 97; i++)
		fprintf(f, "deny = c%d\n", i);
	cr_assert_eq(fclose(f), 0);
	assert_refused(text, -E2BIG, 4099, "more than 4096");
}

Test(config, lines_inih_rejects)
{
	assert_refused("[protect]\npath = a\njust words\n", -EINVAL, 3, "expected");
	assert_refused("[protect\npath = a\n", -EINVAL, 1, "expected");
}

Test(config, first_error_wins)
{
	/* A syntax error (seen by inih) before a handler's error, and after. */
	assert_refused("[protect]\nnonsense\npath = /abs\n", -EINVAL, 2, "expected");
	assert_refused("[protect]\npath = /abs\nnonsense\n", -EINVAL, 2, "absolute");
}

Test(config, nul_byte)
{
	static const char text[] = "[protect]\npath = a\0b\n";
	struct policy_config *cfg = NULL;
	_cleanup_free_ char *msg = NULL, *want = NULL;

	write_file(text, sizeof(text) - 1);
	cr_assert_eq(policy_config_load(file, &cfg, &msg), -EINVAL);
	cr_assert_neq(asprintf(&want, "%s:2: a NUL byte in the line", file), -1);
	cr_assert_str_eq(msg, want);
}

Test(config, too_many_paths)
{
	_cleanup_free_ char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	cr_assert_not_null(f);
	fputs("[protect]\n", f);
	for (int i = 0; i < 4097; i++)
		fprintf(f, "path = p%d\n", i);
	cr_assert_eq(fclose(f), 0);
	assert_refused(text, -E2BIG, 4098, "more than 4096 paths and command names");
}

Test(config, unreadable_files)
{
	struct policy_config *cfg = NULL;
	_cleanup_free_ char *missing = NULL;
	char *msg = NULL;

	cr_assert_neq(asprintf(&missing, "%s/none.conf", dir), -1);
	cr_assert_eq(policy_config_load(missing, &cfg, &msg), -ENOENT);
	cr_assert_null(cfg);
	cr_assert_not_null(strstr(msg, "none.conf: cannot read: No such file"), "%s", msg);
	free(msg);

	cr_assert_eq(policy_config_load(dir, &cfg, &msg), -EINVAL);
	cr_assert_not_null(strstr(msg, "not a regular file"), "%s", msg);
	free(msg);
}

Test(config, fifo_does_not_hang)
{
	struct policy_config *cfg = NULL;
	_cleanup_free_ char *fifo = NULL;
	char *msg = NULL;

	cr_assert_neq(asprintf(&fifo, "%s/fifo", dir), -1);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(policy_config_load(fifo, &cfg, &msg), -EINVAL);
	cr_assert_not_null(strstr(msg, "not a regular file"), "%s", msg);
	free(msg);
	unlink(fifo);
}

Test(config, too_large)
{
	struct policy_config *cfg = NULL;
	_cleanup_free_ char *big = calloc(1, 1024 * 1024 + 2);
	char *msg = NULL;

	cr_assert_not_null(big);
	memset(big, '\n', 1024 * 1024 + 1);
	write_file(big, 1024 * 1024 + 1);
	cr_assert_eq(policy_config_load(file, &cfg, &msg), -EFBIG);
	cr_assert_not_null(strstr(msg, "larger than"), "%s", msg);
	free(msg);
}

Test(config, shipped_example_loads)
{
	const char *srcdir = getenv("OZ0_SRCDIR");
	_cleanup_free_ char *example = NULL;
	struct policy_config *cfg = NULL;
	char *msg = NULL;

	if (!srcdir)
		cr_skip_test("OZ0_SRCDIR is not set (run through make check)");
	cr_assert_neq(asprintf(&example, "%s/contrib/oz0fs.conf.example", srcdir), -1);
	cr_assert_eq(policy_config_load(example, &cfg, &msg), 0, "%s", msg);
	cr_assert_geq(cfg->n_protect, 20);
	cr_assert_str_eq(cfg->protect[0], ".mcp.json");
	cr_assert_eq(cfg->n_unprotect, 0);
	cr_assert_null(cfg->audit_file);
	cr_assert_null(cfg->ceiling.memory_mb);
	cr_assert_null(cfg->ceiling.file);
	policy_config_free(cfg);
}

/* A string of N copies of UNIT, malloc'd. */
static char *repeat(const char *unit, size_t n)
{
	size_t len = strlen(unit);
	char *s = malloc(len * n + 1);

	cr_assert_not_null(s);
	for (size_t i = 0; i < n; i++)
		memcpy(s + i * len, unit, len);
	s[len * n] = '\0';
	return s;
}

static struct policy_config *load_good(const char *text)
{
	struct policy_config *cfg = NULL;
	_cleanup_free_ char *msg = NULL;

	cr_assert_eq(load(text, &cfg, &msg), 0, "%s", msg ? msg : "no message");
	return cfg;
}

/* inih (Debian's, INI_MAX_LINE 200) would cut these lines; a path may be
 * 4,095 bytes, and its line is read whole. */
Test(config, a_path_of_4095_bytes)
{
	_cleanup_free_ char *dirs = repeat("0123456789abcdef/", 240), *text = NULL, *want = NULL;
	struct policy_config *cfg;

	cr_assert_neq(asprintf(&want, "%s%s", dirs, "last-name-15byt"), -1);
	cr_assert_eq(strlen(want), 4095);
	cr_assert_neq(asprintf(&text, "[protect]\npath = %s\n", want), -1);
	cfg = load_good(text);
	cr_assert_eq(cfg->n_protect, 1);
	cr_assert_str_eq(cfg->protect[0], want);
	policy_config_free(cfg);
}

Test(config, long_lines_read_as_inih_reads_short_ones)
{
	_cleanup_free_ char *word = repeat("abcdefgh", 13), *text = NULL, *path = NULL, *spaced = NULL,
	                    *want = NULL;
	struct policy_config *cfg;

	/* Each line past 200 bytes: blanks and a comment around a value; a value
	 * with blanks, '=', ':' and '[' inside; a comment line; a value continued
	 * on an indented line (inih's multi-line values); the mark byte itself,
	 * on a long line and a short one. */
	cr_assert_neq(asprintf(&path, "%s/%s", word, word), -1);
	cr_assert_neq(asprintf(&spaced, "%s with = and : and [x] %s", word, word), -1);
	cr_assert_neq(asprintf(&text,
	                       "; %s = : [ ] # ; %s\n"
	                       "[protect]\n"
	                       "   path   =   %s/a   ; a comment %s\n"
	                       "path = %s\n"
	                       "path = b\n"
	                       "  %s/c\n"
	                       "path = %s\x01z\n"
	                       "path = short\x01" "0\n",
	                       path, path, path, path, spaced, path, path),
	              -1);
	cfg = load_good(text);
	cr_assert_eq(cfg->n_protect, 6);
	cr_assert_neq(asprintf(&want, "%s/a", path), -1);
	cr_assert_str_eq(cfg->protect[0], want);
	cr_assert_str_eq(cfg->protect[1], spaced);
	cr_assert_str_eq(cfg->protect[2], "b");
	free(want);
	cr_assert_neq(asprintf(&want, "%s/c", path), -1);
	cr_assert_str_eq(cfg->protect[3], want);
	free(want);
	cr_assert_neq(asprintf(&want, "%s\x01z", path), -1);
	cr_assert_str_eq(cfg->protect[4], want);
	cr_assert_str_eq(cfg->protect[5], "short\x01" "0");
	policy_config_free(cfg);
}

Test(config, long_lines_keep_errors_and_line_numbers)
{
	_cleanup_free_ char *key = repeat("k", 300), *path = repeat("dir/", 60), *text = NULL,
	                    *semis = repeat("a ;", 150);

	cr_assert_neq(asprintf(&text, "[protect]\n%s = x\n", key), -1);
	assert_refused(text, -EINVAL, 2, key); /* the key is named whole */
	free(text);
	cr_assert_neq(asprintf(&text, "[protect]\npath = /%s\n", path), -1);
	assert_refused(text, -EINVAL, 2, "is absolute");
	free(text);
	cr_assert_neq(asprintf(&text, "[protect]\npath = %s\njust words\n", path), -1);
	assert_refused(text, -EINVAL, 3, "expected");
	free(text);
	cr_assert_neq(asprintf(&text, "[protect]\npath = %s\n", semis), -1);
	assert_refused(text, -EINVAL, 2, "too long to read");
	free(text);
	cr_assert_neq(asprintf(&text, "\xef\xbb\xbf[protect] ; %s\npath = /x\n", path), -1);
	assert_refused(text, -EINVAL, 2, "is absolute"); /* a byte order mark before a long first line */
}

Test(config, empty_file_name)
{
	struct policy_config *cfg = NULL;
	_cleanup_free_ char *msg = NULL;

	cr_assert_eq(policy_config_load("", &cfg, &msg), -EINVAL);
	cr_assert_null(cfg);
	cr_assert_str_eq(msg, "the configuration file's name is empty: name a file");
}

/* The tree is DIR; OUTSIDE a folder beside it. */
Test(config, refused_inside_the_tree)
{
	char outside[] = P_tmpdir "/oz0-config-out-XXXXXX";
	_cleanup_free_ char *sub = NULL, *inner = NULL, *sym = NULL, *hard = NULL, *copy = NULL;
	_cleanup_close_ int tree = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct policy_config *cfg = NULL;
	char *msg = NULL;

	cr_assert_geq(tree, 0);
	cr_assert_not_null(mkdtemp(outside));
	cr_assert_neq(asprintf(&sub, "%s/sub", dir), -1);
	cr_assert_neq(asprintf(&inner, "%s/inner.conf", sub), -1);
	cr_assert_neq(asprintf(&sym, "%s/link.conf", outside), -1);
	cr_assert_neq(asprintf(&hard, "%s/hard.conf", outside), -1);
	cr_assert_neq(asprintf(&copy, "%s/copy.conf", outside), -1);
	cr_assert_eq(mkdir(sub, 0700), 0);
	write_file("[protect]\npath = x\n", 19);
	cr_assert_eq(rename(file, inner), 0);

	cr_assert_eq(policy_config_load_outside(inner, tree, &cfg, &msg), -EXDEV);
	cr_assert_null(cfg);
	cr_assert_not_null(strstr(msg, "inner.conf: inside the tree being mounted"), "%s", msg);
	cr_assert_not_null(strstr(msg, "keep the configuration outside the tree"), "%s", msg);
	free(msg);
	cr_assert_eq(symlink(inner, sym), 0);
	cr_assert_eq(policy_config_load_outside(sym, tree, &cfg, &msg), -EXDEV);
	cr_assert_not_null(strstr(msg, "inside the tree being mounted"), "%s", msg);
	free(msg);
	cr_assert_eq(link(inner, hard), 0);
	cr_assert_eq(policy_config_load_outside(hard, tree, &cfg, &msg), -EXDEV);
	cr_assert_not_null(strstr(msg, "hard.conf: a hard link"), "%s", msg);
	free(msg);
	cr_assert_eq(unlink(hard), 0);
	cr_assert_eq(rename(inner, copy), 0); /* now outside: the link dangles */
	cr_assert_eq(policy_config_load_outside(copy, tree, &cfg, &msg), 0, "%s", msg);
	cr_assert_eq(cfg->n_protect, 1);
	policy_config_free(cfg);
	unlink(sym);
	unlink(copy);
	rmdir(outside);
	rmdir(sub);
}
