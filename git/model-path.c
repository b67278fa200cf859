/* One protected tree-relative path (an editor or agent path, or one of
 * [protect]): anchors on the way, the object itself, or the missing name. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/model-internal.h"

/* A missing name. The last component may never appear; a folder on the way
 * may appear only as an empty folder made by mkdir (.vscode for
 * .vscode/tasks.json), and the model is told so that it protects the next
 * name in it. */
static int protect_missing(struct model_build *mb, struct policy_id parent, const char *name, bool last,
			   const char *path, const char *reason, const char *anchor_reason)
{
	int r;

	if (last)
		return policy_builder_protect_missing(mb->b, parent, name, POLICY_MISSING_NONE, path, reason);
	r = policy_builder_protect_missing(mb->b, parent, name, POLICY_MISSING_MKDIR_OK, path, anchor_reason);
	if (r < 0)
		return r;
	return policy_builder_watch(mb->b, parent, name);
}

/* What lies on the way. A folder is an anchor and the walk goes on (returns
 * the fd); a link refuses; anything else is an anchor too, so it cannot be
 * replaced by a folder that already holds the protected name, and the walk
 * stops there (returns -ENOTDIR). */
static int step_on_the_way(struct model_build *mb, int at, const char *name, const struct stat *st,
			   const char *path, const char *anchor_reason)
{
	struct stat opened;
	int fd, r;

	if (S_ISLNK(st->st_mode))
		return model_refuse_type(mb, st, path);
	if (!S_ISDIR(st->st_mode)) {
		r = policy_builder_protect(mb->b, model_id(st), POLICY_ANCHOR, path, anchor_reason);
		return r < 0 ? r : -ENOTDIR;
	}
	fd = model_open_dir(mb, at, name, path, &opened);
	if (fd < 0)
		return fd;
	r = policy_builder_protect(mb->b, model_id(&opened), POLICY_ANCHOR, path, anchor_reason);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

static int anchor_root(struct model_build *mb, const char *anchor_reason)
{
	struct stat st;

	if (fstat(mb->rootfd, &st) < 0)
		return model_fail(mb, negative_errno(), "cannot look at the tree: %m");
	return policy_builder_protect(mb->b, model_id(&st), POLICY_ANCHOR, ".", anchor_reason);
}

int model_protect_path(struct model_build *mb, const char *path, const char *reason)
{
	_cleanup_free_ char *anchor_reason = NULL;
	_cleanup_close_ int cur = -1;
	char so_far[PATH_MAX] = "";
	const char *p = path;
	int at = mb->rootfd, r;

	if (asprintf(&anchor_reason, "on the way to %s: %s", path, reason) < 0)
		return -ENOMEM;
	r = anchor_root(mb, anchor_reason);
	while (r >= 0) {
		size_t n = strcspn(p, "/"), len = strlen(so_far);
		bool last = p[n] == '\0';
		char name[NAME_MAX + 1];
		struct stat st, parent;

		/* The config normalised the path: no empty, '.' or '..' parts. */
		if (n > NAME_MAX || len + 1 + n >= sizeof(so_far))
			return model_fail(mb, -ENAMETOOLONG, "'%s' is too long", path);
		memcpy(name, p, n);
		name[n] = '\0';
		r = model_stat(mb, at, name, so_far, &st);
		snprintf(so_far + len, sizeof(so_far) - len, "%s%s", len ? "/" : "", name);
		if (r == -ENOENT) {
			if (fstat(at, &parent) < 0)
				return negative_errno();
			return protect_missing(mb, model_id(&parent), name, last, so_far, reason, anchor_reason);
		}
		if (r < 0)
			return r;
		if (last)
			return model_protect_existing(mb, at, name, &st, so_far, reason);
		r = step_on_the_way(mb, at, name, &st, so_far, anchor_reason);
		if (r == -ENOTDIR)
			return 0;
		if (r >= 0) {
			closep(&cur);
			at = cur = r;
			p += n + 1;
		}
	}
	return r;
}

int model_open_anchored(struct model_build *mb, const char *path, const char *reason, struct stat *st)
{
	_cleanup_close_ int cur = -1;
	char so_far[PATH_MAX] = "";
	const char *p = path;
	int r = anchor_root(mb, reason);

	if (r < 0)
		return r;
	if (fstat(mb->rootfd, st) < 0)
		return negative_errno();
	cur = openat(mb->rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return negative_errno();
	while (*p) {
		size_t n = strcspn(p, "/"), len = strlen(so_far);
		char name[NAME_MAX + 1];

		/* discover_resolve() made PATH: no empty, '.' or '..' parts. */
		if (n > NAME_MAX || len + 1 + n >= sizeof(so_far))
			return model_fail(mb, -ENAMETOOLONG, "'%s' is too long", path);
		memcpy(name, p, n);
		name[n] = '\0';
		r = model_stat(mb, cur, name, so_far, st);
		snprintf(so_far + len, sizeof(so_far) - len, "%s%s", len ? "/" : "", name);
		if (r < 0)
			return r;
		if (!S_ISDIR(st->st_mode))
			return model_fail(mb, S_ISLNK(st->st_mode) ? -ELOOP : -ENOTDIR,
					  "'%s' is %s on the way to '%s': oz0fs reads no git directory through it; "
					  "remove it",
					  so_far, S_ISLNK(st->st_mode) ? "a symbolic link" : "not a folder", path);
		r = step_on_the_way(mb, cur, name, st, so_far, reason);
		if (r < 0)
			return r;
		closep(&cur);
		cur = r;
		if (fstat(cur, st) < 0)
			return negative_errno();
		p += n + (p[n] == '/');
	}
	return TAKE_FD(cur);
}
