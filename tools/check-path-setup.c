#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/physical-path.h"
#include "tools/check-path-setup.h"

/* The homes the roots are placed in: the harness's HOME, and the user's
 * own from the user database (seed 000: the session's home and the node
 * user's), each once. */
static size_t find_homes(char **homes)
{
	const char *env = getenv("HOME");
	struct passwd *pw = getpwuid(getuid());
	size_t n = 0;

	if (env && env[0] == '/')
		homes[n++] = strdup(env);
	if (pw && pw->pw_dir && pw->pw_dir[0] == '/' && !(n && strcmp(homes[0], pw->pw_dir) == 0))
		homes[n++] = strdup(pw->pw_dir);
	return n;
}

/* The tree's spellings: plain, and real when that differs. */
static size_t tree_forms(const char *tree, const char *home, const char *cwd, char **forms)
{
	_cleanup_free_ char *abs = NULL;
	size_t n = 0;

	if (!tree || path_absolute(tree, home, cwd, &abs) < 0 || lexical_path(abs, &forms[0]) < 0)
		return 0;
	n = 1;
	forms[1] = realpath(forms[0], NULL);
	if (forms[1] && strcmp(forms[1], forms[0]) != 0)
		n = 2;
	else {
		free(forms[1]);
		forms[1] = NULL;
	}
	return n;
}

/* The configuration, refused inside the tree (TREE, else the current
 * folder) as the mount refuses it: there the agent could drop its [deny]. */
static int load_config(const char *file, const char *tree, struct policy_config **cfg, char **err)
{
	_cleanup_close_ int fd = open(tree ? tree : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return policy_config_load(file, cfg, err);
	return policy_config_load_outside(file, fd, cfg, err);
}

/* The tree's model, or why there is none in S->model_error. */
static int open_model(struct path_setup *s, const char *config)
{
	int k;

	if (!s->n_tree) {
		s->model_error = strdup("the tree's folder is unknown");
		return s->model_error ? 0 : -ENOMEM;
	}
	k = tree_model_open(s->tree[0], config, &s->tm, &s->model_error);
	s->have_model = k >= 0;
	if (k == -ENOMEM)
		return k;
	if (k < 0 && !s->model_error && asprintf(&s->model_error, "%s", strerror(-k)) < 0) {
		s->model_error = NULL;
		return -ENOMEM;
	}
	return 0;
}

int path_setup_prepare(struct path_setup *s, const char *tree, const char *config, bool write, struct path_check *c,
                       char **errmsg)
{
	int k;

	*s = (struct path_setup){0};
	*c = (struct path_check){0};
	*errmsg = NULL;
	if (!config && access(POLICY_CONFIG_DEFAULT_FILE, F_OK) == 0)
		config = POLICY_CONFIG_DEFAULT_FILE;
	k = load_config(config, tree, &s->cfg, errmsg);
	if (k < 0)
		return k;
	s->n_homes = find_homes(s->homes);
	for (size_t i = 0; i < s->n_homes; i++)
		if (!s->homes[i])
			return -ENOMEM;
	s->cwd = getcwd(NULL, 0);
	c->home = s->n_homes ? s->homes[0] : NULL;
	c->cwd = s->cwd;
	s->n_tree = tree_forms(tree ? tree : s->cwd, c->home, s->cwd, s->tree);
	if (s->n_homes && denied_roots_place(s->cfg, s->homes, s->n_homes, s->tree, s->n_tree, &s->roots) < 0)
		return -ENOMEM;
	c->no_roots = s->n_homes ? NULL : "no home to place the denied roots in (HOME is unset or not absolute, and the "
	                                  "user database has none)";
	c->roots = &s->roots;
	c->deny_names = s->cfg ? s->cfg->deny_names : NULL;
	c->n_deny_names = s->cfg ? s->cfg->n_deny_names : 0;
	c->tree_forms = s->tree;
	c->n_tree = s->n_tree;
	c->write = write;
	if (write && (k = open_model(s, config)) < 0)
		return k;
	c->tm = s->have_model ? &s->tm : NULL;
	c->model_error = s->model_error;
	return 0;
}

void path_setup_free(struct path_setup *s)
{
	if (s->have_model)
		tree_model_close(&s->tm);
	denied_roots_free(&s->roots);
	free(s->model_error);
	free(s->homes[0]);
	free(s->homes[1]);
	free(s->tree[0]);
	free(s->tree[1]);
	free(s->cwd);
	policy_config_free(s->cfg);
	*s = (struct path_setup){0};
}
