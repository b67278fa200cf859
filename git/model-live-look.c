/* What the live tracker reads when an event touches a followed folder: a new
 * git directory whole, then each hook, configuration, commondir, .git file
 * and index as it is written (git/model-live.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "common/cleanup.h"
#include "common/safe-open.h"
#include "git/config-read.h"
#include "git/discover.h"
#include "git/model-live.h"
#include "git/read.h"

/* A listing looked at whole (a hooks or modules folder) stops here. */
#define LIVE_MAX_LISTING 1024

#define SETTLER_MOVES "the settler moves it aside at the end of the run"

/* How a new git directory came to be, as the audit line tells it. */
#define MADE_SUBMODULE "a submodule's git directory made during the mount"
#define MADE_WORKTREE "a linked worktree's folder made during the mount"

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct gitcfg_config *, gitcfg_config_free)

static void subs_freep(struct gitindex_submodules *s)
{
	gitindex_submodules_free(s);
}

static bool is_sample(const char *name)
{
	size_t n = strlen(name);

	return n > 7 && strcmp(name + n - 7, ".sample") == 0;
}

void live_look_hook(struct model_live *l, const struct live_folder *f, int fd, const char *name)
{
	_cleanup_free_ char *path = NULL;
	struct stat st;

	if (is_sample(name) || fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode))
		return;
	path = model_path_join(f->path, name);
	if (path)
		live_event(l, "dangerous-change", path,
		           "a hook in a git directory made during the mount: git runs it; " SETTLER_MOVES);
}

/* Opens the folder NAME in FD without following a link; says so when a link
 * stands there, as git would follow it. */
static int open_child(struct model_live *l, const struct live_folder *f, int fd, const char *name)
{
	int child = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_free_ char *path = NULL;
	struct stat st;

	if (child >= 0 || fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
		return child;
	path = model_path_join(f->path, name);
	if (path)
		live_event(l, "dangerous-change", path, "a symbolic link in a git directory: git would follow it");
	return -ELOOP;
}

struct live_folder *live_follow_file(struct model_live *l, int fd, const char *path, const char *name)
{
	struct live_folder *f;
	struct stat st;

	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	f = live_follow_id(l, model_id(&st), path, LIVE_FILE);
	if (f && f->kind == LIVE_FILE && !f->name)
		f->name = strdup(name);
	return f && f->name ? f : NULL;
}

/* Follows the folder NAME of F as KIND, and looks at what it holds already. */
static void follow_child(struct model_live *l, struct live_folder *f, int fd, const char *name, enum live_kind kind)
{
	_cleanup_close_ int child = open_child(l, f, fd, name);
	_cleanup_free_ char *path = model_path_join(f->path, name);
	struct live_folder *g;

	if (child < 0 || !path)
		return;
	g = live_follow(l, child, path, kind);
	if (g && g->kind == kind)
		live_look_listing(l, g, child);
}

void live_look_listing(struct model_live *l, struct live_folder *f, int fd)
{
	_cleanup_(closedirp) DIR *dir = NULL;
	int listfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;

	if (listfd < 0)
		return;
	dir = fdopendir(listfd);
	if (!dir) {
		close(listfd);
		return;
	}
	for (size_t n = 0; n < LIVE_MAX_LISTING && (e = readdir(dir)); n++) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (f->kind == LIVE_HOOKS)
			live_look_hook(l, f, fd, e->d_name);
		else
			live_look_modules_entry(l, f, fd, e->d_name);
	}
}

/* The configuration files of F's git directory as git would read them, as
 * one fingerprint: unchanged files are not parsed again. */
static uint64_t config_print(const struct model_live *l, const struct live_folder *f)
{
	static const char *const names[] = {"config", "config.worktree"};
	uint64_t print = 0;

	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		_cleanup_free_ char *name = model_path_join(f->path, names[i]);
		struct git_blob b = {0};

		if (name && gitread_file(l->rootfd, name, GITREAD_SMALL_MAX, &b) == 0)
			print = XXH3_64bits_withSeed(b.data, b.len, print + i + 1);
		git_blob_free(&b);
	}
	return print;
}

/* A linked worktree's folder (<common>/worktrees/<name>) takes its
 * configuration from the common directory. */
static char *common_of(const struct live_folder *f)
{
	const char *w = strstr(f->path, "/worktrees/");
	const char *last = w ? strrchr(f->path, '/') : NULL;

	if (f->gitdir_kind != MODEL_GITDIR_LINKED || !w || last != w + strlen("/worktrees"))
		return NULL;
	return strndup(f->path, (size_t)(w - f->path));
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *at = strstr(text, line); at; at = strstr(at + 1, line))
		if ((at == text || at[-1] == '\n') && at[n] == '\n')
			return true;
	return false;
}

/* Appends to DANGER one line per entry that names a program, hooks folder or
 * file git reads, and per included file. */
static int collect_danger(const struct gitcfg_config *cfg, char **danger, size_t *len)
{
	FILE *out = open_memstream(danger, len);

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->n_files; i++)
		if (cfg->files[i].parent >= 0)
			fprintf(out, "%s:%d: includes %s\n", cfg->files[cfg->files[i].parent].origin, cfg->files[i].line,
			        cfg->files[i].origin);
	for (size_t i = 0; i < cfg->n_entries; i++) {
		const struct gitcfg_read_entry *e = &cfg->entries[i];
		struct model_named_text named;

		if (!cfg->files[e->file].urls_only && model_config_names(e->name, e->value, &named))
			fprintf(out, "%s:%d: %s = %s\n", cfg->files[e->file].origin, e->line, e->name, e->value ? e->value : "");
	}
	return fclose(out) == 0 ? 0 : -ENOMEM;
}

/* Says each line of DANGER that the last look did not say. */
static void say_danger(struct model_live *l, const struct live_folder *f, char *danger)
{
	for (char *line = danger, *end; *line; line = end + 1) {
		end = strchr(line, '\n');
		*end = '\0';
		if (!f->danger || !has_line(f->danger, line))
			live_event(l, "dangerous-change", f->path,
			           "%s: in a git directory made during the mount, git would run or read what it "
			           "names; the settler moves the configuration aside",
			           line);
		*end = '\n';
	}
}

static void look_config(struct model_live *l, struct live_folder *f, int fd)
{
	_cleanup_free_ char *common = common_of(f), *danger = NULL;
	_cleanup_(gitcfg_config_freep) struct gitcfg_config *cfg = NULL;
	struct gitcfg_read_opts opts = {.root_path = l->tree, .gitdir = f->path, .commondir = common, .home = l->home,
	                                 .seen_as = l->seen_as};
	struct gitcfg_read_error err = {0};
	uint64_t print = config_print(l, f);
	size_t len = 0;

	live_follow_file(l, fd, f->path, "config");
	live_follow_file(l, fd, f->path, "config.worktree");
	if (print == f->config_print)
		return;
	f->config_print = print;
	if (gitcfg_read(l->rootfd, &opts, &cfg, &err) < 0) {
		live_event(l, "dangerous-change", err.file, "git cannot read this configuration: %s", err.reason);
		return;
	}
	if (collect_danger(cfg, &danger, &len) < 0)
		return;
	say_danger(l, f, danger);
	free(f->danger);
	f->danger = TAKE_PTR(danger);
}

static void look_commondir(struct model_live *l, const struct live_folder *f, int fd)
{
	_cleanup_free_ char *pointer = NULL, *path = model_path_join(f->path, "commondir");
	const char *why = NULL, *expected = f->gitdir_kind == MODEL_GITDIR_LINKED ? "../.." : ".";
	size_t len = 0;

	struct stat st;

	if (!path || !live_follow_file(l, fd, f->path, "commondir") || fstatat(fd, "commondir", &st, 0) < 0 ||
	    st.st_size == 0)
		return; /* made empty: what it says comes with the write */
	discover_read_pointer(fd, "commondir", &pointer, &len, &why);
	if (pointer && len == strlen(expected) && memcmp(pointer, expected, len) == 0)
		return;
	live_event(l, "dangerous-change", path, "commondir names %s: git would take hooks and configuration from "
	           "there; " SETTLER_MOVES, pointer ? pointer : why ? why : "what cannot be read");
}

void live_look_new(struct model_live *l, struct live_folder *f, int fd, const char *name)
{
	bool repo = f->gitdir_kind == MODEL_GITDIR_REPO;

	if (repo && strcmp(name, "modules") == 0)
		follow_child(l, f, fd, name, LIVE_MODULES);
	else if (repo && strcmp(name, "worktrees") == 0)
		follow_child(l, f, fd, name, LIVE_WORKTREES);
	else if (f->kind != LIVE_NEW)
		return; /* a git directory there at start is protected itself */
	else if (repo && strcmp(name, "hooks") == 0)
		follow_child(l, f, fd, name, LIVE_HOOKS);
	else if (strcmp(name, "config") == 0 || strcmp(name, "config.worktree") == 0)
		look_config(l, f, fd);
	else if (strcmp(name, "commondir") == 0)
		look_commondir(l, f, fd);
}

void live_track_gitdir(struct model_live *l, int fd, const char *path, enum model_gitdir_kind kind, const char *how)
{
	static const char *const parts[] = {"hooks", "config", "config.worktree", "commondir", "modules", "worktrees"};
	struct live_folder *f;
	struct stat st;

	if (fstat(fd, &st) < 0 || live_is_known(l, model_id(&st)))
		return;
	f = live_find(l, model_id(&st));
	if (f && f->kind == LIVE_NEW)
		return;
	if (!f)
		f = live_follow(l, fd, path, LIVE_NEW);
	if (!f)
		return;
	f->kind = LIVE_NEW;
	f->gitdir_kind = kind;
	live_event(l, "new-git-dir", f->path, "%s: tracked for the settler", how);
	for (size_t i = 0; i < ELEMENTSOF(parts); i++)
		live_look_new(l, f, fd, parts[i]);
}

/* Folders git makes in a git directory before its HEAD: not parts of a
 * submodule's name worth following. */
static bool git_part(const char *name)
{
	static const char *const parts[] = {"hooks", "info", "refs", "objects", "logs"};

	for (size_t i = 0; i < ELEMENTSOF(parts); i++)
		if (strcmp(name, parts[i]) == 0)
			return true;
	return false;
}

void live_look_modules_entry(struct model_live *l, struct live_folder *f, int fd, const char *name)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int child = -1;
	struct stat st, head;

	/* A part of a submodule's name becomes its git directory. */
	if (f->kind == LIVE_MODULES && f->depth > 0 && strcmp(name, "HEAD") == 0) {
		live_track_gitdir(l, fd, f->path, MODEL_GITDIR_REPO, MADE_SUBMODULE);
		return;
	}
	child = open_child(l, f, fd, name);
	path = model_path_join(f->path, name);
	if (child < 0 || !path || fstat(child, &st) < 0)
		return;
	if (l->starting && (f->kind == LIVE_WORKTREES || fstatat(child, "HEAD", &head, AT_SYMLINK_NOFOLLOW) == 0))
		return; /* there at start: protected one by one, or as a whole */
	if (f->kind == LIVE_WORKTREES)
		live_track_gitdir(l, child, path, MODEL_GITDIR_LINKED, MADE_WORKTREE);
	else if (fstatat(child, "HEAD", &head, AT_SYMLINK_NOFOLLOW) == 0)
		live_track_gitdir(l, child, path, MODEL_GITDIR_REPO, MADE_SUBMODULE);
	else if (f->depth < MODEL_MAX_DEPTH && !git_part(name) && !live_find(l, model_id(&st))) {
		struct live_folder *g = live_follow(l, child, path, LIVE_MODULES);

		if (g) {
			g->depth = f->depth + 1;
			live_look_listing(l, g, child);
		}
	}
}

static int path_compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* SORTED was sorted by live_sort_subs(): a thousand gitlinks are looked up in
 * some ten steps each, not a thousand. */
static bool subs_have(const struct gitindex_submodules *sorted, char *path)
{
	return sorted->n && bsearch(&path, sorted->paths, sorted->n, sizeof(*sorted->paths), path_compare);
}

void live_sort_subs(struct gitindex_submodules *s)
{
	if (s->n)
		qsort(s->paths, s->n, sizeof(*s->paths), path_compare);
}

void live_look_index(struct model_live *l, struct live_folder *f, int fd)
{
	_cleanup_(subs_freep) struct gitindex_submodules subs = {0};
	_cleanup_free_ char *origin = model_path_join(f->path, "index");
	struct gitindex_error err = {0};
	int r;

	if (!origin)
		return;
	r = gitindex_reread_submodules(fd, "index", origin, f->hash, &f->index_print, &subs, &err);
	if (r == -EALREADY || r == -ENOENT || r == -ENOMEM)
		return;
	if (r < 0) {
		live_event(l, "dangerous-change", origin, "git's index cannot be read (%s): " SETTLER_MOVES,
		           err.reason ? err.reason : strerror(-r));
		return;
	}
	for (size_t i = 0; i < subs.n; i++)
		if (!subs_have(&f->subs, subs.paths[i]))
			live_event(l, "new-submodule", origin, "records the submodule %s: tracked for the settler",
			           subs.paths[i]);
	gitindex_submodules_free(&f->subs);
	f->subs = subs;
	subs = (struct gitindex_submodules){0};
	live_sort_subs(&f->subs);
}

/* Whether where a .git file leads changed since it was last looked at (git
 * writes one twice: an absolute path, then a relative one to the same
 * place). */
static bool leads_elsewhere(struct live_folder *file, int r, const char *where)
{
	uint64_t print = XXH3_64bits_withSeed(where, strlen(where), (uint64_t)(r + 2));

	if (print == file->config_print)
		return false;
	file->config_print = print;
	return true;
}

/* Tracks the git directory GITFD (PATH) a new .git file names. Its kind and
 * how it is told come from the folder that holds it, whichever git wrote
 * first: a submodule's HEAD is seen when it is made, but the .git file only
 * when its RELEASE is served, which may be before or after (with FUSE over
 * io_uring, on another entry). */
static void track_named_gitdir(struct model_live *l, int gitfd, const char *path)
{
	_cleanup_close_ int parent = openat(gitfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	const struct live_folder *holder = NULL;
	struct stat st;

	if (parent >= 0 && fstat(parent, &st) == 0)
		holder = live_find(l, model_id(&st));
	if (holder && holder->kind == LIVE_MODULES)
		live_track_gitdir(l, gitfd, path, MODEL_GITDIR_REPO, MADE_SUBMODULE);
	else if (holder && holder->kind == LIVE_WORKTREES)
		live_track_gitdir(l, gitfd, path, MODEL_GITDIR_LINKED, MADE_WORKTREE);
	else
		live_track_gitdir(l, gitfd, path, strstr(path, "/worktrees/") ? MODEL_GITDIR_LINKED : MODEL_GITDIR_REPO,
		                  "the git directory a new .git file names");
}

/* What the .git file in FD (BASE) names, once it says something: a file
 * made empty is followed until a write closes. */
static void look_gitfile(struct model_live *l, int fd, const char *base, const struct stat *st)
{
	_cleanup_free_ char *pointer = NULL, *target = NULL, *gitpath = model_path_join(base, ".git");
	_cleanup_close_ int gitfd = -1;
	struct live_folder *file;
	const char *why = NULL;
	struct stat target_st;
	size_t len = 0;
	int r;

	if (!gitpath)
		return;
	file = live_follow_file(l, fd, base, ".git");
	if (st->st_size == 0)
		return;
	r = discover_read_gitfile(fd, ".git", &pointer, &len, &why);
	if (r >= 0)
		r = discover_resolve(l->tree, l->seen_as, base, pointer, len, &target, &why);
	if (file && !leads_elsewhere(file, r, target ? target : pointer ? pointer : ""))
		return;
	if (r < 0) {
		live_event(l, "dangerous-change", gitpath, "a .git file git cannot follow (%s)",
		           why ? why : strerror(-r));
		return;
	}
	if (r == 0) {
		live_event(l, "dangerous-change", gitpath, "a .git file naming %.*s, outside the tree: " SETTLER_MOVES,
		           (int)len, pointer);
		return;
	}
	gitfd = safe_openat(l->rootfd, target[0] ? target : ".", O_PATH | O_DIRECTORY, 0);
	if (gitfd >= 0 && fstat(gitfd, &target_st) == 0 && live_is_known(l, model_id(&target_st))) {
		live_event(l, "dangerous-change", gitpath,
		           "a new .git file naming %s, a git directory there at start: its configuration would steer "
		           "git in a work tree the command wrote; " SETTLER_MOVES, target);
		return;
	}
	live_event(l, "new-git-file", gitpath, "names %s: tracked for the settler", target);
	if (gitfd >= 0)
		track_named_gitdir(l, gitfd, target);
}

void live_look_dotgit(struct model_live *l, int fd, const char *path)
{
	_cleanup_free_ char *gitpath = model_path_join(path, ".git");
	struct stat st;

	if (!gitpath || fstatat(fd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		_cleanup_close_ int gitfd = openat(fd, ".git", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (gitfd >= 0)
			live_track_gitdir(l, gitfd, gitpath, MODEL_GITDIR_REPO, "a repository made during the mount");
	} else if (S_ISREG(st.st_mode)) {
		look_gitfile(l, fd, path, &st);
	} else if (S_ISLNK(st.st_mode)) {
		live_event(l, "dangerous-change", gitpath, "a .git that is a symbolic link: git would follow it; "
		           SETTLER_MOVES);
	}
}
