/* A small tree and a snapshot keyed to its objects, for the tests of
 * --explain's walk, judgement and words, and of the mount's user.oz0fs.why:
 *
 *   .git/                  anchor
 *   .git/hooks/            protected, frozen, anchor
 *   .git/hooks/pre-commit  protected
 *   .git/config            protected, rewritable
 *   .git/commondir         missing, protected name
 *   .vscode                missing, protected name (mkdir may make it)
 *   src/main.c, fifo       plain
 *   lnk -> src             a link
 */
#pragma once

#include "policy/policy.h"

extern int fixture_root;                     /* O_PATH fd of the tree */
extern struct policy_snapshot *fixture_snap; /* its protection */

void explain_fixture_make(void);
void explain_fixture_remove(void);
/* The identity of REST below the tree (not following a link). */
struct policy_id explain_fixture_id(const char *rest);
/* What --explain prints for REL (its walk, judgement and words), malloc'd. */
char *explain_fixture_text(const char *rel);
