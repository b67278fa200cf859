/* Whether two entries are regular files with identical bytes: the test that
 * lets a rename "replace" a protected file with what it already holds (Git
 * rewrites config through config.lock even when nothing changes). */
#pragma once

#include "policy/policy.h"

/* Files above this size count as different: the comparison stays bounded. */
#define SAME_BYTES_MAX (16u << 20)

/* Opens NAME_A in DIR_A and NAME_B in DIR_B without following links and
 * compares them; each must still be the object the judge saw (ID_A, ID_B).
 * Returns 1 when identical, 0 when not (or not both regular, or too big),
 * -errno when one cannot be read. */
int same_bytes(int dir_a, const char *name_a, struct policy_id id_a, int dir_b, const char *name_b,
               struct policy_id id_b);
