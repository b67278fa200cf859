/* Whether a rewritten Git config may replace the old one.
 *
 * Ordinary porcelain rewrites .git/config with real changes (submodule add,
 * remote add, branch -u, checkout --track, push -u, branch -D). The mount lets
 * such a replacement through only when every entry that differs is on a
 * conservative allow-list of keys that run no program and point git at
 * nothing the agent could have planted, with a value of the expected shape.
 * Everything else must be unchanged, in the same order. */
#pragma once

#include <stddef.h>

/* Compares old (the config in place) with new (its replacement), both read as
 * git reads them (git/config-parse.h).
 *
 * Returns 1 when the change is safe, 0 when it is not, and a negative errno
 * when it cannot be judged: the old config does not parse (-EINVAL, -EFBIG,
 * -E2BIG) or memory ran out. A new config that does not parse is not safe.
 * *why (when why is not NULL) is set on 0, and when the old config does not
 * parse, to words naming the key (or config) and the reason; it stays valid
 * until the next call in the same thread. */
int gitcfg_change_is_safe(const char *old, size_t oldlen, const char *new, size_t newlen, const char **why);
