/* The tree root's .git, as this first, static model sees it: the four files
 * of a .git directory that make git run or read something, or a .git file.
 * What a .git file names, submodules and linked worktrees are the live
 * model's (next issue). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/model-internal.h"

static const struct git_file {
	const char *name;
	const char *reason;
	bool refuse_present; /* git makes it only in a linked worktree's folder */
	bool rewritable;     /* a Git configuration: harmless rewrites pass (fs/replace.h) */
} git_files[] = {
	{ "hooks", "hooks of the git directory .git: git runs them", false, false },
	{ "config", "configuration of the git directory .git: it can name programs git runs", false, true },
	{ "config.worktree", "worktree configuration of the git directory .git: it can name programs git runs",
	  false, true },
	{ "commondir",
	  "commondir of the git directory .git: it would send git to another folder's hooks and configuration",
	  true, false },
};

static int protect_git_file(struct model_build *mb, int gitfd, const struct git_file *f)
{
	_cleanup_free_ char *path = model_path_join(".git", f->name);
	struct stat st, git;
	int r;

	if (!path)
		return -ENOMEM;
	r = model_stat(mb, gitfd, f->name, ".git", &st);
	if (r == -ENOENT) {
		if (fstat(gitfd, &git) < 0)
			return negative_errno();
		return policy_builder_protect_missing(mb->b, model_id(&git), f->name, POLICY_MISSING_NONE, path,
						      f->reason);
	}
	if (r < 0)
		return r;
	if (f->refuse_present)
		return model_fail(mb, -EEXIST,
				  "'%s' exists: git writes commondir only in a linked worktree's folder, and this one "
				  "would send git elsewhere; remove it",
				  path);
	r = model_protect_existing(mb, gitfd, f->name, &st, path, f->reason);
	if (r >= 0 && f->rewritable && S_ISREG(st.st_mode))
		r = policy_builder_protect(mb->b, model_id(&st), POLICY_REWRITABLE, path, f->reason);
	return r;
}

static int protect_git_directory(struct model_build *mb)
{
	_cleanup_close_ int gitfd = -1;
	struct stat st;
	int r;

	gitfd = model_open_dir(mb, mb->rootfd, ".git", ".git", &st);
	if (gitfd < 0)
		return gitfd;
	r = policy_builder_protect(mb->b, model_id(&st), POLICY_ANCHOR, ".git",
				   "the git directory .git: its hooks and configuration make git run programs");
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(git_files); i++)
		r = protect_git_file(mb, gitfd, &git_files[i]);
	return r;
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
		return protect_git_directory(mb);
	if (S_ISREG(st.st_mode))
		return policy_builder_protect(mb->b, model_id(&st), POLICY_CONTENT | POLICY_ANCHOR, ".git",
					      "the .git file: it names the git directory whose hooks and configuration "
					      "git runs");
	return model_refuse_type(mb, &st, ".git");
}
