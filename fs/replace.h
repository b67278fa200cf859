/* What a rename onto a protected file may do instead of replacing it.
 *
 * Git rewrites its configuration through config.lock and a rename, both when
 * nothing changes (git branch -D, git submodule update) and when porcelain
 * records something harmless (git submodule add, git remote add). The
 * protected inode must survive either way: an agent may still hold the
 * source open for writing, so the source's inode never takes the target's
 * place. Instead:
 *  - identical bytes: nothing is written; the caller removes the source name;
 *  - a file the model judges rewrites of (POLICY_REWRITABLE) whose new bytes
 *    it finds harmless: the bytes read once from the source, and judged, are
 *    written into the protected inode itself; the caller removes the source.
 */
#pragma once

#include <stdbool.h>

#include "git/model.h"
#include "policy/policy.h"

/* Files above this size count as different: the comparison stays bounded. */
#define REPLACE_COMPARE_MAX (16u << 20)

enum replace_outcome {
	REPLACE_REFUSED,   /* neither identical nor a harmless rewrite */
	REPLACE_KEPT,      /* identical: the target is untouched */
	REPLACE_REWRITTEN, /* the target's bytes are now the source's */
};

/* FROM (the source) and TO (the protected target) are entries of the
 * directories FROM_DIR and TO_DIR that the judge saw as FROM_ID and TO_ID;
 * either having changed since is -ESTALE. MODEL judges rewrites when
 * REWRITABLE. On REPLACE_REFUSED, *why may name the reason (valid until the
 * next call in this thread), else it is NULL. Returns an outcome or -errno. */
int replace_protected(struct git_model *model, bool rewritable, int from_dir, const char *from,
		      struct policy_id from_id, int to_dir, const char *to, struct policy_id to_id, const char **why);
