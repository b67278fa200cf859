#include "config.h"

/* libFuzzer harness for the index reader, with and without a shared index.
 *
 * Input: one byte of flags (bit 0: SHA-256; bit 1: a shared index follows;
 * bit 2: mend the checksums), then, with a shared index, a 32-bit length of
 * the index part, the index, and the shared index. Mending recomputes the
 * shared index's checksum, writes it into the last `link` extension and
 * recomputes the index's, so mutations reach past the checksum check.
 *
 * Properties checked beyond "no crash, no leak": a refusal has a reason;
 * every entry has a path of path_len bytes without NUL and a stage of 0-3;
 * the count returned is the count seen; every submodule path is safe and
 * the submodules are the index's distinct gitlinks. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "git/index-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FLAG_SHA256 = 1, FLAG_SHARED = 2, FLAG_MEND = 4 };

struct seen {
	int entries;
	size_t gitlinks;
	char last_gitlink[GITINDEX_MAX_PATH + 1];
};

static int check_entry(const struct gitindex_entry *e, void *userdata)
{
	struct seen *s = userdata;

	if (!e->path || strlen(e->path) != e->path_len || e->path_len > GITINDEX_MAX_PATH ||
	    e->stage > 3)
		abort();
	s->entries++;
	if (e->mode == GITINDEX_MODE_GITLINK && strcmp(s->last_gitlink, e->path) != 0) {
		s->gitlinks++;
		memcpy(s->last_gitlink, e->path, e->path_len + 1);
	}
	return 0;
}

static void mend(char *index, size_t len, char *shared, size_t shared_len, enum gitindex_hash hash)
{
	size_t n = gitindex_hash_len(hash);
	char *link = NULL;

	if (shared && shared_len >= n) {
		index_hash(hash, shared, shared_len - n, (unsigned char *)shared + shared_len - n);
		for (char *p = index; len >= n + 8 && p + 8 + n <= index + len - n; p++)
			if (memcmp(p, "link", 4) == 0)
				link = p;
		if (link)
			memcpy(link + 8, shared + shared_len - n, n);
	}
	if (len >= n)
		index_hash(hash, index, len - n, (unsigned char *)index + len - n);
}

static void check(const char *index, size_t len, const struct gitindex_shared *shared,
                  enum gitindex_hash hash)
{
	struct gitindex_error err = {0};
	struct gitindex_submodules subs;
	struct seen seen = {0};
	int r = gitindex_parse(index, len, "fuzz", hash, shared, check_entry, &seen, &err);

	if (r < 0 ? r != -ENOMEM && !err.reason : r != seen.entries)
		abort();
	r = gitindex_parse_submodules(index, len, "fuzz", hash, shared, &subs, &err);
	if (r >= 0) {
		if ((size_t)r != seen.gitlinks)
			abort();
		for (size_t i = 0; i < subs.n; i++)
			if (!gitindex_path_is_safe(subs.paths[i], strlen(subs.paths[i])))
				abort();
	}
	gitindex_submodules_free(&subs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *index = NULL, *shared = NULL;
	struct gitindex_shared sh = {0};
	enum gitindex_hash hash;
	size_t len, shared_len = 0;
	unsigned flags;

	if (size < 1)
		return 0;
	flags = data[0];
	hash = flags & FLAG_SHA256 ? GITINDEX_SHA256 : GITINDEX_SHA1;
	data++, size--;
	len = size;
	if (flags & FLAG_SHARED) {
		if (size < 4)
			return 0;
		len = get_be32(data);
		data += 4, size -= 4;
		if (len > size)
			len = size;
		shared_len = size - len;
	}
	/* Copies of exactly the sizes parsed, so ASan sees any read past them. */
	index = malloc(len ? len : 1);
	shared = malloc(shared_len ? shared_len : 1);
	if (!index || !shared)
		return 0;
	memcpy(index, data, len);
	memcpy(shared, data + len, shared_len);
	if (flags & FLAG_MEND)
		mend(index, len, flags & FLAG_SHARED ? shared : NULL, shared_len, hash);
	sh = (struct gitindex_shared){.buf = shared, .len = shared_len};
	check(index, len, flags & FLAG_SHARED ? &sh : NULL, hash);
	return 0;
}
