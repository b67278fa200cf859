/* The shell lexer: operators, words with their parts, comments and the
 * bodies of here-documents, following POSIX "Token Recognition" and the bash
 * forms ($'...', <(...), &>, |&, <<<) that real Git configuration uses. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/shell/arena.h"
#include "policy/shell/lex.h"

/* Where a word ends, which decides what is special inside it. */
enum word_mode {
	MODE_UNQUOTED, /* an ordinary word: ends at a blank or an operator */
	MODE_DQUOTE,   /* inside "...": ends at the closing quote */
	MODE_HEREDOC,  /* the body of an unquoted here-document: ends at its end */
	MODE_PARAM,    /* the word of ${x-word}: ends at the matching } */
	MODE_ARITH,    /* inside $((...)): ends at the matching )) */
};

/* Literal text of the part being built; backslash removal means it is not a
 * slice of the input. */
struct lit {
	char *text;
	size_t len, cap;
	uint32_t pos;
};

static void lit_freep(struct lit *l)
{
	free(l->text);
}

int shell_reader_fail(struct shell_reader *r, int code, size_t pos, const char *what)
{
	if (r->err->code == 0) {
		r->err->code = code;
		r->err->pos = r->base + (uint32_t)pos;
		r->err->what = what;
	}
	return code;
}

void *shell_reader_node(struct shell_reader *r, size_t size)
{
	void *p;

	if (*r->nodes >= SHELL_MAX_NODES) {
		shell_reader_fail(r, -E2BIG, r->pos, "too many nodes");
		return NULL;
	}
	p = shell_arena_alloc(r->arena, size);
	if (!p) {
		shell_reader_fail(r, -ENOMEM, r->pos, "out of memory");
		return NULL;
	}
	(*r->nodes)++;
	return p;
}

void shell_reader_mark(struct shell_reader *r, enum shell_dialect d, size_t pos)
{
	struct shell_dialects *s = r->dialects;

	/* bash refuses nothing inside backquotes before it runs them */
	if (d == SHELL_DASH_ONLY && r->in_backquote)
		return;
	if (!s->seen[d]) {
		s->seen[d] = true;
		s->pos[d] = r->base + (uint32_t)pos;
		s->complete[d] = r->err->complete;
	}
}

bool shell_reader_closed(const struct shell_reader *r, size_t from, const char *what, size_t n)
{
	return from <= r->look && memmem(r->buf + from, r->look - from, what, n);
}

int shell_reader_enter(struct shell_reader *r, size_t pos)
{
	if (r->depth >= SHELL_MAX_DEPTH)
		return shell_reader_fail(r, -E2BIG, pos, "nested too deeply");
	r->depth++;
	return 0;
}

static int peek_at(const struct shell_reader *r, size_t off)
{
	return r->pos + off < r->len ? (unsigned char)r->buf[r->pos + off] : -1;
}

static bool is_name_start(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_name_char(int c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static bool is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* Characters that end an unquoted word. */
static bool is_word_end(int c)
{
	return c < 0 || is_blank(c) || c == '\n' || strchr(";&|()<>", c) != NULL;
}

static int lit_push(struct shell_reader *r, struct lit *l, char c)
{
	if (l->len == 0)
		l->pos = r->base + (uint32_t)r->pos;
	if (l->len + 1 >= l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		char *p = realloc(l->text, cap);

		if (!p)
			return shell_reader_fail(r, -ENOMEM, r->pos, "out of memory");
		l->text = p;
		l->cap = cap;
	}
	l->text[l->len++] = c;
	return 0;
}

static struct shell_part *part_new(struct shell_reader *r, enum shell_part_kind kind, size_t pos)
{
	struct shell_part *p = shell_reader_node(r, sizeof(*p));

	if (p) {
		p->kind = kind;
		p->pos = r->base + (uint32_t)pos;
	}
	return p;
}

static int part_set_text(struct shell_reader *r, struct shell_part *p, const char *text, size_t len)
{
	char *copy = shell_arena_strndup(r->arena, text, len);

	if (!copy)
		return shell_reader_fail(r, -ENOMEM, r->pos, "out of memory");
	p->text = copy;
	p->len = len;
	return 0;
}

/* Appends P to the chain whose last 'next' field is *TAIL. */
static void part_append(struct shell_part ***tail, struct shell_part *p)
{
	**tail = p;
	*tail = &p->next;
}

/* Turns pending literal text into a part of KIND (LIT, or SQUOTE for quoted text). */
static int lit_flush(struct shell_reader *r, struct lit *l, struct shell_part ***tail)
{
	struct shell_part *p;

	if (l->len == 0)
		return 0;
	p = part_new(r, SHELL_PART_LIT, 0);
	if (!p)
		return r->err->code;
	p->pos = l->pos;
	if (part_set_text(r, p, l->text, l->len) < 0)
		return r->err->code;
	part_append(tail, p);
	l->len = 0;
	return 0;
}

static int lex_parts(struct shell_reader *r, enum word_mode mode, struct shell_part **out);

/* '...': everything up to the next quote is literal. */
static int lex_squote(struct shell_reader *r, struct shell_part **out)
{
	size_t start = r->pos;
	const char *end = memchr(r->buf + r->pos + 1, '\'', r->len - r->pos - 1);
	struct shell_part *p = part_new(r, SHELL_PART_SQUOTE, start);

	if (!p)
		return r->err->code;
	if (!end)
		return shell_reader_fail(r, -EINVAL, start, "unterminated single quote");
	if (part_set_text(r, p, r->buf + start + 1, (size_t)(end - r->buf) - start - 1) < 0)
		return r->err->code;
	r->pos = (size_t)(end - r->buf) + 1;
	*out = p;
	return 0;
}

static int hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One escape of $'...' at r->pos (just after the backslash); the decoded
 * byte goes to L. \u and \c forms keep their text: they never name a path
 * we follow, and the word stays static either way. */
static int lex_ansi_escape(struct shell_reader *r, struct lit *l)
{
	static const char from[] = "abefnrtv\\'\"?", to[] = "\a\b\033\f\n\r\t\v\\'\"?";
	int c = peek_at(r, 0), v = 0, n;
	const char *hit;

	if (c < 0)
		return shell_reader_fail(r, -EINVAL, r->pos, "unterminated $'");
	hit = strchr(from, c);
	if (hit && c != '\0') {
		r->pos++;
		return lit_push(r, l, to[hit - from]);
	}
	if (c >= '0' && c <= '7') {
		for (n = 0; n < 3 && peek_at(r, 0) >= '0' && peek_at(r, 0) <= '7'; n++)
			v = v * 8 + (peek_at(r, 0) - '0'), r->pos++;
		return v ? lit_push(r, l, (char)v) : 0;
	}
	if (c == 'x' && hex_value(peek_at(r, 1)) >= 0) {
		r->pos++;
		for (n = 0; n < 2 && hex_value(peek_at(r, 0)) >= 0; n++)
			v = v * 16 + hex_value(peek_at(r, 0)), r->pos++;
		return v ? lit_push(r, l, (char)v) : 0;
	}
	if (lit_push(r, l, '\\') < 0)
		return r->err->code;
	r->pos++;
	return lit_push(r, l, (char)c);
}

/* $'...' (bash): decoded into one static part. */
static int lex_ansi(struct shell_reader *r, struct shell_part **out)
{
	_cleanup_(lit_freep) struct lit l = {0};
	size_t start = r->pos;
	struct shell_part *p = part_new(r, SHELL_PART_ANSI, start);

	if (!p)
		return r->err->code;
	r->pos += 2;
	for (;;) {
		int c = peek_at(r, 0);

		if (c < 0)
			return shell_reader_fail(r, -EINVAL, start, "unterminated $'");
		r->pos++;
		if (c == '\'')
			break;
		if (c == '\\') {
			if (lex_ansi_escape(r, &l) < 0)
				return r->err->code;
		} else if (lit_push(r, &l, (char)c) < 0)
			return r->err->code;
	}
	if (part_set_text(r, p, l.text ? l.text : "", l.len) < 0)
		return r->err->code;
	*out = p;
	return 0;
}

/* "..." or $"...": the parts inside, then the closing quote. */
static int lex_dquote(struct shell_reader *r, struct shell_part **out)
{
	size_t start = r->pos;
	struct shell_part *p = part_new(r, SHELL_PART_DQUOTE, start);

	if (!p)
		return r->err->code;
	r->pos += r->buf[r->pos] == '$' ? 2 : 1;
	if (lex_parts(r, MODE_DQUOTE, &p->parts) < 0)
		return r->err->code;
	if (peek_at(r, 0) != '"')
		return shell_reader_fail(r, -EINVAL, start, "unterminated double quote");
	r->pos++;
	*out = p;
	return 0;
}

/* `...`: the text up to the closing backquote, with \\, \` and \$ (and \"
 * inside double quotes) unescaped, read as a line of its own. */
static int lex_backquote(struct shell_reader *r, enum word_mode mode, struct shell_part **out)
{
	_cleanup_(lit_freep) struct lit l = {0};
	size_t start = r->pos;
	struct shell_part *p = part_new(r, SHELL_PART_CMDSUBST, start);

	if (!p)
		return r->err->code;
	for (r->pos++;; r->pos++) {
		int c = peek_at(r, 0), next = peek_at(r, 1);

		if (c < 0)
			return shell_reader_fail(r, -EINVAL, start, "unterminated backquote");
		if (c == '`')
			break;
		if (c == '\\' && (next == '\\' || next == '`' || next == '$' || (next == '"' && mode == MODE_DQUOTE))) {
			c = next;
			r->pos++;
		}
		if (lit_push(r, &l, (char)c) < 0)
			return r->err->code;
	}
	r->pos++;
	if (shell_parse_nested(r, l.text ? l.text : "", l.len, r->base + (uint32_t)start + 1, &p->body) < 0)
		return r->err->code;
	*out = p;
	return 0;
}

/* A parameter name after '$' or '${': a name, digits (braced) or one digit,
 * or one special parameter. Returns its length, 0 when there is none. */
static size_t param_name_len(const struct shell_reader *r, bool braced)
{
	int c = peek_at(r, 0);
	size_t n = 0;

	if (is_name_start(c)) {
		while (is_name_char(peek_at(r, n)))
			n++;
		return n;
	}
	if (c >= '0' && c <= '9') {
		if (!braced)
			return 1;
		while (peek_at(r, n) >= '0' && peek_at(r, n) <= '9')
			n++;
		return n;
	}
	return c > 0 && strchr("@*#?-$!", c) ? 1 : 0;
}

/* ${...}: an optional # or ! prefix, the name, and the operator's word up to
 * the matching brace (read as a word, since $(...) inside it runs). */
/* After ${NAME dash reads an operator, one of ":-+?=%#" or the closing
 * brace; any other character there it drops, and reads on without it:
 * '${a${b}&}' is '${a{b}' then '&}' to dash. Such a word is a bad
 * substitution, which neither shell expands (bash reads it whole, and its
 * own operators there, '/', '^', ',', '[', '@', are literal to us), so we
 * read it as dash does. After ':' dash drops the next character too, but
 * bash reads '${a:$(x)}' as a substring and runs x: that we read as bash
 * does. R->pos is just after the name. */
static void skip_dropped_by_dash(struct shell_reader *r)
{
	int c = peek_at(r, 0);

	if (c >= 0 && !strchr("}:-+?=%#", c))
		r->pos++;
}

static int lex_brace_param(struct shell_reader *r, struct shell_part *p)
{
	size_t start = r->pos, n;
	bool prefixed = false;
	int c;

	r->pos += 2;
	c = peek_at(r, 0);
	if ((c == '#' || c == '!') && peek_at(r, 1) != '}' && (is_name_start(peek_at(r, 1)) || peek_at(r, 1) > 0)) {
		r->pos++;
		prefixed = true;
	}
	n = param_name_len(r, true);
	if (part_set_text(r, p, r->buf + r->pos, n) < 0)
		return r->err->code;
	r->pos += n;
	if (n > 0 && !prefixed)
		skip_dropped_by_dash(r);
	if (lex_parts(r, MODE_PARAM, &p->parts) < 0)
		return r->err->code;
	if (peek_at(r, 0) != '}')
		return shell_reader_fail(r, -EINVAL, start, "unterminated ${");
	r->pos++;
	return 0;
}

/* $((...)): the expression's own expansions are kept as parts. */
static int lex_arith(struct shell_reader *r, struct shell_part *p)
{
	size_t start = r->pos;

	r->pos += 3;
	if (lex_parts(r, MODE_ARITH, &p->parts) < 0)
		return r->err->code;
	if (peek_at(r, 0) != ')' || peek_at(r, 1) != ')')
		return shell_reader_fail(r, -EINVAL, start, "unterminated $((");
	r->pos += 2;
	return 0;
}

/* A '$' at r->pos: an expansion, or a literal dollar sign (*out stays NULL). */
static int lex_dollar(struct shell_reader *r, enum word_mode mode, struct shell_part **out)
{
	int c = peek_at(r, 1);
	size_t start = r->pos, n;
	struct shell_part *p;

	if (c == '\'' && (mode == MODE_UNQUOTED || mode == MODE_PARAM))
		return lex_ansi(r, out);
	if (c == '"' && (mode == MODE_UNQUOTED || mode == MODE_PARAM))
		return lex_dquote(r, out);
	if (c == '(') {
		p = part_new(r, peek_at(r, 2) == '(' ? SHELL_PART_ARITH : SHELL_PART_CMDSUBST, start);
		if (!p)
			return r->err->code;
		if (p->kind == SHELL_PART_ARITH) {
			if (lex_arith(r, p) < 0)
				return r->err->code;
		} else {
			r->pos += 2;
			if (shell_parse_subst(r, &p->body) < 0)
				return r->err->code;
		}
		*out = p;
		return 0;
	}
	if (c == '{') {
		p = part_new(r, SHELL_PART_PARAM, start);
		if (!p || lex_brace_param(r, p) < 0)
			return r->err->code;
		*out = p;
		return 0;
	}
	r->pos++;
	n = param_name_len(r, false);
	/* bash's old $[...] arithmetic: without a ']' it refuses the line */
	if (c == '[' && !shell_reader_closed(r, r->pos, "]", 1))
		shell_reader_mark(r, SHELL_DASH_ONLY, start);
	if (n == 0)
		return 0; /* a lone '$' is literal */
	p = part_new(r, SHELL_PART_PARAM, start);
	if (!p || part_set_text(r, p, r->buf + r->pos, n) < 0)
		return r->err->code;
	r->pos += n;
	*out = p;
	return 0;
}

/* <(...) or >(...) (bash), with r->pos on the '<' or '>'. It opens a word,
 * outside lex_parts, so it counts its own level of nesting. */
static int lex_procsubst(struct shell_reader *r, struct shell_part **out)
{
	struct shell_part *p;
	int k = shell_reader_enter(r, r->pos);

	if (k < 0)
		return k;
	shell_reader_mark(r, SHELL_BASH_ONLY, r->pos);
	p = part_new(r, SHELL_PART_PROCSUBST, r->pos);
	if (!p)
		k = r->err->code;
	else {
		p->text = r->buf[r->pos] == '<' ? "<" : ">";
		p->len = 1;
		r->pos += 2;
		k = shell_parse_subst(r, &p->body);
	}
	r->depth--;
	if (k < 0)
		return k;
	*out = p;
	return 0;
}

/* A '[' opens a bracket expression only when a ']' closes it in the same word. */
static bool bracket_closes(const struct shell_reader *r)
{
	for (size_t i = 1; !is_word_end(peek_at(r, i)); i++)
		if (peek_at(r, i) == ']')
			return true;
	return false;
}

/* Where a '~' starts a tilde prefix: at the start of a word, or after the
 * '=' or a ':' of an assignment's value (WORD_START is where the word began). */
static bool tilde_allowed(const struct shell_reader *r, size_t word_start, bool assignment)
{
	char prev;

	if (r->pos == word_start)
		return true;
	prev = r->buf[r->pos - 1];
	return assignment && (prev == '=' || prev == ':');
}

/* ~ or ~user, ended by '/', ':' or the end of the word; quoted text makes it
 * literal, which is_word_end and the quote characters catch. */
static int lex_tilde(struct shell_reader *r, struct shell_part **out)
{
	size_t start = r->pos, n = 1;
	struct shell_part *p;

	while (!is_word_end(peek_at(r, n)) && peek_at(r, n) != '/' && peek_at(r, n) != ':') {
		if (strchr("'\"\\$`", peek_at(r, n)))
			return 0;
		n++;
	}
	p = part_new(r, SHELL_PART_TILDE, start);
	if (!p || part_set_text(r, p, r->buf + start + 1, n - 1) < 0)
		return r->err->code;
	r->pos += n;
	*out = p;
	return 0;
}

/* Whether the character at r->pos ends a word of MODE (PARENS counts the
 * unclosed parentheses of an arithmetic expression). */
static bool at_word_end(const struct shell_reader *r, enum word_mode mode, int parens)
{
	int c = peek_at(r, 0);

	switch (mode) {
	case MODE_UNQUOTED:
		return is_word_end(c);
	case MODE_DQUOTE:
		return c < 0 || c == '"';
	case MODE_HEREDOC:
		return c < 0;
	case MODE_PARAM:
		return c < 0 || c == '}';
	case MODE_ARITH:
		return c < 0 || (parens == 0 && c == ')' && peek_at(r, 1) == ')');
	}
	return true;
}

/* A backslash at r->pos: what it escapes in MODE goes to L. */
static int lex_backslash(struct shell_reader *r, enum word_mode mode, struct lit *l)
{
	int c = peek_at(r, 1);
	bool escapes;

	if (c == '\n') { /* a line continuation vanishes everywhere */
		r->pos += 2;
		return 0;
	}
	if (c < 0) {
		r->pos++;
		return lit_push(r, l, '\\');
	}
	switch (mode) {
	case MODE_DQUOTE:
		escapes = strchr("$`\"\\", c) != NULL;
		break;
	case MODE_HEREDOC:
	case MODE_ARITH:
		escapes = strchr("$`\\", c) != NULL;
		break;
	default:
		escapes = true;
	}
	if (!escapes && lit_push(r, l, '\\') < 0)
		return r->err->code;
	r->pos += 2;
	return lit_push(r, l, (char)c);
}

/* Whether the literal text so far makes this word an assignment (NAME=...). */
static bool lit_is_assignment(const struct lit *l, bool first_part)
{
	size_t i;

	if (!first_part || l->len == 0 || !is_name_start((unsigned char)l->text[0]))
		return false;
	for (i = 1; i < l->len && is_name_char((unsigned char)l->text[i]); i++)
		;
	return i < l->len && l->text[i] == '=';
}

/* One special character of an unquoted (or ${...} word) context at r->pos:
 * quotes, globs and tildes. Returns 1 when it was not special. */
static int lex_unquoted_special(struct shell_reader *r, enum word_mode mode, size_t word_start, bool assignment,
				struct shell_part **p)
{
	int c = peek_at(r, 0);

	if (c == '\'')
		return lex_squote(r, p);
	if (c == '"')
		return lex_dquote(r, p);
	if (mode != MODE_UNQUOTED)
		return 1;
	if (c == '*' || c == '?' || (c == '[' && bracket_closes(r))) {
		*p = part_new(r, SHELL_PART_GLOB, r->pos);
		if (!*p || part_set_text(r, *p, r->buf + r->pos, 1) < 0)
			return r->err->code;
		r->pos++;
		return 0;
	}
	if (c == '~' && tilde_allowed(r, word_start, assignment)) {
		int k = lex_tilde(r, p);

		return k < 0 ? k : (*p ? 0 : 1);
	}
	return 1;
}

/* The parts of one word of MODE, up to (not including) its end. */
static int lex_parts_inner(struct shell_reader *r, enum word_mode mode, struct shell_part **out)
{
	_cleanup_(lit_freep) struct lit l = {0};
	struct shell_part **tail = out;
	size_t word_start = r->pos;
	bool assignment = false, any_part = false;
	int parens = 0;

	while (!at_word_end(r, mode, parens)) {
		struct shell_part *p = NULL;
		int c = peek_at(r, 0), k = 1;

		if (mode == MODE_ARITH && (c == '(' || c == ')'))
			parens += c == '(' ? 1 : -1;
		if (c == '\\') {
			if (lex_backslash(r, mode, &l) < 0)
				return r->err->code;
			continue;
		}
		if (c == '$')
			k = lex_dollar(r, mode, &p);
		else if (c == '`')
			k = lex_backquote(r, mode, &p);
		else if (mode == MODE_UNQUOTED || mode == MODE_PARAM)
			k = lex_unquoted_special(r, mode, word_start, assignment, &p);
		if (k < 0)
			return k;
		if (!p && k > 0 && c != '$') {
			if (lit_push(r, &l, (char)c) < 0)
				return r->err->code;
			r->pos++;
			if (c == '=' && !assignment)
				assignment = lit_is_assignment(&l, !any_part);
			continue;
		}
		if (!p) { /* a literal '$', already consumed */
			if (lit_push(r, &l, '$') < 0)
				return r->err->code;
			continue;
		}
		if (lit_flush(r, &l, &tail) < 0)
			return r->err->code;
		part_append(&tail, p);
		any_part = true;
	}
	return lit_flush(r, &l, &tail);
}

static int lex_parts(struct shell_reader *r, enum word_mode mode, struct shell_part **out)
{
	int k = shell_reader_enter(r, r->pos);

	if (k < 0)
		return k;
	k = lex_parts_inner(r, mode, out);
	r->depth--;
	return k;
}

static int lex_word(struct shell_reader *r, struct shell_token *t)
{
	struct shell_word *w = shell_reader_node(r, sizeof(*w));
	struct shell_part **tail;

	if (!w)
		return r->err->code;
	w->pos = r->base + (uint32_t)r->pos;
	tail = &w->parts;
	/* a word may start with a process substitution: cat <(tools/gen.sh) */
	while ((peek_at(r, 0) == '<' || peek_at(r, 0) == '>') && peek_at(r, 1) == '(') {
		struct shell_part *p = NULL;

		if (lex_procsubst(r, &p) < 0)
			return r->err->code;
		part_append(&tail, p);
	}
	if (lex_parts(r, MODE_UNQUOTED, tail) < 0)
		return r->err->code;
	w->end = r->base + (uint32_t)r->pos;
	t->kind = SHELL_TOK_WORD;
	t->word = w;
	return 0;
}

struct op_spelling {
	const char *text;
	enum shell_op op;
	enum shell_redir_op redir;
	bool bash_only; /* dash reads another operator, and refuses what follows */
};

/* Longest first, so that '&&' wins over '&'. */
static const struct op_spelling op_spellings[] = {
	{"&>>", SHELL_OP_REDIR, SHELL_REDIR_ALL_APPEND, false},
	{";;&", SHELL_OP_DSEMI, 0, true},
	{"<<<", SHELL_OP_REDIR, SHELL_REDIR_HERESTRING, true},
	{"<<-", SHELL_OP_REDIR, SHELL_REDIR_HEREDOC, false},
	{"&&", SHELL_OP_AND_IF, 0, false},
	{"||", SHELL_OP_OR_IF, 0, false},
	{"|&", SHELL_OP_PIPE_ALL, 0, true},
	{";;", SHELL_OP_DSEMI, 0, false},
	{";&", SHELL_OP_DSEMI, 0, true},
	{"&>", SHELL_OP_REDIR, SHELL_REDIR_ALL, false},
	{"<<", SHELL_OP_REDIR, SHELL_REDIR_HEREDOC, false},
	{">>", SHELL_OP_REDIR, SHELL_REDIR_APPEND, false},
	{">|", SHELL_OP_REDIR, SHELL_REDIR_CLOBBER, false},
	{"<>", SHELL_OP_REDIR, SHELL_REDIR_INOUT, false},
	{"<&", SHELL_OP_REDIR, SHELL_REDIR_DUP_IN, false},
	{">&", SHELL_OP_REDIR, SHELL_REDIR_DUP_OUT, false},
	{"|", SHELL_OP_PIPE, 0, false},
	{"&", SHELL_OP_AMP, 0, false},
	{";", SHELL_OP_SEMI, 0, false},
	{"(", SHELL_OP_LPAREN, 0, false},
	{")", SHELL_OP_RPAREN, 0, false},
	{"<", SHELL_OP_REDIR, SHELL_REDIR_IN, false},
	{">", SHELL_OP_REDIR, SHELL_REDIR_OUT, false},
};

static bool lex_op(struct shell_reader *r, struct shell_token *t)
{
	for (size_t i = 0; i < ELEMENTSOF(op_spellings); i++) {
		size_t n = strlen(op_spellings[i].text);

		if (r->len - r->pos >= n && memcmp(r->buf + r->pos, op_spellings[i].text, n) == 0) {
			t->kind = SHELL_TOK_OP;
			t->op = op_spellings[i].op;
			t->redir = op_spellings[i].redir;
			t->strip_tabs = strcmp(op_spellings[i].text, "<<-") == 0;
			if (op_spellings[i].bash_only)
				shell_reader_mark(r, SHELL_BASH_ONLY, r->pos);
			r->pos += n;
			return true;
		}
	}
	return false;
}

/* Digits directly before '<' or '>' name the descriptor: 2>&1. */
static bool lex_io_number(struct shell_reader *r, struct shell_token *t)
{
	size_t n = 0;
	int fd = 0;

	while (n < 4 && peek_at(r, n) >= '0' && peek_at(r, n) <= '9')
		fd = fd * 10 + (peek_at(r, n) - '0'), n++;
	if (n == 0 || (peek_at(r, n) != '<' && peek_at(r, n) != '>') || peek_at(r, n + 1) == '(')
		return false;
	r->pos += n;
	if (!lex_op(r, t) || t->op != SHELL_OP_REDIR) {
		r->pos -= n;
		return false;
	}
	t->fd = fd;
	return true;
}

const char *shell_lex_word_literal(struct shell_arena *arena, const struct shell_word *w)
{
	size_t len = 0;
	char *s, *o;

	for (const struct shell_part *p = w->parts; p; p = p->next) {
		if (p->kind != SHELL_PART_LIT && p->kind != SHELL_PART_SQUOTE && p->kind != SHELL_PART_ANSI &&
		    !(p->kind == SHELL_PART_DQUOTE && (!p->parts || (p->parts->kind == SHELL_PART_LIT && !p->parts->next))))
			return NULL;
		len += p->kind == SHELL_PART_DQUOTE ? (p->parts ? p->parts->len : 0) : p->len;
	}
	s = o = shell_arena_alloc(arena, len + 1);
	if (!s)
		return NULL;
	for (const struct shell_part *p = w->parts; p; p = p->next) {
		const struct shell_part *src = p->kind == SHELL_PART_DQUOTE ? p->parts : p;

		if (src) {
			memcpy(o, src->text, src->len);
			o += src->len;
		}
	}
	*o = '\0';
	return s;
}

/* The here-documents bash lets wait for the end of one line. */
#define BASH_MAX_HEREDOCS 16

int shell_lex_queue_heredoc(struct shell_reader *r, struct shell_redir *redir, bool strip_tabs)
{
	struct shell_heredoc *h = shell_reader_node(r, sizeof(*h)), **tail = &r->heredocs;
	unsigned waiting = 0;

	if (!h)
		return r->err->code;
	h->redir = redir;
	h->strip_tabs = strip_tabs;
	for (; *tail; tail = &(*tail)->next)
		waiting++;
	*tail = h;
	if (waiting == BASH_MAX_HEREDOCS) /* bash refuses one more */
		shell_reader_mark(r, SHELL_DASH_ONLY, redir->pos - r->base);
	return 0;
}

/* Whether the delimiter was quoted, which makes the body literal: any quote
 * or backslash in its source text. */
static bool delimiter_quoted(const struct shell_reader *r, const struct shell_word *w)
{
	for (uint32_t i = w->pos - r->base; i < w->end - r->base && i < r->len; i++)
		if (strchr("'\"\\", r->buf[i]))
			return true;
	return false;
}

/* The delimiter's text: the word with its quotes removed, the shell
 * expanding nothing in it ('<<*' and '<<$x' end at a line '*' or '$x'). */
static const char *delimiter_text(struct shell_reader *r, const struct shell_word *w)
{
	_cleanup_(lit_freep) struct lit l = {0};
	const char *lit = shell_lex_word_literal(r->arena, w), *s = r->buf + (w->pos - r->base);
	size_t n = w->end - w->pos;
	char quote = 0;

	if (lit)
		return lit;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == quote || (!quote && (c == '\'' || c == '"'))) {
			quote = quote ? 0 : c;
			continue;
		}
		/* a backslash quotes the next character, inside "..." only $ ` " \ and a newline */
		if (c == '\\' && quote != '\'' && i + 1 < n && (!quote || strchr("$`\"\\\n", s[i + 1]))) {
			if (s[++i] == '\n')
				continue;
			c = s[i];
		}
		if (lit_push(r, &l, c) < 0)
			return NULL;
	}
	return shell_arena_strndup(r->arena, l.text ? l.text : "", l.len);
}

/* Reads lines up to the delimiter (or the end of input, as sh does) into L. */
static int heredoc_collect(struct shell_reader *r, const char *delim, bool strip_tabs, struct lit *l)
{
	size_t dlen = strlen(delim);

	while (r->pos < r->len) {
		const char *line = r->buf + r->pos, *nl = memchr(line, '\n', r->len - r->pos);
		size_t len = nl ? (size_t)(nl - line) : r->len - r->pos;

		while (strip_tabs && len > 0 && *line == '\t')
			line++, len--, r->pos++;
		r->pos += len + (nl ? 1 : 0);
		if (len == dlen && memcmp(line, delim, len) == 0)
			return 0;
		for (size_t i = 0; i < len + (nl ? 1 : 0); i++)
			if (lit_push(r, l, line[i]) < 0)
				return r->err->code;
	}
	return 0;
}

/* The body of one here-document, starting at r->pos. */
static int heredoc_read(struct shell_reader *r, struct shell_heredoc *h)
{
	_cleanup_(lit_freep) struct lit l = {0};
	struct shell_redir *redir = h->redir;
	const char *delim = delimiter_text(r, redir->word);
	struct shell_word *body;
	struct shell_part *p;
	uint32_t start = r->base + (uint32_t)r->pos;

	if (!delim)
		return shell_reader_fail(r, -ENOMEM, r->pos, "out of memory");
	if (heredoc_collect(r, delim, h->strip_tabs, &l) < 0)
		return r->err->code;
	body = shell_reader_node(r, sizeof(*body));
	if (!body)
		return r->err->code;
	body->pos = start;
	body->end = r->base + (uint32_t)r->pos;
	redir->body = body;
	if (l.len == 0)
		return 0;
	if (delimiter_quoted(r, redir->word)) {
		p = part_new(r, SHELL_PART_SQUOTE, start - r->base);
		if (!p || part_set_text(r, p, l.text, l.len) < 0)
			return r->err->code;
		body->parts = p;
		return 0;
	}
	{
		struct shell_reader sub = {
			.buf = l.text, .len = l.len, .look = l.len, .base = start, .arena = r->arena,
			.nodes = r->nodes, .depth = r->depth, .err = r->err, .dialects = r->dialects,
			.in_backquote = r->in_backquote,
		};

		return lex_parts(&sub, MODE_HEREDOC, &body->parts);
	}
}

static int heredocs_read(struct shell_reader *r)
{
	while (r->heredocs) {
		struct shell_heredoc *h = r->heredocs;

		r->heredocs = h->next;
		if (heredoc_read(r, h) < 0)
			return r->err->code;
	}
	return 0;
}

/* Skips blanks, line continuations and a comment. */
static void lex_skip_blanks(struct shell_reader *r)
{
	for (;;) {
		int c = peek_at(r, 0);

		if (is_blank(c))
			r->pos++;
		else if (c == '\\' && peek_at(r, 1) == '\n')
			r->pos += 2;
		else if (c == '#') {
			while (peek_at(r, 0) >= 0 && peek_at(r, 0) != '\n')
				r->pos++;
		} else
			return;
	}
}

int shell_lex_next(struct shell_reader *r, struct shell_token *t)
{
	int c;

	*t = (struct shell_token){.fd = -1};
	if (r->err->code)
		return r->err->code;
	lex_skip_blanks(r);
	t->pos = r->base + (uint32_t)r->pos;
	c = peek_at(r, 0);
	if (c < 0) {
		t->kind = SHELL_TOK_EOF;
		return 0;
	}
	if (c == '\n') {
		r->pos++;
		t->kind = SHELL_TOK_NEWLINE;
		return heredocs_read(r);
	}
	if ((c == '<' || c == '>') && peek_at(r, 1) == '(')
		return lex_word(r, t);
	if (lex_io_number(r, t) || lex_op(r, t))
		return 0;
	return lex_word(r, t);
}
