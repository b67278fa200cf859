#include "config.h"

/* Reading an index from a git directory: the index file and, when it is
 * split, the sharedindex.<hex> file beside it, each through git/read.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "common/cleanup.h"
#include "git/index.h"
#include "git/read.h"

static void blob_freep(struct git_blob *b)
{
	git_blob_free(b);
}

static const char *read_failure(int r, bool missing_is_failure)
{
	switch (r) {
	case -ENOENT: return missing_is_failure ? "missing" : "no such file";
	case -ELOOP: return "a symbolic link, which we do not follow";
	case -EINVAL: return "not a regular file";
	case -EFBIG: return "larger than 512 MiB";
	case -EXDEV: return "outside the git directory";
	default: return "cannot be read";
	}
}

/* "worktrees/wt/index" -> "worktrees/wt/sharedindex.<hex>": git looks for
 * the shared index beside the index. */
static int sibling(const char *name, const char *leaf, char *out, size_t size)
{
	const char *slash = strrchr(name, '/');
	int dir = slash ? (int)(slash - name + 1) : 0;
	int n = snprintf(out, size, "%.*s%s", dir, name, leaf);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int read_shared(int dirfd, const char *name, const struct git_blob *index,
                       const char *origin, enum gitindex_hash hash, struct git_blob *out,
                       struct gitindex_error *err)
{
	char leaf[GITINDEX_SHARED_NAME_MAX], path[4096];
	int r = gitindex_link(index->data, index->len, origin, hash, leaf, err);

	if (r <= 0)
		return r;
	r = sibling(name, leaf, path, sizeof(path));
	if (r < 0)
		return r;
	r = gitread_file(dirfd, path, GITINDEX_MAX_BYTES, out);
	if (r < 0) {
		*err = (struct gitindex_error){.origin = origin, .shared = true,
		                               .reason = read_failure(r, true)};
		return r == -ENOMEM ? r : -EINVAL;
	}
	return 1;
}

int gitindex_reread_submodules(int dirfd, const char *name, const char *origin, enum gitindex_hash hash,
                               uint64_t *print, struct gitindex_submodules *out, struct gitindex_error *err)
{
	_cleanup_(blob_freep) struct git_blob index = {0}, shared = {0};
	struct gitindex_error ignored;
	struct gitindex_shared sh;
	uint64_t now;
	int r;

	*out = (struct gitindex_submodules){0};
	if (!err)
		err = &ignored;
	*err = (struct gitindex_error){.origin = origin};
	r = gitread_file(dirfd, name, GITINDEX_MAX_BYTES, &index);
	if (r == -ENOENT || r == -ENOMEM)
		return r;
	if (r < 0) {
		err->reason = read_failure(r, false);
		return r == -EFBIG ? r : -EINVAL;
	}
	if (print) {
		now = XXH3_64bits(index.data, index.len);
		if (now == *print)
			return -EALREADY;
		*print = now;
	}
	/* Most indexes are not split: parsed as they are, they are walked once
	 * for validation and once for the gitlinks, not a third time for a link
	 * extension; a split one says it wants its shared index. */
	r = gitindex_parse_submodules(index.data, index.len, origin, hash, NULL, out, err);
	if (r != -ENOENT || !err->shared)
		return r;
	*err = (struct gitindex_error){.origin = origin};
	r = read_shared(dirfd, name, &index, origin, hash, &shared, err);
	if (r < 0)
		return r;
	sh = (struct gitindex_shared){.buf = shared.data, .len = shared.len};
	return gitindex_parse_submodules(index.data, index.len, origin, hash, r ? &sh : NULL, out, err);
}

int gitindex_read_submodules(int dirfd, const char *name, const char *origin, enum gitindex_hash hash,
                             struct gitindex_submodules *out, struct gitindex_error *err)
{
	return gitindex_reread_submodules(dirfd, name, origin, hash, NULL, out, err);
}
