/* Where oz0fs --write puts a file: PATH walked below the tree by
 * descriptors, following no link (common/explain-resolve.h: each folder
 * opened O_PATH|O_NOFOLLOW from its parent, '..' never above the tree),
 * the target's folder held open, so that nothing swapped in on the way
 * after the walk can lead the write elsewhere. */
#pragma once

#include <stdbool.h>

#include "policy/policy.h"
#include "common/explain-resolve.h"
#include "tools/write-refusal.h"

struct write_place {
	struct explain_target t; /* the walk: the folders from the tree down, the target's name */
	int dirfd;               /* the target's folder (O_PATH), owned by T */
	struct policy_id parent; /* its identity as the walk found it */
	bool exists;             /* the target is a regular file (else it is missing) */
};

/* Walks REL (tree-relative) below ROOTFD. Returns 0 when it names a regular
 * file or a missing name in a folder that exists; 1 with NO filled when
 * not (WRITE_RULE_OUTSIDE, _WALK, _LINK, _NOT_FILE); or -ENOMEM. P is to be
 * freed either way. */
int write_walk(int rootfd, const char *rel, struct write_place *p, struct write_refusal *no);
void write_place_free(struct write_place *p);
