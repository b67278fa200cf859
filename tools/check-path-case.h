/* Whether a volume ignores case, so that oz0fs --check-path also judges
 * lower-cased spellings there: on such a volume ~/.SSH is ~/.ssh. */
#pragma once

#include <stdbool.h>

/* Whether names are looked up without case in the deepest existing folder
 * of ABS (absolute): the folder says so itself (FS_CASEFOLD_FL: ext4, f2fs
 * and tmpfs folders made with +F), or an entry of it, or its own name,
 * answers to a case-changed spelling (vfat, exfat, ntfs3, ciopfs). True
 * when it cannot tell: lower-cased spellings only ever refuse more. */
bool path_folds_case(const char *abs);
