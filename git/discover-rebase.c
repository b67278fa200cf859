/* An unfinished rebase, am or sequence of picks that was there at start is
 * the person's (seed 000, "Protect an existing rebase"): its state folders
 * are read-only with all they hold, and each program its exec steps run from
 * the work tree is held. One the agent starts during the mount is its own:
 * git must be free to write and remove it. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "git/model-internal.h"
#include "git/read.h"

static const struct state_folder {
	const char *name;
	const char *todo; /* its list of steps, or NULL */
	const char *what;
} state_folders[] = {
        {"rebase-merge", "git-rebase-todo", "a rebase"},
        {"rebase-apply", NULL, "a rebase or am"},
        {"sequencer", "todo", "a sequence of picks"},
};

/* The command of an exec step ("exec <cmd>" or "x <cmd>"), or NULL. */
static const char *exec_command(char *line)
{
	size_t n;

	line += strspn(line, " \t");
	n = strcspn(line, " \t");
	if (!((n == 4 && memcmp(line, "exec", 4) == 0) || (n == 1 && line[0] == 'x')))
		return NULL;
	return line + n + strspn(line + n, " \t");
}

static int hold_exec_steps(struct model_build *mb, const struct model_served *s, int statefd, const char *todo,
                           const char *todo_path)
{
	_cleanup_free_ char *source = NULL;
	struct git_blob b = {0};
	char *line, *next;
	int r = gitread_file(statefd, todo, GITREAD_SMALL_MAX, &b);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return model_fail(mb, r, "cannot read '%s': %s", todo_path, strerror(-r));
	if (asprintf(&source, "an exec step of %s", todo_path) < 0) {
		git_blob_free(&b);
		return -ENOMEM;
	}
	for (line = b.data; r >= 0 && line; line = next) {
		const char *cmd;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		cmd = exec_command(line);
		if (cmd && *cmd)
			r = model_hold_command(mb, s, source, cmd);
	}
	git_blob_free(&b);
	return r;
}

static int protect_state(struct model_build *mb, const struct model_served *s, int gitfd, const struct state_folder *f)
{
	_cleanup_free_ char *path = model_path_join(s->gitdir, f->name), *reason = NULL, *todo = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r = model_stat(mb, gitfd, f->name, s->gitdir, &st);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (S_ISLNK(st.st_mode))
		return model_refuse_type(mb, &st, path);
	if (!S_ISDIR(st.st_mode)) /* git looks for a folder */
		return 0;
	r = model_note_state(mb, model_id(&st));
	if (r <= 0)
		return r;
	if (!path || asprintf(&reason,
	                      "the state of %s the person left unfinished: continuing or changing it "
	                      "is theirs",
	                      f->what) < 0)
		return -ENOMEM;
	r = model_protect_existing(mb, gitfd, f->name, &st, path, reason);
	if (r < 0 || !f->todo)
		return r;
	fd = model_open_dir(mb, gitfd, f->name, path, &st);
	if (fd < 0)
		return fd;
	todo = model_path_join(path, f->todo);
	return todo ? hold_exec_steps(mb, s, fd, f->todo, todo) : -ENOMEM;
}

int model_protect_rebase(struct model_build *mb, const struct model_served *s)
{
	_cleanup_close_ int gitfd = -1;
	struct stat st;
	int r = 0;

	gitfd = model_open_anchored(mb, s->gitdir, "on the way to a git directory", &st);
	if (gitfd < 0)
		return gitfd == -ENOENT ? 0 : gitfd;
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(state_folders); i++)
		r = protect_state(mb, s, gitfd, &state_folders[i]);
	return r;
}
