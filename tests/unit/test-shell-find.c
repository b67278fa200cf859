/* The program finder against tests/shell-find.table: one test per case.
 *
 * A case is a block of lines ended by a blank line:
 *   # seed 000 ...           comments name the sentence the case checks
 *   line: TEXT               the command line ('line+: TEXT' adds a line to it)
 *   exists: PATH             paths that exist; without any, every path exists
 *   hold: FOLDER PATH        every (folder, path) the finder must hold, no more
 *   note: KIND               every kind of note it must give, no more
 * The same lines feed the shfmt differential (tests/shell-differential.sh). */
#include "config.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/shell/find.h"
#include "policy/shell/folders.h"

struct table_case {
	char *line;
	char **exists, **holds, **notes;
	size_t n_exists, n_holds, n_notes;
	int lineno;
};

static void strv_push(char ***v, size_t *n, const char *s)
{
	*v = reallocarray(*v, *n + 1, sizeof(**v));
	cr_assert_not_null(*v);
	(*v)[(*n)++] = strdup(s);
}

static FILE *table_open(void)
{
	const char *src = getenv("OZ0_SRCDIR");
	_cleanup_free_ char *path = NULL;
	FILE *f;

	cr_assert_neq(asprintf(&path, "%s/tests/shell-find.table", src ? src : "."), -1);
	f = fopen(path, "re");
	cr_assert_not_null(f, "cannot open %s", path);
	return f;
}

/* Reads case number INDEX (from 0) into C; returns the number of cases when INDEX < 0. */
static int table_read(int index, struct table_case *c)
{
	FILE *f = table_open();
	_cleanup_free_ char *raw = NULL;
	size_t cap = 0;
	int n = 0, lineno = 0;
	bool in_case = false;

	while (getline(&raw, &cap, f) >= 0) {
		char *v;

		lineno++;
		raw[strcspn(raw, "\n")] = '\0';
		if (raw[0] == '\0') {
			n += in_case;
			in_case = false;
			continue;
		}
		if (raw[0] == '#')
			continue;
		if (!in_case && n == index)
			c->lineno = lineno;
		in_case = true;
		if (n != index)
			continue;
		if ((v = strchr(raw, ':')) == NULL || v[1] != ' ')
			cr_assert_fail("shell-find.table:%d: expected 'key: value'", lineno);
		*v = '\0';
		v += 2;
		if (strcmp(raw, "line") == 0)
			c->line = strdup(v);
		else if (strcmp(raw, "line+") == 0) {
			char *joined = NULL;

			cr_assert_neq(asprintf(&joined, "%s\n%s", c->line, v), -1);
			free(c->line);
			c->line = joined;
		} else if (strcmp(raw, "exists") == 0)
			strv_push(&c->exists, &c->n_exists, v);
		else if (strcmp(raw, "hold") == 0)
			strv_push(&c->holds, &c->n_holds, v);
		else if (strcmp(raw, "note") == 0)
			strv_push(&c->notes, &c->n_notes, v);
		else
			cr_assert_fail("shell-find.table:%d: unknown key '%s'", lineno, raw);
	}
	n += in_case;
	fclose(f);
	return n;
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void table_case_free(struct table_case *c)
{
	free(c->line);
	strv_free(c->exists, c->n_exists);
	strv_free(c->holds, c->n_holds);
	strv_free(c->notes, c->n_notes);
}

static bool case_exists(const char *path, void *userdata)
{
	const struct table_case *c = userdata;

	if (c->n_exists == 0)
		return true;
	for (size_t i = 0; i < c->n_exists; i++)
		if (strcmp(c->exists[i], path) == 0)
			return true;
	return false;
}

static int strv_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Both lists sorted and joined, so that a failure shows the whole difference. */
static char *strv_join(char **v, size_t n)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);

	if (n > 0) /* qsort of a NULL array is undefined even when empty */
		qsort(v, n, sizeof(*v), strv_cmp);
	for (size_t i = 0; i < n; i++)
		fprintf(m, "  %s\n", v[i]);
	fclose(m);
	return s;
}

struct case_ref {
	int index;
};

ParameterizedTestParameters(find, table)
{
	struct table_case c = {0};
	int n = table_read(-1, &c);
	struct case_ref *refs = cr_malloc(sizeof(*refs) * (size_t)n);

	for (int i = 0; i < n; i++)
		refs[i].index = i;
	return cr_make_param_array(struct case_ref, refs, (size_t)n);
}

ParameterizedTest(struct case_ref *ref, find, table)
{
	struct table_case c = {0};
	struct shell_find_options opts = {.exists = case_exists, .userdata = &c};
	struct shell_finding *fd = NULL;
	char **got_holds = NULL, **got_notes = NULL;
	size_t n_got_holds = 0, n_got_notes = 0;
	_cleanup_free_ char *want_h = NULL, *got_h = NULL, *want_n = NULL, *got_n = NULL;

	table_read(ref->index, &c);
	cr_assert_not_null(c.line, "case %d has no line", ref->index);
	cr_assert_eq(shell_find(c.line, strlen(c.line), "table", &opts, &fd), 0);
	for (size_t i = 0; i < fd->n_held; i++) {
		_cleanup_free_ char *s = NULL;

		cr_assert_neq(asprintf(&s, "%s %s", fd->held[i].folder, fd->held[i].path), -1);
		strv_push(&got_holds, &n_got_holds, s);
	}
	for (size_t i = 0; i < fd->n_notes; i++) {
		bool seen = false;

		for (size_t k = 0; k < n_got_notes; k++)
			seen |= strcmp(got_notes[k], shell_note_kind_name(fd->notes[i].kind)) == 0;
		if (!seen)
			strv_push(&got_notes, &n_got_notes, shell_note_kind_name(fd->notes[i].kind));
	}
	want_h = strv_join(c.holds, c.n_holds);
	got_h = strv_join(got_holds, n_got_holds);
	want_n = strv_join(c.notes, c.n_notes);
	got_n = strv_join(got_notes, n_got_notes);
	cr_expect_str_eq(got_h, want_h, "shell-find.table:%d: %s\nheld:\n%swanted:\n%s", c.lineno, c.line, got_h,
			 want_h);
	cr_expect_str_eq(got_n, want_n, "shell-find.table:%d: %s\nnotes:\n%swanted:\n%s", c.lineno, c.line, got_n,
			 want_n);
	shell_finding_free(fd);
	strv_free(got_holds, n_got_holds);
	strv_free(got_notes, n_got_notes);
	table_case_free(&c);
}

/* ---- bounds: a line that reaches each limit gets the seed's fallback ---- */

static struct shell_finding *find(const char *line)
{
	struct shell_finding *fd = NULL;

	cr_assert_eq(shell_find(line, strlen(line), "bound", NULL, &fd), 0);
	return fd;
}

static bool has_note(const struct shell_finding *fd, enum shell_note_kind kind)
{
	for (size_t i = 0; i < fd->n_notes; i++)
		if (fd->notes[i].kind == kind)
			return true;
	return false;
}

static bool holds(const struct shell_finding *fd, const char *folder, const char *path)
{
	for (size_t i = 0; i < fd->n_held; i++)
		if (strcmp(fd->held[i].folder, folder) == 0 && strcmp(fd->held[i].path, path) == 0)
			return true;
	return false;
}

/* 000 working 2: "The check works out up to 64 combinations and always
 * includes the destination reached by following every cd." */
Test(find_bounds, sixty_four_combinations_and_the_all_cd_destination)
{
	struct shell_finding *fd = find("cd a1; cd a2; cd a3; cd a4; cd a5; cd a6; cd a7; cd a8; ./x");

	cr_assert_eq(fd->n_held, SHELL_MAX_FOLDERS);
	cr_assert(holds(fd, "a1/a2/a3/a4/a5/a6/a7/a8", "a1/a2/a3/a4/a5/a6/a7/a8/x"));
	cr_assert(holds(fd, ".", "x"));
	cr_assert(has_note(fd, SHELL_NOTE_BOUND_FOLDERS));
	shell_finding_free(fd);
}

/* 000 limits 2: "The paths discovered after a literal cd have a combined
 * 1 MiB bound. Beyond it, relative programs are held only where the command
 * line started." */
Test(find_bounds, one_mib_of_paths_after_a_cd)
{
	_cleanup_free_ char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);
	struct shell_finding *fd;
	size_t after_cd = 0;

	/* 64 folders and 20,000 programs of ~20 bytes: far past 1 MiB */
	fputs("cd a; cd b; cd c; cd d; cd e; cd f;", m);
	for (int i = 0; i < 20000; i++)
		fprintf(m, " ./p%05d;", i);
	fputs(" ./last", m);
	fclose(m);
	fd = find(line);
	for (size_t i = 0; i < fd->n_held; i++)
		if (strcmp(fd->held[i].folder, ".") != 0)
			after_cd += strlen(fd->held[i].folder) + strlen(fd->held[i].path) + 2;
	cr_assert_leq(after_cd, SHELL_FIND_MAX_CD_BYTES);
	cr_assert(has_note(fd, SHELL_NOTE_BOUND_CD_BYTES));
	cr_assert(holds(fd, ".", "last"));
	cr_assert(!holds(fd, "a/b/c/d/e/f", "a/b/c/d/e/f/last"));
	shell_finding_free(fd);
}

Test(find_bounds, nested_lines)
{
	_cleanup_free_ char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);
	struct shell_finding *fd;

	/* eval 'eval '\''...: each level one more eval */
	for (int i = 0; i < SHELL_FIND_MAX_NESTING + 2; i++)
		fputs("eval ", m);
	fputs("tools/x", m);
	fclose(m);
	fd = find(line);
	cr_assert(has_note(fd, SHELL_NOTE_BOUND_NESTING));
	shell_finding_free(fd);
}

Test(find_bounds, calls_of_calls_end)
{
	_cleanup_free_ char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);
	struct shell_finding *fd;

	/* f0 calls f1 twice, f1 calls f2 twice...: 2^15 reads of ./x unbounded */
	for (int i = 0; i < 15; i++)
		fprintf(m, "f%d() { f%d; f%d; ./x%d; }; ", i, i + 1, i + 1, i);
	fputs("f15() { ./y; }; f0", m);
	fclose(m);
	fd = find(line);
	cr_assert(holds(fd, ".", "x14"), "what was read before the bound is held");
	cr_assert(has_note(fd, SHELL_NOTE_BOUND_STEPS));
	shell_finding_free(fd);
}

Test(find_bounds, unreadable_line_is_reported)
{
	struct shell_finding *fd = find("tools/a 'unterminated");

	cr_assert_eq(fd->n_held, 0);
	cr_assert(has_note(fd, SHELL_NOTE_UNREADABLE));
	shell_finding_free(fd);
}
