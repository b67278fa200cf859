#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "git/wildmatch.h"

/* Git's wildmatch() with WM_PATHNAME, optionally WM_CASEFOLD: '?' and '*'
 * stop at '/', "**" between slashes crosses them, "[...]" classes with
 * ranges, '!'/'^' negation and [:name:] classes, '\' quoting. ASCII only, as
 * git's sane_ctype. */

enum wm_result { WM_MATCH, WM_NOMATCH, WM_ABORT_ALL, WM_ABORT_TO_STARSTAR };

static unsigned char wm_fold(unsigned char c, bool icase)
{
	return icase && c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

static bool wm_named_class(const char *name, size_t len, unsigned char t, bool icase, bool *known)
{
	static const struct {
		const char *name;
		int (*is)(int);
	} classes[] = {
		{"alnum", isalnum}, {"alpha", isalpha}, {"blank", isblank}, {"cntrl", iscntrl},
		{"digit", isdigit}, {"graph", isgraph}, {"lower", islower}, {"print", isprint},
		{"punct", ispunct}, {"space", isspace}, {"upper", isupper}, {"xdigit", isxdigit},
	};

	for (size_t i = 0; i < ELEMENTSOF(classes); i++) {
		if (strlen(classes[i].name) != len || memcmp(classes[i].name, name, len))
			continue;
		*known = true;
		if (t >= 0x80)
			return false;
		if (classes[i].is == isupper && icase && islower(t))
			return true;
		return classes[i].is(t) != 0;
	}
	*known = false;
	return false;
}

/* Matches the class at *pp (just past '[') against T; leaves *pp on its ']'.
 * Returns WM_MATCH or WM_NOMATCH for the character, WM_ABORT_ALL for a
 * pattern that ends inside the class. */
static int wm_class(const unsigned char **pp, unsigned char t, bool icase)
{
	const unsigned char *p = *pp;
	unsigned char c = *p, prev = 0;
	bool negated, matched = false;

	if (c == '^')
		c = '!';
	negated = c == '!';
	if (negated)
		c = *++p;
	do {
		if (!c)
			return WM_ABORT_ALL;
		if (c == '\\') {
			c = *++p;
			if (!c)
				return WM_ABORT_ALL;
			matched |= t == c;
		} else if (c == '-' && prev && p[1] && p[1] != ']') {
			c = *++p;
			if (c == '\\' && !(c = *++p))
				return WM_ABORT_ALL;
			if (t <= c && t >= prev)
				matched = true;
			else if (icase && t >= 'a' && t <= 'z' && t - 'a' + 'A' <= c && t - 'a' + 'A' >= prev)
				matched = true;
			c = 0; /* a range is no start of another */
		} else if (c == '[' && p[1] == ':') {
			const unsigned char *s = p + 2;
			bool known;

			for (p = s; *p && *p != ']'; p++)
				;
			if (!*p)
				return WM_ABORT_ALL;
			if (p - s < 1 || p[-1] != ':') {
				/* no ":]": the '[' is an ordinary member */
				p = s - 2;
				c = '[';
				matched |= t == c;
				continue;
			}
			matched |= wm_named_class((const char *)s, (size_t)(p - s - 1), t, icase, &known);
			if (!known)
				return WM_ABORT_ALL;
			c = 0;
		} else {
			matched |= t == c;
		}
	} while (prev = c, (c = *++p) != ']');
	*pp = p;
	return matched == negated || t == '/' ? WM_NOMATCH : WM_MATCH;
}

static int wm_star(const unsigned char *p, const unsigned char *text, bool icase);

static int wm_do(const unsigned char *p, const unsigned char *text, bool icase)
{
	for (; *p; text++, p++) {
		unsigned char pc = wm_fold(*p, icase), tc = wm_fold(*text, icase);
		int r;

		if (!tc && pc != '*')
			return WM_ABORT_ALL;
		switch (pc) {
		case '\\':
			pc = *++p; /* literal, not folded, as git */
			if (tc != pc)
				return WM_NOMATCH;
			break;
		case '?':
			if (tc == '/')
				return WM_NOMATCH;
			break;
		case '[':
			p++;
			r = wm_class(&p, tc, icase);
			if (r != WM_MATCH)
				return r;
			break;
		case '*':
			return wm_star(p, text, icase);
		default:
			if (tc != pc)
				return WM_NOMATCH;
			break;
		}
	}
	return *text ? WM_NOMATCH : WM_MATCH;
}

/* P is on a '*'. One star matches within a component; "**" alone between
 * slashes (or the ends) matches across them, "**" + "/" also nothing. */
static int wm_star(const unsigned char *p, const unsigned char *text, bool icase)
{
	const unsigned char *start = p;
	bool across = false;

	if (p[1] == '*') {
		bool at_component_start;

		while (*++p == '*')
			;
		/* start - 1 is readable: wildmatch() puts a NUL before the
		 * pattern, so "**" at its very start is at a component start. */
		at_component_start = start[-1] == '\0' || start[-1] == '/';
		if (at_component_start && (!*p || *p == '/' || (p[0] == '\\' && p[1] == '/'))) {
			if (*p == '/' && wm_do(p + 1, text, icase) == WM_MATCH)
				return WM_MATCH;
			across = true;
		}
	} else {
		p++;
	}
	if (!*p)
		return across || !strchr((const char *)text, '/') ? WM_MATCH : WM_NOMATCH;
	if (!across && *p == '/') {
		const char *slash = strchr((const char *)text, '/');

		return slash ? wm_do(p + 1, (const unsigned char *)slash + 1, icase) : WM_NOMATCH;
	}
	for (; *text; text++) {
		int r = wm_do(p, text, icase);

		if (r != WM_NOMATCH) {
			if (!across || r != WM_ABORT_TO_STARSTAR)
				return r;
		} else if (!across && *text == '/') {
			return WM_ABORT_TO_STARSTAR;
		}
	}
	return WM_ABORT_ALL;
}

/* Returns 1 when TEXT matches PATTERN, 0 when not, -ENOMEM. The pattern is
 * copied behind a NUL so that wm_star may look one byte before a leading
 * "**" and find the start of the pattern there. */
int git_wildmatch(const char *pattern, const char *text, bool icase)
{
	size_t len = strlen(pattern);
	_cleanup_free_ unsigned char *buf = malloc(len + 2);

	if (!buf)
		return -ENOMEM;
	buf[0] = '\0';
	memcpy(buf + 1, pattern, len + 1);
	return wm_do(buf + 1, (const unsigned char *)text, icase) == WM_MATCH;
}

