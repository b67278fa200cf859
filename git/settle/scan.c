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
#include "git/config-parse.h"
#include "git/discover.h"
#include "git/index.h"
#include "git/read.h"
#include "git/settle/scan.h"

/* Past this a module folder's tree is not a git directory's listing. */
#define MODULES_MAX_DEPTH 16

/* A file's fingerprint: 0 when it is missing, SCAN_UNREADABLE when it is
 * there but not a regular file that can be read whole. */
#define SCAN_UNREADABLE UINT64_MAX

char *settle_join(const char *parent, const char *name)
{
	char *out;

	if (!*parent)
		return strdup(name);
	return asprintf(&out, "%s/%s", parent, name) < 0 ? NULL : out;
}

long settle_scan_find(const struct settle_state *st, const char *path)
{
	for (size_t i = 0; i < st->n_gitdirs; i++)
		if (strcmp(st->gitdirs[i].path, path) == 0)
			return (long)i;
	return -1;
}

static int unseen(struct settle_scan *sc, const char *path, const char *why)
{
	_cleanup_free_ char *line = NULL;

	if (asprintf(&line, "%s: %s", *path ? path : ".", why) < 0)
		return -ENOMEM;
	return settle_names_add(&sc->unseen, line, strlen(line));
}

/* ---- Listing a folder ----------------------------------------------------- */

/* A folder's entries with their types as the listing gives them
 * (DT_UNKNOWN when the file system does not say). */
struct listing {
	struct entry {
		char *name;
		unsigned char type;
	} *v;
	size_t n, cap;
};

static void listing_done(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	*l = (struct listing){0};
}

static int listing_add(struct listing *l, const struct dirent *e)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct entry *v = reallocarray(l->v, cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].name = strdup(e->d_name);
	l->v[l->n].type = e->d_type;
	if (!l->v[l->n].name)
		return -ENOMEM;
	l->n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* The entries of the folder FD (not "." or ".."), at most MAX, sorted, so
 * two scans of one tree meet its git directories in one order. */
static int list_entries(int fd, size_t max, struct listing *out)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *e;
	int r = 0;

	if (!d) {
		r = negative_errno();
		closep(&dfd);
		return r;
	}
	while (r >= 0 && (errno = 0, e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			r = out->n >= max ? -E2BIG : listing_add(out, e);
	if (r >= 0 && errno)
		r = negative_errno();
	closedir(d);
	if (r >= 0 && out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), by_name);
	return r;
}

int settle_list_names(int fd, struct settle_names *out)
{
	struct listing l = {0};
	int r = list_entries(fd, SETTLE_STATE_MAX_NAMES, &l);

	for (size_t i = 0; r >= 0 && i < l.n; i++)
		r = settle_names_add(out, l.v[i].name, strlen(l.v[i].name));
	listing_done(&l);
	return r;
}

static bool quarantined(const char *name)
{
	return strstr(name, SCAN_QUARANTINE) != NULL;
}

/* ---- Git directories ------------------------------------------------------ */

static int kind_rank(enum settle_gitdir_kind k)
{
	switch (k) {
	case SETTLE_GITDIR_BARE:
		return 0;
	case SETTLE_GITDIR_DOTGIT:
	case SETTLE_GITDIR_NAMED:
		return 1;
	case SETTLE_GITDIR_MODULE:
	case SETTLE_GITDIR_LINKED:
		break;
	}
	return 2;
}

/* Adds the git directory PATH, or merges what is known of one already
 * found another way (a module's folder a .git file names): what a git
 * directory is by its place (a module, a linked worktree) wins over how it
 * was reached. WORKTREE is the work tree that reaches it, or NULL. */
static int add_gitdir(struct settle_scan *sc, const char *path, enum settle_gitdir_kind kind, const char *worktree)
{
	struct settle_state *st = &sc->st;
	long i = settle_scan_find(st, path);

	if (i < 0) {
		if (st->n_gitdirs >= SETTLE_STATE_MAX_GITDIRS)
			return -E2BIG;
		struct settle_gitdir *v = reallocarray(st->gitdirs, st->n_gitdirs + 1, sizeof(*v));
		char **w = reallocarray(sc->worktree_of, st->n_gitdirs + 1, sizeof(*w));
		if (v)
			st->gitdirs = v;
		if (w)
			sc->worktree_of = w;
		if (!v || !w)
			return -ENOMEM;
		i = (long)st->n_gitdirs;
		st->gitdirs[i] = (struct settle_gitdir){.path = strdup(path), .kind = kind};
		sc->worktree_of[i] = NULL;
		st->n_gitdirs++;
		if (!st->gitdirs[i].path)
			return -ENOMEM;
	} else if (kind_rank(kind) > kind_rank(st->gitdirs[i].kind)) {
		st->gitdirs[i].kind = kind;
	}
	if (worktree && !sc->worktree_of[i]) {
		st->gitdirs[i].served = true;
		sc->worktree_of[i] = strdup(worktree);
		if (!sc->worktree_of[i])
			return -ENOMEM;
	}
	return 0;
}

/* Whether the folder FD holds NAME as an object of the type TYPE (S_IFDIR,
 * S_IFREG), not following a link. */
static bool holds(int fd, const char *name, mode_t type)
{
	struct stat st;

	return fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == type;
}

/* A folder git takes for a git directory (setup.c: is_git_directory):
 * HEAD, and objects and refs folders, which a linked worktree's folder
 * keeps in the common directory its commondir names. */
static bool is_git_directory(int fd)
{
	return holds(fd, "HEAD", S_IFREG) &&
	       (holds(fd, "commondir", S_IFREG) || (holds(fd, "objects", S_IFDIR) && holds(fd, "refs", S_IFDIR)));
}

/* ---- .git entries ----------------------------------------------------------- */

static struct settle_dotgit *new_dotgit(struct settle_state *st, const char *path, enum settle_dotgit_type type)
{
	if (st->n_dotgits >= SETTLE_STATE_MAX_DOTGITS)
		return NULL;
	struct settle_dotgit *v = reallocarray(st->dotgits, st->n_dotgits + 1, sizeof(*v));
	if (!v)
		return NULL;
	st->dotgits = v;
	v[st->n_dotgits] = (struct settle_dotgit){.path = strdup(path), .type = type};
	return v[st->n_dotgits].path ? &v[st->n_dotgits++] : NULL;
}

/* Where the .git file text of D, found in the folder PARENT, leads: a
 * git directory in the tree, or NULL (outside it, malformed, a plain
 * folder). */
static int gitfile_target(struct settle_scan *sc, int rootfd, const char *dir, int fd, const char *parent,
                          struct settle_dotgit *d)
{
	_cleanup_free_ char *pointer = NULL, *target = NULL;
	const char *why;
	size_t len;
	int r = discover_read_gitfile(fd, ".git", &pointer, &len, &why);

	if (r < 0)
		return r == -ENOMEM ? r : 0;
	if (discover_resolve(dir, sc->seen_as, parent, pointer, len, &target, &why) != 1)
		return 0;
	_cleanup_close_ int tfd = safe_openat(rootfd, *target ? target : ".", O_PATH | O_DIRECTORY, 0);
	if (tfd < 0 || !is_git_directory(tfd))
		return 0;
	d->target = TAKE_PTR(target);
	return add_gitdir(sc, d->target, SETTLE_GITDIR_NAMED, parent);
}

/* The .git entry of the work tree folder PARENT (open as FD). */
static int scan_dotgit(struct settle_scan *sc, int rootfd, const char *dir, int fd, const char *parent)
{
	_cleanup_free_ char *path = settle_join(parent, ".git");
	struct git_blob b = {0};
	struct stat st;
	struct settle_dotgit *d;
	char link[SETTLE_STATE_MAX_TEXT];

	if (!path)
		return -ENOMEM;
	if (fstatat(fd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return unseen(sc, path, strerror(errno));
	d = new_dotgit(&sc->st, path, S_ISDIR(st.st_mode)   ? SETTLE_DOTGIT_DIR
	                              : S_ISREG(st.st_mode) ? SETTLE_DOTGIT_FILE
	                              : S_ISLNK(st.st_mode) ? SETTLE_DOTGIT_LINK
	                                                    : SETTLE_DOTGIT_OTHER);
	if (!d)
		return sc->st.n_dotgits >= SETTLE_STATE_MAX_DOTGITS ? -E2BIG : -ENOMEM;
	switch (d->type) {
	case SETTLE_DOTGIT_DIR:
		return add_gitdir(sc, path, SETTLE_GITDIR_DOTGIT, parent);
	case SETTLE_DOTGIT_FILE:
		if (gitread_file(fd, ".git", SETTLE_STATE_MAX_TEXT, &b) < 0)
			return unseen(sc, path, "a .git file that cannot be read whole");
		d->text = b.data;
		d->len = b.len;
		return gitfile_target(sc, rootfd, dir, fd, parent, d);
	case SETTLE_DOTGIT_LINK: {
		ssize_t n = readlinkat(fd, ".git", link, sizeof(link) - 1);
		if (n < 0)
			return unseen(sc, path, strerror(errno));
		d->text = strndup(link, (size_t)n);
		d->len = (size_t)n;
		return d->text ? 0 : -ENOMEM;
	}
	case SETTLE_DOTGIT_OTHER:
		break;
	}
	return 0;
}

/* ---- Opening a folder ------------------------------------------------------ */

/* Opens the folder NAME in AT (at PATH) to read it. One without the owner's
 * rwx is listed as locked, and the caller's on_locked hears of it first (it
 * may give the access back). Returns the fd; -ENOENT when NAME is missing or
 * not a folder (a link is not followed); -ECANCELED when it cannot be opened
 * and that is to be passed over (a lock of the person's); or the open's
 * -errno. */
static int open_folder(struct settle_scan *sc, int at, const char *name, const char *path)
{
	struct stat st;
	bool passed = false;
	int fd;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : negative_errno();
	if (!S_ISDIR(st.st_mode))
		return -ENOENT;
	if ((st.st_mode & S_IRWXU) != S_IRWXU) {
		int r = settle_names_has(&sc->st.locked, path) ? 0 : settle_names_add(&sc->st.locked, path, strlen(path));
		if (r < 0)
			return r;
		passed = !sc->on_locked || sc->on_locked(sc, at, name, path);
	}
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && passed)
		return -ECANCELED;
	return fd < 0 ? negative_errno() : fd;
}

/* ---- The work tree ---------------------------------------------------------- */

struct walk {
	struct settle_scan *sc;
	int rootfd;
	const char *dir;
};

static int walk_folder(struct walk *w, int fd, const char *path, unsigned depth);

/* The entry E of the folder FD (at PATH): a folder is walked. */
static int walk_entry(struct walk *w, int fd, const char *path, const struct entry *e, unsigned depth)
{
	_cleanup_free_ char *child = NULL;

	if (++w->sc->entries > SCAN_MAX_ENTRIES)
		return -E2BIG;
	if (e->type != DT_DIR && e->type != DT_UNKNOWN)
		return 0; /* no stat for each file of a large tree */
	child = settle_join(path, e->name);
	if (!child)
		return -ENOMEM;
	if (depth + 1 >= SCAN_MAX_DEPTH)
		return unseen(w->sc, child, "a folder deeper than the settler reads");
	_cleanup_close_ int sub = open_folder(w->sc, fd, e->name, child);
	if (sub == -ENOENT || sub == -ECANCELED)
		return 0;
	if (sub == -ENOMEM)
		return sub;
	if (sub < 0)
		return unseen(w->sc, child, strerror(-sub));
	return walk_folder(w, sub, child, depth + 1);
}

static bool listed(const struct listing *l, const char *name)
{
	const struct entry key = {.name = (char *)name};

	return bsearch(&key, l->v, l->n, sizeof(*l->v), by_name) != NULL;
}

static int walk_folder(struct walk *w, int fd, const char *path, unsigned depth)
{
	_cleanup_(listing_done) struct listing l = {0};
	int r = list_entries(fd, SCAN_MAX_ENTRIES, &l);

	if (r == -E2BIG || r == -ENOMEM)
		return r;
	if (r < 0)
		return unseen(w->sc, path, strerror(-r));
	if (listed(&l, ".git"))
		r = scan_dotgit(w->sc, w->rootfd, w->dir, fd, path);
	else if (listed(&l, "HEAD") && is_git_directory(fd))
		return add_gitdir(w->sc, path, SETTLE_GITDIR_BARE, NULL); /* git's, not walked */
	for (size_t i = 0; r >= 0 && i < l.n; i++)
		if (strcmp(l.v[i].name, ".git") && !quarantined(l.v[i].name))
			r = walk_entry(w, fd, path, &l.v[i], depth);
	return r;
}

/* ---- What each git directory holds ---------------------------------------- */

static uint64_t file_print(int fd, const char *name)
{
	struct git_blob b = {0};
	int r = gitread_file(fd, name, GITREAD_SMALL_MAX, &b);
	uint64_t h;

	if (r == -ENOENT || r == -ENOTDIR)
		return 0;
	if (r < 0)
		return SCAN_UNREADABLE;
	h = XXH3_64bits(b.data, b.len);
	git_blob_free(&b);
	return h == 0 || h == SCAN_UNREADABLE ? 1 : h;
}

/* The names of the folder NAME in FD (in the git directory at PATH),
 * quarantined ones left out; nothing when it is missing or not a folder. */
static int list_folder(struct settle_scan *sc, int fd, const char *name, const char *path, struct settle_names *out)
{
	_cleanup_free_ char *p = settle_join(path, name);
	_cleanup_(settle_names_done) struct settle_names all = {0};
	int r;

	if (!p)
		return -ENOMEM;
	_cleanup_close_ int sub = open_folder(sc, fd, name, p);
	if (sub == -ENOENT || sub == -ECANCELED)
		return 0;
	if (sub < 0)
		return sub == -ENOMEM ? sub : unseen(sc, p, strerror(-sub));
	r = settle_list_names(sub, &all);
	for (size_t i = 0; r >= 0 && i < all.n; i++)
		if (!quarantined(all.v[i]))
			r = settle_names_add(out, all.v[i], strlen(all.v[i]));
	return r;
}
/* The git directories below a modules folder (FD; REL below it) into
 * FOUND: a folder holding HEAD is one (a module's name may hold '/'),
 * others are walked. */
static int find_modules(struct settle_scan *sc, int fd, const char *path, const char *rel, unsigned depth,
                        struct settle_names *found)
{
	_cleanup_(settle_names_done) struct settle_names names = {0};
	int r = settle_list_names(fd, &names);

	for (size_t i = 0; r >= 0 && i < names.n; i++) {
		_cleanup_free_ char *q = settle_join(rel, names.v[i]), *p = settle_join(path, names.v[i]);
		if (!q || !p)
			return -ENOMEM;
		if (quarantined(names.v[i]))
			continue;
		_cleanup_close_ int sub = open_folder(sc, fd, names.v[i], p);
		if (sub == -ENOMEM)
			return sub;
		if (sub == -ENOENT || sub == -ECANCELED)
			continue; /* a file or link in modules/ is no git directory */
		if (sub < 0)
			r = unseen(sc, p, strerror(-sub));
		else if (holds(sub, "HEAD", S_IFREG))
			r = settle_names_add(found, q, strlen(q));
		else if (depth + 1 < MODULES_MAX_DEPTH)
			r = find_modules(sc, sub, p, q, depth + 1, found);
	}
	return r;
}
static int scan_modules(struct settle_scan *sc, size_t i, int fd)
{
	_cleanup_free_ char *mpath = settle_join(sc->st.gitdirs[i].path, "modules");
	int r;

	if (!mpath)
		return -ENOMEM;
	_cleanup_close_ int mods = open_folder(sc, fd, "modules", mpath);
	if (mods == -ENOENT || mods == -ECANCELED)
		return 0;
	if (mods < 0)
		return mods == -ENOMEM ? mods : unseen(sc, mpath, strerror(-mods));
	r = find_modules(sc, mods, mpath, "", 0, &sc->st.gitdirs[i].modules);
	if (r < 0 && r != -ENOMEM && r != -E2BIG)
		return unseen(sc, mpath, strerror(-r));
	for (size_t k = 0; r >= 0 && k < sc->st.gitdirs[i].modules.n; k++) {
		_cleanup_free_ char *p = settle_join(mpath, sc->st.gitdirs[i].modules.v[k]);
		r = p ? add_gitdir(sc, p, SETTLE_GITDIR_MODULE, NULL) : -ENOMEM;
	}
	return r;
}

/* The object format the git directory's common config names, for its
 * index: read without includes, as git's repository format check reads it. */
static int hash_entry(const struct gitcfg_entry *e, void *userdata)
{
	enum gitindex_hash *hash = userdata;

	if (strcmp(e->name, "extensions.objectformat") == 0)
		*hash = e->value && strcmp(e->value, "sha256") == 0 ? GITINDEX_SHA256 : GITINDEX_SHA1;
	return 0;
}

static enum gitindex_hash object_format(int rootfd, const struct settle_gitdir *g)
{
	_cleanup_free_ char *common = strdup(g->path), *config = NULL;
	enum gitindex_hash hash = GITINDEX_SHA1;
	struct git_blob b = {0};
	char *cut;

	if (!common)
		return hash;
	if (g->kind == SETTLE_GITDIR_LINKED && (cut = strstr(common, "/worktrees/")))
		*cut = '\0';
	config = settle_join(common, "config");
	if (config && gitread_file(rootfd, config, GITREAD_SMALL_MAX, &b) == 0)
		gitcfg_parse(b.data, b.len, config, hash_entry, &hash, NULL);
	git_blob_free(&b);
	return hash;
}

static int scan_gitlinks(struct settle_scan *sc, int rootfd, struct settle_gitdir *g, int fd)
{
	struct gitindex_submodules subs = {0};
	struct gitindex_error err = {0};
	int r = gitindex_read_submodules(fd, "index", g->path, object_format(rootfd, g), &subs, &err);

	if (r == -ENOENT)
		return 0;
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return settle_names_add(&sc->bad_indexes, g->path, strlen(g->path));
	for (size_t i = 0; r >= 0 && i < subs.n; i++)
		r = settle_names_add(&g->gitlinks, subs.paths[i], strlen(subs.paths[i]));
	gitindex_submodules_free(&subs);
	return r < 0 ? r : 0;
}

static int scan_worktrees(struct settle_scan *sc, size_t i, int fd)
{
	int r = list_folder(sc, fd, "worktrees", sc->st.gitdirs[i].path, &sc->st.gitdirs[i].worktrees);
	_cleanup_free_ char *wpath = settle_join(sc->st.gitdirs[i].path, "worktrees");
	_cleanup_close_ int wfd = r >= 0 && sc->st.gitdirs[i].worktrees.n ? openat(fd, "worktrees", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;

	if (!wpath)
		return -ENOMEM;
	for (size_t k = 0; r >= 0 && wfd >= 0 && k < sc->st.gitdirs[i].worktrees.n; k++) {
		_cleanup_free_ char *p = settle_join(wpath, sc->st.gitdirs[i].worktrees.v[k]);
		if (!p)
			return -ENOMEM;
		_cleanup_close_ int sub = open_folder(sc, wfd, sc->st.gitdirs[i].worktrees.v[k], p);
		if (sub >= 0 || sub == -ECANCELED)
			r = add_gitdir(sc, p, SETTLE_GITDIR_LINKED, NULL);
		else if (sub != -ENOENT)
			r = sub == -ENOMEM ? sub : unseen(sc, p, strerror(-sub));
	}
	return r;
}

/* Fills the git directory I, whose modules and worktrees join the list. */
/* Opens the git directory G. A .git folder is opened as the walk opens a
 * folder (the walk stops at it): the others were, where they were found. */
static int open_gitdir(struct settle_scan *sc, int rootfd, const struct settle_gitdir *g)
{
	const char *slash = strrchr(g->path, '/');
	_cleanup_free_ char *parent = NULL;

	if (g->kind != SETTLE_GITDIR_DOTGIT)
		return safe_openat(rootfd, *g->path ? g->path : ".", O_RDONLY | O_DIRECTORY, 0);
	parent = slash ? strndup(g->path, (size_t)(slash - g->path)) : strdup(".");
	if (!parent)
		return -ENOMEM;
	_cleanup_close_ int at = safe_openat(rootfd, parent, O_PATH | O_DIRECTORY, 0);
	return at < 0 ? at : open_folder(sc, at, ".git", g->path);
}

static int scan_gitdir(struct settle_scan *sc, int rootfd, size_t i)
{
	struct settle_gitdir *g = &sc->st.gitdirs[i];
	_cleanup_close_ int fd = open_gitdir(sc, rootfd, g);
	struct stat st;
	int r;

	if (fd == -ENOMEM)
		return fd;
	if (fd == -ECANCELED)
		return 0;
	if (fd < 0 || fstat(fd, &st) < 0)
		return unseen(sc, g->path, strerror(fd < 0 ? -fd : errno));
	g->dev = st.st_dev;
	g->ino = st.st_ino;
	g->config_print = file_print(fd, "config");
	g->todo_print = file_print(fd, "rebase-merge/git-rebase-todo");
	g->sequencer_print = file_print(fd, "sequencer/todo");
	r = list_folder(sc, fd, "hooks", g->path, &g->hooks);
	if (r >= 0 && g->served)
		r = scan_gitlinks(sc, rootfd, g, fd);
	/* A linked worktree's folder has neither (git reads the common
	 * directory's); adding git directories may move G. */
	if (r >= 0 && g->kind != SETTLE_GITDIR_LINKED)
		r = scan_modules(sc, i, fd);
	if (r >= 0 && sc->st.gitdirs[i].kind != SETTLE_GITDIR_LINKED)
		r = scan_worktrees(sc, i, fd);
	return r;
}

int settle_scan(int rootfd, const char *dir, struct settle_scan *sc, char **errmsg)
{
	struct walk w = {.sc = sc, .rootfd = rootfd, .dir = dir};
	_cleanup_close_ int fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	int r;

	*errmsg = NULL;
	if (fd < 0 || fstat(fd, &st) < 0)
		return asprintf(errmsg, "cannot read '%s': %m", dir) < 0 ? -ENOMEM : negative_errno();
	sc->st.version = SETTLE_STATE_VERSION;
	sc->st.dev = st.st_dev;
	sc->st.ino = st.st_ino;
	sc->st.dir = strdup(dir);
	if (!sc->st.dir)
		return -ENOMEM;
	r = walk_folder(&w, fd, "", 0);
	for (size_t i = 0; r >= 0 && i < sc->st.n_gitdirs; i++)
		r = scan_gitdir(sc, rootfd, i);
	if (r == -E2BIG && asprintf(errmsg, "'%s' holds more entries or git directories than the settler reads", dir) < 0)
		return -ENOMEM;
	if (r < 0 && !*errmsg && asprintf(errmsg, "cannot read '%s': %s", dir, strerror(-r)) < 0)
		return -ENOMEM;
	return r;
}

void settle_scan_done(struct settle_scan *sc)
{
	for (size_t i = 0; i < sc->st.n_gitdirs; i++)
		free(sc->worktree_of ? sc->worktree_of[i] : NULL);
	free(sc->worktree_of);
	settle_names_done(&sc->bad_indexes);
	settle_names_done(&sc->unseen);
	settle_state_done(&sc->st);
}
