/* The words of oz0fs --explain: the one text both the command and the
 * mount's user.oz0fs.why attribute give, so the two can never disagree. */
#pragma once

#include <stddef.h>

#include "common/explain-resolve.h"
#include "policy/explain-judge.h"

/* What T is: "file", "folder", "symbolic link", "FIFO", "socket", "device"
 * or "missing". */
const char *explain_type(const struct explain_target *t);

/* The text of E, the judgement of T (asked as ASKED): the first line says
 * whether it is protected, by which rule and why; then its type, the chain
 * of reasons and each answer of the mount, one line each. In a malloc'd,
 * NUL-terminated *OUT of *LEN bytes (the NUL not counted). Returns 0 or
 * -ENOMEM. */
int explain_text(const struct explanation *e, const struct explain_target *t, const char *asked, char **out,
                 size_t *len);
