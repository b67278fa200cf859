/* The shell parser: recursive descent over the POSIX grammar (XCU 2.10),
 * with the bash forms real Git configuration uses ('function f', '|&').
 * Reserved words are recognised only where a command starts. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/shell/arena.h"
#include "policy/shell/lex.h"
#include "policy/shell/parse.h"

static int parse_list(struct shell_reader *r, struct shell_cmd **out);
static int parse_command(struct shell_reader *r, struct shell_cmd **out);
static bool tok_starts_compound(const struct shell_token *t);

static int peek(struct shell_reader *r, struct shell_token **t)
{
	if (!r->have_ahead) {
		int k = shell_lex_next(r, &r->ahead);

		if (k < 0)
			return k;
		r->have_ahead = true;
	}
	*t = &r->ahead;
	return 0;
}

static void consume(struct shell_reader *r)
{
	r->have_ahead = false;
}

static bool tok_is_op(const struct shell_token *t, enum shell_op op)
{
	return t->kind == SHELL_TOK_OP && t->op == op;
}

/* A reserved word is an unquoted word spelt exactly so. */
static bool tok_is_word(const struct shell_token *t, const char *word)
{
	const struct shell_part *p;

	if (t->kind != SHELL_TOK_WORD)
		return false;
	p = t->word->parts;
	return p && !p->next && p->kind == SHELL_PART_LIT && strcmp(p->text, word) == 0;
}

static int fail_at(struct shell_reader *r, const struct shell_token *t, const char *what)
{
	return shell_reader_fail(r, -EINVAL, t->pos - r->base, what);
}

/* Expects the reserved word WORD next. */
static int expect_word(struct shell_reader *r, const char *word, const char *what)
{
	struct shell_token *t;
	int k = peek(r, &t);

	if (k < 0)
		return k;
	if (!tok_is_word(t, word))
		return fail_at(r, t, what);
	consume(r);
	return 0;
}

static int expect_op(struct shell_reader *r, enum shell_op op, const char *what)
{
	struct shell_token *t;
	int k = peek(r, &t);

	if (k < 0)
		return k;
	if (!tok_is_op(t, op))
		return fail_at(r, t, what);
	consume(r);
	return 0;
}

/* Skips newlines: the grammar's 'linebreak'. */
static int skip_newlines(struct shell_reader *r)
{
	struct shell_token *t;
	int k;

	while ((k = peek(r, &t)) == 0 && t->kind == SHELL_TOK_NEWLINE)
		consume(r);
	return k;
}

/* Skips the newlines between the commands of a list. At the top of the
 * line, what lies before them is complete commands, which sh runs before it
 * reads on: an error further on leaves them run (shell_error.complete). */
static int skip_list_newlines(struct shell_reader *r)
{
	struct shell_token *t;
	int k;

	while ((k = peek(r, &t)) == 0 && t->kind == SHELL_TOK_NEWLINE) {
		consume(r);
		if (r->depth == 0)
			r->err->complete = r->base + (uint32_t)r->pos;
	}
	return k;
}

static struct shell_cmd *cmd_new(struct shell_reader *r, enum shell_cmd_kind kind, uint32_t pos)
{
	struct shell_cmd *c = shell_reader_node(r, sizeof(*c));

	if (c) {
		c->kind = kind;
		c->pos = pos;
	}
	return c;
}

/* Reserved words that end a list when they stand where a command would start. */
static const char *const list_enders[] = {"then", "else", "elif", "fi", "do", "done", "esac", "}"};

static bool tok_ends_list(const struct shell_token *t)
{
	if (t->kind == SHELL_TOK_EOF || tok_is_op(t, SHELL_OP_RPAREN) || tok_is_op(t, SHELL_OP_DSEMI))
		return true;
	for (size_t i = 0; i < ELEMENTSOF(list_enders); i++)
		if (tok_is_word(t, list_enders[i]))
			return true;
	return false;
}

/* A reserved word that cannot start a command: one that ends a list, 'in',
 * or a '!' that does not start a pipeline. Where a command belongs, dash and
 * bash both refuse it rather than run a program of that name. */
static bool tok_cannot_start(const struct shell_token *t)
{
	return tok_is_word(t, "in") || tok_is_word(t, "!") || (t->kind == SHELL_TOK_WORD && tok_ends_list(t));
}

static int parse_redirect(struct shell_reader *r, struct shell_redir **out)
{
	struct shell_token *t;
	struct shell_redir *redir = shell_reader_node(r, sizeof(*redir));
	bool strip_tabs;
	int k = peek(r, &t);

	if (!redir)
		return r->err->code;
	if (k < 0)
		return k;
	redir->pos = t->pos;
	redir->op = t->redir;
	redir->fd = t->fd;
	strip_tabs = t->strip_tabs;
	consume(r);
	k = peek(r, &t);
	if (k < 0)
		return k;
	if (t->kind != SHELL_TOK_WORD)
		return fail_at(r, t, "expected a word after a redirection");
	redir->word = t->word;
	consume(r);
	if (redir->op == SHELL_REDIR_HEREDOC && shell_lex_queue_heredoc(r, redir, strip_tabs) < 0)
		return r->err->code;
	*out = redir;
	return 0;
}

/* Redirections after a compound command. */
static int parse_redirects(struct shell_reader *r, struct shell_redir **tail)
{
	struct shell_token *t;
	int k;

	while (*tail)
		tail = &(*tail)->next;
	while ((k = peek(r, &t)) == 0 && tok_is_op(t, SHELL_OP_REDIR)) {
		if (parse_redirect(r, tail) < 0)
			return r->err->code;
		tail = &(*tail)->next;
	}
	return k;
}

/* NAME=value as the simple command's prefix: the name before the first '='
 * of the word's leading literal (a+= and a[i]= as bash allows). */
static int split_assignment(struct shell_reader *r, struct shell_word *w, struct shell_assign **out)
{
	struct shell_part *first = w->parts;
	const char *text, *eq;
	size_t n;
	struct shell_assign *a;

	*out = NULL;
	if (!first || first->kind != SHELL_PART_LIT)
		return 0;
	text = first->text;
	if (!(text[0] == '_' || (text[0] >= 'a' && text[0] <= 'z') || (text[0] >= 'A' && text[0] <= 'Z')))
		return 0;
	n = strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	if (text[n] == '+')
		eq = text[n + 1] == '=' ? text + n + 1 : NULL;
	else if (text[n] == '[')
		eq = strstr(text + n, "]=") ? strstr(text + n, "]=") + 1 : NULL;
	else
		eq = text[n] == '=' ? text + n : NULL;
	if (!eq)
		return 0;
	a = shell_reader_node(r, sizeof(*a));
	if (!a || !(a->name = shell_arena_strndup(r->arena, text, n)))
		return shell_reader_fail(r, -ENOMEM, r->pos, "out of memory");
	a->pos = w->pos;
	/* the value is the same word minus 'NAME=' */
	a->value = w;
	w->pos += (uint32_t)(eq + 1 - text);
	if (eq[1] == '\0')
		w->parts = first->next;
	else {
		first->len -= (size_t)(eq + 1 - text);
		first->text = eq + 1;
		first->pos = w->pos;
	}
	*out = a;
	return 0;
}

static bool is_name(const char *s)
{
	if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	return s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")] == '\0';
}

/* name ( ) linebreak compound-command, with the name already read. */
static int parse_funcdef_body(struct shell_reader *r, struct shell_cmd *c)
{
	struct shell_token *t;
	int k;

	if (expect_op(r, SHELL_OP_LPAREN, "expected '('") < 0 || expect_op(r, SHELL_OP_RPAREN, "expected ')'") < 0 ||
	    skip_newlines(r) < 0)
		return r->err->code;
	k = peek(r, &t);
	if (k < 0)
		return k;
	if (t->kind == SHELL_TOK_EOF)
		return fail_at(r, t, "expected a function body");
	if (!tok_starts_compound(t)) /* f() cmd, f() g() { ...; } */
		shell_reader_mark(r, SHELL_DASH_ONLY, t->pos - r->base);
	return parse_command(r, &c->body);
}

static bool is_name_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* bash reads a word 'NAME[' before the command's name as a subscript up to
 * its ']', across blanks and operators: with none later in the line it
 * refuses the line, where dash reads a plain word. */
static void mark_open_subscript(struct shell_reader *r, const struct shell_word *w)
{
	size_t at = w->pos - r->base, n = at;

	if (at >= r->len || !is_name_char(r->buf[at]) || (r->buf[at] >= '0' && r->buf[at] <= '9'))
		return;
	while (n < r->len && is_name_char(r->buf[n]))
		n++;
	if (n < r->len && r->buf[n] == '[' && !shell_reader_closed(r, n, "]", 1))
		shell_reader_mark(r, SHELL_DASH_ONLY, at);
}

/* bash reads a command '[[' as its test up to a ']]': with none later in the
 * line it refuses the line, where dash runs the program '[['. */
static void mark_open_test(struct shell_reader *r, const struct shell_word *w)
{
	const char *name = shell_lex_word_literal(r->arena, w);
	size_t end = w->end - r->base;

	if (name && strcmp(name, "[[") == 0 && !shell_reader_closed(r, end, "]]", 2))
		shell_reader_mark(r, SHELL_DASH_ONLY, w->pos - r->base);
}

/* The assignments, words and redirections of the simple command C, after
 * those it holds already. */
static int parse_simple_rest(struct shell_reader *r, struct shell_cmd *c)
{
	struct shell_token *t;
	struct shell_assign **atail = &c->assigns;
	struct shell_word **wtail = &c->words;
	struct shell_redir **rtail = &c->redirs;
	int k;

	while (*wtail)
		wtail = &(*wtail)->next;
	while ((k = peek(r, &t)) == 0) {
		if (tok_is_op(t, SHELL_OP_REDIR)) {
			if (parse_redirect(r, rtail) < 0)
				return r->err->code;
			rtail = &(*rtail)->next;
		} else if (t->kind == SHELL_TOK_WORD) {
			struct shell_word *w = t->word;
			struct shell_assign *a = NULL;

			consume(r);
			if (!c->words)
				mark_open_subscript(r, w);
			if (!c->words && split_assignment(r, w, &a) < 0)
				return r->err->code;
			if (a) {
				*atail = a;
				atail = &a->next;
				continue;
			}
			*wtail = w;
			wtail = &w->next;
			if (c->words == w)
				mark_open_test(r, w);
			if (c->words == w && !c->assigns && !c->redirs && (k = peek(r, &t)) == 0 &&
			    tok_is_op(t, SHELL_OP_LPAREN)) {
				c->kind = SHELL_CMD_FUNCDEF;
				c->name = shell_lex_word_literal(r->arena, w);
				if (!is_name(c->name))
					return fail_at(r, t, "a function name must be a plain name");
				c->words = NULL;
				if (parse_funcdef_body(r, c) < 0)
					return r->err->code;
				break;
			}
			if (k < 0)
				return k;
		} else
			break;
	}
	if (k < 0)
		return k;
	if (!c->words && !c->assigns && !c->redirs && c->kind == SHELL_CMD_SIMPLE)
		return fail_at(r, t, "expected a command");
	return 0;
}

static int parse_simple(struct shell_reader *r, struct shell_cmd **out)
{
	struct shell_token *t;
	struct shell_cmd *c;
	int k = peek(r, &t);

	if (k < 0)
		return k;
	c = cmd_new(r, SHELL_CMD_SIMPLE, t->pos);
	if (!c)
		return r->err->code;
	if (parse_simple_rest(r, c) < 0)
		return r->err->code;
	*out = c;
	return 0;
}

/* A compound list, which holds at least one command: 'if then fi', '{ }'
 * and '( )' are syntax errors, where a $( ) or a case item may be empty. */
static int parse_compound_list(struct shell_reader *r, struct shell_cmd **out)
{
	struct shell_token *t;

	if (parse_list(r, out) < 0 || peek(r, &t) < 0)
		return r->err->code;
	return *out ? 0 : fail_at(r, t, "expected a command");
}

/* A compound list up to the reserved word END. */
static int parse_body_until(struct shell_reader *r, struct shell_cmd **out, const char *end, const char *what)
{
	if (parse_compound_list(r, out) < 0)
		return r->err->code;
	return expect_word(r, end, what);
}

static int parse_if(struct shell_reader *r, struct shell_cmd *c)
{
	struct shell_token *t;
	int k;

	if (parse_body_until(r, &c->cond, "then", "expected 'then'") < 0 || parse_compound_list(r, &c->body) < 0)
		return r->err->code;
	k = peek(r, &t);
	if (k < 0)
		return k;
	if (tok_is_word(t, "elif")) {
		consume(r);
		c->alt = cmd_new(r, SHELL_CMD_IF, t->pos);
		return c->alt ? parse_if(r, c->alt) : r->err->code;
	}
	if (tok_is_word(t, "else")) {
		consume(r);
		if (parse_compound_list(r, &c->alt) < 0)
			return r->err->code;
	}
	return expect_word(r, "fi", "expected 'fi'");
}

static int parse_loop(struct shell_reader *r, struct shell_cmd *c)
{
	if (parse_body_until(r, &c->cond, "do", "expected 'do'") < 0)
		return r->err->code;
	return parse_body_until(r, &c->body, "done", "expected 'done'");
}

/* The words after 'for NAME in', up to ';' or a newline. */
static int parse_for_words(struct shell_reader *r, struct shell_cmd *c)
{
	struct shell_word **tail = &c->subject;
	struct shell_token *t;
	int k;

	while ((k = peek(r, &t)) == 0 && t->kind == SHELL_TOK_WORD) {
		*tail = t->word;
		tail = &t->word->next;
		consume(r);
	}
	if (k < 0)
		return k;
	if (tok_is_op(t, SHELL_OP_SEMI))
		consume(r);
	return 0;
}

static int parse_for(struct shell_reader *r, struct shell_cmd *c)
{
	struct shell_token *t;
	int k = peek(r, &t);

	if (k < 0)
		return k;
	if (t->kind != SHELL_TOK_WORD || !is_name(shell_lex_word_literal(r->arena, t->word)))
		return fail_at(r, t, "expected a variable name after 'for'");
	c->name = shell_lex_word_literal(r->arena, t->word);
	consume(r);
	if (skip_newlines(r) < 0 || peek(r, &t) < 0)
		return r->err->code;
	if (tok_is_word(t, "in")) {
		consume(r);
		c->has_in = true;
		if (parse_for_words(r, c) < 0)
			return r->err->code;
	} else if (tok_is_op(t, SHELL_OP_SEMI))
		consume(r);
	if (skip_newlines(r) < 0 || expect_word(r, "do", "expected 'do'") < 0)
		return r->err->code;
	return parse_body_until(r, &c->body, "done", "expected 'done'");
}

/* [(] pattern [| pattern]... ) list [;;] */
static int parse_case_item(struct shell_reader *r, struct shell_case_item **out)
{
	struct shell_case_item *item = shell_reader_node(r, sizeof(*item));
	struct shell_word **tail;
	struct shell_token *t;
	int k;

	if (!item || peek(r, &t) < 0)
		return r->err->code;
	if (tok_is_op(t, SHELL_OP_LPAREN))
		consume(r);
	tail = &item->patterns;
	for (;;) {
		if ((k = peek(r, &t)) < 0)
			return k;
		if (t->kind != SHELL_TOK_WORD)
			return fail_at(r, t, "expected a case pattern");
		*tail = t->word;
		tail = &t->word->next;
		consume(r);
		if ((k = peek(r, &t)) < 0)
			return k;
		if (!tok_is_op(t, SHELL_OP_PIPE))
			break;
		consume(r);
	}
	if (expect_op(r, SHELL_OP_RPAREN, "expected ')' after a case pattern") < 0 || parse_list(r, &item->body) < 0 ||
	    peek(r, &t) < 0)
		return r->err->code;
	if (tok_is_op(t, SHELL_OP_DSEMI))
		consume(r);
	*out = item;
	return skip_newlines(r);
}

static int parse_case(struct shell_reader *r, struct shell_cmd *c)
{
	struct shell_case_item **tail = &c->items;
	struct shell_token *t;
	int k = peek(r, &t);

	if (k < 0)
		return k;
	if (t->kind != SHELL_TOK_WORD)
		return fail_at(r, t, "expected a word after 'case'");
	c->subject = t->word;
	consume(r);
	if (skip_newlines(r) < 0 || expect_word(r, "in", "expected 'in'") < 0 || skip_newlines(r) < 0)
		return r->err->code;
	while ((k = peek(r, &t)) == 0 && !tok_is_word(t, "esac")) {
		if (t->kind == SHELL_TOK_EOF)
			return fail_at(r, t, "expected 'esac'");
		if (parse_case_item(r, tail) < 0)
			return r->err->code;
		tail = &(*tail)->next;
	}
	if (k < 0)
		return k;
	consume(r);
	return 0;
}

struct compound_word {
	const char *word;
	enum shell_cmd_kind kind;
	int (*parse)(struct shell_reader *r, struct shell_cmd *c);
};

static int parse_group(struct shell_reader *r, struct shell_cmd *c)
{
	return parse_body_until(r, &c->body, "}", "expected '}'");
}

static const struct compound_word compound_words[] = {
	{"if", SHELL_CMD_IF, parse_if},
	{"while", SHELL_CMD_WHILE, parse_loop},
	{"until", SHELL_CMD_UNTIL, parse_loop},
	{"for", SHELL_CMD_FOR, parse_for},
	{"case", SHELL_CMD_CASE, parse_case},
	{"{", SHELL_CMD_GROUP, parse_group},
};

static int parse_compound(struct shell_reader *r, const struct compound_word *cw, struct shell_cmd **out)
{
	struct shell_token *t;
	struct shell_cmd *c;
	int k = peek(r, &t);

	if (k < 0)
		return k;
	c = cmd_new(r, cw->kind, t->pos);
	if (!c)
		return r->err->code;
	consume(r);
	if (cw->parse(r, c) < 0 || parse_redirects(r, &c->redirs) < 0)
		return r->err->code;
	*out = c;
	return 0;
}

static bool tok_starts_compound(const struct shell_token *t)
{
	if (tok_is_op(t, SHELL_OP_LPAREN))
		return true;
	for (size_t i = 0; i < ELEMENTSOF(compound_words); i++)
		if (tok_is_word(t, compound_words[i].word))
			return true;
	return false;
}

/* function NAME [()] compound-command (bash, which refuses a simple command
 * as the body). Without a name after it, 'function' is a program's name, as
 * dash reads it (bash refuses the line). */
static int parse_function_keyword(struct shell_reader *r, struct shell_cmd **out)
{
	struct shell_token *t;
	struct shell_cmd *c;
	int k = peek(r, &t);

	if (k < 0)
		return k;
	c = cmd_new(r, SHELL_CMD_FUNCDEF, t->pos);
	if (!c)
		return r->err->code;
	c->words = t->word;
	consume(r);
	*out = c;
	if ((k = peek(r, &t)) < 0)
		return k;
	if (t->kind != SHELL_TOK_WORD || !is_name(shell_lex_word_literal(r->arena, t->word))) {
		shell_reader_mark(r, SHELL_DASH_ONLY, c->pos - r->base);
		c->kind = SHELL_CMD_SIMPLE;
		return parse_simple_rest(r, c);
	}
	shell_reader_mark(r, SHELL_BASH_ONLY, c->pos - r->base);
	c->words = NULL;
	c->name = shell_lex_word_literal(r->arena, t->word);
	consume(r);
	if ((k = peek(r, &t)) < 0)
		return k;
	if (tok_is_op(t, SHELL_OP_LPAREN)) {
		consume(r);
		if (expect_op(r, SHELL_OP_RPAREN, "expected ')'") < 0)
			return r->err->code;
	}
	if (skip_newlines(r) < 0 || peek(r, &t) < 0)
		return r->err->code;
	if (!tok_starts_compound(t))
		return fail_at(r, t, "expected a compound command as the function's body");
	return parse_command(r, &c->body);
}

static int parse_subshell(struct shell_reader *r, struct shell_cmd **out)
{
	struct shell_token *t;
	struct shell_cmd *c;
	int k = peek(r, &t);

	if (k < 0)
		return k;
	c = cmd_new(r, SHELL_CMD_SUBSHELL, t->pos);
	if (!c)
		return r->err->code;
	consume(r);
	if (parse_compound_list(r, &c->body) < 0 || expect_op(r, SHELL_OP_RPAREN, "expected ')'") < 0 ||
	    parse_redirects(r, &c->redirs) < 0)
		return r->err->code;
	*out = c;
	return 0;
}

static int parse_command(struct shell_reader *r, struct shell_cmd **out)
{
	struct shell_token *t;
	int k = shell_reader_enter(r, r->pos);

	if (k < 0 || (k = peek(r, &t)) < 0)
		return k;
	if (tok_cannot_start(t))
		k = fail_at(r, t, "a reserved word where a command belongs");
	else if (tok_is_op(t, SHELL_OP_LPAREN))
		k = parse_subshell(r, out);
	else if (tok_is_word(t, "function"))
		k = parse_function_keyword(r, out);
	else {
		const struct compound_word *cw = NULL;

		for (size_t i = 0; i < sizeof(compound_words) / sizeof(compound_words[0]); i++)
			if (tok_is_word(t, compound_words[i].word))
				cw = &compound_words[i];
		k = cw ? parse_compound(r, cw, out) : parse_simple(r, out);
	}
	r->depth--;
	return k;
}

/* [!] command [| linebreak command]... */
static int parse_pipeline(struct shell_reader *r, struct shell_cmd **out)
{
	struct shell_token *t;
	struct shell_cmd *first = NULL, *pipe, **tail = &first;
	bool negated = false;
	int k = peek(r, &t);

	if (k < 0)
		return k;
	if (tok_is_word(t, "!")) {
		negated = true;
		consume(r);
	}
	for (;;) {
		if (parse_command(r, tail) < 0 || peek(r, &t) < 0)
			return r->err->code;
		tail = &(*tail)->next;
		if (!tok_is_op(t, SHELL_OP_PIPE) && !tok_is_op(t, SHELL_OP_PIPE_ALL))
			break;
		consume(r);
		if (skip_newlines(r) < 0)
			return r->err->code;
	}
	if (!first->next) {
		first->negated = negated;
		*out = first;
		return 0;
	}
	pipe = cmd_new(r, SHELL_CMD_PIPELINE, first->pos);
	if (!pipe)
		return r->err->code;
	pipe->body = first;
	pipe->negated = negated;
	*out = pipe;
	return 0;
}

/* pipeline [&&|| linebreak pipeline]..., left-associative. */
static int parse_and_or(struct shell_reader *r, struct shell_cmd **out)
{
	struct shell_token *t;
	struct shell_cmd *left;

	if (parse_pipeline(r, &left) < 0)
		return r->err->code;
	for (;;) {
		struct shell_cmd *c;

		if (peek(r, &t) < 0)
			return r->err->code;
		if (!tok_is_op(t, SHELL_OP_AND_IF) && !tok_is_op(t, SHELL_OP_OR_IF))
			break;
		c = cmd_new(r, t->op == SHELL_OP_AND_IF ? SHELL_CMD_AND : SHELL_CMD_OR, left->pos);
		if (!c)
			return r->err->code;
		consume(r);
		if (skip_newlines(r) < 0 || parse_pipeline(r, &c->right) < 0)
			return r->err->code;
		c->left = left;
		left = c;
	}
	*out = left;
	return 0;
}

/* and_or [separator and_or]... up to a token that ends the list. */
static int parse_list(struct shell_reader *r, struct shell_cmd **out)
{
	struct shell_cmd **tail = out;
	struct shell_token *t;

	*out = NULL;
	for (;;) {
		if (skip_list_newlines(r) < 0 || peek(r, &t) < 0)
			return r->err->code;
		if (tok_ends_list(t))
			return 0;
		if (parse_and_or(r, tail) < 0 || peek(r, &t) < 0)
			return r->err->code;
		if (tok_is_op(t, SHELL_OP_AMP) || tok_is_op(t, SHELL_OP_SEMI)) {
			(*tail)->background = t->op == SHELL_OP_AMP;
			consume(r);
		} else if (t->kind != SHELL_TOK_NEWLINE && !tok_ends_list(t))
			return fail_at(r, t, "unexpected token");
		tail = &(*tail)->next;
	}
}

int shell_parse_subst(struct shell_reader *r, struct shell_cmd **out)
{
	struct shell_token saved = r->ahead;
	bool had = r->have_ahead;
	int k;

	r->have_ahead = false;
	k = parse_list(r, out);
	if (k == 0)
		k = expect_op(r, SHELL_OP_RPAREN, "expected ')' to close '$('");
	r->ahead = saved;
	r->have_ahead = had;
	return k;
}

int shell_parse_nested(struct shell_reader *r, const char *text, size_t len, uint32_t base, struct shell_cmd **out)
{
	struct shell_reader sub = {
		.buf = text, .len = len, .look = len, .base = base, .arena = r->arena,
		.nodes = r->nodes, .depth = r->depth, .err = r->err, .dialects = r->dialects,
		.in_backquote = true,
	};

	/* dash reads a backquoted list up to the first token that ends a list
	 * ('fi', ')', ';;'...) and ignores the rest; bash reads the text only
	 * when the substitution runs, and a syntax error there runs none of it.
	 * Both run the command around it, so we read what dash reads: the most
	 * either shell runs. */
	return parse_list(&sub, out) < 0 ? r->err->code : 0;
}

/* A line with bash's own syntax and with what only dash reads is read by
 * neither shell: each stops at the first it cannot read, or at a syntax
 * error before it, and has run the complete commands before that. Returns
 * the line's error code, 0 when it is read. */
static int mixed_dialects(struct shell_reader *r)
{
	const struct shell_dialects *s = r->dialects;
	enum shell_dialect later = s->pos[SHELL_BASH_ONLY] > s->pos[SHELL_DASH_ONLY] ? SHELL_BASH_ONLY : SHELL_DASH_ONLY;

	if (!s->seen[SHELL_BASH_ONLY] || !s->seen[SHELL_DASH_ONLY])
		return r->err->code;
	shell_reader_fail(r, -EINVAL, s->pos[later], "bash's own syntax with syntax only dash reads");
	if (r->err->complete > s->complete[later])
		r->err->complete = s->complete[later];
	return r->err->code;
}

/* Parses the first LEN bytes of the line BUF, which holds LOOK. */
static int parse_line(const char *buf, size_t len, size_t look, const char *origin, struct shell_ast **out,
		      struct shell_error *err)
{
	struct shell_ast *ast;
	struct shell_dialects dialects = {0};
	struct shell_reader r = {.buf = buf, .len = len, .look = look, .err = err, .dialects = &dialects};
	struct shell_token *t;

	*err = (struct shell_error){.origin = origin};
	*out = NULL;
	if (len > SHELL_MAX_INPUT)
		return shell_reader_fail(&r, -E2BIG, 0, "command line too long");
	if (memchr(buf, '\0', len))
		return shell_reader_fail(&r, -EINVAL, (size_t)((const char *)memchr(buf, '\0', len) - buf), "NUL byte");
	ast = calloc(1, sizeof(*ast));
	if (!ast || !(ast->arena = shell_arena_new())) {
		free(ast);
		return shell_reader_fail(&r, -ENOMEM, 0, "out of memory");
	}
	r.arena = ast->arena;
	r.nodes = &ast->nodes;
	if (parse_list(&r, &ast->body) == 0 && peek(&r, &t) == 0 && t->kind != SHELL_TOK_EOF)
		fail_at(&r, t, "unexpected token");
	if (mixed_dialects(&r) < 0) {
		shell_ast_free(ast);
		return err->code;
	}
	*out = ast;
	return 0;
}

int shell_parse(const char *buf, size_t len, const char *origin, struct shell_ast **out, struct shell_error *err)
{
	return parse_line(buf, len, len, origin, out, err);
}

int shell_parse_runs(const char *buf, size_t len, const char *origin, struct shell_ast **out, struct shell_error *err)
{
	struct shell_error prefix;
	int k = shell_parse(buf, len, origin, out, err);

	if (k >= 0 || k == -ENOMEM || err->complete == 0)
		return k == -ENOMEM ? k : 0;
	/* the prefix is whole commands, read as part of the line */
	k = parse_line(buf, err->complete, len, origin, out, &prefix);
	return k == -ENOMEM ? k : 0;
}

struct shell_ast *shell_ast_free(struct shell_ast *ast)
{
	if (ast) {
		shell_arena_free(ast->arena);
		free(ast);
	}
	return NULL;
}

const char *shell_word_static(struct shell_ast *ast, const struct shell_word *w)
{
	return shell_lex_word_literal(ast->arena, w);
}
