#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/shell/folders.h"

void *shell_pool_alloc(struct shell_pool *pool, size_t size)
{
	void *p;

	if (size > SHELL_POOL_MAX_BYTES - pool->bytes)
		return NULL;
	if (pool->n == pool->cap) {
		size_t cap = pool->cap ? pool->cap * 2 : 64;
		char **v = reallocarray(pool->strings, cap, sizeof(*v));

		if (!v)
			return NULL;
		pool->strings = v;
		pool->cap = cap;
	}
	p = calloc(1, size ? size : 1);
	if (!p)
		return NULL;
	pool->strings[pool->n++] = p;
	pool->bytes += size;
	return p;
}

char *shell_pool_strdup(struct shell_pool *pool, const char *s)
{
	size_t len = strlen(s);
	char *p = shell_pool_alloc(pool, len + 1);

	if (p)
		memcpy(p, s, len + 1);
	return p;
}

void shell_pool_clear(struct shell_pool *pool)
{
	for (size_t i = 0; i < pool->n; i++)
		free(pool->strings[i]);
	free(pool->strings);
	*pool = (struct shell_pool){0};
}

/* Appends component C (LEN bytes) to the normalised path in OUT (length
 * *OLEN), folding '.' and '..'; a '..' above a relative start stays. */
static void push_component(char *out, size_t *olen, const char *c, size_t len, bool absolute)
{
	if (len == 0 || (len == 1 && c[0] == '.'))
		return;
	if (len == 2 && c[0] == '.' && c[1] == '.') {
		char *slash;
		const char *last;

		if (*olen == 0 || (absolute && *olen == 1)) {
			if (absolute)
				return; /* /.. is / */
		} else {
			slash = memrchr(out, '/', *olen);
			last = slash ? slash + 1 : out;
			if (!(out + *olen - last == 2 && last[0] == '.' && last[1] == '.')) {
				*olen = slash ? (size_t)(slash - out) : 0;
				if (absolute && *olen == 0)
					*olen = 1;
				return;
			}
		}
	}
	if (*olen > 0 && out[*olen - 1] != '/')
		out[(*olen)++] = '/';
	memcpy(out + *olen, c, len);
	*olen += len;
}

static void normalise_into(char *out, size_t *olen, const char *path, bool absolute)
{
	while (*path) {
		const char *slash = strchr(path, '/');
		size_t len = slash ? (size_t)(slash - path) : strlen(path);

		push_component(out, olen, path, len, absolute);
		path += len + (slash ? 1 : 0);
	}
}

char *shell_path_join(struct shell_pool *pool, const char *base, const char *rel)
{
	bool absolute = rel[0] == '/' || (base[0] == '/');
	size_t cap = strlen(base) + strlen(rel) + 3, olen = 0;
	char *out = shell_pool_alloc(pool, cap);

	if (!out)
		return NULL;
	if (absolute)
		out[olen++] = '/';
	if (rel[0] != '/')
		normalise_into(out, &olen, base, absolute);
	normalise_into(out, &olen, rel, absolute);
	if (olen == 0)
		out[olen++] = '.';
	out[olen] = '\0';
	return out;
}

bool shell_folders_has(const struct shell_folders *f, const char *dir)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->v[i], dir) == 0)
			return true;
	return false;
}

bool shell_folders_add(struct shell_folders *f, const char *dir)
{
	if (shell_folders_has(f, dir))
		return true;
	if (f->n == SHELL_MAX_FOLDERS)
		return false;
	f->v[f->n++] = dir;
	return true;
}
