#include "config.h"

/* One index file's structure, validated whole before anyone sees an entry:
 * the header ("DIRC", version, entry count), the trailing checksum, every
 * entry and their order, and the extensions after them (do_read_index,
 * read_index_extension, read_eoie_extension, read_ieot_extension in git's
 * read-cache.c). */
#include <errno.h>
#include <string.h>

#include "common/cleanup.h"
#include "git/index-internal.h"

#define EOIE_SIZE_WITH_HEADER (8 + 4 + 20) /* git's: 20 whatever the hash */

static int fail(struct gitindex_error *err, int r, const char *reason)
{
	err->reason = reason;
	return r;
}

/* The fewest bytes an entry of this file can take (an empty path): lets a
 * header claiming more entries than the file can hold fail at once. */
static size_t min_entry_size(const struct index_file *f)
{
	size_t fixed = 40 + f->hash_len + 2;

	return f->version == 4 ? fixed + 2 : (fixed + 8) & ~(size_t)7;
}

static int check_header(struct index_file *f, struct gitindex_error *err)
{
	if (f->len < INDEX_HEADER_SIZE + f->hash_len)
		return fail(err, -EINVAL, "index cut short before its checksum");
	if (memcmp(f->buf, "DIRC", 4) != 0)
		return fail(err, -EINVAL, "bad signature: not an index");
	f->version = get_be32(f->buf + 4);
	if (f->version < 2 || f->version > 4)
		return fail(err, -EINVAL, "index version other than 2, 3 or 4, which git no longer or never wrote");
	f->nr = get_be32(f->buf + 8);
	if (f->nr > GITINDEX_MAX_ENTRIES)
		return fail(err, -E2BIG, "more entries than we read");
	f->body_end = f->len - f->hash_len;
	if ((uint64_t)f->nr * min_entry_size(f) > f->body_end - INDEX_HEADER_SIZE)
		return fail(err, -EINVAL, "index cut short: fewer bytes than its entries need");
	return 0;
}

/* An all-zero checksum is what git >= 2.40 writes with index.skipHash. */
static int check_checksum(const struct index_file *f, enum gitindex_hash hash,
                          struct gitindex_error *err)
{
	const unsigned char *trailer = (const unsigned char *)f->buf + f->body_end;
	unsigned char digest[32];
	size_t i;

	for (i = 0; i < f->hash_len && trailer[i] == 0; i++)
		;
	if (i == f->hash_len)
		return 0;
	index_hash(hash, f->buf, f->body_end, digest);
	if (memcmp(digest, trailer, f->hash_len) != 0)
		return fail(err, -EINVAL, "checksum mismatch");
	return 0;
}

/* Git's read_eoie_extension, check for check: the offset of the first
 * extension, when an EOIE extension git would believe ends the file. */
static void find_eoie(struct index_file *f, enum gitindex_hash hash)
{
	const char *buf = f->buf;
	unsigned char digest[32];
	size_t eoie, offset;

	if (f->len < INDEX_HEADER_SIZE + EOIE_SIZE_WITH_HEADER + f->hash_len)
		return;
	eoie = f->len - EOIE_SIZE_WITH_HEADER - f->hash_len;
	if (memcmp(buf + eoie, "EOIE", 4) != 0 || get_be32(buf + eoie + 4) != 24)
		return;
	offset = get_be32(buf + eoie + 8);
	if (offset < INDEX_HEADER_SIZE || offset >= eoie)
		return;
	if (index_hash_ext_headers(hash, buf, offset, eoie, digest) != eoie)
		return;
	/* Git compares a whole hash's length, for SHA-256 running on into
	 * the checksum after the 20 bytes EOIE holds. */
	if (memcmp(digest, buf + eoie + 12, f->hash_len) != 0)
		return;
	f->eoie_offset = offset;
}

/* Git's read_ieot_extension: the first IEOT from the EOIE offset on. Git
 * reads its table without checking the size; one that runs past the
 * checksum is refused. A version git does not know, or an empty table,
 * makes git read the entries in order, as we do. */
static int find_ieot(struct index_file *f, struct gitindex_error *err)
{
	size_t off = f->eoie_offset, size = 0;

	if (!off)
		return 0;
	while (off <= f->len - f->hash_len - 8) {
		size = get_be32(f->buf + off + 4);
		if (memcmp(f->buf + off, "IEOT", 4) == 0)
			break;
		off += 8 + size;
	}
	if (off > f->len - f->hash_len - 8 || get_be32(f->buf + off + 8) != 1)
		return 0;
	if (size < 4 || size > f->body_end - off - 8)
		return fail(err, -EINVAL, "entry offset table (IEOT) runs past the checksum");
	f->ieot = (const unsigned char *)f->buf + off + 12;
	f->ieot_blocks = (uint32_t)((size - 4) / 8);
	return 0;
}

/* Git's threaded reader starts each IEOT block at its offset with no
 * previous path; it must find the very entries the sequential reader does:
 * blocks at entry boundaries, in order, covering every entry once, and in
 * version 4 a block's first path owing nothing to the one before it. */
struct ieot_check {
	uint32_t block;
	uint64_t start; /* index of the block's first entry */
	bool at_block_start;
};

static int ieot_before_entry(const struct index_file *f, struct ieot_check *k, uint32_t i,
                             size_t off, struct gitindex_error *err)
{
	k->at_block_start = false;
	while (k->block < f->ieot_blocks && k->start == i) {
		const unsigned char *b = f->ieot + 8 * (size_t)k->block;

		if (get_be32(b) != off)
			return fail(err, -EINVAL, "entry offset table (IEOT) disagrees with the entries");
		k->start += get_be32(b + 4);
		k->block++;
		k->at_block_start = true;
	}
	return 0;
}

static int ieot_after_entries(const struct index_file *f, const struct ieot_check *k,
                              struct gitindex_error *err)
{
	if (f->ieot && (k->block != f->ieot_blocks || k->start != f->nr))
		return fail(err, -EINVAL, "entry offset table (IEOT) disagrees with the entries");
	if (f->eoie_offset && f->eoie_offset != f->ext_off)
		return fail(err, -EINVAL, "end-of-entries extension (EOIE) disagrees with the entries");
	return 0;
}

/* Every entry decodes; *order_err tells whether they are in git's order,
 * which only matters for an index that is not split. */
static int walk_entries(struct index_file *f, const char **order_err, struct gitindex_error *err)
{
	struct entry_cursor c;
	struct order_check o = {.stable = f->version < 4};
	struct ieot_check k = {0};
	struct gitindex_error oerr = {0};
	struct gitindex_entry e;
	int r;

	entry_cursor_init(&c, f);
	for (;;) {
		if (f->ieot && (r = ieot_before_entry(f, &k, c.next, c.off, err)) < 0)
			return r;
		r = entry_next(&c, &e, err);
		if (r <= 0)
			break;
		if (k.at_block_start && c.copy_len != 0)
			return fail(err, -EINVAL, "entry offset table (IEOT) starts a block inside a shared path prefix");
		if (!*order_err && order_check_next(&o, &e, &oerr) < 0)
			*order_err = oerr.reason;
	}
	if (r < 0)
		return r;
	f->ext_off = c.off;
	return ieot_after_entries(f, &k, err);
}

/* Git's read_link_extension: the shared index's hash, then the delete and
 * the replace bitmaps, or nothing, and no byte more. */
static int parse_link(struct index_file *f, const unsigned char *p, size_t size,
                      struct gitindex_error *err)
{
	struct index_link *l = &f->link;
	size_t used;

	if (size < f->hash_len)
		return fail(err, -EINVAL, "link extension cut short");
	*l = (struct index_link){.base_oid = p};
	p += f->hash_len;
	size -= f->hash_len;
	f->has_link = true;
	if (size == 0)
		return 0;
	if (index_ewah_size(p, size, &used) < 0)
		return fail(err, -EINVAL, "link extension: delete bitmap cut short");
	l->delete_ewah = p;
	p += used;
	size -= used;
	if (index_ewah_size(p, size, &used) < 0)
		return fail(err, -EINVAL, "link extension: replace bitmap cut short");
	if (used != size)
		return fail(err, -EINVAL, "link extension: bytes after its bitmaps");
	l->replace_ewah = p;
	return 0;
}

static bool is_known_extension(const char *sig)
{
	static const char known[][4] = {"TREE", "REUC", "UNTR", "FSMN", "EOIE", "IEOT", "sdir"};

	for (size_t i = 0; i < ELEMENTSOF(known); i++)
		if (memcmp(sig, known[i], 4) == 0)
			return true;
	return false;
}

/* Git's read_index_extension: known ones read (and their errors ignored,
 * so skipping them is the same), `link` parsed, optional ones (A-Z)
 * ignored, any other refused. Git stops when fewer than 8 bytes are left
 * before the checksum; so do we. */
static int walk_extensions(struct index_file *f, struct gitindex_error *err)
{
	size_t off = f->ext_off;
	unsigned count = 0;

	while (off <= f->body_end - 8) {
		const char *sig = f->buf + off;
		size_t size = get_be32(sig + 4), data = off + 8;
		int r;

		if (++count > GITINDEX_MAX_EXTENSIONS)
			return fail(err, -E2BIG, "more extensions than we read");
		if (size > f->body_end - data)
			return fail(err, -EINVAL, "extension runs past the checksum");
		if (memcmp(sig, "link", 4) == 0) {
			r = parse_link(f, (const unsigned char *)f->buf + data, size, err);
			if (r < 0)
				return r;
		} else if (!is_known_extension(sig) && !(sig[0] >= 'A' && sig[0] <= 'Z')) {
			return fail(err, -EINVAL, "unknown mandatory extension (lowercase name), which git refuses");
		}
		off = data + size;
	}
	return 0;
}

bool index_file_is_split(const struct index_file *f)
{
	for (size_t i = 0; f->has_link && i < f->hash_len; i++)
		if (f->link.base_oid[i])
			return true;
	return false;
}

int index_file_open(struct index_file *f, const char *buf, size_t len, enum gitindex_hash hash,
                    enum index_open_flags flags, struct gitindex_error *err)
{
	bool shared = flags & INDEX_OPEN_SHARED;
	const char *order_err = NULL;
	int r;

	*f = (struct index_file){.buf = buf, .len = len};
	f->hash_len = gitindex_hash_len(hash);
	err->shared = shared;
	if (len > GITINDEX_MAX_BYTES)
		return fail(err, -EFBIG, "larger than 512 MiB");
	r = check_header(f, err);
	if (r < 0)
		return r;
	if (!(flags & INDEX_OPEN_NO_CHECKSUM) && (r = check_checksum(f, hash, err)) < 0)
		return r;
	find_eoie(f, hash);
	r = find_ieot(f, err);
	if (r < 0)
		return r;
	r = walk_entries(f, &order_err, err);
	if (r < 0)
		return r;
	r = walk_extensions(f, err);
	if (r < 0)
		return r;
	/* Git reads such a link and ignores it; no git writes one. */
	if (shared && f->has_link)
		return fail(err, -EINVAL, "a shared index with a link of its own");
	/* A split index's own entries are checked in the merge. */
	if (order_err && !index_file_is_split(f))
		return fail(err, -EINVAL, order_err);
	return 0;
}
