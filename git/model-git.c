/* One git directory's protected files, and the tree root's .git: the files
 * of a git directory that make git run or read something (seed 000, "Files
 * protected from writes"). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/discover.h"
#include "git/model-internal.h"

enum { REPO = 1u << MODEL_GITDIR_REPO, LINKED = 1u << MODEL_GITDIR_LINKED };

/* Each reason reads "<what> of the <git directory>: <effect>". */
static const struct git_file {
	const char *name;
	const char *what;
	const char *effect;
	unsigned kinds;  /* the kinds of git directory git reads it in */
	bool rewritable; /* a Git configuration: harmless rewrites pass (fs/replace.h) */
	bool made_empty; /* a folder git init may make, empty, when it is missing */
} git_files[] = {
	{ "hooks", "hooks", "git runs them", REPO, false, false },
	{ "config", "configuration", "it can name programs git runs", REPO, true, false },
	{ "config.worktree", "worktree configuration", "it can name programs git runs", REPO | LINKED, true, false },
	{ "commondir", "commondir", "it would send git to another folder's hooks and configuration", REPO | LINKED,
	  false, false },
	{ "gitdir", "gitdir", "git worktree repair writes a .git file where it points", LINKED, false, false },
	/* Read by git fetch and pull for a remote the configuration lacks; an
	 * ext:: URL there is a command (fs/replace.h's judge of rewrites counts
	 * on these staying as they are). */
	{ "remotes", "legacy remotes folder", "each file names the URL of a remote, an ext:: command among them", REPO,
	  false, true },
	{ "branches", "legacy branches folder", "each file names the URL of a remote git fetches", REPO, false, true },
};

struct gitdir_ctx {
	struct model_build *mb;
	int fd;
	const struct stat *st;
	const char *path;
	const char *what;
	enum model_gitdir_kind kind;
};

/* Git writes commondir only in a linked worktree's folder; elsewhere only a
 * stand-in naming the folder itself (".") redirects nothing. */
static int check_repo_commondir(const struct gitdir_ctx *g, const char *path)
{
	_cleanup_free_ char *pointer = NULL;
	const char *why = NULL;
	size_t len = 0;
	int r = discover_read_pointer(g->fd, "commondir", &pointer, &len, &why);

	if (r >= 0 && len == 1 && pointer[0] == '.')
		return 0;
	return model_fail(g->mb, -EEXIST,
			  "'%s' exists: git writes commondir only in a linked worktree's folder, and this one "
			  "would send git elsewhere; remove it",
			  path);
}

/* A missing one may not appear; a folder git init makes from its template
 * may appear empty, and the rebuild that follows freezes it. */
static int protect_missing_git_file(const struct gitdir_ctx *g, const struct git_file *f, const char *path,
				    const char *reason)
{
	struct policy_id at = model_id(g->st);
	int r;

	if (!f->made_empty)
		return policy_builder_protect_missing(g->mb->b, at, f->name, POLICY_MISSING_NONE, path, reason);
	r = policy_builder_protect_missing(g->mb->b, at, f->name, POLICY_MISSING_MKDIR_OK, path, reason);
	return r < 0 ? r : policy_builder_watch(g->mb->b, at, f->name);
}

static int protect_git_file(const struct gitdir_ctx *g, const struct git_file *f)
{
	_cleanup_free_ char *path = model_path_join(g->path, f->name), *reason = NULL;
	struct stat st;
	int r;

	if (!path || asprintf(&reason, "%s of the %s: %s", f->what, g->what, f->effect) < 0)
		return -ENOMEM;
	r = model_stat(g->mb, g->fd, f->name, g->path, &st);
	if (r == -ENOENT)
		return protect_missing_git_file(g, f, path, reason);
	if (r < 0)
		return r;
	if (g->kind == MODEL_GITDIR_REPO && strcmp(f->name, "commondir") == 0 && S_ISREG(st.st_mode)) {
		r = check_repo_commondir(g, path);
		if (r < 0)
			return r;
	}
	r = model_protect_existing(g->mb, g->fd, f->name, &st, path, reason);
	if (r >= 0 && f->rewritable && S_ISREG(st.st_mode))
		r = policy_builder_protect(g->mb->b, model_id(&st), POLICY_REWRITABLE, path, reason);
	return r;
}

bool model_gitdirs_have(const struct model_gitdirs *set, struct policy_id id)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->ids[i].dev == id.dev && set->ids[i].ino == id.ino)
			return true;
	return false;
}

static int gitdirs_add(struct model_gitdirs *set, struct policy_id id)
{
	struct policy_id *grown = reallocarray(set->ids, set->n + 1, sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	set->ids = grown;
	set->ids[set->n++] = id;
	return 0;
}

int model_note_state(struct model_build *mb, struct policy_id id)
{
	if (mb->known_states && !model_gitdirs_have(mb->known_states, id))
		return 0;
	if (model_gitdirs_have(&mb->states, id))
		return 0;
	return gitdirs_add(&mb->states, id) < 0 ? -ENOMEM : 1;
}

/* Counts ID against the bound: MODEL_GITDIR_NEW, _SEEN, or 0 when it was
 * made during the mount. */
static int note_gitdir(struct model_build *mb, struct policy_id id, const char *path)
{
	if (mb->known && !model_gitdirs_have(mb->known, id))
		return 0;
	if (model_gitdirs_have(&mb->seen, id))
		return MODEL_GITDIR_SEEN;
	if (mb->seen.n >= DISCOVER_MAX_GIT_DIRS)
		return model_fail(mb, -E2BIG,
				  "'%s' is a git directory past the %d that oz0fs reads: remove nested repositories, "
				  "submodules or linked worktrees",
				  path, DISCOVER_MAX_GIT_DIRS);
	return gitdirs_add(&mb->seen, id) < 0 ? -ENOMEM : MODEL_GITDIR_NEW;
}

/* The first build tells the live model where each git directory is. */
static int record_gitdir(struct model_found *found, const char *path, enum model_gitdir_kind kind)
{
	struct model_found_dir *grown;

	if (!found)
		return 0;
	grown = reallocarray(found->dirs, found->n_dirs + 1, sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	found->dirs = grown;
	grown[found->n_dirs].path = strdup(path);
	grown[found->n_dirs].kind = kind;
	if (!grown[found->n_dirs].path)
		return -ENOMEM;
	found->n_dirs++;
	return 0;
}

int model_protect_gitdir(struct model_build *mb, int fd, const struct stat *st, const char *path,
			 enum model_gitdir_kind kind, const char *what)
{
	const struct gitdir_ctx g = { .mb = mb, .fd = fd, .st = st, .path = path, .what = what, .kind = kind };
	_cleanup_free_ char *reason = NULL;
	int r = note_gitdir(mb, model_id(st), path);

	if (r != MODEL_GITDIR_NEW)
		return r;
	if (asprintf(&reason, "the %s: its hooks and configuration make git run programs", what) < 0)
		return -ENOMEM;
	r = record_gitdir(mb->found, path, kind);
	if (r >= 0)
		r = policy_builder_protect(mb->b, model_id(st), POLICY_ANCHOR, path, reason);
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(git_files); i++)
		if (git_files[i].kinds & (1u << kind))
			r = protect_git_file(&g, &git_files[i]);
	return r < 0 ? r : MODEL_GITDIR_NEW;
}

/* The root's .git folder and what lies below it. */
static int protect_root_gitdir(struct model_build *mb)
{
	_cleanup_close_ int gitfd = -1;
	struct stat st;
	int r;

	gitfd = model_open_dir(mb, mb->rootfd, ".git", ".git", &st);
	if (gitfd < 0)
		return gitfd;
	r = model_protect_gitdir(mb, gitfd, &st, ".git", MODEL_GITDIR_REPO, "git directory .git");
	if (r != MODEL_GITDIR_NEW)
		return r < 0 ? r : 0;
	r = model_protect_worktrees(mb, gitfd, ".git");
	if (r >= 0)
		r = model_protect_modules(mb, gitfd, ".git");
	if (r >= 0)
		r = model_protect_served(mb, &(struct model_served){ .gitdir = (char *)".git", .worktree = "" }, 0);
	return r;
}

static int protect_root_gitfile(struct model_build *mb, const struct stat *st)
{
	_cleanup_(model_served_done) struct model_served named = { 0 };
	int r = policy_builder_protect(mb->b, model_id(st), POLICY_CONTENT | POLICY_ANCHOR, ".git",
				       "the .git file: it names the git directory whose hooks and configuration git "
				       "runs");

	if (r >= 0)
		r = model_follow_gitfile(mb, mb->rootfd, "", ".git", &named);
	if (r < 0 || !named.gitdir)
		return r;
	named.worktree = "";
	return model_protect_served(mb, &named, 0);
}

int model_protect_git(struct model_build *mb)
{
	struct stat st;
	int r = model_stat(mb, mb->rootfd, ".git", "", &st);

	/* No repository: nothing Git-wise. A git init during the mount is the
	 * settler's to look at, and protecting .git/hooks the moment .git is
	 * made would break the init itself. */
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (S_ISDIR(st.st_mode))
		return protect_root_gitdir(mb);
	if (!S_ISREG(st.st_mode))
		return model_refuse_type(mb, &st, ".git");
	return protect_root_gitfile(mb, &st);
}
