/* The live tracker's table of followed folders and its dispatch: which
 * event concerns which folder (git/model-live.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "common/safe-open.h"
#include "git/model-live.h"
#include "policy/audit.h"

static uint64_t id_hash(struct policy_id id)
{
	return XXH3_64bits(&id, sizeof(id));
}

static bool id_equal(struct policy_id a, struct policy_id b)
{
	return a.dev == b.dev && a.ino == b.ino;
}

/* The record of ID, a removed one too. */
static struct live_folder *find_any(struct model_live *l, struct policy_id id)
{
	if (!l->slots)
		return NULL;
	for (size_t at = id_hash(id) & l->mask;; at = (at + 1) & l->mask) {
		uint32_t slot = l->slots[at];

		if (slot == 0)
			return NULL;
		if (id_equal(l->folders[slot - 1]->id, id))
			return l->folders[slot - 1];
	}
}

struct live_folder *live_find(struct model_live *l, struct policy_id id)
{
	struct live_folder *f = find_any(l, id);

	return f && f->kind != LIVE_GONE ? f : NULL;
}

static void slot_in(uint32_t *slots, size_t mask, struct policy_id id, uint32_t value)
{
	size_t at = id_hash(id) & mask;

	while (slots[at])
		at = (at + 1) & mask;
	slots[at] = value;
}

/* Room for one more folder, the slots kept at most half full. */
static int grow(struct model_live *l)
{
	size_t cap = l->slots ? l->mask + 1 : 64;
	struct live_folder **folders = reallocarray(l->folders, l->n_folders + 1, sizeof(*folders));
	uint32_t *slots;

	if (!folders)
		return -ENOMEM;
	l->folders = folders;
	if (l->slots && (l->n_folders + 1) * 2 <= cap)
		return 0;
	while ((l->n_folders + 1) * 2 > cap)
		cap *= 2;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_folders; i++)
		slot_in(slots, cap - 1, l->folders[i]->id, (uint32_t)i + 1);
	free(l->slots);
	l->slots = slots;
	l->mask = cap - 1;
	return 0;
}

/* A removed record's id came back for a new entry. */
static struct live_folder *reuse(struct live_folder *f, const char *path, enum live_kind kind)
{
	char *copy = strdup(path);

	if (!copy)
		return NULL;
	free(f->path);
	free(f->name);
	free(f->danger);
	gitindex_submodules_free(&f->subs);
	*f = (struct live_folder){.id = f->id, .kind = kind, .path = copy};
	return f;
}

static void free_folder(struct live_folder *f)
{
	free(f->path);
	free(f->name);
	free(f->danger);
	gitindex_submodules_free(&f->subs);
	free(f);
}

/* Drops the removed records and their slots: the bound is on what is
 * followed at once, and a removed folder gives its place back. */
static void drop_gone(struct model_live *l)
{
	size_t kept = 0;

	for (size_t i = 0; i < l->n_folders; i++) {
		if (l->folders[i]->kind == LIVE_GONE)
			free_folder(l->folders[i]);
		else
			l->folders[kept++] = l->folders[i];
	}
	if (kept == l->n_folders)
		return;
	l->n_folders = kept;
	memset(l->slots, 0, (l->mask + 1) * sizeof(*l->slots));
	for (size_t i = 0; i < kept; i++)
		slot_in(l->slots, l->mask, l->folders[i]->id, (uint32_t)i + 1);
}

struct live_folder *live_follow_id(struct model_live *l, struct policy_id id, const char *path, enum live_kind kind)
{
	_cleanup_free_ struct live_folder *f = NULL;
	struct live_folder *followed = find_any(l, id);

	if (followed && followed->kind != LIVE_GONE)
		return followed;
	if (followed)
		return reuse(followed, path, kind);
	if (l->n_folders >= LIVE_MAX_FOLDERS)
		drop_gone(l);
	if (l->n_folders >= LIVE_MAX_FOLDERS) {
		if (!l->full)
			live_event(l, "untracked", path, "more than %d folders to follow: the settler alone looks at the rest",
			           LIVE_MAX_FOLDERS);
		l->full = true;
		return NULL;
	}
	l->full = false; /* room again: the next fill is said again */
	f = calloc(1, sizeof(*f));
	if (!f || grow(l) < 0)
		return NULL;
	*f = (struct live_folder){.id = id, .kind = kind, .path = strdup(path)};
	if (!f->path)
		return NULL;
	l->folders[l->n_folders++] = f;
	slot_in(l->slots, l->mask, f->id, (uint32_t)l->n_folders);
	return TAKE_PTR(f);
}

struct live_folder *live_follow(struct model_live *l, int fd, const char *path, enum live_kind kind)
{
	struct stat st;

	return fstat(fd, &st) < 0 ? NULL : live_follow_id(l, model_id(&st), path, kind);
}

static int id_compare(const void *a, const void *b)
{
	const struct policy_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

bool live_is_known(const struct model_live *l, struct policy_id id)
{
	return l->known.n && bsearch(&id, l->known.ids, l->known.n, sizeof(id), id_compare);
}

void live_event(struct model_live *l, const char *event, const char *path, const char *fmt, ...)
{
	_cleanup_free_ char *reason = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&reason, fmt, ap) < 0)
		reason = NULL;
	va_end(ap);
	audit_event(l->audit, event, path, reason ? reason : "(out of memory)");
}

/* A git directory there at start: what it serves is looked at on a new
 * index, and its modules and worktrees folders for new git directories. */
static void follow_known(struct model_live *l, const struct model_found_dir *d, struct model_found *found)
{
	_cleanup_close_ int fd = safe_openat(l->rootfd, d->path, O_PATH | O_DIRECTORY, 0);
	struct live_folder *f;

	if (fd < 0)
		return;
	f = live_follow(l, fd, d->path, LIVE_KNOWN);
	if (!f)
		return;
	f->gitdir_kind = d->kind;
	for (size_t i = 0; i < found->n_indexes; i++) {
		struct model_found_index *x = &found->indexes[i];

		if (strcmp(x->gitdir, d->path) != 0)
			continue;
		f->served = true;
		f->hash = x->hash;
		f->index_print = x->print;
		gitindex_submodules_free(&f->subs); /* a git directory that serves two work trees */
		f->subs = x->subs;
		x->subs = (struct gitindex_submodules){0};
		live_sort_subs(&f->subs);
	}
	live_look_new(l, f, fd, "modules");
	live_look_new(l, f, fd, "worktrees");
}

static int copy_known(struct model_live *l, const struct model_gitdirs *known)
{
	if (!known->n)
		return 0;
	l->known.ids = reallocarray(NULL, known->n, sizeof(*known->ids));
	if (!l->known.ids)
		return -ENOMEM;
	memcpy(l->known.ids, known->ids, known->n * sizeof(*known->ids));
	l->known.n = known->n;
	qsort(l->known.ids, l->known.n, sizeof(*l->known.ids), id_compare);
	return 0;
}

int model_live_new(const struct model_live_start *start, struct model_live **out)
{
	struct model_live *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	pthread_mutex_init(&l->lock, NULL);
	l->rootfd = start->rootfd;
	l->tree = strdup(start->tree);
	l->home = start->home ? strdup(start->home) : NULL;
	l->seen_as = start->seen_as ? strdup(start->seen_as) : NULL;
	if (!l->tree || (start->home && !l->home) || (start->seen_as && !l->seen_as) || copy_known(l, start->known) < 0) {
		model_live_free(l);
		return -ENOMEM;
	}
	l->starting = true;
	for (size_t i = 0; i < start->found->n_dirs; i++)
		follow_known(l, &start->found->dirs[i], start->found);
	l->starting = false;
	*out = l;
	return 0;
}

void model_live_free(struct model_live *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n_folders; i++)
		free_folder(l->folders[i]);
	free(l->folders);
	free(l->slots);
	free(l->known.ids);
	free(l->tree);
	free(l->seen_as);
	free(l->home);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

void model_live_set_audit(struct model_live *l, struct audit *a)
{
	l->audit = a;
}

/* Names that make a folder a repository wherever they appear: .git, and the
 * three of a bare layout. */
static bool repository_name(const char *name)
{
	return strcmp(name, ".git") == 0 || strcmp(name, "HEAD") == 0 || strcmp(name, "objects") == 0 ||
	       strcmp(name, "refs") == 0;
}

bool model_live_follows(struct model_live *l, struct policy_id parent, const char *name)
{
	bool follows;

	if (repository_name(name))
		return true;
	pthread_mutex_lock(&l->lock);
	follows = live_find(l, parent) != NULL;
	pthread_mutex_unlock(&l->lock);
	return follows;
}

/* The folder FD's tree-relative path as it is now ("" for the root), or
 * NULL when it is no longer in the tree. */
static char *path_now(const struct model_live *l, int fd)
{
	_cleanup_free_ char *abs = NULL;
	size_t tree_len = strlen(l->tree);

	if (model_fd_path(fd, &abs) < 0 || strncmp(abs, l->tree, tree_len) != 0 ||
	    (abs[tree_len] != '/' && abs[tree_len] != '\0'))
		return NULL;
	return strdup(abs[tree_len] ? abs + tree_len + 1 : "");
}

static bool has_entry(int fd, const char *name, mode_t type)
{
	struct stat st;

	return fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == type;
}

/* A folder that holds HEAD, objects and refs is a git directory to git (a
 * bare repository when someone runs git in it). */
static void look_bare(struct model_live *l, int fd, struct policy_id id)
{
	_cleanup_free_ char *path = NULL;

	if (live_is_known(l, id) || !has_entry(fd, "HEAD", S_IFREG) || !has_entry(fd, "objects", S_IFDIR) ||
	    !has_entry(fd, "refs", S_IFDIR))
		return;
	path = path_now(l, fd);
	if (path)
		live_track_gitdir(l, fd, path, MODEL_GITDIR_REPO, "a bare repository's layout made during the mount");
}

static void look_followed(struct model_live *l, struct live_folder *f, int fd, const char *name)
{
	switch (f->kind) {
	case LIVE_KNOWN:
		if (strcmp(name, "index") == 0 && f->served)
			live_look_index(l, f, fd);
		else
			live_look_new(l, f, fd, name);
		break;
	case LIVE_MODULES:
	case LIVE_WORKTREES:
		live_look_modules_entry(l, f, fd, name);
		break;
	case LIVE_NEW:
		live_look_new(l, f, fd, name);
		break;
	case LIVE_HOOKS:
		live_look_hook(l, f, fd, name);
		break;
	case LIVE_FILE: /* not a folder: dispatch() drops these */
	case LIVE_GONE:
		break;
	}
}

/* Called with the lock held. */
static void dispatch(struct model_live *l, int parentfd, struct policy_id parent, const char *name)
{
	struct live_folder *f = live_find(l, parent);

	/* A file's record, or a gone one, under a folder's identity is stale
	 * (its number was given again, say after a change outside the mount):
	 * the folder is looked at as one nobody follows. */
	if (f && (f->kind == LIVE_FILE || f->kind == LIVE_GONE))
		f = NULL;
	if (f)
		look_followed(l, f, parentfd, name);
	else if (strcmp(name, ".git") == 0) {
		_cleanup_free_ char *path = path_now(l, parentfd);

		if (path)
			live_look_dotgit(l, parentfd, path);
	} else if (repository_name(name))
		look_bare(l, parentfd, parent);
}

void model_live_note(struct model_live *l, int parentfd, struct policy_id parent, const char *name)
{
	pthread_mutex_lock(&l->lock);
	dispatch(l, parentfd, parent, name);
	pthread_mutex_unlock(&l->lock);
}

/* PATH with its prefix FROM (a folder) made TO; false when it is not below FROM. */
static bool moved(char **path, const char *from, const char *to)
{
	size_t n = strlen(from);
	char *now;

	if (strncmp(*path, from, n) != 0 || ((*path)[n] != '/' && (*path)[n] != '\0'))
		return false;
	if (asprintf(&now, "%s%s", to, *path + n) < 0)
		return false;
	free(*path);
	*path = now;
	return true;
}

/* PARENTFD's path now, joined with NAME. */
static char *entry_path(const char *folder, const char *name)
{
	char *path;

	if ((*folder ? asprintf(&path, "%s/%s", folder, name) : asprintf(&path, "%s", name)) < 0)
		return NULL;
	return path;
}

/* A followed file renamed itself: its folder and name are the new ones. */
static void file_moved(struct live_folder *f, const char *oldfolder, const char *oldname, const char *newfolder,
                       const char *newname)
{
	char *path, *name;

	if (strcmp(f->path, oldfolder) != 0 || strcmp(f->name, oldname) != 0)
		return;
	path = strdup(newfolder);
	name = strdup(newname);
	if (!path || !name) {
		free(path);
		free(name);
		return;
	}
	free(f->path);
	free(f->name);
	f->path = path;
	f->name = name;
}

void model_live_renamed(struct model_live *l, int oldparentfd, const char *oldname, int newparentfd,
                        const char *newname, struct policy_id obj, bool is_dir)
{
	_cleanup_free_ char *oldfolder = NULL, *newfolder = NULL, *from = NULL, *to = NULL;
	struct live_folder *self;

	pthread_mutex_lock(&l->lock);
	self = live_find(l, obj);
	/* Only a folder holds followed ones; a file matters when it is followed. */
	if ((is_dir || (self && self->kind == LIVE_FILE)) && l->n_folders && (oldfolder = path_now(l, oldparentfd)) && (newfolder = path_now(l, newparentfd))) {
		from = entry_path(oldfolder, oldname);
		to = entry_path(newfolder, newname);
	}
	for (size_t i = 0; from && to && i < l->n_folders; i++) {
		struct live_folder *f = l->folders[i];

		if (f->kind == LIVE_FILE)
			file_moved(f, oldfolder, oldname, newfolder, newname);
		if (f->kind != LIVE_GONE)
			moved(&f->path, from, to);
	}
	pthread_mutex_unlock(&l->lock);
}

void model_live_forget(struct model_live *l, struct policy_id id)
{
	struct live_folder *f;

	pthread_mutex_lock(&l->lock);
	f = live_find(l, id);
	if (f)
		f->kind = LIVE_GONE;
	pthread_mutex_unlock(&l->lock);
}

bool model_live_follows_file(struct model_live *l, struct policy_id id)
{
	struct live_folder *f;
	bool follows;

	pthread_mutex_lock(&l->lock);
	f = live_find(l, id);
	follows = f && f->kind == LIVE_FILE;
	pthread_mutex_unlock(&l->lock);
	return follows;
}

/* The file F was written in place: looked at as if made again. */
static void look_written(struct model_live *l, const struct live_folder *f)
{
	_cleanup_close_ int fd = safe_openat(l->rootfd, f->path[0] ? f->path : ".", O_PATH | O_DIRECTORY, 0);
	_cleanup_free_ char *name = strdup(f->name);
	struct stat st;

	if (fd >= 0 && name && fstat(fd, &st) == 0)
		dispatch(l, fd, model_id(&st), name);
}

void model_live_note_written(struct model_live *l, struct policy_id id)
{
	struct live_folder *f;

	pthread_mutex_lock(&l->lock);
	f = live_find(l, id);
	if (f && f->kind == LIVE_FILE)
		look_written(l, f);
	pthread_mutex_unlock(&l->lock);
}
