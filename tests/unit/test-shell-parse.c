/* The shell parser: tree shapes, static and dynamic words, errors with
 * their position, and every bound refusing rather than hanging. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/shell/parse.h"

static struct shell_ast *parse_ok(const char *line)
{
	struct shell_ast *ast = NULL;
	struct shell_error err;
	int k = shell_parse(line, strlen(line), "test", &ast, &err);

	cr_assert_eq(k, 0, "'%s': %d %s at %u", line, k, err.what ? err.what : "", err.pos);
	return ast;
}

static void assert_refused(const char *line, size_t len, int code, uint32_t pos)
{
	struct shell_ast *ast = NULL;
	struct shell_error err;
	int k = shell_parse(line, len, "test", &ast, &err);

	cr_assert_eq(k, code, "'%.40s': got %d (%s), want %d", line, k, err.what ? err.what : "", code);
	cr_assert_null(ast);
	cr_assert_eq(err.code, code);
	cr_assert_not_null(err.what);
	cr_assert_str_eq(err.origin, "test");
	if (pos != UINT32_MAX)
		cr_assert_eq(err.pos, pos, "'%.40s': error at %u, want %u", line, err.pos, pos);
}

Test(shell_parse, and_or_is_left_associative)
{
	struct shell_ast *ast = parse_ok("a && b || c");

	cr_assert_eq(ast->body->kind, SHELL_CMD_OR);
	cr_assert_eq(ast->body->left->kind, SHELL_CMD_AND);
	cr_assert_eq(ast->body->right->kind, SHELL_CMD_SIMPLE);
	cr_assert_eq(ast->body->right->pos, 10);
	shell_ast_free(ast);
}

Test(shell_parse, lists_keep_background_and_order)
{
	struct shell_ast *ast = parse_ok("a & b; c\nd");
	const struct shell_cmd *c = ast->body;

	cr_assert(c->background);
	cr_assert(!c->next->background);
	cr_assert_not_null(c->next->next->next);
	cr_assert_null(c->next->next->next->next);
	shell_ast_free(ast);
}

Test(shell_parse, compound_commands)
{
	struct shell_ast *ast = parse_ok("if a; then b; elif c; then d; else e; fi; while f; do g; done; "
					 "for x in 1 2; do h; done; case $y in a|b) i;; *) j;; esac; (k); { l; }; "
					 "m() { n; }; function o { p; }");
	const enum shell_cmd_kind want[] = {SHELL_CMD_IF,   SHELL_CMD_WHILE,    SHELL_CMD_FOR,
					    SHELL_CMD_CASE, SHELL_CMD_SUBSHELL, SHELL_CMD_GROUP,
					    SHELL_CMD_FUNCDEF, SHELL_CMD_FUNCDEF};
	const struct shell_cmd *c = ast->body;

	for (size_t i = 0; i < ELEMENTSOF(want); i++, c = c->next) {
		cr_assert_not_null(c);
		cr_assert_eq(c->kind, want[i], "command %zu", i);
	}
	cr_assert_null(c);
	cr_assert_eq(ast->body->alt->kind, SHELL_CMD_IF);
	cr_assert_str_eq(ast->body->next->next->next->next->next->next->name, "m");
	shell_ast_free(ast);
}

Test(shell_parse, assignments_and_redirections)
{
	struct shell_ast *ast = parse_ok("A=1 B=\"x y\" cmd 2>&1 >out <<<here arg");
	const struct shell_cmd *c = ast->body;

	cr_assert_str_eq(c->assigns->name, "A");
	cr_assert_str_eq(shell_word_static(ast, c->assigns->value), "1");
	cr_assert_str_eq(shell_word_static(ast, c->assigns->next->value), "x y");
	cr_assert_str_eq(shell_word_static(ast, c->words), "cmd");
	cr_assert_str_eq(shell_word_static(ast, c->words->next), "arg");
	cr_assert_eq(c->redirs->op, SHELL_REDIR_DUP_OUT);
	cr_assert_eq(c->redirs->fd, 2);
	cr_assert_eq(c->redirs->next->op, SHELL_REDIR_OUT);
	cr_assert_eq(c->redirs->next->next->op, SHELL_REDIR_HERESTRING);
	shell_ast_free(ast);
}

/* Each word and whether it is static: its value, or NULL. */
Test(shell_parse, static_and_dynamic_words)
{
	static const struct {
		const char *word, *value;
	} cases[] = {
		{"plain", "plain"},       {"'a b'", "a b"},     {"\"a b\"", "a b"},   {"a\\ b", "a b"},
		{"$'a\\tb'", "a\tb"},     {"\"a\\$b\"", "a$b"}, {"'$x'", "$x"},       {"a\"b\"'c'", "abc"},
		{"$x", NULL},             {"${x}", NULL},       {"$(x)", NULL},       {"`x`", NULL},
		{"$((1+2))", NULL},       {"*.c", NULL},        {"a?b", NULL},        {"[ab]", NULL},
		{"[", "["},               {"~", NULL},          {"~/bin", NULL},      {"a~b", "a~b"},
		{"\"$x\"", NULL},         {"'*'", "*"},         {"\\*", "*"},         {"\"~\"", "~"},
		{"x=~/a", NULL},          {"--opt=~", "--opt=~"}, {"$", "$"},         {"a\\\nb", "ab"},
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_free_ char *line = NULL;
		struct shell_ast *ast;
		const char *v;

		cr_assert_neq(asprintf(&line, "cmd %s", cases[i].word), -1);
		ast = parse_ok(line);
		v = shell_word_static(ast, ast->body->words->next);
		if (cases[i].value)
			cr_assert_str_eq(v ? v : "(dynamic)", cases[i].value, "word %s", cases[i].word);
		else
			cr_assert_null(v, "word %s should be dynamic, is '%s'", cases[i].word, v);
		shell_ast_free(ast);
	}
}

Test(shell_parse, substitutions_hold_commands)
{
	struct shell_ast *ast = parse_ok("a \"$(b c)\" ${x:-$(d)} `e` <(f)");
	const struct shell_word *w = ast->body->words->next;

	cr_assert_eq(w->parts->kind, SHELL_PART_DQUOTE);
	cr_assert_eq(w->parts->parts->kind, SHELL_PART_CMDSUBST);
	cr_assert_eq(w->parts->parts->body->kind, SHELL_CMD_SIMPLE);
	w = w->next;
	cr_assert_eq(w->parts->kind, SHELL_PART_PARAM);
	cr_assert_str_eq(w->parts->text, "x");
	cr_assert_eq(w->parts->parts->next->kind, SHELL_PART_CMDSUBST);
	w = w->next;
	cr_assert_eq(w->parts->kind, SHELL_PART_CMDSUBST);
	cr_assert_str_eq(shell_word_static(ast, w->parts->body->words), "e");
	w = w->next;
	cr_assert_eq(w->parts->kind, SHELL_PART_PROCSUBST);
	shell_ast_free(ast);
}

Test(shell_parse, heredocs)
{
	struct shell_ast *ast = parse_ok("cat <<EOF; cat <<-'X'\n$(a) b\nEOF\n\t$(c)\n\tX\nd");
	const struct shell_redir *r = ast->body->redirs, *q = ast->body->next->redirs;

	cr_assert_eq(r->body->parts->kind, SHELL_PART_CMDSUBST);
	cr_assert_str_eq(shell_word_static(ast, q->body), "$(c)\n");
	cr_assert_str_eq(shell_word_static(ast, ast->body->next->next->words), "d");
	shell_ast_free(ast);
}

Test(shell_parse, keywords_only_where_a_command_starts)
{
	struct shell_ast *ast = parse_ok("echo if then fi }; { echo done; }");

	cr_assert_eq(ast->body->kind, SHELL_CMD_SIMPLE);
	cr_assert_eq(ast->body->next->kind, SHELL_CMD_GROUP);
	shell_ast_free(ast);
}

Test(shell_parse, syntax_errors_carry_their_position)
{
	assert_refused("echo 'open", 10, -EINVAL, 5);
	assert_refused("echo \"open", 10, -EINVAL, 5);
	assert_refused("a && ", 5, -EINVAL, 5);
	assert_refused("if a; then b", 12, -EINVAL, 12);
	assert_refused("a | | b", 7, -EINVAL, 4);
	assert_refused("(a", 2, -EINVAL, 2);
	assert_refused("a )", 3, -EINVAL, 2);
	assert_refused("echo $(a", 8, -EINVAL, 8);
	assert_refused("echo ${a", 8, -EINVAL, 5);
	assert_refused("echo `a", 7, -EINVAL, 5);
	assert_refused("case x in", 9, -EINVAL, 9);
	assert_refused("for 1 in a; do b; done", 22, -EINVAL, 4);
	assert_refused("a\0b", 3, -EINVAL, 1);
}

/* Where dash and bash both refuse a line (dash -n, bash -n), so do we:
 * reserved words where a command belongs, compound commands left empty or
 * open, operators with nothing on one side. */
Test(shell_parse, what_no_shell_reads)
{
	static const struct {
		const char *line;
		uint32_t pos;
	} cases[] = {
		/* a reserved word where a command belongs */
		{"fi", 0}, {"then", 0}, {"done", 0}, {"esac", 0}, {"}", 0}, {"in", 0},
		{"a | fi", 4}, {"a && then", 5}, {"a || done", 5}, {"! fi", 2}, {"a | ! b", 4},
		{"! ! a", 2}, {"f() fi", 4}, {"a; fi", 3}, {"a\n}", 2},
		/* a compound command left empty */
		{"if then fi", 3}, {"if a; then fi", 11}, {"if a; then b; else fi", 19},
		{"if a; then b; elif c; then fi", 27}, {"while do done", 6}, {"while a; do done", 12},
		{"until do done", 6}, {"for x in a; do done", 15}, {"{ }", 2}, {"( )", 2}, {"()", 1},
		{"f() { }", 6}, {"echo $( ( ) )", 10},
		/* a compound command left open */
		{"if a; then b", 12}, {"if a", 4}, {"while a; do b", 13}, {"for", 3}, {"for in", 6},
		{"for x in a b", 12}, {"case", 4}, {"case x", 6}, {"case x in a) b;;", 16}, {"{ a;", 4},
		{"echo $((1", 5}, {"echo `a", 5}, {"echo \"a", 5}, {"echo 'a", 5},
		/* operators with nothing on one side */
		{"&& a", 0}, {"|| a", 0}, {"| a", 0}, {"; a", 0}, {";;", 0}, {"a;;", 1}, {"a && || b", 5},
		{"a &&", 4}, {"a |", 3}, {"& a", 0}, {"a; ;", 3},
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		assert_refused(cases[i].line, strlen(cases[i].line), -EINVAL, cases[i].pos);
}

/* What both shells read stays readable: reserved words that are only words
 * there, empty lists where the grammar allows them. */
Test(shell_parse, what_every_shell_reads)
{
	static const char *const lines[] = {
		"x=1 fi", ">out done", "echo if then fi } in !", "a && ! b", "echo $( )", "echo ``",
		"case x in a) ;; esac", "case x in esac", "for x in; do a; done", "for x do a; done",
		"case x in (esac) a;; esac", "for do in a; do b; done", "f() ( a )", "function",
		"function -x", "",
	};

	for (size_t i = 0; i < ELEMENTSOF(lines); i++)
		shell_ast_free(parse_ok(lines[i]));
}

/* dash reads a backquoted list up to the first token that ends a list and
 * ignores the rest (bash reads it only when it runs): both run the command
 * around it, so it is read, with what dash runs inside. */
Test(shell_parse, backquotes_read_as_dash_reads_them)
{
	struct shell_ast *ast = parse_ok("tools/a `b; fi; c` `) d`");
	const struct shell_word *w = ast->body->words;

	cr_assert_str_eq(shell_word_static(ast, w), "tools/a");
	cr_assert_str_eq(shell_word_static(ast, w->next->parts->body->words), "b");
	cr_assert_null(w->next->parts->body->next);
	cr_assert_null(w->next->next->parts->body);
	shell_ast_free(ast);
	assert_refused("echo `if then fi`", 17, -EINVAL, 9);
	assert_refused("echo `a | fi`", 13, -EINVAL, 10);
}

/* dash drops the character after ${NAME that is no operator, and reads on
 * without it: '${a${b}' is '${a{b}' and the next '}' closes it. It runs
 * what follows (bash runs nothing of the bad substitution), so we read it
 * as dash does; after ':' bash reads a substring whose expansions run. */
Test(shell_parse, what_dash_drops_after_a_name)
{
	struct shell_ast *ast = parse_ok("echo ${a${b}& tools/x }");

	cr_assert(ast->body->background);
	cr_assert_str_eq(shell_word_static(ast, ast->body->next->words), "tools/x");
	shell_ast_free(ast);
	ast = parse_ok("echo ${a:$(tools/y)}");
	cr_assert_eq(ast->body->words->next->parts->parts->next->kind, SHELL_PART_CMDSUBST);
	cr_assert_str_eq(shell_word_static(ast, ast->body->words->next->parts->parts->next->body->words), "tools/y");
	shell_ast_free(ast);
	/* dash refuses the '}' left over, bash the function body */
	assert_refused("f() echo ${a${b}&}", 18, -EINVAL, 17);
}

/* 'function' without a name after it is a program, as dash reads it. */
Test(shell_parse, function_without_a_name_is_a_program)
{
	struct shell_ast *ast = parse_ok("function -v x >out");

	cr_assert_eq(ast->body->kind, SHELL_CMD_SIMPLE);
	cr_assert_str_eq(shell_word_static(ast, ast->body->words), "function");
	cr_assert_str_eq(shell_word_static(ast, ast->body->words->next->next), "x");
	cr_assert_eq(ast->body->redirs->op, SHELL_REDIR_OUT);
	shell_ast_free(ast);
	ast = parse_ok("function f { a; }");
	cr_assert_eq(ast->body->kind, SHELL_CMD_FUNCDEF);
	cr_assert_str_eq(ast->body->name, "f");
	cr_assert_null(ast->body->words);
	shell_ast_free(ast);
}

/* sh runs a line's complete commands before it reads on: the error says
 * how many bytes of them there are. */
Test(shell_parse, an_error_says_what_ran_before_it)
{
	static const struct {
		const char *line;
		uint32_t complete;
	} cases[] = {
		{"if then fi", 0},
		{"a; if then fi", 0},
		{"a\nif then fi", 2},
		{"a\n\nb; c\nd 'open", 8},
		{"if a\nthen b\nif then fi\nfi", 0},
		{"cat <<E\nbody\nE\n{ }", 15},
		{"a && \nb\n)", 8},
		{"echo $(a\nb", 0},
		/* dash stops at '|&', bash at 'f() d': neither reaches the quote */
		{"a\nb |& c\nf() d\ne\n'", 9},
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct shell_ast *ast = NULL;
		struct shell_error err;
		int k = shell_parse(cases[i].line, strlen(cases[i].line), "test", &ast, &err);

		cr_assert_eq(k, -EINVAL, "'%s'", cases[i].line);
		cr_assert_eq(err.complete, cases[i].complete, "'%s': %u complete, want %u", cases[i].line,
			     err.complete, cases[i].complete);
	}
}

/* shell_parse_runs gives the tree of what sh runs: all of a valid line, the
 * complete commands before an error, or nothing. */
Test(shell_parse, what_runs_of_a_line)
{
	struct shell_ast *ast = NULL;
	struct shell_error err;

	cr_assert_eq(shell_parse_runs("a; b", 4, "test", &ast, &err), 0);
	cr_assert_eq(err.code, 0);
	cr_assert_not_null(ast);
	shell_ast_free(ast);
	cr_assert_eq(shell_parse_runs("a\nb\nfi\nc", 8, "test", &ast, &err), 0);
	cr_assert_eq(err.code, -EINVAL);
	cr_assert_eq(err.pos, 4);
	cr_assert_not_null(ast);
	cr_assert_str_eq(shell_word_static(ast, ast->body->words), "a");
	cr_assert_str_eq(shell_word_static(ast, ast->body->next->words), "b");
	cr_assert_null(ast->body->next->next);
	shell_ast_free(ast);
	/* the prefix is read as part of its line: bash reads 'f[' up to the ']'
	 * after the error, so it does not refuse the prefix with '|&' in it */
	cr_assert_eq(shell_parse_runs("a |& b\nf[o=i\n&\n]", 16, "test", &ast, &err), 0);
	cr_assert_eq(err.code, -EINVAL);
	cr_assert_not_null(ast);
	cr_assert_str_eq(shell_word_static(ast, ast->body->next->words), "f[o=i");
	shell_ast_free(ast);
	cr_assert_eq(shell_parse_runs("a; fi", 5, "test", &ast, &err), 0);
	cr_assert_eq(err.code, -EINVAL);
	cr_assert_null(ast);
}

Test(shell_parse, bound_on_input_size)
{
	size_t len = SHELL_MAX_INPUT + 1;
	_cleanup_free_ char *line = malloc(len);

	cr_assert_not_null(line);
	memset(line, 'a', len);
	assert_refused(line, len, -E2BIG, 0);
}

/* OPEN N times, then CLOSE N times, as a line of *LEN bytes. */
static char *nested(const char *open, const char *close, size_t n, size_t *len)
{
	char *line = NULL;
	FILE *m = open_memstream(&line, len);

	cr_assert_not_null(m);
	for (size_t i = 0; i < n; i++)
		fputs(open, m);
	for (size_t i = 0; i < n; i++)
		fputs(close, m);
	fclose(m);
	return line;
}

Test(shell_parse, bound_on_nesting_depth)
{
	/* a process substitution, which opens a word, counts like the others */
	static const char *const opens[][2] = {{"$(", ")"}, {"( ", ""}, {"<(", ""}};

	for (size_t i = 0; i < ELEMENTSOF(opens); i++) {
		size_t len;
		_cleanup_free_ char *line = nested(opens[i][0], opens[i][1], SHELL_MAX_DEPTH + 1, &len);

		assert_refused(line, len, -E2BIG, UINT32_MAX);
	}
}

Test(shell_parse, bound_on_node_count)
{
	size_t words = SHELL_MAX_NODES, len = words * 2;
	_cleanup_free_ char *line = malloc(len);

	cr_assert_not_null(line);
	for (size_t i = 0; i < words; i++)
		line[2 * i] = 'a', line[2 * i + 1] = ' ';
	assert_refused(line, len, -E2BIG, UINT32_MAX);
}
