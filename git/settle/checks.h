/* The settler's checks, one file each, in the order settle_tree() runs
 * them (settle.c). Internal to git/settle/. Each returns 0 or -ENOMEM; what
 * it cannot settle it says with act_failed() and goes on. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "git/settle/act.h"

/* Whether the git directory I of the tree now was made by the run: not
 * there before, or there anew (another folder under its name). */
bool checks_is_new(const struct settle_ctx *c, size_t i);

/* The git directory I of BEFORE at the same place, or NULL when I is new. */
const struct settle_gitdir *checks_before(const struct settle_ctx *c, size_t i);

/* Why a Git file that gitread_file() refused with R cannot be read, in
 * words ("a link", "not a regular file"). */
const char *checks_unreadable(int r);

/* Marks the git directory PATH and every one below it gone. */
void checks_mark_gone(struct settle_ctx *c, const char *path);

/* bounds.c: more than 64 git directories added below one modules folder,
 * and more than the 256 a sandbox reads (seed 000, "Bounds on new Git
 * directories"). */
int checks_bounds(struct settle_ctx *c);

/* fresh.c: the checks of a git directory the run made (or made a
 * submodule). */
int checks_fresh(struct settle_ctx *c, size_t i);

/* copies.c: in the new linked worktree LINKED of the repository whose
 * common directory COMMON was there before, copies of what its
 * configuration runs that differ from its own worktree's. */
int checks_copies(struct settle_ctx *c, size_t linked, size_t common);

/* dotgit.c: the .git entries of the work tree (seed 000, "Submodules,
 * worktrees and unfinished rebases"). */
int checks_dotgits(struct settle_ctx *c);

/* todo.c: exec steps of unfinished rebases and sequences, in every git
 * directory. */
int checks_todos(struct settle_ctx *c);
