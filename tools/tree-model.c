#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/tree-model.h"

/* The reason for a failure that left no message of its own. */
static int fail(int error, char **errmsg, const char *what, const char *dir)
{
	if (asprintf(errmsg, "%s '%s': %s", what, dir, strerror(-error)) < 0)
		*errmsg = NULL;
	return error;
}

int tree_model_open(const char *dir, const char *config_file, struct tree_model *tm, char **errmsg)
{
	int r;

	*tm = (struct tree_model){.rootfd = -1};
	*errmsg = NULL;
	if (!config_file && access(POLICY_CONFIG_DEFAULT_FILE, F_OK) == 0)
		config_file = POLICY_CONFIG_DEFAULT_FILE;
	tm->rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tm->rootfd < 0)
		return fail(negative_errno(), errmsg, "cannot open", dir);
	/* as the mount loads it: a configuration in the tree is the agent's */
	r = policy_config_load_outside(config_file, tm->rootfd, &tm->cfg, errmsg);
	if (r < 0) {
		tree_model_close(tm);
		return r;
	}
	r = git_model_new(tm->rootfd, NULL, tm->cfg, &tm->model, errmsg);
	if (r < 0) {
		if (!*errmsg)
			fail(r, errmsg, "cannot build the protection model of", dir);
		tree_model_close(tm);
		return r;
	}
	tm->snap = policy_holder_acquire(git_model_holder(tm->model));
	return 0;
}

void tree_model_close(struct tree_model *tm)
{
	if (tm->snap)
		policy_snapshot_release(tm->snap);
	git_model_free(tm->model);
	policy_config_free(tm->cfg);
	if (tm->rootfd >= 0)
		close(tm->rootfd);
	*tm = (struct tree_model){.rootfd = -1};
}
