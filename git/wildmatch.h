/* Git's wildmatch() with WM_PATHNAME (and WM_CASEFOLD on request), as
 * includeIf's gitdir:, onbranch: and hasconfig: conditions use it. */
#pragma once

#include <stdbool.h>

/* Returns 1 when TEXT matches PATTERN, 0 when not, -ENOMEM. */
int git_wildmatch(const char *pattern, const char *text, bool icase);
