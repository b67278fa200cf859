/* The static model: which paths to protect and why, built into a snapshot
 * from the tree's fd, and rebuilt whole when a watched entry changes. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "git/config-change.h"
#include "git/model-internal.h"
#include "git/model-live.h"
#include "git/model.h"

/* The editor and agent paths, with what each would run; same order as
 * policy_default_tool_paths. */
static const struct {
	const char *path;
	const char *reason;
} tool_paths[] = {
	{ ".claude", "Claude Code settings can run commands" },
	{ ".codex", "Codex settings can run commands" },
	{ ".cursor", "Cursor settings can run commands" },
	{ ".vscode/tasks.json", "VS Code runs the tasks it lists" },
	{ ".envrc", "direnv runs it when a shell enters the folder" },
};

struct model_target {
	char *path;
	char *reason;
};

struct git_model {
	int rootfd;                    /* the caller's, immutable */
	char *tree;                    /* its absolute path, immutable */
	char *seen_as;                 /* where it is mounted, or NULL; immutable */
	char *home;                    /* $HOME's real path at start, or NULL; immutable */
	struct model_gitdirs known;    /* the git directories found at start, immutable */
	struct model_gitdirs known_states; /* unfinished rebases' state folders then, immutable */
	struct model_checkouts known_checkouts; /* submodule checkouts then, immutable */
	struct model_target *targets;  /* immutable after git_model_new */
	size_t n_targets;
	struct model_deny deny;        /* filled by the first build, immutable after */
	struct policy_holder *holder;  /* thread-safe itself */
	struct model_live *live;       /* what the mount makes; thread-safe itself */
	pthread_mutex_t rebuild_lock;  /* one rebuild+publish at a time, so an older build never wins */
};

static int add_target(struct git_model *m, const char *path, const char *reason)
{
	struct model_target *grown = reallocarray(m->targets, m->n_targets + 1, sizeof(*m->targets));
	struct model_target *t;

	if (!grown)
		return -ENOMEM;
	m->targets = grown;
	t = &m->targets[m->n_targets];
	t->path = strdup(path);
	t->reason = strdup(reason);
	if (!t->path || !t->reason) {
		free(t->path);
		free(t->reason);
		return -ENOMEM;
	}
	m->n_targets++;
	return 0;
}

/* The defaults minus [unprotect], plus [protect]; copied, so the config
 * need not outlive the model. */
static int collect_targets(struct git_model *m, const struct policy_config *cfg)
{
	_cleanup_free_ char *protect_reason = NULL;
	int r;

	for (size_t i = 0; i < ELEMENTSOF(tool_paths); i++) {
		if (policy_config_unprotected(cfg, tool_paths[i].path))
			continue;
		r = add_target(m, tool_paths[i].path, tool_paths[i].reason);
		if (r < 0)
			return r;
	}
	if (!cfg || cfg->n_protect == 0)
		return 0;
	if (asprintf(&protect_reason, "named in [protect] of %s", cfg->file ? cfg->file : "the configuration") < 0)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->n_protect; i++) {
		r = add_target(m, cfg->protect[i], protect_reason);
		if (r < 0)
			return r;
	}
	return 0;
}

static int build_all(const struct git_model *m, struct model_build *mb)
{
	int r = model_protect_git(mb);

	/* The tree is walked once, at start; later builds revisit what it found. */
	if (r >= 0 && mb->known)
		r = model_protect_known_checkouts(mb, &m->known_checkouts);
	else if (r >= 0)
		r = model_protect_nested(mb);

	for (size_t i = 0; r >= 0 && i < m->n_targets; i++)
		r = model_protect_path(mb, m->targets[i].path, m->targets[i].reason);
	return r >= 0 ? model_deny_publish(mb->deny, mb->b) : r;
}

static int start_live(struct git_model *m, struct model_found *found)
{
	const struct model_live_start start = {
		.rootfd = m->rootfd,
		.tree = m->tree,
		.seen_as = m->seen_as,
		.home = m->home,
		.known = &m->known,
		.found = found,
	};

	return model_live_new(&start, &m->live);
}

/* A whole snapshot from the tree as it is now, or -errno and a reason. The
 * first build (FOUND not NULL) records the git directories and rebase states
 * it found, and where, in FOUND; later ones protect only those. */
static int model_build(struct git_model *m, struct policy_snapshot **out, char **errmsg, struct model_found *found)
{
	bool first = found != NULL;
	struct model_build mb = {
		.b = policy_builder_new(),
		.rootfd = m->rootfd,
		.tree = m->tree,
		.seen_as = m->seen_as,
		.home = m->home,
		.known = first ? NULL : &m->known,
		.known_states = first ? NULL : &m->known_states,
		.found = found,
		.deny = &m->deny,
	};
	int r;

	if (!mb.b)
		return -ENOMEM;
	r = build_all(m, &mb);
	if (r < 0) {
		policy_builder_free(mb.b);
	} else {
		*out = policy_builder_finish(mb.b);
		if (!*out)
			r = -ENOMEM;
	}
	if (r < 0 && !mb.errmsg && asprintf(&mb.errmsg, "cannot build the protection model: %s", strerror(-r)) < 0)
		mb.errmsg = NULL;
	*errmsg = TAKE_PTR(mb.errmsg);
	if (r >= 0 && first) {
		m->known = mb.seen;
		m->known_states = mb.states;
		m->known_checkouts = mb.checkouts;
	} else {
		free(mb.seen.ids);
		free(mb.states.ids);
		model_checkouts_done(&mb.checkouts);
	}
	return r;
}

/* Where the tree is, for the absolute paths git writes in .git files and
 * gitdir files (git init --separate-git-dir, git worktree add). */
static int tree_path(int rootfd, char **out, char **errmsg)
{
	int r = model_fd_path(rootfd, out);

	if (r < 0 && r != -ENOMEM && asprintf(errmsg, "cannot tell where the tree is (/proc/self/fd/%d): %s", rootfd,
	                                      strerror(-r)) < 0)
		*errmsg = NULL;
	return r;
}

/* The home git would expand "~/" in an include.path to: $HOME, resolved once
 * so that whether an include lies in the tree is decided on a real path. */
static char *home_path(void)
{
	const char *home = getenv("HOME");

	return home && home[0] == '/' ? realpath(home, NULL) : NULL;
}

int git_model_new(int rootfd, const char *seen_as, const struct policy_config *cfg, struct git_model **out,
                  char **errmsg)
{
	_cleanup_(model_found_done) struct model_found found = {0};
	struct git_model *m = calloc(1, sizeof(*m));
	struct policy_snapshot *s = NULL;
	int r;

	*errmsg = NULL;
	if (!m)
		return -ENOMEM;
	m->rootfd = rootfd;
	r = -pthread_mutex_init(&m->rebuild_lock, NULL);
	if (r < 0) {
		free(m);
		return r;
	}
	r = collect_targets(m, cfg);
	if (r >= 0)
		r = model_deny_init(&m->deny, cfg);
	if (r >= 0)
		r = tree_path(rootfd, &m->tree, errmsg);
	if (r >= 0)
		m->home = home_path();
	if (r >= 0 && seen_as && strcmp(seen_as, m->tree) != 0 && !(m->seen_as = strdup(seen_as)))
		r = -ENOMEM;
	if (r >= 0)
		r = model_build(m, &s, errmsg, &found);
	if (r >= 0)
		r = start_live(m, &found);
	if (r >= 0) {
		m->holder = policy_holder_new(s);
		r = m->holder ? 0 : -ENOMEM;
	}
	if (r < 0) {
		if (!m->holder)
			policy_snapshot_release(s);
		git_model_free(m);
		return r;
	}
	*out = m;
	return 0;
}

void git_model_free(struct git_model *m)
{
	if (!m)
		return;
	if (m->holder)
		policy_holder_free(m->holder);
	model_live_free(m->live);
	for (size_t i = 0; i < m->n_targets; i++) {
		free(m->targets[i].path);
		free(m->targets[i].reason);
	}
	free(m->targets);
	model_deny_done(&m->deny);
	free(m->tree);
	free(m->seen_as);
	free(m->home);
	free(m->known.ids);
	free(m->known_states.ids);
	model_checkouts_done(&m->known_checkouts);
	pthread_mutex_destroy(&m->rebuild_lock);
	free(m);
}

struct policy_holder *git_model_holder(struct git_model *m)
{
	return m->holder;
}

bool git_model_denies(const struct git_model *m)
{
	return m->deny.n_names > 0;
}

/* The static model is small, so a change anywhere rebuilds all of it: the
 * entry that changed only tells us that something did. */
void git_model_changed(struct git_model *m, struct policy_id parent, const char *name)
{
	_cleanup_free_ char *errmsg = NULL;
	struct policy_snapshot *s = NULL;
	int r;

	pthread_mutex_lock(&m->rebuild_lock);
	r = model_build(m, &s, &errmsg, NULL);
	if (r >= 0)
		policy_holder_publish(m->holder, s);
	pthread_mutex_unlock(&m->rebuild_lock);
	if (r < 0)
		log_debug("after a change of '%s' in %llu:%llu, keeping the last protection model: %s", name,
			  (unsigned long long)parent.dev, (unsigned long long)parent.ino, errmsg ? errmsg : strerror(-r));
}

void git_model_set_audit(struct git_model *m, struct audit *a)
{
	model_live_set_audit(m->live, a);
}

bool git_model_follows(struct git_model *m, struct policy_id parent, const char *name)
{
	return model_live_follows(m->live, parent, name);
}

void git_model_note(struct git_model *m, int parentfd, struct policy_id parent, const char *name)
{
	model_live_note(m->live, parentfd, parent, name);
}

void git_model_forget(struct git_model *m, struct policy_id id)
{
	model_live_forget(m->live, id);
}

void git_model_renamed(struct git_model *m, int oldparentfd, const char *oldname, int newparentfd,
                       const char *newname, struct policy_id obj, bool is_dir)
{
	model_live_renamed(m->live, oldparentfd, oldname, newparentfd, newname, obj, is_dir);
}

bool git_model_follows_file(struct git_model *m, struct policy_id id)
{
	return model_live_follows_file(m->live, id);
}

void git_model_note_written(struct git_model *m, struct policy_id id)
{
	model_live_note_written(m->live, id);
}

int git_model_may_rewrite(struct git_model *m, const char *old, size_t oldlen, const char *new, size_t newlen,
			  const char **why)
{
	(void)m; /* every POLICY_REWRITABLE file of this model is a Git configuration */
	return gitcfg_change_is_safe(old, oldlen, new, newlen, why);
}
