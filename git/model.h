/* The model of the tree's Git metadata that names what to protect and why.
 *
 * At start it finds every git directory in the tree (git/discover.h): the
 * root's .git (a folder, or a file and the git directory it names in the
 * tree, with the common directory of a linked worktree's folder), linked
 * worktrees' folders, submodules' git directories below .git/modules
 * (nested; past 32 or 8 levels the part is read-only as a whole), the
 * submodules every index records (a checkout's own .git folder, or its .git
 * file and what it names), and nested repositories (one bounded walk of the
 * tree); at most 256. It protects each git directory's hooks (frozen, with
 * everything in it), config, config.worktree and commondir (missing names
 * when absent; a linked worktree's folder: commondir, gitdir and
 * config.worktree), what each work tree's configuration names in the tree
 * (includes, core.hooksPath, init.templateDir, attributes, the programs of
 * every key that runs one), an unfinished rebase's state and its exec steps'
 * programs; at the root, .claude, .codex, .cursor, .vscode/tasks.json and
 * .envrc (minus [unprotect], plus [protect]); and every directory on the way
 * as an anchor. It reads the tree only through the tree's fd, never
 * following a link; what it cannot read whole refuses.
 *
 * The fs tells it of changes to watched entries (git_model_changed), and it
 * publishes a new snapshot before the operation's reply, so the next decision
 * sees it. A rebuild protects what was there at start (git directories,
 * rebases, submodule checkouts): one made during the mount is the agent's,
 * left to the settler, and tracked meanwhile (git_model_follows and
 * git_model_note; git/model-live.h): new git directories, .git files,
 * submodules and dangerous changes in them are written to the audit log as
 * they happen.
 */
#pragma once

#include "policy/conf.h"
#include "policy/policy.h"

struct audit;
struct git_model;

/* Builds the first snapshot. ROOTFD is the tree (kept, not closed); SEEN_AS,
 * when not NULL, the absolute path it is mounted at, which the pointers git
 * writes on the mount name. On error returns -errno and a malloc'd one-line
 * reason in *errmsg (the mount must refuse to start with it). */
int git_model_new(int rootfd, const char *seen_as, const struct policy_config *cfg, struct git_model **out,
                  char **errmsg);
void git_model_free(struct git_model *m);

struct policy_holder *git_model_holder(struct git_model *m);
/* Whether [deny] names anything: reads are then judged too. */
bool git_model_denies(const struct git_model *m);

/* A rename would replace a POLICY_REWRITABLE file (a Git configuration)
 * holding OLD with NEW. Returns 1 when the change is harmless (it runs and
 * redirects nothing), 0 when not (*why names the reason, valid until the next
 * call in this thread), or -errno when it cannot be judged. */
int git_model_may_rewrite(struct git_model *m, const char *old, size_t oldlen, const char *new, size_t newlen,
			  const char **why);

/* The entry NAME of PARENT was created, removed or replaced by an operation
 * that succeeded and that policy_watched() flagged. Rebuilds what it touches
 * and publishes before returning; on error keeps the last good snapshot. */
void git_model_changed(struct git_model *m, struct policy_id parent, const char *name);

/* Where the live part writes its events (NULL: stderr). */
void git_model_set_audit(struct git_model *m, struct audit *a);
/* Whether an entry NAME made, replaced or removed in PARENT concerns what the
 * mount made (cheap; thread-safe). */
bool git_model_follows(struct git_model *m, struct policy_id parent, const char *name);
/* It did, in the folder PARENTFD: reads what that touches, writes events. */
void git_model_note(struct git_model *m, int parentfd, struct policy_id parent, const char *name);
/* The object ID was removed (its id may come back for another). */
void git_model_forget(struct git_model *m, struct policy_id id);
/* The object OBJ (a folder when IS_DIR) was renamed from OLDNAME in the
 * folder OLDPARENTFD to NEWNAME in NEWPARENTFD: what the mount made there is
 * known by its new path. */
void git_model_renamed(struct git_model *m, int oldparentfd, const char *oldname, int newparentfd,
                       const char *newname, struct policy_id obj, bool is_dir);
/* Whether closing a descriptor that wrote the file ID concerns the model (a
 * .git file made empty), and the note that one was closed. */
bool git_model_follows_file(struct git_model *m, struct policy_id id);
void git_model_note_written(struct git_model *m, struct policy_id id);
