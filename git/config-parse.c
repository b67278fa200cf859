#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "common/cleanup.h"
#include "git/config-parse.h"

/* A bounded string: cap bytes including the terminating NUL that is always
 * kept, so the contents read as git's strbuf reads as a C string. */
struct bounded_buf {
	char *p;
	size_t len;
	size_t cap;
};

/* The reader's state mirrors git's struct config_source: one character at a
 * time with CRLF folded, git's line counter (bumped at every '\n' and at
 * every read past the end), the section stem in var. */
struct parser {
	const unsigned char *buf;
	size_t len;
	size_t pos;
	int linenr;
	bool eof;
	struct bounded_buf var; /* "section.subsection." then the key */
	struct bounded_buf value;
	char *split;    /* scratch copy of a name cut into parts */
	size_t baselen; /* length of the stem in var */
	int entries;
	const char *reason;
	const char *origin;
	gitcfg_cb cb;
	void *userdata;
};

/* Git's own ctype (sane_ctype), not the locale's: ASCII only, and \v and \f
 * are not space. */
static bool is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_keychar(int c)
{
	return is_alpha(c) || (c >= '0' && c <= '9') || c == '-';
}

static char ascii_lower(int c)
{
	return (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
}

static int buf_add(struct bounded_buf *b, int c)
{
	if (b->len + 1 == b->cap)
		return -E2BIG;
	b->p[b->len++] = (char)c;
	b->p[b->len] = '\0';
	return 0;
}

static void buf_truncate(struct bounded_buf *b, size_t len)
{
	b->len = len;
	b->p[len] = '\0';
}

/* Records why the parse stops; the caller returns this. */
static int fail(struct parser *p, int error, const char *reason)
{
	p->reason = reason;
	return error;
}

static int add_char(struct parser *p, struct bounded_buf *b, int c)
{
	if (buf_add(b, c) < 0)
		return fail(p, -E2BIG, "name or value too long");
	return 0;
}

/* git's get_next_char(): "\r\n" reads as '\n', a lone '\r' as itself, and
 * the end of input as '\n' with eof set, every time it is read. */
static int next_char(struct parser *p)
{
	int c;

	if (p->pos >= p->len) {
		p->eof = true;
		p->linenr++;
		return '\n';
	}
	c = p->buf[p->pos++];
	if (c == '\r' && p->pos < p->len && p->buf[p->pos] == '\n') {
		p->pos++;
		c = '\n';
	}
	if (c == '\n')
		p->linenr++;
	return c;
}

/* A UTF-8 byte order mark at the start is skipped; a partial one is an
 * error, as git does not tolerate it. */
static int skip_bom(struct parser *p)
{
	static const unsigned char bom[] = {0xef, 0xbb, 0xbf};

	if (p->len == 0 || p->buf[0] != bom[0])
		return 0;
	p->pos = 1;
	for (size_t i = 1; i < sizeof(bom); i++)
		if (next_char(p) != bom[i])
			return fail(p, -EINVAL, "partial UTF-8 byte order mark");
	return 0;
}

/* The escapes git knows inside a value; any other is an error. */
static int unescape(int c)
{
	switch (c) {
	case 't':
		return '\t';
	case 'b':
		return '\b';
	case 'n':
		return '\n';
	case '\\':
	case '"':
		return c;
	default:
		return -1;
	}
}

/* Adds the runs of whitespace held back until a character follows them:
 * whitespace outside quotes collapses to one ' ' per character and is
 * dropped at both ends. */
static int flush_spaces(struct parser *p, size_t *spaces)
{
	for (; *spaces; (*spaces)--) {
		int r = add_char(p, &p->value, ' ');
		if (r < 0)
			return r;
	}
	return 0;
}

/* git's parse_value(): the rest of the line after '=', with quotes,
 * escapes, comments and backslash-newline continuation. A NUL byte is kept
 * in the buffer, so the value seen as a C string ends there while the line
 * is still read to its end. */
static int parse_value(struct parser *p)
{
	bool quote = false, comment = false;
	size_t spaces = 0;
	int r;

	buf_truncate(&p->value, 0);
	for (;;) {
		int c = next_char(p);

		if (c == '\n') {
			if (!quote)
				return 0;
			p->linenr--;
			return fail(p, -EINVAL, "unterminated quote in value");
		}
		if (comment)
			continue;
		if (is_space(c) && !quote) {
			if (p->value.len)
				spaces++;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = true;
			continue;
		}
		r = flush_spaces(p, &spaces);
		if (r < 0)
			return r;
		if (c == '\\') {
			c = next_char(p);
			if (c == '\n')
				continue;
			c = unescape(c);
			if (c < 0)
				return fail(p, -EINVAL, "unknown escape in value");
		} else if (c == '"') {
			quote = !quote;
			continue;
		}
		r = add_char(p, &p->value, c);
		if (r < 0)
			return r;
	}
}

/* git's get_extended_base_var(): after whitespace, a quoted subsection
 * taken verbatim (any character may be backslash-escaped), then ']'. */
static int parse_subsection(struct parser *p, int c)
{
	int r;

	do {
		if (c == '\n')
			goto incomplete;
		c = next_char(p);
	} while (is_space(c));
	if (c != '"')
		return fail(p, -EINVAL, "subsection not quoted");
	r = add_char(p, &p->var, '.');
	while (r >= 0) {
		c = next_char(p);
		if (c == '\n')
			goto incomplete;
		if (c == '"')
			break;
		if (c == '\\') {
			c = next_char(p);
			if (c == '\n')
				goto incomplete;
		}
		r = add_char(p, &p->var, c);
	}
	if (r < 0)
		return r;
	if (next_char(p) != ']')
		return fail(p, -EINVAL, "junk after subsection");
	return 0;

incomplete:
	p->linenr--;
	return fail(p, -EINVAL, "unterminated section header");
}

/* git's get_base_var(): the section name, lowercased, '.' allowed for the
 * legacy [section.subsection] form (whose subsection is lowercased too). */
static int parse_section_name(struct parser *p)
{
	for (;;) {
		int c = next_char(p);
		int r;

		if (p->eof)
			return fail(p, -EINVAL, "unterminated section header");
		if (c == ']')
			return 0;
		if (is_space(c))
			return parse_subsection(p, c);
		if (!is_keychar(c) && c != '.')
			return fail(p, -EINVAL, "bad character in section name");
		r = add_char(p, &p->var, ascii_lower(c));
		if (r < 0)
			return r;
	}
}

static int parse_section_header(struct parser *p)
{
	int r;

	buf_truncate(&p->var, 0);
	r = parse_section_name(p);
	if (r < 0)
		return r;
	if (p->var.len == 0)
		return fail(p, -EINVAL, "empty section name");
	r = add_char(p, &p->var, '.');
	if (r < 0)
		return r;
	p->baselen = p->var.len;
	return 0;
}

/* Cuts a copy of the name at its first and last dots, as git's lookups
 * (git_config_parse_key) read section, subsection and key. */
static void split_name(char *name, struct gitcfg_entry *e)
{
	char *first = strchr(name, '.');
	char *last = strrchr(name, '.');

	e->subsection = NULL;
	if (!first) {
		e->section = "";
		e->key = name;
		return;
	}
	*first = '\0';
	e->section = name;
	e->key = last + 1;
	if (last != first) {
		*last = '\0';
		e->subsection = first + 1;
	}
}

static int emit_entry(struct parser *p, bool has_value)
{
	struct gitcfg_entry e = {
	        .origin = p->origin,
	        .name = p->var.p,
	        .value = has_value ? p->value.p : NULL,
	        .line = p->linenr,
	};

	if (p->entries >= GITCFG_MAX_ENTRIES)
		return fail(p, -E2BIG, "too many entries");
	p->entries++;
	/* var holds no more than its cap, and so fits the scratch copy. */
	memcpy(p->split, p->var.p, strlen(p->var.p) + 1);
	split_name(p->split, &e);
	return p->cb(&e, p->userdata);
}

/* git's get_value(): the rest of the key, blanks, then '=' and a value or
 * the end of the line (an implicit true). The entry carries the line of its
 * key's last value line, as git's counter says. */
static int parse_entry(struct parser *p, int c)
{
	bool has_value = false;
	int r;

	buf_truncate(&p->var, p->baselen);
	for (;;) {
		r = add_char(p, &p->var, ascii_lower(c));
		if (r < 0)
			return r;
		c = next_char(p);
		if (p->eof || !is_keychar(c))
			break;
	}
	while (c == ' ' || c == '\t')
		c = next_char(p);
	if (c != '\n') {
		if (c != '=')
			return fail(p, -EINVAL, "bad character in key or no '=' after it");
		r = parse_value(p);
		if (r < 0)
			return r;
		has_value = true;
	}
	p->linenr--;
	r = emit_entry(p, has_value);
	p->linenr++;
	return r;
}

/* git's git_parse_source(): blank lines, comments, headers and entries. */
static int parse_source(struct parser *p)
{
	bool comment = false;
	int r = skip_bom(p);

	while (r >= 0) {
		int c = next_char(p);

		if (c == '\n') {
			if (p->eof)
				return 0;
			comment = false;
		} else if (comment || is_space(c)) {
			continue;
		} else if (c == '#' || c == ';') {
			comment = true;
		} else if (c == '[') {
			r = parse_section_header(p);
		} else if (is_alpha(c)) {
			r = parse_entry(p, c);
		} else {
			r = fail(p, -EINVAL, "line starts with neither a key nor a section");
		}
	}
	return r;
}

static int fill_error(struct gitcfg_error *err, const char *origin, const char *reason, int line, int r)
{
	if (err)
		*err = (struct gitcfg_error){.origin = origin, .reason = reason, .line = line};
	return r;
}

int gitcfg_parse(const char *buf, size_t len, const char *origin, gitcfg_cb cb, void *userdata,
                 struct gitcfg_error *err)
{
	_cleanup_free_ char *scratch = NULL;
	/* A name or value is never longer than the input it came from. */
	size_t cap = (len < GITCFG_MAX_LINE ? len : GITCFG_MAX_LINE) + 1;
	struct parser p = {
	        .buf = (const unsigned char *)buf,
	        .len = len,
	        .linenr = 1,
	        .origin = origin,
	        .cb = cb,
	        .userdata = userdata,
	};
	int r;

	if (len > GITCFG_MAX_INPUT)
		return fill_error(err, origin, "file larger than 1 MiB", 0, -EFBIG);
	/* One block for the name, the value and the name's split copy. */
	scratch = malloc(3 * cap);
	if (!scratch)
		return fill_error(err, origin, "out of memory", 0, -ENOMEM);
	p.var = (struct bounded_buf){.p = scratch, .cap = cap};
	p.value = (struct bounded_buf){.p = scratch + cap, .cap = cap};
	p.split = scratch + 2 * cap;
	scratch[0] = '\0';

	r = parse_source(&p);
	if (r < 0)
		return fill_error(err, origin, p.reason ? p.reason : "stopped by the caller", p.linenr, r);
	return p.entries;
}
