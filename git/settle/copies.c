/* A new linked worktree of a repository that was there before (seed 000,
 * "Bounds on new Git directories"): the hooks folder and the programs its
 * configuration names by a relative path (config, config.worktree and what
 * they include) are looked up in the new worktree, where git run there
 * finds them. A copy there that differs from the one in the repository's
 * own worktree, which the mount held, is the run's choice: moved aside. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "common/cleanup.h"
#include "common/safe-open.h"
#include "git/config-read.h"
#include "git/model-internal.h"
#include "git/settle/checks.h"

/* What a copy's fingerprint reads at most: past it, the copies differ. */
#define PRINT_MAX_DEPTH   16
#define PRINT_MAX_ENTRIES 10000

/* Bytes that end a word of a shell line, for the relative paths it names. */
#define SHELL_BREAKS " \t\n;|&()<>`'\"="

struct printer {
	XXH3_state_t *h;
	size_t entries;
};

static int print_at(struct printer *p, int at, const char *name, unsigned depth);

static int print_file(struct printer *p, int fd)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		XXH3_64bits_update(p->h, buf, (size_t)n);
	return n < 0 ? negative_errno() : 0;
}

static int print_folder(struct printer *p, int fd, unsigned depth)
{
	_cleanup_(settle_names_done) struct settle_names names = {0};
	int r = depth >= PRINT_MAX_DEPTH ? -ELOOP : settle_list_names(fd, &names);

	for (size_t i = 0; r >= 0 && i < names.n; i++) {
		XXH3_64bits_update(p->h, names.v[i], strlen(names.v[i]) + 1);
		r = print_at(p, fd, names.v[i], depth + 1);
	}
	return r;
}

/* Feeds what NAME in AT is (its type, and its bytes, target or entries). */
static int print_at(struct printer *p, int at, const char *name, unsigned depth)
{
	struct stat st;
	char target[4096];

	if (++p->entries > PRINT_MAX_ENTRIES)
		return -E2BIG;
	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return negative_errno();
	XXH3_64bits_update(p->h, &(mode_t){st.st_mode & S_IFMT}, sizeof(mode_t));
	if (S_ISLNK(st.st_mode)) {
		ssize_t n = readlinkat(at, name, target, sizeof(target));
		if (n < 0)
			return negative_errno();
		XXH3_64bits_update(p->h, target, (size_t)n);
		return 0;
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return 0;
	_cleanup_close_ int fd = openat(at, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	return S_ISDIR(st.st_mode) ? print_folder(p, fd, depth) : print_file(p, fd);
}

/* The fingerprint of PATH (tree-relative); -ENOENT when it is missing. */
static int print_path(int rootfd, const char *path, uint64_t *out)
{
	const char *slash = strrchr(path, '/');
	_cleanup_free_ char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	struct printer p = {.h = XXH3_createState()};
	int r = dir && p.h ? 0 : -ENOMEM;

	if (r >= 0) {
		_cleanup_close_ int at = safe_openat(rootfd, dir, O_PATH | O_DIRECTORY, 0);
		XXH3_64bits_reset(p.h);
		r = at < 0 ? at : print_at(&p, at, slash ? slash + 1 : path, 0);
	}
	if (r >= 0)
		*out = XXH3_64bits_digest(p.h);
	XXH3_freeState(p.h);
	return r;
}

/* Moves aside REL in the new worktree NEW when it differs from REL in the
 * repository's own worktree OWN. */
static int check_copy(struct settle_ctx *c, const char *own, const char *new, const char *rel, size_t len)
{
	_cleanup_free_ char *name = strndup(rel, len);
	_cleanup_free_ char *mine = name ? settle_join(new, name) : NULL, *theirs = name ? settle_join(own, name) : NULL;
	uint64_t a, b;

	if (!mine || !theirs)
		return -ENOMEM;
	if (strstr(name, "..") || print_path(c->rootfd, mine, &a) == -ENOENT)
		return 0; /* nothing there, or a path that leaves the worktree */
	if (print_path(c->rootfd, theirs, &b) == 0 && a == b && print_path(c->rootfd, mine, &a) == 0 && a == b)
		return 0;
	return act_move_aside(c, mine,
	                      "a copy in a new worktree of what the repository's configuration runs, differing from "
	                      "the one in its own worktree");
}

/* The relative paths a shell line names: each word holding a '/' that is
 * neither absolute nor made of an expansion. */
static int check_line(struct settle_ctx *c, const char *own, const char *new, const char *text, size_t len)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < len;) {
		const char *w = text + i;
		size_t n = strcspn(w, SHELL_BREAKS);
		if (n > len - i)
			n = len - i;
		i += n + 1;
		if (!n || !memchr(w, '/', n) || w[0] == '/' || w[0] == '~' || memchr(w, '$', n))
			continue;
		if (n > 2 && strncmp(w, "./", 2) == 0) {
			w += 2;
			n -= 2;
		}
		r = check_copy(c, own, new, w, n);
	}
	return r;
}

static int check_entry(struct settle_ctx *c, const char *own, const char *new, const struct gitcfg_read_entry *e)
{
	struct model_named_text t;

	if (!model_config_names(e->name, e->value, &t) || !t.len || t.text[0] == '/')
		return 0;
	switch (t.kind) {
	case MODEL_NAMED_PATH:
	case MODEL_NAMED_PROGRAM:
		return check_copy(c, own, new, t.text, t.len);
	case MODEL_NAMED_LINE:
		return check_line(c, own, new, t.text, t.len);
	case MODEL_NAMED_CREDENTIAL_HELPER:
	case MODEL_NAMED_REMOTE_HELPER:
		break; /* programs named git-*: looked up on the PATH */
	}
	return 0;
}

int checks_copies(struct settle_ctx *c, size_t linked, size_t common)
{
	const char *own = c->now.worktree_of[common], *new = c->now.worktree_of[linked];
	struct gitcfg_read_opts o = {
	        .root_path = c->now.st.dir,
	        .gitdir = c->now.st.gitdirs[linked].path,
	        .commondir = c->now.st.gitdirs[common].path,
	        .seen_as = c->now.seen_as,
	};
	struct gitcfg_config *cfg = NULL;
	struct gitcfg_read_error err;
	int r;

	if (!own || !new)
		return 0;
	r = gitcfg_read(c->rootfd, &o, &cfg, &err);
	if (r < 0) {
		act_failed(c, c->now.st.gitdirs[linked].path, "the configuration of a new worktree cannot be read");
		return r == -ENOMEM ? r : 0;
	}
	for (size_t i = 0; r >= 0 && i < cfg->n_entries; i++)
		r = check_entry(c, own, new, &cfg->entries[i]);
	gitcfg_config_free(cfg);
	return r;
}
