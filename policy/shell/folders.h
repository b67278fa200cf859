/* Folder arithmetic for the program finder: lexical path joining (what
 * 'cd' does without -P) and the bounded set of folders a line may stand in.
 * Strings live in a pool freed at once, so states copy by value. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The combinations of folders one line is followed through (seed 000). */
#define SHELL_MAX_FOLDERS 64

struct shell_pool {
	char **strings;
	size_t n, cap;
	size_t bytes; /* against SHELL_POOL_MAX_BYTES */
};

#define SHELL_POOL_MAX_BYTES (8 * 1024 * 1024)

/* A copy kept until shell_pool_clear, or NULL (out of memory or past the cap). */
char *shell_pool_strdup(struct shell_pool *pool, const char *s);
void *shell_pool_alloc(struct shell_pool *pool, size_t size);
void shell_pool_clear(struct shell_pool *pool);

/* BASE joined with REL and normalised ('.', '..' and repeated '/' folded
 * lexically); REL absolute replaces BASE. "." stands for BASE itself. */
char *shell_path_join(struct shell_pool *pool, const char *base, const char *rel);

/* v[0] is always the folder reached by following every cd; the others are
 * where the line may stand when some cd failed or did not run. */
struct shell_folders {
	const char *v[SHELL_MAX_FOLDERS];
	size_t n;
};

bool shell_folders_has(const struct shell_folders *f, const char *dir);
/* Adds DIR unless present; false when the set is full. */
bool shell_folders_add(struct shell_folders *f, const char *dir);
