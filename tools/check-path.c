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
#include "tools/check-path-judge.h"
#include "tools/check-path-report.h"
#include "tools/check-path.h"
#include "tools/tool-args.h"

static const char usage_text[] =
        "usage: oz0fs --check-path [--read|--write] [--json] [--config FILE] [--tree DIR] -- PATH...\n"
        "Says whether a harness may read or write (the default) each PATH: refused under ~/.ssh, ~/.gnupg,\n"
        "~/.config/solana, ~/.oms, a home's credential paths and [deny] roots, through '..', '~' and links;\n"
        "a write also where a mount on DIR (default: the current folder) would refuse it.\n";

struct options {
	bool json, read, write;
	const char *config, *tree;
	char **paths;
	int n_paths;
};

static int usage_error(const char *what)
{
	fprintf(stderr, "oz0fs --check-path: %s\n%s", what, usage_text);
	return TOOL_EXIT_USAGE;
}

/* Returns -1 when parsed, else the exit status (0 after --help). */
static int parse_options(int argc, char **argv, struct options *o)
{
	int i = 1;

	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		bool value = i + 1 < argc;

		if (strcmp(argv[i], "--json") == 0)
			o->json = true;
		else if (strcmp(argv[i], "--read") == 0)
			o->read = true;
		else if (strcmp(argv[i], "--write") == 0)
			o->write = true;
		else if (strcmp(argv[i], "--config") == 0 && value)
			o->config = argv[++i];
		else if (strcmp(argv[i], "--tree") == 0 && value)
			o->tree = argv[++i];
		else if (strcmp(argv[i], "--help") == 0) {
			fputs(usage_text, stdout);
			return 0;
		} else
			return usage_error("unknown option or missing value (paths come after '--')");
	}
	if (o->read && o->write)
		return usage_error("--read and --write: ask one at a time");
	if (o->config && !*o->config)
		return usage_error(TOOL_ARGS_EMPTY_CONFIG);
	if (o->tree && !*o->tree)
		return usage_error("--tree '': an empty folder name");
	if (i + 1 >= argc)
		return usage_error("expected '--' and at least one PATH");
	o->paths = argv + i + 1;
	o->n_paths = argc - i - 1;
	return -1;
}

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

struct run {
	struct options o;
	struct policy_config *cfg;
	char *homes[2], *cwd, *tree[2], *model_error;
	size_t n_homes, n_tree;
	struct denied_roots roots;
	struct tree_model tm;
	bool have_model;
	struct path_verdict *verdicts;
};

static void run_free(struct run *r)
{
	for (int i = 0; r->verdicts && i < r->o.n_paths; i++)
		path_verdict_clear(&r->verdicts[i]);
	free(r->verdicts);
	if (r->have_model)
		tree_model_close(&r->tm);
	denied_roots_free(&r->roots);
	free(r->model_error);
	free(r->homes[0]);
	free(r->homes[1]);
	free(r->tree[0]);
	free(r->tree[1]);
	free(r->cwd);
	policy_config_free(r->cfg);
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

/* Everything the paths are judged against. Returns 0, -ENOMEM, or
 * TOOL_EXIT_USAGE after saying why the configuration cannot be read. */
static int prepare(struct run *r, struct path_check *c)
{
	_cleanup_free_ char *err = NULL;
	const char *config = r->o.config;
	int k;

	if (!config && access(POLICY_CONFIG_DEFAULT_FILE, F_OK) == 0)
		config = POLICY_CONFIG_DEFAULT_FILE;
	k = load_config(config, r->o.tree, &r->cfg, &err);
	if (k < 0 && k != -ENOMEM) {
		fprintf(stderr, "oz0fs --check-path: %s\n", err ? err : strerror(-k));
		return TOOL_EXIT_USAGE;
	}
	if (k < 0)
		return k;
	r->n_homes = find_homes(r->homes);
	for (size_t i = 0; i < r->n_homes; i++)
		if (!r->homes[i])
			return -ENOMEM;
	r->cwd = getcwd(NULL, 0);
	c->home = r->n_homes ? r->homes[0] : NULL;
	c->cwd = r->cwd;
	r->n_tree = tree_forms(r->o.tree ? r->o.tree : r->cwd, c->home, r->cwd, r->tree);
	if (r->n_homes && denied_roots_place(r->cfg, r->homes, r->n_homes, r->tree, r->n_tree, &r->roots) < 0)
		return -ENOMEM;
	c->no_roots = r->n_homes ? NULL : "no home to place the denied roots in (HOME is unset or not absolute, and the "
	                                  "user database has none)";
	c->roots = &r->roots;
	c->deny_names = r->cfg ? r->cfg->deny_names : NULL;
	c->n_deny_names = r->cfg ? r->cfg->n_deny_names : 0;
	c->tree_forms = r->tree;
	c->n_tree = r->n_tree;
	c->write = !r->o.read;
	if (c->write && r->n_tree) {
		k = tree_model_open(r->tree[0], config, &r->tm, &r->model_error);
		r->have_model = k >= 0;
		if (k == -ENOMEM)
			return k;
		if (k < 0 && !r->model_error && asprintf(&r->model_error, "%s", strerror(-k)) < 0)
			return -ENOMEM;
	} else if (c->write) {
		r->model_error = strdup("the tree's folder is unknown");
		if (!r->model_error)
			return -ENOMEM;
	}
	c->tm = r->have_model ? &r->tm : NULL;
	c->model_error = r->model_error;
	return 0;
}

static int judge_all(struct run *r, const struct path_check *c)
{
	int refused = 0;

	r->verdicts = calloc((size_t)r->o.n_paths, sizeof(*r->verdicts));
	if (!r->verdicts)
		return -ENOMEM;
	for (int i = 0; i < r->o.n_paths; i++) {
		if (path_check(c, r->o.paths[i], &r->verdicts[i]) < 0)
			return -ENOMEM;
		refused |= r->verdicts[i].rule != NULL;
	}
	if (r->o.json)
		path_report_json(r->verdicts, (size_t)r->o.n_paths, c->write, r->n_tree ? r->tree[0] : NULL);
	else
		path_report_text(r->verdicts, (size_t)r->o.n_paths);
	return refused;
}

int path_check_main(int argc, char **argv)
{
	struct run r = {0};
	struct path_check c = {0};
	int k = parse_options(argc, argv, &r.o);

	if (k >= 0)
		return k;
	k = prepare(&r, &c);
	if (k == 0)
		k = judge_all(&r, &c);
	run_free(&r);
	if (k == -ENOMEM) {
		fputs("oz0fs --check-path: out of memory: every path refused\n", stderr);
		return 1;
	}
	return k;
}
