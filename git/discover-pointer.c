/* The pointers Git follows between git directories, read and resolved as
 * untrusted input (git/discover.h). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/physical-path.h"
#include "git/discover.h"
#include "git/read.h"

/* Where the pointer's own components start, and what they are added to. */
struct resolving {
	char path[PATH_MAX]; /* tree-relative so far, "" for the root */
	size_t len;
};

static bool is_name(const char *c, size_t n, const char *name)
{
	return n == strlen(name) && memcmp(c, name, n) == 0;
}

/* Drops the last component of R; false when R is already the root. */
static bool climb(struct resolving *r)
{
	char *slash;

	if (r->len == 0)
		return false;
	slash = memrchr(r->path, '/', r->len);
	r->len = slash ? (size_t)(slash - r->path) : 0;
	r->path[r->len] = '\0';
	return true;
}

static int append(struct resolving *r, const char *c, size_t n, const char **why)
{
	size_t need = r->len + (r->len ? 1 : 0) + n;

	if (n > NAME_MAX || need >= sizeof(r->path)) {
		*why = "it is longer than a path may be";
		return -EINVAL;
	}
	if (r->len)
		r->path[r->len++] = '/';
	memcpy(r->path + r->len, c, n);
	r->len = need;
	r->path[r->len] = '\0';
	return 0;
}

/* Walks the components of P (LEN bytes) onto R. Returns 1 while in the tree,
 * 0 once a leading '..' climbs out of it, -EINVAL when malformed. */
static int walk_components(struct resolving *r, const char *p, size_t len, const char **why)
{
	bool named = false; /* a folder name was taken from the pointer itself */
	size_t i = 0;

	if (len && p[len - 1] == '/')
		len--;
	while (i < len) {
		const char *c = p + i;
		const char *end = memchr(c, '/', len - i);
		size_t n = end ? (size_t)(end - c) : len - i;
		int e;

		i += n + 1;
		if (n == 0 || is_name(c, n, ".")) {
			*why = "it has an empty or '.' component";
			return -EINVAL;
		}
		if (is_name(c, n, "..")) {
			if (named) {
				*why = "it has a '..' after a folder name";
				return -EINVAL;
			}
			if (!climb(r))
				return 0;
			continue;
		}
		named = true;
		e = append(r, c, n, why);
		if (e < 0)
			return e;
	}
	return 1;
}

/* An absolute pointer is in the tree when TREE is a prefix of it at a
 * component boundary; the rest is then walked from the root. */
static int start_absolute(const char *tree, const char *pointer, size_t len, size_t *rest)
{
	size_t tlen = strlen(tree);

	while (tlen > 1 && tree[tlen - 1] == '/')
		tlen--;
	if (tlen == 1) { /* the tree is "/" */
		*rest = 1;
		return 1;
	}
	if (len < tlen || memcmp(pointer, tree, tlen) != 0 || (len > tlen && pointer[tlen] != '/'))
		return 0;
	*rest = len > tlen ? tlen + 1 : len;
	return 1;
}

/* ABS (absolute, normalised) inside TREE or SEEN_AS: 1 and *out, its
 * tree-relative path; 0 when it lies outside both. */
static int inside(const char *tree, const char *seen_as, const char *abs, char **out, const char **why)
{
	struct resolving r = {.len = 0};
	size_t len = strlen(abs), rest = 0;
	int e;

	if (!start_absolute(tree, abs, len, &rest) && (!seen_as || !start_absolute(seen_as, abs, len, &rest)))
		return 0;
	e = walk_components(&r, abs + rest, len - rest, why);
	if (e <= 0)
		return e;
	*out = strndup(r.path, r.len);
	return *out ? 1 : -ENOMEM;
}

/* A pointer that leaves the tree may come back into it: by its own name
 * ("../../tree/x", taken lexically) or through a link outside (taken
 * physically, as the kernel opens it). Either landing inside is protected;
 * two different ones are refused, as nothing tells which git takes. */
static int resolve_beyond(const char *tree, const char *seen_as, const char *base, const char *pointer, size_t len,
                          char **out, const char **why)
{
	_cleanup_free_ char *joined = NULL, *lexical = NULL, *physical = NULL, *by_name = NULL, *by_link = NULL;
	int l, p;

	if ((pointer[0] == '/' ? asprintf(&joined, "%.*s", (int)len, pointer)
	                       : asprintf(&joined, "%s/%s/%.*s", seen_as ? seen_as : tree, base, (int)len, pointer)) < 0)
		return -ENOMEM;
	l = lexical_path(joined, &lexical);
	if (l == -EINVAL)
		*why = "it is longer than a path may be";
	if (l < 0)
		return l;
	l = inside(tree, seen_as, lexical, &by_name, why);
	if (l < 0)
		return l;
	p = physical_path(lexical, &physical);
	if (p < 0)
		return p == -ENOMEM ? p : 0;
	p = inside(tree, seen_as, physical, &by_link, why);
	if (p < 0)
		return p;
	if (l > 0 && p > 0 && strcmp(by_name, by_link) != 0) {
		*why = "it leads to one folder of the tree by its name and to another through a link";
		return -EINVAL;
	}
	*out = p > 0 ? TAKE_PTR(by_link) : TAKE_PTR(by_name);
	return *out ? 1 : 0;
}

int discover_resolve(const char *tree, const char *seen_as, const char *base, const char *pointer, size_t len,
                     char **out, const char **why)
{
	struct resolving r = {.len = 0};
	size_t rest = 0;
	int e;

	*out = NULL;
	if (len == 0 || memchr(pointer, '\0', len)) {
		*why = len ? "it holds a NUL byte" : "it is empty";
		return -EINVAL;
	}
	if (len == 1 && pointer[0] == '.') { /* a stand-in: BASE itself */
		*out = strdup(base);
		return *out ? 1 : -ENOMEM;
	}
	if (pointer[0] == '/') {
		if (!start_absolute(tree, pointer, len, &rest) &&
		    (!seen_as || !start_absolute(seen_as, pointer, len, &rest)))
			return resolve_beyond(tree, seen_as, base, pointer, len, out, why);
	} else if (*base && (e = append(&r, base, strlen(base), why)) < 0) {
		return e;
	}
	e = walk_components(&r, pointer + rest, len - rest, why);
	if (e < 0)
		return e;
	if (e == 0)
		return resolve_beyond(tree, seen_as, base, pointer, len, out, why);
	*out = strndup(r.path, r.len);
	return *out ? 1 : -ENOMEM;
}

static void cut_line_end(const char *data, size_t *len)
{
	while (*len && (data[*len - 1] == '\n' || data[*len - 1] == '\r'))
		(*len)--;
}

int discover_read_pointer(int dirfd, const char *name, char **pointer, size_t *len, const char **why)
{
	struct git_blob b = {0};
	int r = gitread_file(dirfd, name, GITREAD_SMALL_MAX, &b);

	*pointer = NULL;
	if (r < 0) {
		*why = strerror(-r);
		return r;
	}
	cut_line_end(b.data, &b.len);
	b.data[b.len] = '\0';
	*pointer = b.data;
	*len = b.len;
	return 0;
}

int discover_read_gitfile(int dirfd, const char *name, char **pointer, size_t *len, const char **why)
{
	static const char prefix[] = "gitdir: ";
	_cleanup_free_ char *data = NULL;
	size_t n;
	int r = discover_read_pointer(dirfd, name, &data, &n, why);

	if (r < 0)
		return r;
	if (n < sizeof(prefix) - 1 || memcmp(data, prefix, sizeof(prefix) - 1) != 0) {
		*why = "it does not begin with 'gitdir: '";
		return -EINVAL;
	}
	n -= sizeof(prefix) - 1;
	memmove(data, data + sizeof(prefix) - 1, n);
	data[n] = '\0';
	*pointer = TAKE_PTR(data);
	*len = n;
	return 0;
}
