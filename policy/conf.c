#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/read-file.h"
#include "common/tree-place.h"
#include "policy/conf.h"

/* A config larger than this is not a config; reading stops there. */
#define CONFIG_MAX_BYTES (1024 * 1024)
/* Every list together: a protected path costs a lookup per rebuild, a
 * command name one comparison per command node checked. */
#define CONFIG_MAX_PATHS 4096
/* A line longer than inih's buffer reaches it with each long run of plain
 * text replaced by a mark, CONFIG_MARK and the run's number (see
 * shorten_line). No key we know is that long, so the key inih keeps from an
 * earlier line for a continued value never holds a mark. */
#define CONFIG_MARK '\x01'
#define CONFIG_MARK_MIN 16
#define CONFIG_MAX_WORDS 64

const char *const policy_default_tool_paths[] = {
	".claude", ".codex", ".cursor", ".vscode/tasks.json", ".envrc", NULL,
};

/* The state of one parse. inih knows line numbers but does not tell the
 * handler, so our reader counts them: inih asks for exactly one line per
 * call, and the handler runs before the next line is read. */
struct config_parser {
	const char *file;
	const char *buf;
	size_t len, pos;
	int line;
	/* The texts a line too long for inih hides behind marks (see
	 * shorten_line); n_words is 0 for a line inih reads as it is. */
	struct config_word {
		const char *text;
		size_t len;
	} words[CONFIG_MAX_WORDS];
	size_t n_words;
	int error;      /* first -errno, 0 while all is well */
	int error_line;
	char *message;  /* "FILE:LINE: reason" of the first error */
	struct policy_config *cfg;
};

static void parser_fail(struct config_parser *p, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Keeps the first error only: later ones are often its consequences. */
static void parser_fail(struct config_parser *p, int error, const char *fmt, ...)
{
	_cleanup_free_ char *reason = NULL;
	va_list ap;
	int r;

	if (p->error)
		return;
	p->error = error;
	p->error_line = p->line;
	va_start(ap, fmt);
	r = vasprintf(&reason, fmt, ap);
	va_end(ap);
	if (r < 0) {
		reason = NULL;
		p->error = -ENOMEM;
		return;
	}
	if (asprintf(&p->message, "%s:%d: %s", p->file, p->line, reason) < 0) {
		p->message = NULL;
		p->error = -ENOMEM;
	}
}

static bool section_known(const char *section);

/* inih tells the handler a section's name only with its first key, so an
 * unknown section is caught here, on its own line. */
static void check_section_header(struct config_parser *p, const char *line, size_t n)
{
	const char *s = line, *end = line + n, *close;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end || *s != '[')
		return;
	close = memchr(s, ']', (size_t)(end - s));
	if (!close)
		return; /* inih refuses the line itself */
	_cleanup_free_ char *name = strndup(s + 1, (size_t)(close - s - 1));
	if (!name)
		parser_fail(p, -ENOMEM, "out of memory");
	else if (!section_known(name))
		parser_fail(p, -EINVAL, "unknown section [%s]", name);
}

/* Bytes inih gives a meaning to, and blanks (isspace). Before the first
 * delimiter, its delimiters, comment and section characters; after it
 * (IN_VALUE), only ';', which starts a comment after a blank. */
static bool inih_special(char c, bool in_value)
{
	if (isspace((unsigned char)c) || c == ';')
		return true;
	return !in_value && (c == '=' || c == ':' || c == '#' || c == '[' || c == ']');
}

/* The run of plain text starting at LINE[I]: up to the next special byte
 * other than a blank, without the blanks at its end. Blanks inside it mean
 * nothing to inih; those at its ends do (they end a key, start a comment). */
static size_t plain_run(const char *line, size_t i, size_t n, bool in_value)
{
	size_t j = i;

	while (j < n && (!inih_special(line[j], in_value) || isspace((unsigned char)line[j])))
		j++;
	while (j > i && isspace((unsigned char)line[j - 1]))
		j--;
	return j - i;
}

/* inih reads lines of at most NUM - 3 bytes: its INI_MAX_LINE is fixed when
 * the library is built (200 in Debian's), and a path may be 4,095 bytes. So
 * a longer line reaches inih with each long run of plain text (and any run
 * holding CONFIG_MARK) replaced by CONFIG_MARK and the run's number; inih
 * then parses the line exactly as it would the whole one, since no byte it
 * looks at moved, and the handler puts the runs back (expand_marks). Writes
 * the line into OUT (NUM bytes); returns false when even that does not fit. */
static bool shorten_line(struct config_parser *p, const char *line, size_t n, char *out, int num)
{
	size_t i = 0, o = 0, size = (size_t)num;
	bool in_value = false;

	p->n_words = 0;
	if (p->line == 1 && n >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0)
		i = 3; /* inih skips a UTF-8 byte order mark only as the first bytes: copied as it is */
	if (i >= size)
		return false;
	memcpy(out, line, i);
	o = i;
	while (i < n && isspace((unsigned char)line[i]))
		i++;
	if (i < n && (line[i] == ';' || line[i] == '#') && o + 2 <= size) {
		out[o] = line[i]; /* a comment line: inih looks no further than its first byte */
		out[o + 1] = '\0';
		return true;
	}
	i = o;
	while (i < n) {
		bool special = inih_special(line[i], in_value);
		size_t run = special ? 1 : plain_run(line, i, n, in_value), w = run;

		in_value |= special && (line[i] == '=' || line[i] == ':');
		if (!special && (run >= CONFIG_MARK_MIN || memchr(line + i, CONFIG_MARK, run))) {
			if (p->n_words == CONFIG_MAX_WORDS)
				return false;
			p->words[p->n_words] = (struct config_word){ .text = line + i, .len = run };
			w = (size_t)snprintf(out + o, size - o, "%c%zu", CONFIG_MARK, p->n_words++);
			if (o + w >= size)
				return false;
		} else {
			if (o + w >= size)
				return false;
			memcpy(out + o, line + i, w);
		}
		o += w;
		i += run;
	}
	out[o] = '\0';
	return true;
}

/* inih's fgets-style reader over the file's bytes. A line with a NUL (inih
 * would silently cut it there), or one too long even shortened, ends the
 * parse with an error rather than being read as something else. */
static char *parser_read_line(char *str, int num, void *stream)
{
	struct config_parser *p = stream;
	const char *start = p->buf + p->pos, *nl;
	size_t rest = p->len - p->pos, n;

	if (p->error || rest == 0)
		return NULL;
	nl = memchr(start, '\n', rest);
	n = nl ? (size_t)(nl - start) + 1 : rest;
	p->line++;
	p->n_words = 0;
	if (memchr(start, '\0', n)) {
		parser_fail(p, -EINVAL, "a NUL byte in the line");
		return NULL;
	}
	check_section_header(p, start, n);
	if (p->error)
		return NULL;
	p->pos += n;
	/* inih needs room for '\r', '\n' and '\0' after the text. */
	if (num >= 3 && n - (nl ? 1 : 0) <= (size_t)num - 3) {
		memcpy(str, start, n);
		str[n] = '\0';
		return str;
	}
	if (num < 3 || !shorten_line(p, start, n, str, num)) {
		parser_fail(p, -EINVAL, "line of %zu bytes too long to read: past %d bytes a line may hold only a key, "
			    "its value and a comment",
			    n - (nl ? 1 : 0), num - 3);
		return NULL;
	}
	return str;
}

/* S (a key or value inih found) with the runs behind its marks put back;
 * malloc'd, or NULL with the parser failed. */
static char *expand_marks(struct config_parser *p, const char *s)
{
	size_t len = strlen(s) + 1;
	char *out, *o;

	for (size_t i = 0; i < p->n_words; i++)
		len += p->words[i].len;
	out = o = malloc(len);
	if (!out) {
		parser_fail(p, -ENOMEM, "out of memory");
		return NULL;
	}
	while (*s) {
		char *end;
		unsigned long k = *s == CONFIG_MARK && isdigit((unsigned char)s[1]) ? strtoul(s + 1, &end, 10) : ULONG_MAX;

		if (k < p->n_words) {
			memcpy(o, p->words[k].text, p->words[k].len);
			o += p->words[k].len;
			s = end;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

/* REST (the part of VALUE after any prefix) in one spelling: no empty, '.'
 * or leading/trailing components, so ".//.vscode/./tasks.json/" is
 * ".vscode/tasks.json", possibly "". Returns the malloc'd path, or NULL
 * with the parser failed. */
static char *fold_components(struct config_parser *p, const char *value, const char *rest)
{
	_cleanup_free_ char *out = NULL;
	const char *s = rest;
	size_t len = 0;

	if (strlen(value) >= PATH_MAX) {
		parser_fail(p, -ENAMETOOLONG, "path longer than %d bytes", PATH_MAX - 1);
		return NULL;
	}
	out = malloc(strlen(rest) + 1);
	if (!out) {
		parser_fail(p, -ENOMEM, "out of memory");
		return NULL;
	}
	while (*s) {
		size_t n = strcspn(s, "/");

		if (n == 2 && s[0] == '.' && s[1] == '.') {
			parser_fail(p, -EINVAL, "'%s' contains '..': write the path without it", value);
			return NULL;
		}
		if (n > NAME_MAX) {
			parser_fail(p, -ENAMETOOLONG, "a component of '%s' is longer than %d bytes", value,
				    NAME_MAX);
			return NULL;
		}
		if (n > 0 && !(n == 1 && s[0] == '.')) {
			if (len > 0)
				out[len++] = '/';
			memcpy(out + len, s, n);
			len += n;
		}
		s += n;
		s += strspn(s, "/");
	}
	out[len] = '\0';
	return TAKE_PTR(out);
}

/* Tree-relative paths in one spelling (fold_components), never the whole
 * tree. Returns the malloc'd path, or NULL with the parser failed. */
static char *normalise_path(struct config_parser *p, const char *value)
{
	char *out;

	if (value[0] == '\0') {
		parser_fail(p, -EINVAL, "empty path");
		return NULL;
	}
	if (value[0] == '/') {
		parser_fail(p, -EINVAL, "'%s' is absolute: paths are relative to the tree", value);
		return NULL;
	}
	out = fold_components(p, value, value);
	if (out && !*out) {
		parser_fail(p, -EINVAL, "'%s' names the whole tree: mount it read-only instead", value);
		free(out);
		return NULL;
	}
	return out;
}

static bool path_has_component(const char *path, const char *comp)
{
	size_t clen = strlen(comp);

	for (const char *s = path; *s; s += strcspn(s, "/"), s += strspn(s, "/"))
		if (strncmp(s, comp, clen) == 0 && (s[clen] == '/' || s[clen] == '\0'))
			return true;
	return false;
}

static bool is_default_tool_path(const char *path)
{
	for (size_t i = 0; policy_default_tool_paths[i]; i++)
		if (strcmp(path, policy_default_tool_paths[i]) == 0)
			return true;
	return false;
}

/* Adds PATH (taking it) to a list unless it is there already. */
static int list_add(struct config_parser *p, char ***list, size_t *n, char *path)
{
	_cleanup_free_ char *owned = path;
	char **grown;

	for (size_t i = 0; i < *n; i++)
		if (strcmp((*list)[i], owned) == 0)
			return 0;
	if (p->cfg->n_protect + p->cfg->n_unprotect + p->cfg->n_deny_paths + p->cfg->n_deny_names +
	            p->cfg->n_command_deny + p->cfg->n_command_allow >=
	    CONFIG_MAX_PATHS) {
		parser_fail(p, -E2BIG, "more than %d paths and command names", CONFIG_MAX_PATHS);
		return p->error;
	}
	grown = reallocarray(*list, *n + 1, sizeof(**list));
	if (!grown) {
		parser_fail(p, -ENOMEM, "out of memory");
		return p->error;
	}
	*list = grown;
	(*list)[(*n)++] = TAKE_PTR(owned);
	return 0;
}

static int parse_protect_path(struct config_parser *p, const char *value)
{
	char *path = normalise_path(p, value);

	if (!path)
		return p->error;
	return list_add(p, &p->cfg->protect, &p->cfg->n_protect, path);
}

static int parse_unprotect_path(struct config_parser *p, const char *value)
{
	_cleanup_free_ char *path = normalise_path(p, value);

	if (!path)
		return p->error;
	if (path_has_component(path, ".git")) {
		parser_fail(p, -EINVAL, "'%s' cannot be unprotected: Git metadata is always protected", path);
		return p->error;
	}
	if (!is_default_tool_path(path)) {
		parser_fail(p, -EINVAL,
			    "'%s' cannot be unprotected: [unprotect] frees only .claude, .codex, .cursor, "
			    ".vscode/tasks.json or .envrc",
			    path);
		return p->error;
	}
	return list_add(p, &p->cfg->unprotect, &p->cfg->n_unprotect, TAKE_PTR(path));
}

/* A [deny] root, absolute or in the home: "/srv/keys" or "~/.aws", in one
 * spelling; "~" alone is the whole home, "/" alone is refused. The home is
 * placed when the root is used: the harness's, not the one at load. */
static int parse_deny_path(struct config_parser *p, const char *value)
{
	bool home = value[0] == '~';
	_cleanup_free_ char *rest = NULL;
	char *path;

	if (value[0] == '\0') {
		parser_fail(p, -EINVAL, "empty path");
		return p->error;
	}
	if (value[0] != '/' && !(home && (value[1] == '\0' || value[1] == '/'))) {
		parser_fail(p, -EINVAL, "'%s' is neither absolute nor in the home ('~/'): a denied root names one place",
			    value);
		return p->error;
	}
	rest = fold_components(p, value, value + (home ? 1 : 0));
	if (!rest)
		return p->error;
	if (!home && !*rest) {
		parser_fail(p, -EINVAL, "'%s' names the whole file system", value);
		return p->error;
	}
	if (asprintf(&path, "%s%s%s", home ? "~" : "", *rest || !home ? "/" : "", rest) < 0) {
		parser_fail(p, -ENOMEM, "out of memory");
		return p->error;
	}
	return list_add(p, &p->cfg->deny_paths, &p->cfg->n_deny_paths, path);
}

/* A [deny] name, refused anywhere in the mounted tree: one entry name, as
 * the file system spells it. .git is git's own: the mount protects what in
 * it runs code, and denying it would stop git itself. */
static int parse_deny_name(struct config_parser *p, const char *value)
{
	char *name;

	if (value[0] == '\0' || strchr(value, '/') || strcmp(value, ".") == 0 || strcmp(value, "..") == 0) {
		parser_fail(p, -EINVAL, "'%s' is not the name of one file or folder", value);
		return p->error;
	}
	if (strlen(value) > NAME_MAX) {
		parser_fail(p, -ENAMETOOLONG, "name longer than %d bytes", NAME_MAX);
		return p->error;
	}
	if (strcmp(value, ".git") == 0) {
		parser_fail(p, -EINVAL, "'.git' cannot be denied: git needs it, and the mount protects what in it runs code");
		return p->error;
	}
	name = strdup(value);
	if (!name) {
		parser_fail(p, -ENOMEM, "out of memory");
		return p->error;
	}
	return list_add(p, &p->cfg->deny_names, &p->cfg->n_deny_names, name);
}

static int parse_audit_file(struct config_parser *p, const char *value)
{
	if (value[0] != '/') {
		parser_fail(p, -EINVAL, "audit file '%s' is not an absolute path", value);
		return p->error;
	}
	if (p->cfg->audit_file) {
		parser_fail(p, -EINVAL, "audit file given twice");
		return p->error;
	}
	p->cfg->audit_file = strdup(value);
	if (!p->cfg->audit_file) {
		parser_fail(p, -ENOMEM, "out of memory");
		return p->error;
	}
	return 0;
}

static int parse_audit_syslog(struct config_parser *p, const char *value)
{
	static const char *const yes[] = { "yes", "true", "1" }, *const no[] = { "no", "false", "0" };

	for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
		if (strcmp(value, yes[i]) == 0) {
			p->cfg->audit_syslog = true;
			return 0;
		}
		if (strcmp(value, no[i]) == 0) {
			p->cfg->audit_syslog = false;
			return 0;
		}
	}
	parser_fail(p, -EINVAL, "syslog = '%s': expected yes, no, true, false, 1 or 0", value);
	return p->error;
}

/* The command rules match a command's name as written, and accept only bare
 * names (seed 002: "/usr/bin/curl is rejected"), so a name with a folder or a
 * blank in it could never match and is a mistake in the file. */
static char *command_name(struct config_parser *p, const char *value)
{
	char *name;

	if (value[0] == '\0') {
		parser_fail(p, -EINVAL, "empty command name");
		return NULL;
	}
	if (strlen(value) > NAME_MAX) {
		parser_fail(p, -ENAMETOOLONG, "command name longer than %d bytes", NAME_MAX);
		return NULL;
	}
	for (const unsigned char *c = (const unsigned char *)value; *c; c++)
		if (*c == '/' || *c <= ' ' || *c == 0x7f) {
			parser_fail(p, -EINVAL, "'%s' is not a bare command name", value);
			return NULL;
		}
	name = strdup(value);
	if (!name)
		parser_fail(p, -ENOMEM, "out of memory");
	return name;
}

static int parse_command_deny(struct config_parser *p, const char *value)
{
	char *name = command_name(p, value);

	if (!name)
		return p->error;
	return list_add(p, &p->cfg->command_deny, &p->cfg->n_command_deny, name);
}

static int parse_command_allow(struct config_parser *p, const char *value)
{
	char *name = command_name(p, value);

	if (!name)
		return p->error;
	return list_add(p, &p->cfg->command_allow, &p->cfg->n_command_allow, name);
}

/* "refuse" or "allow", spelled out: a switch that lets rm or sudo through
 * should not be set by a "1" typed for something else. */
static int parse_refuse_allow(struct config_parser *p, const char *key, const char *value, bool *allow)
{
	if (strcmp(value, "refuse") == 0)
		*allow = false;
	else if (strcmp(value, "allow") == 0)
		*allow = true;
	else
		parser_fail(p, -EINVAL, "%s = '%s': expected refuse or allow", key, value);
	return p->error;
}

static int parse_command_rm(struct config_parser *p, const char *value)
{
	return parse_refuse_allow(p, "rm", value, &p->cfg->command_allow_rm);
}

static int parse_command_sudo(struct config_parser *p, const char *value)
{
	return parse_refuse_allow(p, "sudo", value, &p->cfg->command_allow_sudo);
}

/* Each [ceiling] key once: two values for one limit leave which one holds
 * to chance of reading, so the file is refused. The values stay text; the
 * runner, which knows what a limit is, judges them. */
static int parse_once(struct config_parser *p, const char *key, const char *value, char **slot)
{
	if (*slot) {
		parser_fail(p, -EINVAL, "%s given twice in [ceiling]", key);
		return p->error;
	}
	if (value[0] == '\0') {
		parser_fail(p, -EINVAL, "%s in [ceiling] is empty", key);
		return p->error;
	}
	*slot = strdup(value);
	if (!*slot)
		parser_fail(p, -ENOMEM, "out of memory");
	return p->error;
}

static int parse_ceiling_memory(struct config_parser *p, const char *value)
{
	return parse_once(p, "memory_mb", value, &p->cfg->ceiling.memory_mb);
}

static int parse_ceiling_pids(struct config_parser *p, const char *value)
{
	return parse_once(p, "pids", value, &p->cfg->ceiling.pids);
}

static int parse_ceiling_cpus(struct config_parser *p, const char *value)
{
	return parse_once(p, "cpus", value, &p->cfg->ceiling.cpus);
}

static int parse_ceiling_file(struct config_parser *p, const char *value)
{
	if (value[0] != '/' && value[0] != '\0') {
		parser_fail(p, -EINVAL, "ceiling file '%s' is not an absolute path", value);
		return p->error;
	}
	return parse_once(p, "file", value, &p->cfg->ceiling.file);
}

static const struct config_key {
	const char *section;
	const char *key;
	int (*parse)(struct config_parser *p, const char *value);
} config_keys[] = {
	{ "protect", "path", parse_protect_path },
	{ "unprotect", "path", parse_unprotect_path },
	{ "deny", "path", parse_deny_path },
	{ "deny", "name", parse_deny_name },
	{ "audit", "file", parse_audit_file },
	{ "audit", "syslog", parse_audit_syslog },
	{ "commands", "deny", parse_command_deny },
	{ "commands", "allow", parse_command_allow },
	{ "commands", "rm", parse_command_rm },
	{ "commands", "sudo", parse_command_sudo },
	{ "ceiling", "memory_mb", parse_ceiling_memory },
	{ "ceiling", "pids", parse_ceiling_pids },
	{ "ceiling", "cpus", parse_ceiling_cpus },
	{ "ceiling", "file", parse_ceiling_file },
};

static bool section_known(const char *section)
{
	for (size_t i = 0; i < ELEMENTSOF(config_keys); i++)
		if (strcmp(config_keys[i].section, section) == 0)
			return true;
	return false;
}

/* One key and its value, as the file holds them; non-zero when good, as
 * inih wants. */
static int parser_handle_line(struct config_parser *p, const char *section, const char *key, const char *value)
{
	if (section[0] == '\0') {
		parser_fail(p, -EINVAL, "'%s' outside a section", key);
		return 0;
	}
	if (!section_known(section)) {
		parser_fail(p, -EINVAL, "unknown section [%s]", section);
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(config_keys); i++)
		if (strcmp(config_keys[i].section, section) == 0 && strcmp(config_keys[i].key, key) == 0) {
			if (strcmp(section, "commands") == 0)
				p->cfg->commands_configured = true;
			return config_keys[i].parse(p, value) >= 0;
		}
	parser_fail(p, -EINVAL, "unknown key '%s' in [%s]", key, section);
	return 0;
}

/* inih's handler: non-zero means success, so this is the one place where our
 * -errno turns into inih's convention. */
static int parser_handle(void *user, const char *section, const char *key, const char *value)
{
	struct config_parser *p = user;
	_cleanup_free_ char *long_key = NULL, *long_value = NULL;

	if (p->error)
		return 0;
	if (p->n_words == 0)
		return parser_handle_line(p, section, key, value);
	long_key = expand_marks(p, key);
	long_value = long_key ? expand_marks(p, value) : NULL;
	return long_value ? parser_handle_line(p, section, long_key, long_value) : 0;
}

static int file_error(char **errmsg, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A refusal about the file as a whole: "FILE: reason". */
static int file_error(char **errmsg, int error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(errmsg, fmt, ap) < 0)
		*errmsg = NULL;
	va_end(ap);
	return error;
}

/* Refuses a file the mount would put in the agent's hands: one that lies in
 * the tree open as TREE_FD could be edited ("[unprotect]" appended) through
 * the mount before the next start reads it. */
static int check_outside(const char *file, int fd, int tree_fd, char **errmsg)
{
	int place = tree_fd < 0 ? TREE_PLACE_OUTSIDE : tree_place(fd, tree_fd);

	if (place < 0)
		return file_error(errmsg, place, "%s: cannot tell whether it lies inside the tree: %s", file,
				  strerror(-place));
	if (place != TREE_PLACE_OUTSIDE)
		return file_error(errmsg, -EXDEV, "%s: %s: keep the configuration outside the tree", file,
				  tree_place_problem((enum tree_place)place));
	return 0;
}

/* Reads the whole file, a regular one of at most CONFIG_MAX_BYTES; O_NONBLOCK
 * so a FIFO put in its place cannot stall the start. */
static int read_config_file(const char *file, int tree_fd, char **buf, size_t *len, char **errmsg)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (!*file)
		return file_error(errmsg, -EINVAL, "the configuration file's name is empty: name a file");
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0)
		return file_error(errmsg, negative_errno(), "%s: cannot read: %m", file);
	if (!S_ISREG(st.st_mode))
		return file_error(errmsg, -EINVAL, "%s: not a regular file", file);
	r = check_outside(file, fd, tree_fd, errmsg);
	if (r < 0)
		return r;
	r = read_fd_bounded(fd, (size_t)st.st_size, CONFIG_MAX_BYTES, buf, len);
	if (r == -EFBIG)
		return file_error(errmsg, r, "%s: larger than %d bytes", file, CONFIG_MAX_BYTES);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return file_error(errmsg, r, "%s: cannot read: %s", file, strerror(-r));
	return 0;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct policy_config *, policy_config_free)

static int parse_config(struct config_parser *p, char **errmsg)
{
	int r = ini_parse_stream(parser_read_line, p, parser_handle, p);

	/* inih reports the first line it could not parse; we report the first
	 * line our handler or reader refused; the earlier one is the error. */
	if (r > 0 && (!p->error || r < p->error_line)) {
		free(p->message);
		p->message = NULL;
		if (asprintf(&p->message, "%s:%d: expected '[section]' or 'key = value'", p->file, r) < 0)
			p->message = NULL;
		p->error = -EINVAL;
	} else if (r < 0 && !p->error) {
		p->error = -ENOMEM;
	}
	*errmsg = TAKE_PTR(p->message);
	return p->error;
}

int policy_config_load(const char *file, struct policy_config **out, char **errmsg)
{
	return policy_config_load_outside(file, -1, out, errmsg);
}

int policy_config_load_outside(const char *file, int tree_fd, struct policy_config **out, char **errmsg)
{
	_cleanup_(policy_config_freep) struct policy_config *cfg = calloc(1, sizeof(*cfg));
	_cleanup_free_ char *buf = NULL;
	struct config_parser p = { .file = file };
	int r;

	*errmsg = NULL;
	if (!cfg)
		return -ENOMEM;
	if (file) {
		cfg->file = strdup(file);
		if (!cfg->file)
			return -ENOMEM;
		r = read_config_file(file, tree_fd, &buf, &p.len, errmsg);
		if (r < 0)
			return r;
		p.buf = buf;
		p.cfg = cfg;
		r = parse_config(&p, errmsg);
		if (r < 0)
			return r;
	}
	*out = TAKE_PTR(cfg);
	return 0;
}

static void free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

void policy_config_free(struct policy_config *c)
{
	if (!c)
		return;
	free_list(c->protect, c->n_protect);
	free_list(c->unprotect, c->n_unprotect);
	free_list(c->deny_paths, c->n_deny_paths);
	free_list(c->deny_names, c->n_deny_names);
	free_list(c->command_deny, c->n_command_deny);
	free_list(c->command_allow, c->n_command_allow);
	free(c->audit_file);
	free(c->ceiling.memory_mb);
	free(c->ceiling.pids);
	free(c->ceiling.cpus);
	free(c->ceiling.file);
	free(c->file);
	free(c);
}

bool policy_config_unprotected(const struct policy_config *c, const char *path)
{
	if (!c || !is_default_tool_path(path))
		return false;
	for (size_t i = 0; i < c->n_unprotect; i++)
		if (strcmp(c->unprotect[i], path) == 0)
			return true;
	return false;
}
