#include "config.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/shell/arena.h"

/* Chunks double from the first to the largest: a one-word line needs a few
 * hundred bytes, and a large first chunk costs more than the parse itself
 * (glibc serves requests up to 1 KiB from its caches; past that, a malloc
 * may first merge every freed small block). */
#define FIRST_CHUNK_BYTES (1024 - sizeof(struct chunk))
#define CHUNK_BYTES (16 * 1024)

struct chunk {
	struct chunk *prev;
	size_t size, used;
	alignas(max_align_t) unsigned char data[];
};

struct shell_arena {
	struct chunk *top;
	size_t total; /* bytes of all chunks, against SHELL_ARENA_MAX_BYTES */
};

struct shell_arena *shell_arena_new(void)
{
	return calloc(1, sizeof(struct shell_arena));
}

struct shell_arena *shell_arena_free(struct shell_arena *a)
{
	if (!a)
		return NULL;
	while (a->top) {
		struct chunk *prev = a->top->prev;

		free(a->top);
		a->top = prev;
	}
	free(a);
	return NULL;
}

static struct chunk *arena_grow(struct shell_arena *a, size_t need)
{
	size_t size = a->top ? a->top->size * 2 : FIRST_CHUNK_BYTES;
	struct chunk *c;

	if (size > CHUNK_BYTES)
		size = CHUNK_BYTES;
	if (need > size)
		size = need;
	if (size > SHELL_ARENA_MAX_BYTES - a->total)
		return NULL;
	c = malloc(sizeof(*c) + size);
	if (!c)
		return NULL;
	c->prev = a->top;
	c->size = size;
	c->used = 0;
	a->top = c;
	a->total += size;
	return c;
}

void *shell_arena_alloc(struct shell_arena *a, size_t size)
{
	const size_t align = alignof(max_align_t);
	struct chunk *c = a->top;
	void *p;

	if (size > SHELL_ARENA_MAX_BYTES)
		return NULL;
	size = (size + align - 1) & ~(align - 1);
	if (!c || c->size - c->used < size) {
		c = arena_grow(a, size);
		if (!c)
			return NULL;
	}
	p = c->data + c->used;
	c->used += size;
	memset(p, 0, size);
	return p;
}

char *shell_arena_strndup(struct shell_arena *a, const char *s, size_t len)
{
	char *p;

	if (len == SIZE_MAX)
		return NULL;
	p = shell_arena_alloc(a, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}
