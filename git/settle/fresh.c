/* A git directory the run made, or one it made a submodule (seed 000,
 * "Repositories created during a session"): its hooks beyond git's samples
 * and a config that chooses a hooks folder, an include or a program are
 * moved aside; commondir and config.worktree are removed. A linked
 * worktree's new folder is the common directory's: one whose commondir
 * names another is moved aside whole, and its config.worktree is judged as
 * a config. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/safe-open.h"
#include "git/config-parse.h"
#include "git/discover.h"
#include "git/model-internal.h"
#include "git/read.h"
#include "git/settle/act.h"
#include "git/settle/checks.h"

/* The hooks git's template installs, none of which git runs. */
static const char *const git_samples[] = {
        "applypatch-msg.sample", "commit-msg.sample",   "fsmonitor-watchman.sample", "post-update.sample",
        "pre-applypatch.sample", "pre-commit.sample",   "pre-merge-commit.sample",   "pre-push.sample",
        "pre-rebase.sample",     "pre-receive.sample",  "prepare-commit-msg.sample", "push-to-checkout.sample",
        "sendemail-validate.sample", "update.sample",
};

static bool is_sample(const char *name)
{
	for (size_t i = 0; i < sizeof(git_samples) / sizeof(*git_samples); i++)
		if (strcmp(name, git_samples[i]) == 0)
			return true;
	return false;
}

/* Whether the hooks folder in GITFD holds only git's samples (or nothing,
 * or is missing). A link or a file in its place does not. */
static bool only_samples(int gitfd)
{
	struct stat st;

	if (fstatat(gitfd, "hooks", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT;
	if (!S_ISDIR(st.st_mode))
		return false;
	_cleanup_close_ int fd = openat(gitfd, "hooks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_(settle_names_done) struct settle_names names = {0};
	if (fd < 0)
		return false;
	/* A listing is what the scan took; this one is of the folder now. */
	if (settle_list_names(fd, &names) < 0)
		return false;
	for (size_t i = 0; i < names.n; i++)
		if (!is_sample(names.v[i]) || fstatat(fd, names.v[i], &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			return false;
	return true;
}

struct chooser {
	char key[128]; /* the first key that chooses something */
};

static int chooses(const struct gitcfg_entry *e, void *userdata)
{
	struct chooser *ch = userdata;
	bool include = strcmp(e->name, "include.path") == 0 ||
	               (strcmp(e->section, "includeif") == 0 && e->subsection && strcmp(e->key, "path") == 0);

	if (!include && !model_config_sets_program(e->name, e->value))
		return 0;
	snprintf(ch->key, sizeof(ch->key), "%s", e->name);
	return -ECANCELED; /* stops the parse: one is enough */
}

/* Why the configuration NAME in GITFD must go aside, or NULL (a missing
 * one, one that chooses nothing). */
static char *config_problem(int gitfd, const char *name)
{
	struct git_blob b = {0};
	struct chooser ch = {{0}};
	char *why = NULL;
	int r = gitread_file(gitfd, name, GITREAD_SMALL_MAX, &b);

	if (r == -ENOENT)
		return NULL;
	if (r < 0)
		r = asprintf(&why, "git reads it, and it cannot be read whole: %s", checks_unreadable(r));
	else if ((r = gitcfg_parse(b.data, b.len, name, chooses, &ch, NULL)) == -ECANCELED)
		r = asprintf(&why, "a configuration the run made sets a hooks folder, an include or a program (%s)",
		             ch.key);
	else if (r < 0)
		r = asprintf(&why, "a configuration the run made that git cannot read as git does");
	git_blob_free(&b);
	return r < 0 ? NULL : why;
}

static int check_config(struct settle_ctx *c, int gitfd, const char *gitpath, const char *name)
{
	_cleanup_free_ char *why = config_problem(gitfd, name);
	_cleanup_free_ char *path = why ? settle_join(gitpath, name) : NULL;

	if (!why)
		return 0;
	return path ? act_move_aside(c, path, why) : -ENOMEM;
}

static int remove_if_there(struct settle_ctx *c, int gitfd, const char *gitpath, const char *name, const char *why)
{
	struct stat st;
	_cleanup_free_ char *path = NULL;

	if (fstatat(gitfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	path = settle_join(gitpath, name);
	return path ? act_remove(c, path, why) : -ENOMEM;
}

static int check_repo(struct settle_ctx *c, int gitfd, const char *path)
{
	_cleanup_free_ char *hooks = settle_join(path, "hooks");
	int r = 0;

	if (!hooks)
		return -ENOMEM;
	if (!only_samples(gitfd))
		r = act_move_aside(c, hooks, "a git directory the run made has hooks beyond git's samples");
	if (r >= 0)
		r = check_config(c, gitfd, path, "config");
	if (r >= 0)
		r = remove_if_there(c, gitfd, path, "commondir",
		                    "a git directory the run made may not send git to another's configuration and hooks");
	if (r >= 0)
		r = remove_if_there(c, gitfd, path, "config.worktree",
		                    "a git directory the run made may not carry a configuration of its worktree");
	return r;
}

/* Whether the linked worktree's folder PATH (open as GITFD) names its own
 * repository's common directory, the folder holding its worktrees/. */
static bool names_own_common(struct settle_ctx *c, int gitfd, const char *path)
{
	_cleanup_free_ char *pointer = NULL, *target = NULL, *common = strdup(path);
	const char *why;
	char *cut = common ? strstr(common, "/worktrees/") : NULL;
	size_t len;

	if (!cut)
		return false;
	*cut = '\0';
	if (discover_read_pointer(gitfd, "commondir", &pointer, &len, &why) < 0)
		return false;
	return discover_resolve(c->now.st.dir, c->now.seen_as, path, pointer, len, &target, &why) == 1 &&
	       strcmp(target, common) == 0;
}

static int check_linked(struct settle_ctx *c, size_t i, int gitfd, const char *path)
{
	if (!names_own_common(c, gitfd, path)) {
		c->gone[i] = true;
		return act_move_aside(c, path,
		                      "a new linked worktree's folder whose commondir does not name its repository's own");
	}
	return check_config(c, gitfd, path, "config.worktree");
}

int checks_fresh(struct settle_ctx *c, size_t i)
{
	const struct settle_gitdir *g = &c->now.st.gitdirs[i];
	_cleanup_close_ int gitfd = safe_openat(c->rootfd, *g->path ? g->path : ".", O_PATH | O_DIRECTORY, 0);

	if (gitfd < 0) {
		act_failed(c, g->path, "a git directory the run made cannot be opened");
		return 0;
	}
	if (g->kind == SETTLE_GITDIR_LINKED)
		return check_linked(c, i, gitfd, g->path);
	return check_repo(c, gitfd, g->path);
}
