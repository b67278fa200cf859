#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/read-file.h"
#include "tools/run/ceiling.h"

#define SECTION "ceiling"
#define NOT_UNTIL "no sandbox starts until it can be read"

/* The three keys, each a bit of run_limits_cap()'s set, so "seen" and
 * "capped" speak the same language. */
static const struct ceiling_key {
	const char *name;
	unsigned bit;
	uint64_t max;
	const char *unit;
} ceiling_keys[] = {
	{ "memory_mb", RUN_CAPPED_MEMORY, RUN_MEMORY_MB_MAX, "MiB" },
	{ "pids", RUN_CAPPED_PIDS, RUN_PIDS_MAX, "processes" },
	{ "cpus", RUN_CAPPED_CPUS, RUN_CPUS_MAX, "CPUs" },
};

static int vformat(char **out, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static int vformat(char **out, const char *fmt, va_list ap)
{
	if (vasprintf(out, fmt, ap) < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int refuse(char **errmsg, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Sets *ERRMSG and returns ERROR (or -ENOMEM when the message itself fails). */
static int refuse(char **errmsg, int error, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vformat(errmsg, fmt, ap);
	va_end(ap);
	return r < 0 ? r : error;
}

/* Sets K's field of *L from VALUE: 0, -EINVAL or -ERANGE. */
static int key_set(const struct ceiling_key *k, const char *value, struct run_limits *l)
{
	if (k->bit == RUN_CAPPED_CPUS)
		return run_parse_cpus(value, &l->cpu_millis);
	return run_parse_whole(value, k->max, k->bit == RUN_CAPPED_MEMORY ? &l->memory_mb : &l->pids);
}

/* "KEY = 'VALUE': what a good value is", for a refusal of key_set()'s. */
static int key_refusal(const struct ceiling_key *k, const char *value, int r, char **reason)
{
	if (r == -ERANGE)
		return refuse(reason, -EINVAL, "%s = '%s': out of range: above 0 and at most %" PRIu64 " %s", k->name,
			      value, k->max, k->unit);
	return refuse(reason, -EINVAL, "%s = '%s': not a %s number of %s (decimal digits%s, no sign or leading zero)",
		      k->name, value, k->bit == RUN_CAPPED_CPUS ? "decimal" : "whole", k->unit,
		      k->bit == RUN_CAPPED_CPUS ? " and at most three after the point" : "");
}

static const struct ceiling_key *key_find(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(ceiling_keys); i++)
		if (strcmp(ceiling_keys[i].name, name) == 0)
			return &ceiling_keys[i];
	return NULL;
}

/* One parse of a ceiling file. inih does not tell the handler the line, so
 * the reader counts: inih asks for one line per call and hands it over
 * before asking for the next. */
struct ceiling_parser {
	const char *origin, *buf;
	size_t len, pos;
	int line;
	int error, error_line; /* the first refusal only: later ones are often its echo */
	char *message;
	struct run_limits limits;
	unsigned seen;
};

static void parser_fail(struct ceiling_parser *p, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void parser_fail(struct ceiling_parser *p, int error, const char *fmt, ...)
{
	_cleanup_free_ char *reason = NULL;
	va_list ap;
	int r;

	if (p->error)
		return;
	va_start(ap, fmt);
	r = vformat(&reason, fmt, ap);
	va_end(ap);
	p->error_line = p->line;
	p->error = r < 0 ? r : refuse(&p->message, error, "%s:%d: %s", p->origin, p->line, reason);
}

/* inih names a section to the handler only with its first key, so an
 * unknown one with no key under it is caught on its own line. And inih
 * reads an indented line after a key as more of that key's value (the key
 * given again), so an indented line other than a comment is refused with
 * that reason rather than as a key given twice. */
static void check_line(struct ceiling_parser *p, const char *line, size_t n)
{
	size_t i = 0, name_len;
	const char *close;

	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i > 0 && i < n && !strchr(";#\r\n", line[i])) {
		parser_fail(p, -EINVAL, "an indented line, which inih reads as more of the value above: start it at "
			    "the margin");
		return;
	}
	if (i >= n || line[i] != '[')
		return;
	close = memchr(line + i, ']', n - i);
	if (!close)
		return; /* inih refuses the line itself */
	name_len = (size_t)(close - line - i - 1);
	if (name_len != strlen(SECTION) || memcmp(line + i + 1, SECTION, name_len) != 0)
		parser_fail(p, -EINVAL, "unknown section [%.*s]: a ceiling file holds [" SECTION "] only",
			    (int)name_len, line + i + 1);
}

/* inih's reader. A line with a NUL (inih would cut it there) or too long
 * for inih's buffer (it would read the rest as a line of its own) ends the
 * parse: a ceiling file has no business with either. */
static char *parser_read_line(char *str, int num, void *stream)
{
	struct ceiling_parser *p = stream;
	const char *start = p->buf + p->pos, *nl;
	size_t rest = p->len - p->pos, n, text;

	if (p->error || rest == 0)
		return NULL;
	nl = memchr(start, '\n', rest);
	n = nl ? (size_t)(nl - start) + 1 : rest;
	text = n - (nl ? 1 : 0);
	p->line++;
	p->pos += n;
	if (memchr(start, '\0', n))
		parser_fail(p, -EINVAL, "a NUL byte in the line");
	else if (num < 3 || text > (size_t)num - 3)
		parser_fail(p, -EINVAL, "line of %zu bytes: longer than %d bytes", text, num < 3 ? 0 : num - 3);
	else
		check_line(p, start, n);
	if (p->error)
		return NULL;
	memcpy(str, start, n);
	str[n] = '\0';
	return str;
}

/* inih's handler: non-zero for success, the one place -errno turns into
 * inih's convention. */
static int parser_handle(void *user, const char *section, const char *name, const char *value)
{
	struct ceiling_parser *p = user;
	const struct ceiling_key *k;
	int r;

	if (p->error)
		return 0;
	if (strcmp(section, SECTION) != 0) {
		parser_fail(p, -EINVAL, "'%s' outside [" SECTION "]", name);
		return 0;
	}
	k = key_find(name);
	if (!k)
		parser_fail(p, -EINVAL, "unknown key '%s' in [" SECTION "]: expected memory_mb, pids or cpus", name);
	else if (p->seen & k->bit)
		parser_fail(p, -EINVAL, "%s given twice", name);
	else if ((r = key_set(k, value, &p->limits)) < 0) {
		_cleanup_free_ char *reason = NULL;

		r = key_refusal(k, value, r, &reason);
		parser_fail(p, r, "%s", reason ? reason : "out of memory");
	} else {
		p->seen |= k->bit;
	}
	return !p->error;
}

int run_ceiling_parse(const char *buf, size_t len, const char *origin, struct run_limits *out, char **errmsg)
{
	struct ceiling_parser p = { .origin = origin, .buf = buf, .len = len };
	int r = ini_parse_stream(parser_read_line, &p, parser_handle, &p);

	*errmsg = NULL;
	/* inih reports the first line it could not parse, we the first our
	 * reader or handler refused: the earlier one is the error. */
	if (r > 0 && (!p.error || r < p.error_line)) {
		free(p.message);
		return refuse(errmsg, -EINVAL, "%s:%d: expected '[" SECTION "]' or 'key = value'", origin, r);
	}
	if (r < 0 && !p.error)
		return -ENOMEM;
	if (p.error) {
		*errmsg = p.message;
		return p.error;
	}
	if (!p.seen)
		return refuse(errmsg, -EINVAL, "%s: sets none of memory_mb, pids or cpus in [" SECTION "]", origin);
	*out = p.limits;
	return 0;
}

/* The file named by the configuration, outside any tree: a regular file of
 * at most RUN_CEILING_MAX_BYTES. O_NONBLOCK, so a FIFO put in its place opens
 * at once and is refused rather than stalling every start. A link is
 * followed: fleets swap such files by a link (a Kubernetes ConfigMap does),
 * and only whoever can write the configuration's folders can plant one. */
static int read_ceiling_file(const char *file, char **buf, size_t *len, char **errmsg)
{
	_cleanup_close_ int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	int r;

	if (fd < 0 || fstat(fd, &st) < 0)
		return refuse(errmsg, negative_errno(), "%s: cannot read: %m: " NOT_UNTIL, file);
	if (!S_ISREG(st.st_mode))
		return refuse(errmsg, -EINVAL, "%s: cannot read: not a regular file: " NOT_UNTIL, file);
	r = (uint64_t)st.st_size > RUN_CEILING_MAX_BYTES
	            ? -EFBIG
	            : read_fd_bounded(fd, (size_t)st.st_size, RUN_CEILING_MAX_BYTES, buf, len);
	if (r == -EFBIG)
		return refuse(errmsg, r, "%s: cannot read: larger than %d bytes: " NOT_UNTIL, file, RUN_CEILING_MAX_BYTES);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return refuse(errmsg, r, "%s: cannot read: %s: " NOT_UNTIL, file, strerror(-r));
	return 0;
}

/* The configuration's own values: it kept them as text, so they are judged
 * here, by the same rules as the file's. */
static int parse_text(const struct run_ceiling_text *text, struct run_limits *l, char **errmsg)
{
	const char *values[] = { text->memory_mb, text->pids, text->cpus };

	for (size_t i = 0; i < ELEMENTSOF(ceiling_keys); i++) {
		_cleanup_free_ char *reason = NULL;
		int r = values[i] ? key_set(&ceiling_keys[i], values[i], l) : 0;

		if (r < 0) {
			r = key_refusal(&ceiling_keys[i], values[i], r, &reason);
			return r == -ENOMEM ? r : refuse(errmsg, r, "the configuration's [" SECTION "] %s", reason);
		}
	}
	return 0;
}

static uint64_t lower_set(uint64_t a, uint64_t b)
{
	return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

int run_ceiling_load(const struct run_ceiling_text *text, struct run_limits *out, char **errmsg)
{
	struct run_limits conf = { 0 }, file = { 0 };
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	*errmsg = NULL;
	if (text) {
		r = parse_text(text, &conf, errmsg);
		if (r < 0)
			return r;
	}
	if (text && text->file) {
		r = read_ceiling_file(text->file, &buf, &len, errmsg);
		if (r < 0)
			return r;
		r = run_ceiling_parse(buf, len, text->file, &file, errmsg);
		if (r < 0)
			return r;
	}
	*out = (struct run_limits){
		.memory_mb = lower_set(conf.memory_mb, file.memory_mb),
		.pids = lower_set(conf.pids, file.pids),
		.cpu_millis = (uint32_t)lower_set(conf.cpu_millis, file.cpu_millis),
	};
	return 0;
}
