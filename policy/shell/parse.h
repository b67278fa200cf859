/* The shell reader: parses one command line into a syntax tree (see
 * policy/shell/ast.h) and answers questions about its words. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "policy/shell/ast.h"

/* Parses LEN bytes of BUF. Returns 0 and a tree, or a negative errno with
 * *ERR saying what stopped the reading and where: -EINVAL for a syntax error
 * or a NUL byte, -E2BIG for a line past one of the bounds in ast.h,
 * -ENOMEM. ORIGIN names the line's source for the caller's messages. */
int shell_parse(const char *buf, size_t len, const char *origin, struct shell_ast **out, struct shell_error *err);
/* Parses what sh runs of LEN bytes of BUF: the whole line, or, when it is
 * not valid sh to its end, its complete commands before the error, which sh
 * has run by the time it meets it. Returns 0 with *OUT that tree (NULL when
 * nothing runs) and *ERR what stopped the reading (err->code is 0 when
 * nothing did), or -ENOMEM. */
int shell_parse_runs(const char *buf, size_t len, const char *origin, struct shell_ast **out, struct shell_error *err);
struct shell_ast *shell_ast_free(struct shell_ast *ast);

/* The value of a word made only of literal and quoted text, allocated in the
 * tree's arena; NULL for a dynamic word (an expansion, a glob or a tilde
 * anywhere in it) or when out of memory. */
const char *shell_word_static(struct shell_ast *ast, const struct shell_word *w);
