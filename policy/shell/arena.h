/* A bump allocator for one syntax tree: every node of a parse is freed at
 * once, and the bytes a hostile line can make us hold are capped. */
#pragma once

#include <stddef.h>

/* The most one arena hands out; a line needing more is refused. */
#define SHELL_ARENA_MAX_BYTES (32 * 1024 * 1024)

struct shell_arena;

struct shell_arena *shell_arena_new(void);
struct shell_arena *shell_arena_free(struct shell_arena *a);

/* Zeroed memory, or NULL when out of memory or past the arena's cap. */
void *shell_arena_alloc(struct shell_arena *a, size_t size);
/* A NUL-terminated copy of LEN bytes, or NULL. */
char *shell_arena_strndup(struct shell_arena *a, const char *s, size_t len);
