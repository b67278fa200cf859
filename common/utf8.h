/* Well-formed UTF-8, as a strict JSON reader wants it: the audit lines
 * (policy/audit.c) and the runner's report (tools/run/outcome.c) hold bytes
 * an agent chose, and must stay valid JSON whatever they are. */
#pragma once

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence of two to four bytes at S (at
 * most LEFT bytes, LEFT >= 1), or 0 when it is not one: ASCII, overlong
 * forms, surrogates and code points past U+10FFFF are 0. */
size_t utf8_sequence(const unsigned char *s, size_t left);
