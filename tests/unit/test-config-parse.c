#include "config.h"

/* The config reader's API: what each entry carries, errors and bounds. That
 * the entries equal git's own list is the oracle's job (tests/git-config/). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "git/config-parse.h"

#define MAX_SEEN 8

struct seen_entry {
	char origin[16];
	char name[64];
	char section[32];
	char subsection[32];
	char key[32];
	char value[64];
	int has_subsection;
	int has_value;
	int line;
};

struct seen {
	struct seen_entry e[MAX_SEEN];
	int n;
	int stop_after; /* return -ECANCELED after this many, 0 for never */
};

static int record(const struct gitcfg_entry *e, void *userdata)
{
	struct seen *s = userdata;
	struct seen_entry *r;

	cr_assert_lt(s->n, MAX_SEEN);
	r = &s->e[s->n++];
	snprintf(r->origin, sizeof(r->origin), "%s", e->origin);
	snprintf(r->name, sizeof(r->name), "%s", e->name);
	snprintf(r->section, sizeof(r->section), "%s", e->section);
	snprintf(r->subsection, sizeof(r->subsection), "%s", e->subsection ? e->subsection : "");
	snprintf(r->key, sizeof(r->key), "%s", e->key);
	snprintf(r->value, sizeof(r->value), "%s", e->value ? e->value : "");
	r->has_subsection = !!e->subsection;
	r->has_value = !!e->value;
	r->line = e->line;
	return s->stop_after && s->n == s->stop_after ? -ECANCELED : 0;
}

static int parse_n(const char *buf, size_t len, struct seen *s, struct gitcfg_error *err)
{
	return gitcfg_parse(buf, len, "test", record, s, err);
}

static int parse(const char *text, struct seen *s, struct gitcfg_error *err)
{
	return parse_n(text, strlen(text), s, err);
}

Test(config_parse, splits_section_subsection_key)
{
	struct seen s = {0};

	cr_assert_eq(parse("[Remote \"Up.Stream\"]\n\tURL = https://x/y\n", &s, NULL), 1);
	cr_assert_str_eq(s.e[0].name, "remote.Up.Stream.url");
	cr_assert_str_eq(s.e[0].section, "remote");
	cr_assert_str_eq(s.e[0].subsection, "Up.Stream");
	cr_assert_str_eq(s.e[0].key, "url");
	cr_assert_str_eq(s.e[0].value, "https://x/y");
	cr_assert_str_eq(s.e[0].origin, "test");
}

Test(config_parse, no_subsection_is_null)
{
	struct seen s = {0};

	cr_assert_eq(parse("[core]\nbare = false\n", &s, NULL), 1);
	cr_assert_str_eq(s.e[0].section, "core");
	cr_assert_eq(s.e[0].has_subsection, 0);
	cr_assert_str_eq(s.e[0].key, "bare");
}

Test(config_parse, legacy_subsection_is_lowercased)
{
	struct seen s = {0};

	cr_assert_eq(parse("[Branch.Main]\nRemote = o\n", &s, NULL), 1);
	cr_assert_str_eq(s.e[0].name, "branch.main.remote");
	cr_assert_str_eq(s.e[0].subsection, "main");
}

Test(config_parse, implicit_true_is_null_and_empty_is_empty)
{
	struct seen s = {0};

	cr_assert_eq(parse("[core]\n\tbare\n\tempty =\n", &s, NULL), 2);
	cr_assert_eq(s.e[0].has_value, 0);
	cr_assert_eq(s.e[1].has_value, 1);
	cr_assert_str_eq(s.e[1].value, "");
}

/* Seed 000, "Reading configured commands" 1: the node reads Git configuration
 * as Git reads it, including a key on its section header's line. */
Test(config_parse, key_on_header_line)
{
	struct seen s = {0};

	cr_assert_eq(parse("[core] editor = vim\n", &s, NULL), 1);
	cr_assert_str_eq(s.e[0].name, "core.editor");
	cr_assert_str_eq(s.e[0].value, "vim");
}

Test(config_parse, key_before_any_section_has_empty_section)
{
	struct seen s = {0};

	cr_assert_eq(parse("k = v\n", &s, NULL), 1);
	cr_assert_str_eq(s.e[0].name, "k");
	cr_assert_str_eq(s.e[0].section, "");
	cr_assert_str_eq(s.e[0].key, "k");
}

Test(config_parse, value_quotes_escapes_comments)
{
	struct seen s = {0};

	cr_assert_eq(parse("[a]\nk = \" x ; y \"z\\t\\\"w # c\n", &s, NULL), 1);
	cr_assert_str_eq(s.e[0].value, " x ; y z\t\"w");
}

/* Seed 000, "Reading configured commands" 1: the node reads Git configuration
 * as Git reads it, including a value continued with a backslash at the end of a line. */
Test(config_parse, continuation_joins_lines_and_line_is_the_last)
{
	struct seen s = {0};

	cr_assert_eq(parse("[a]\nk = one\\\ntwo\nl = 3\n", &s, NULL), 2);
	cr_assert_str_eq(s.e[0].value, "onetwo");
	cr_assert_eq(s.e[0].line, 3);
	cr_assert_eq(s.e[1].line, 4);
}

/* Seed 000, "Reading configured commands" 1: the node reads Git configuration
 * as Git reads it, including a value ending at a NUL byte. */
Test(config_parse, nul_ends_the_value_not_the_line)
{
	static const char text[] = "[a]\nk = ab\0cd\"\nl = w\"\n";
	struct seen s = {0};

	/* The quote opened after the NUL still counts: it spans the newline. */
	cr_assert_eq(parse_n(text, sizeof(text) - 1, &s, NULL), -EINVAL);
	cr_assert_eq(s.n, 0);
}

Test(config_parse, nul_in_value_keeps_reading_the_file)
{
	static const char text[] = "[a]\nk = ab\0cd ; x\nl = w\n";
	struct seen s = {0};

	cr_assert_eq(parse_n(text, sizeof(text) - 1, &s, NULL), 2);
	cr_assert_str_eq(s.e[0].value, "ab");
	cr_assert_str_eq(s.e[1].name, "a.l");
}

Test(config_parse, nul_in_subsection_cuts_the_name_as_git_does)
{
	static const char text[] = "[core \"hooksPath\0\"] k = v\n";
	struct seen s = {0};

	cr_assert_eq(parse_n(text, sizeof(text) - 1, &s, NULL), 1);
	cr_assert_str_eq(s.e[0].name, "core.hooksPath");
	cr_assert_str_eq(s.e[0].section, "core");
	cr_assert_eq(s.e[0].has_subsection, 0);
	cr_assert_str_eq(s.e[0].key, "hooksPath");
}

Test(config_parse, bom_and_crlf)
{
	struct seen s = {0};

	cr_assert_eq(parse("\xef\xbb\xbf[a]\r\nk = v\r\n", &s, NULL), 1);
	cr_assert_str_eq(s.e[0].value, "v");
}

Test(config_parse, errors_name_line_reason_and_origin)
{
	struct gitcfg_error err = {0};
	struct seen s = {0};

	cr_assert_eq(parse("[a]\nk = 1\nl = x\\qy\n", &s, &err), -EINVAL);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(err.line, 3);
	cr_assert_str_eq(err.origin, "test");
	cr_assert_str_eq(err.reason, "unknown escape in value");
}

Test(config_parse, error_cases)
{
	static const char *const bad[] = {
	        "[core\n",       "[a \"b\n",        "[a b]\n",        "[]\n",          "[a]\nk = \"x\n",
	        "[a]\n1k = v\n", "[a]\nk_ey = v\n", "[a]\nb # c\n",   "\xef\xbb[a]\n", "[a]\nk\r= v\n",
	        "[a]]\n",        "[a \"b\" ]\n",    "[a]\nk = \\x\n", "{}\n",
	};

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		struct seen s = {0};

		cr_expect_eq(parse(bad[i], &s, NULL), -EINVAL, "accepted: %s", bad[i]);
	}
}

Test(config_parse, callback_error_stops_the_parse)
{
	struct gitcfg_error err = {0};
	struct seen s = {.stop_after = 1};

	cr_assert_eq(parse("[a]\nk = 1\nl = 2\n", &s, &err), -ECANCELED);
	cr_assert_eq(s.n, 1);
	cr_assert_str_eq(err.reason, "stopped by the caller");
}

Test(config_parse, input_larger_than_the_limit_is_refused)
{
	_cleanup_free_ char *buf = calloc(1, GITCFG_MAX_INPUT + 1);
	struct gitcfg_error err = {0};
	struct seen s = {0};

	cr_assert_not_null(buf);
	memset(buf, '\n', GITCFG_MAX_INPUT + 1);
	cr_assert_eq(parse_n(buf, GITCFG_MAX_INPUT, &s, NULL), 0);
	cr_assert_eq(parse_n(buf, GITCFG_MAX_INPUT + 1, &s, &err), -EFBIG);
	cr_assert_eq(err.line, 0);
}

Test(config_parse, value_longer_than_the_limit_is_refused)
{
	size_t len = 8 + GITCFG_MAX_LINE + 1;
	_cleanup_free_ char *buf = malloc(len);
	struct seen s = {0};

	cr_assert_not_null(buf);
	memcpy(buf, "[a]\nk = ", 8);
	memset(buf + 8, 'x', len - 8);
	cr_assert_eq(parse_n(buf, len - 1, &s, NULL), 1); /* GITCFG_MAX_LINE bytes fit */
	cr_assert_eq(parse_n(buf, len, &s, NULL), -E2BIG);
}

static int count(const struct gitcfg_entry *e, void *userdata)
{
	(*(int *)userdata)++;
	return 0;
}

Test(config_parse, entries_past_the_limit_are_refused)
{
	size_t len = 4 + 2 * (GITCFG_MAX_ENTRIES + 1);
	_cleanup_free_ char *buf = malloc(len);
	int n = 0;

	cr_assert_not_null(buf);
	memcpy(buf, "[a]\n", 4);
	for (size_t i = 4; i < len; i += 2)
		memcpy(buf + i, "k\n", 2);
	cr_assert_eq(gitcfg_parse(buf, len - 2, "t", count, &n, NULL), GITCFG_MAX_ENTRIES);
	cr_assert_eq(gitcfg_parse(buf, len, "t", count, &n, NULL), -E2BIG);
}
