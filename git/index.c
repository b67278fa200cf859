#include "config.h"

/* The index reader's entry points: one index, or a split index and its
 * shared index, validated whole, then its entries handed out in order. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "git/index-internal.h"

static int emit_plain(const struct index_file *f, gitindex_cb cb, void *userdata,
                      struct gitindex_error *err)
{
	struct entry_cursor c;
	struct gitindex_entry e;
	int r, count = 0;

	entry_cursor_init(&c, f);
	while ((r = entry_next(&c, &e, err)) > 0) {
		count++;
		if (cb && (r = cb(&e, userdata)) < 0)
			return r;
	}
	return r < 0 ? r : count;
}

/* Git names the shared index by its checksum, and dies when the file of
 * that name holds another ("broken index, expect ... got ..."). */
static int open_shared(struct index_file *base, const struct index_file *split,
                       const struct gitindex_shared *shared, enum gitindex_hash hash,
                       struct gitindex_error *err)
{
	int r;

	if (!shared) {
		err->shared = true;
		err->reason = "split index given no shared index";
		return -ENOENT;
	}
	r = index_file_open(base, shared->buf, shared->len, hash, INDEX_OPEN_SHARED, err);
	if (r < 0)
		return r;
	if (memcmp(split->link.base_oid, base->buf + base->body_end, base->hash_len) != 0) {
		err->reason = "not the shared index the link names (its checksum differs)";
		return -EINVAL;
	}
	return 0;
}

int gitindex_parse(const char *buf, size_t len, const char *origin, enum gitindex_hash hash,
                   const struct gitindex_shared *shared, gitindex_cb cb, void *userdata,
                   struct gitindex_error *err)
{
	struct gitindex_error ignored;
	struct index_file f, base;
	int r;

	if (!err)
		err = &ignored;
	*err = (struct gitindex_error){.origin = origin};
	r = index_file_open(&f, buf, len, hash, 0, err);
	if (r < 0)
		return r;
	if (!index_file_is_split(&f))
		return emit_plain(&f, cb, userdata, err);
	r = open_shared(&base, &f, shared, hash, err);
	if (r < 0)
		return r;
	/* Validate the whole merge first, so cb never sees a refused index. */
	r = index_split_merge(&f, &base, NULL, NULL, err);
	if (r < 0 || !cb)
		return r;
	return index_split_merge(&f, &base, cb, userdata, err);
}

int gitindex_link(const char *buf, size_t len, const char *origin, enum gitindex_hash hash,
                  char name[GITINDEX_SHARED_NAME_MAX], struct gitindex_error *err)
{
	static const char hex[] = "0123456789abcdef";
	struct gitindex_error ignored;
	struct index_file f;
	size_t n;
	int r;

	if (!err)
		err = &ignored;
	*err = (struct gitindex_error){.origin = origin};
	r = index_file_open(&f, buf, len, hash, INDEX_OPEN_NO_CHECKSUM, err);
	if (r < 0)
		return r;
	if (!index_file_is_split(&f))
		return 0;
	n = (size_t)snprintf(name, GITINDEX_SHARED_NAME_MAX, "sharedindex.");
	for (size_t i = 0; i < f.hash_len; i++) {
		name[n++] = hex[f.link.base_oid[i] >> 4];
		name[n++] = hex[f.link.base_oid[i] & 15];
	}
	name[n] = '\0';
	return 1;
}
