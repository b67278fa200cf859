/* Git's configuration file format, read byte for byte as git 2.39 reads it
 * (config.c: get_next_char, parse_value, get_base_var, get_value).
 *
 * The parser is a pure function of its input: it does no I/O, follows no
 * include, and reports every entry in file order. A config file is untrusted
 * input, so the parse is bounded and fails where git's fails. */
#pragma once

#include <stddef.h>

/* Limits on what one parse accepts. Git has none; past these we fail rather
 * than guess. */
#define GITCFG_MAX_INPUT   ((size_t)1 << 20)  /* bytes of one file (-EFBIG) */
#define GITCFG_MAX_LINE    ((size_t)64 << 10) /* bytes of one name or value (-E2BIG) */
#define GITCFG_MAX_ENTRIES 65536              /* entries in one file (-E2BIG) */

/* One entry as git's callers see it.
 *
 * name is the full variable name git hands to its callbacks: section and key
 * lowercased, subsection as written. Git passes it as a C string, so a NUL
 * byte inside a quoted subsection ends it there: [core "hookspath\0"] k = v
 * is core.hookspath to git, and so it is here. section, subsection and key
 * are split from that name as git's lookups split it (first and last dot);
 * subsection is NULL when there is none. A key before any section header has
 * the empty section. In a name cut by a NUL, what reads as the key is the
 * subsection's text as written, uppercase included; git's lookups, which
 * lowercase the key they ask for, then never find it, and so a caller that
 * compares with lowercase keys agrees with git.
 *
 * value is NULL for an implicit true ("[core] bare"); otherwise it stops at
 * the first NUL byte, as it does for git. origin is the caller's name for
 * the buffer and line the line git would name. */
struct gitcfg_entry {
	const char *origin;
	const char *name;
	const char *section;
	const char *subsection;
	const char *key;
	const char *value;
	int line;
};

/* Called once per entry in file order; a negative return stops the parse and
 * is returned by gitcfg_parse(). Strings are valid only during the call. */
typedef int (*gitcfg_cb)(const struct gitcfg_entry *entry, void *userdata);

/* Why a parse failed: line is git's "bad config line N", reason a static
 * string, origin the caller's name for the buffer. */
struct gitcfg_error {
	const char *origin;
	const char *reason;
	int line;
};

/* Parses buf (len bytes, NUL bytes allowed) and calls cb for each entry.
 * Returns the number of entries, -EINVAL when git would reject the file
 * (bad config line), -EFBIG or -E2BIG past the limits above, -ENOMEM, or the
 * callback's negative return. err, when not NULL, is filled on failure. */
int gitcfg_parse(const char *buf, size_t len, const char *origin, gitcfg_cb cb, void *userdata,
                 struct gitcfg_error *err);
