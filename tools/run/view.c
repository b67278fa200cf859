#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/run/credentials.h"
#include "tools/run/dev.h"
#include "tools/run/mounts.h"
#include "tools/run/view.h"

/* The tmpfs folders the view puts over the root, outer ones first. */
struct cover {
	const char *path;
	mode_t mode;
	bool ro; /* turned read-only once what goes inside it is in place */
	int fd;  /* its root once attached, else -1 */
};

struct builder {
	const struct run_view *v;
	struct cover covers[6];
	size_t n_covers;
	const struct cover *run; /* the first private tmpfs: the home and audit go there */
	char **errmsg;
};

static int fail(struct builder *b, int k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct builder *b, int k, const char *fmt, ...)
{
	_cleanup_free_ char *what = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		what = NULL;
	va_end(ap);
	if (asprintf(b->errmsg, "%s: %s", what ? what : "the sandbox's mounts", strerror(-k)) < 0)
		*b->errmsg = NULL;
	return k;
}

/* The cover PATH lies in, when it was made by the view. */
static const struct cover *cover_of(const struct builder *b, const char *path)
{
	const struct cover *in = NULL;

	for (size_t i = 0; i < b->n_covers; i++)
		if (b->covers[i].fd >= 0 && mounts_path_within(path, b->covers[i].path))
			in = &b->covers[i];
	return in;
}

/* The O_PATH descriptor of PATH as the view stands: inside a cover the
 * view made, the folders (or, when FILE, the file) are made there. */
static int place(const struct builder *b, const char *path, bool file)
{
	const struct cover *c = cover_of(b, path);
	const char *rest;

	if (!c)
		return mounts_open(path);
	rest = path + strlen(c->path);
	while (*rest == '/')
		rest++;
	if (!*rest)
		return mounts_open_at(c->fd, ".");
	return file ? mounts_make_file(c->fd, rest) : mounts_make_dirs(c->fd, rest);
}

static void add_cover(struct builder *b, const char *path, mode_t mode, bool ro)
{
	struct stat st;

	/* nothing inside the tree is hidden, and a folder the machine lacks
	 * needs no cover */
	if (!path || mounts_path_within(path, b->v->tree) || stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	for (size_t i = 0; i < b->n_covers; i++)
		if (strcmp(b->covers[i].path, path) == 0)
			return;
	b->covers[b->n_covers++] = (struct cover){.path = path, .mode = mode, .ro = ro, .fd = -1};
}

static int by_length(const void *x, const void *y)
{
	const struct cover *a = x, *c = y;
	size_t la = strlen(a->path), lc = strlen(c->path);

	return la < lc ? -1 : la > lc;
}

static int attach_covers(struct builder *b)
{
	qsort(b->covers, b->n_covers, sizeof(b->covers[0]), by_length);
	for (size_t i = 0; i < b->n_covers; i++) {
		struct cover *c = &b->covers[i];
		_cleanup_close_ int at = place(b, c->path, false);
		_cleanup_close_ int m = -1;
		int k;

		if (at < 0)
			return fail(b, at, "cannot reach %s without a link", c->path);
		m = mounts_new_tmpfs(c->mode, false);
		if (m < 0)
			return fail(b, m, "cannot make a tmpfs for %s", c->path);
		if ((k = mounts_attach(m, at)) < 0)
			return fail(b, k, "cannot mount a tmpfs on %s", c->path);
		c->fd = mounts_open(c->path);
		if (c->fd < 0)
			return fail(b, c->fd, "cannot open %s", c->path);
		if (strcmp(c->path, "/tmp") == 0 || (!b->run && strcmp(c->path, "/dev/shm") == 0))
			b->run = c;
	}
	return 0;
}

/* Attaches the detached mount M at PATH. A detached mount is attached
 * once: a second place gets a copy of the first (copy_of()). */
static int attach_at(struct builder *b, int m, const char *path, bool file)
{
	_cleanup_close_ int own = m;
	_cleanup_close_ int at = place(b, path, file);
	int k;

	if (at < 0)
		return fail(b, at, "cannot reach %s without a link", path);
	k = mounts_attach(own, at);
	return k < 0 ? fail(b, k, "cannot mount on %s", path) : 0;
}

/* An empty file on a read-only tmpfs of its own in the run's folder, to
 * cover credential files: one in a folder the command can write would not
 * stay empty. */
static int empty_file(struct builder *b)
{
	_cleanup_free_ char *at = NULL;
	_cleanup_close_ int fs = mounts_new_tmpfs(0555, false);
	_cleanup_close_ int f = -1;
	int k;

	if (fs < 0)
		return fail(b, fs, "cannot make a tmpfs");
	f = openat(fs, "empty", O_CREAT | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (f < 0)
		return fail(b, negative_errno(), "cannot make an empty file");
	close(TAKE_FD(f)); /* a writer open on the mount keeps it from turning read-only */
	if ((k = mounts_set_readonly(fs, true, false)) < 0)
		return fail(b, k, "cannot make a tmpfs read-only");
	if (asprintf(&at, "%s/.oz0run/blank", b->run->path) < 0)
		return -ENOMEM;
	if ((k = attach_at(b, TAKE_FD(fs), at, false)) < 0)
		return k;
	free(at);
	if (asprintf(&at, "%s/.oz0run/blank/empty", b->run->path) < 0) {
		at = NULL;
		return -ENOMEM;
	}
	k = mounts_open(at);
	return k < 0 ? fail(b, k, "cannot open %s", at) : k;
}

/* TREE relative to HOME when it lies below it, else NULL. */
static const char *tree_below(const char *home, const char *tree)
{
	size_t n = strlen(home);

	if (strcmp(home, "/") == 0)
		return tree + 1;
	return strncmp(tree, home, n) == 0 && tree[n] == '/' ? tree + n + 1 : NULL;
}

static int hide_credentials(struct builder *b, const char *home)
{
	_cleanup_close_ int fd = mounts_open(home);
	_cleanup_close_ int empty = -1;
	const char *failed = "";
	int k;

	if (fd < 0)
		return fail(b, fd, "cannot open the home %s", home);
	empty = empty_file(b);
	if (empty < 0)
		return empty;
	k = credentials_hide(fd, empty, tree_below(home, b->v->tree), &failed);
	return k < 0 ? fail(b, k, "cannot hide %s/%s", home, failed) : 0;
}

/* The command's home: --home DIR at its own path (a copy of its mount,
 * attached before the tree so that it never covers the oz0fs mount; one in
 * the tree is the tree's, seen through the mount, where nothing is hidden),
 * else a new empty folder in the run's tmpfs. */
static int attach_home(struct builder *b, int home_mount, struct run_view_paths *out)
{
	const char *home = b->v->home;
	int k;

	if (home && mounts_path_within(home, b->v->tree)) {
		out->home = strdup(home);
	} else if (home) {
		if ((k = attach_at(b, home_mount, home, false)) < 0 || (k = hide_credentials(b, home)) < 0)
			return k;
		out->home = strdup(home);
	} else {
		_cleanup_close_ int fd = -1;

		if (asprintf(&out->home, "%s/.oz0run/home", b->run->path) < 0)
			return -ENOMEM;
		fd = place(b, out->home, false);
		if (fd < 0)
			return fail(b, fd, "cannot make a home in %s", b->run->path);
		if (fchownat(fd, "", b->v->uid, b->v->gid, AT_EMPTY_PATH) < 0)
			return fail(b, negative_errno(), "cannot give the new home to its user");
	}
	return out->home ? 0 : -ENOMEM;
}

/* The node user's hidden home turns read-only once what lies in it (the
 * tree, the home, a workspace) is mounted. */
static int seal_covers(struct builder *b)
{
	for (size_t i = 0; i < b->n_covers; i++) {
		int k;
		if (b->covers[i].fd >= 0 && b->covers[i].ro && (k = mounts_set_readonly(b->covers[i].fd, true, false)) < 0)
			return fail(b, k, "cannot make %s read-only", b->covers[i].path);
	}
	return 0;
}

static int show_audit(struct builder *b, int audit_mount, struct run_view_paths *out)
{
	if (audit_mount < 0)
		return 0;
	if (asprintf(&out->audit, "%s/.oz0run/audit", b->run->path) < 0) {
		out->audit = NULL;
		return -ENOMEM;
	}
	return attach_at(b, audit_mount, out->audit, true);
}

/* A detached copy of the mount at PATH (read-only when RO), or -1 for no PATH. */
static int copy_of(struct builder *b, const char *path, bool ro)
{
	_cleanup_close_ int fd = -1;
	int m, k;

	if (!path)
		return -1;
	fd = mounts_open(path);
	if (fd < 0)
		return fail(b, fd, "cannot open %s without a link", path);
	m = mounts_clone(fd, true);
	if (m < 0)
		return fail(b, m, "cannot copy the mount at %s", path);
	k = mounts_set_readonly(m, ro, true);
	if (k < 0) {
		close(m);
		return fail(b, k, "cannot set the mount at %s %s", path, ro ? "read-only" : "read-write");
	}
	return m;
}

static int build_on(struct builder *b, struct run_view_paths *out, int *treep, int *homep, int *auditp,
                    int nodes[RUN_DEV_NODES]);
static int fill_dev(struct builder *b, int nodes[RUN_DEV_NODES]);

static int build(struct builder *b, struct run_view_paths *out)
{
	const struct run_view *v = b->v;
	_cleanup_close_ int tree = -1, home = -1, audit = -1;
	int nodes[RUN_DEV_NODES], k;

	/* copies of what the command sees read-write, taken before the root
	 * turns read-only (the copies keep their own flags) */
	if ((tree = copy_of(b, v->tree, false)) < 0 ||
	    (v->home && !mounts_path_within(v->home, v->tree) && (home = copy_of(b, v->home, false)) < 0) ||
	    (v->audit_file && (audit = copy_of(b, v->audit_file, true)) < 0))
		return -EIO;
	run_dev_capture(nodes);
	k = build_on(b, out, &tree, &home, &audit, nodes);
	for (size_t i = 0; i < RUN_DEV_NODES; i++)
		if (nodes[i] >= 0)
			close(nodes[i]);
	return k;
}

/* The rest of build(), once the copies are taken. */
static int build_on(struct builder *b, struct run_view_paths *out, int *treep, int *homep, int *auditp,
                    int nodes[RUN_DEV_NODES])
{
	const struct run_view *v = b->v;
	_cleanup_close_ int root = mounts_open("/");
	int tree = *treep, home = *homep, audit = *auditp, k;

	*treep = *homep = *auditp = -1;
	if (root < 0 || (k = mounts_set_readonly(root, true, true)) < 0)
		return fail(b, root < 0 ? root : k, "cannot make the root read-only");
	add_cover(b, "/dev", 0755, false);
	/* the machine's sockets (the service managers', a container engine's):
	 * a command must not talk to them */
	add_cover(b, "/run", 0755, false);
	add_cover(b, "/tmp", 01777, false);
	add_cover(b, "/dev/shm", 01777, false);
	add_cover(b, v->node_home, 0555, true);
	add_cover(b, v->state_dir, 0555, true); /* a command could remove what a killed run left */
	if ((k = attach_covers(b)) < 0 || (k = fill_dev(b, nodes)) < 0)
		return k;
	if (!b->run)
		return fail(b, -ENOENT, "no private /tmp or /dev/shm for the run's files (the tree holds both)");
	/* outer before inner: the home may hold the tree, never the reverse
	 * (a home in the tree is not mounted) */
	if ((k = attach_home(b, TAKE_FD(home), out)) < 0 || (k = attach_at(b, TAKE_FD(tree), v->tree, false)) < 0)
		return k;
	if (strcmp(v->workspace, v->tree) != 0) {
		if ((tree = copy_of(b, v->tree, false)) < 0 || (k = attach_at(b, TAKE_FD(tree), v->workspace, false)) < 0)
			return k < 0 ? k : -EIO;
	}
	if ((k = show_audit(b, TAKE_FD(audit), out)) < 0)
		return k;
	return seal_covers(b);
}

/* The new /dev, when it was made (not when the tree holds /dev). */
static int fill_dev(struct builder *b, int nodes[RUN_DEV_NODES])
{
	const struct cover *dev = cover_of(b, "/dev");
	const char *failed = "";
	int k;

	if (!dev || strcmp(dev->path, "/dev") != 0)
		return 0;
	k = run_dev_fill(dev->fd, nodes, &failed);
	return k < 0 ? fail(b, k, "cannot make /dev/%s", failed) : 0;
}

int run_view_build(const struct run_view *v, struct run_view_paths *out, char **errmsg)
{
	struct builder b = {.v = v, .errmsg = errmsg};
	int k;

	*out = (struct run_view_paths){0};
	*errmsg = NULL;
	if (unshare(CLONE_NEWNS) < 0)
		return fail(&b, negative_errno(), "cannot make a mount namespace");
	k = build(&b, out);
	for (size_t i = 0; i < b.n_covers; i++)
		if (b.covers[i].fd >= 0)
			close(b.covers[i].fd);
	if (k < 0 && !*errmsg && asprintf(errmsg, "cannot build the sandbox's mounts: %s", strerror(-k)) < 0)
		*errmsg = NULL;
	return k;
}

void run_view_paths_done(struct run_view_paths *p)
{
	free(p->home);
	free(p->audit);
	*p = (struct run_view_paths){0};
}
