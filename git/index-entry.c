#include "config.h"

/* One index entry at a time, as git's create_from_disk reads it:
 *
 *   40 bytes of stat data (the mode at offset 24), the object id, 16 bits
 *   of flags (assume-valid, extended, 2 bits of stage, 12 bits of path
 *   length, 0xfff meaning "look for the NUL"), 16 more bits of flags when
 *   the extended bit is set, then the path: in versions 2 and 3 whole and
 *   padded with 1 to 8 NULs to a multiple of 8 bytes; in version 4 as a
 *   varint count of bytes to drop from the end of the previous path and the
 *   NUL-terminated bytes to append, unpadded. */
#include <errno.h>
#include <string.h>

#include "git/index-internal.h"

#define STAT_SIZE       40
#define MODE_OFFSET     24
#define FLAG_VALID      0x8000
#define FLAG_EXTENDED   0x4000
#define FLAG_NAMEMASK   0x0fff
#define FLAG2_ITA       0x2000
#define FLAG2_SKIP_WT   0x4000
#define FLAG2_KNOWN     (FLAG2_ITA | FLAG2_SKIP_WT)

static int fail(struct gitindex_error *err, int r, const char *reason)
{
	err->reason = reason;
	return r;
}

void entry_cursor_init(struct entry_cursor *c, const struct index_file *f)
{
	c->f = f;
	c->off = INDEX_HEADER_SIZE;
	c->next = 0;
	c->copy_len = 0;
	c->name_len = 0;
	c->name[0] = '\0';
	c->path = c->name;
}

/* Git's decode_varint (varint.c): 7 bits a byte, most significant first,
 * each continuation adding one. Git reads an overflowing one as 0 without
 * moving on; no writer makes one, so we refuse it. */
static int read_varint(const struct index_file *f, size_t *off, uint64_t *val)
{
	unsigned char c;

	if (*off >= f->body_end)
		return -EINVAL;
	c = (unsigned char)f->buf[(*off)++];
	*val = c & 127;
	while (c & 128) {
		*val += 1;
		if (*val >> 57 || *off >= f->body_end)
			return -EINVAL;
		c = (unsigned char)f->buf[(*off)++];
		*val = (*val << 7) + (c & 127);
	}
	return 0;
}

/* Version 4: the previous path cut by the stripped count, then the suffix.
 * Git sizes the entry by the length in the flags (when under 0xfff), so
 * that length must be the one the NUL gives, or git would read other bytes
 * than we do. */
static int read_compressed_path(struct entry_cursor *c, size_t off, unsigned len,
                                size_t *end, struct gitindex_error *err)
{
	const struct index_file *f = c->f;
	const char *suffix, *nul;
	uint64_t strip;
	size_t copy = 0, suffix_len, total;

	if (read_varint(f, &off, &strip) < 0)
		return fail(err, -EINVAL, "path prefix length cut short or too large");
	/* Git ignores the count of the first entry: there is nothing to strip. */
	if (c->next > 0) {
		if (strip > c->name_len)
			return fail(err, -EINVAL, "path strips more than the previous path holds");
		copy = c->name_len - strip;
	}
	suffix = f->buf + off;
	nul = memchr(suffix, '\0', f->body_end - off);
	if (!nul)
		return fail(err, -EINVAL, "index cut short in a path");
	suffix_len = (size_t)(nul - suffix);
	total = len == FLAG_NAMEMASK ? copy + suffix_len : len;
	if (len != FLAG_NAMEMASK && (len < copy || len - copy != suffix_len))
		return fail(err, -EINVAL, "path length disagrees with the entry's flags");
	if (total > GITINDEX_MAX_PATH)
		return fail(err, -E2BIG, "path longer than we read");
	memcpy(c->name + copy, suffix, suffix_len);
	c->name[total] = '\0';
	c->path = c->name;
	c->name_len = total;
	c->copy_len = copy;
	*end = off + suffix_len + 1;
	return 0;
}

/* Versions 2 and 3: the whole path, then NUL padding to 8 bytes. */
static int read_plain_path(struct entry_cursor *c, size_t entry, size_t off, unsigned len,
                           size_t *end, struct gitindex_error *err)
{
	const struct index_file *f = c->f;
	const char *name = f->buf + off;
	size_t avail = f->body_end - off, n = len;

	if (len == FLAG_NAMEMASK) {
		const char *nul = memchr(name, '\0', avail);

		if (!nul)
			return fail(err, -EINVAL, "index cut short in a path");
		n = (size_t)(nul - name);
	} else if (avail < n + 1) {
		return fail(err, -EINVAL, "index cut short in a path");
	} else if (memchr(name, '\0', n)) {
		return fail(err, -EINVAL, "path holds a NUL byte");
	} else if (name[n] != '\0') {
		return fail(err, -EINVAL, "path is not NUL-terminated");
	}
	if (n > GITINDEX_MAX_PATH)
		return fail(err, -E2BIG, "path longer than we read");
	/* Git's ondisk_ce_size(): the entry up to the path, the path, and
	 * padding to the next multiple of 8 that leaves at least one NUL. */
	*end = entry + ((off - entry + n + 8) & ~(size_t)7);
	if (*end > f->body_end)
		return fail(err, -EINVAL, "index cut short in an entry");
	c->path = name; /* NUL-terminated in the file, as checked above */
	c->name_len = n;
	c->copy_len = 0;
	return 0;
}

int entry_next(struct entry_cursor *c, struct gitindex_entry *e, struct gitindex_error *err)
{
	const struct index_file *f = c->f;
	size_t entry = c->off, off = entry + STAT_SIZE + f->hash_len, end;
	unsigned flags, flags2 = 0;
	int r;

	if (c->next >= f->nr)
		return 0;
	if (f->body_end < off + 2)
		return fail(err, -EINVAL, "index cut short in an entry");
	flags = get_be16(f->buf + off);
	off += 2;
	if (flags & FLAG_EXTENDED) {
		if (f->body_end < off + 2)
			return fail(err, -EINVAL, "index cut short in an entry");
		flags2 = get_be16(f->buf + off);
		off += 2;
		if (flags2 & ~FLAG2_KNOWN)
			return fail(err, -EINVAL, "entry flags git does not know");
	}
	if (f->version == 4)
		r = read_compressed_path(c, off, flags & FLAG_NAMEMASK, &end, err);
	else
		r = read_plain_path(c, entry, off, flags & FLAG_NAMEMASK, &end, err);
	if (r < 0)
		return r;
	*e = (struct gitindex_entry){
		.path = c->path,
		.path_len = c->name_len,
		.oid = (const unsigned char *)f->buf + entry + STAT_SIZE,
		.mode = get_be32(f->buf + entry + MODE_OFFSET),
		.stage = (flags >> 12) & 3,
		.flags = (flags & FLAG_VALID ? GITINDEX_ASSUME_VALID : 0) |
		         (flags2 & FLAG2_ITA ? GITINDEX_INTENT_TO_ADD : 0) |
		         (flags2 & FLAG2_SKIP_WT ? GITINDEX_SKIP_WORKTREE : 0),
	};
	c->off = end;
	c->next++;
	return 1;
}

int entry_compare(const struct gitindex_entry *a, const struct gitindex_entry *b)
{
	size_t n = a->path_len < b->path_len ? a->path_len : b->path_len;
	int cmp = memcmp(a->path, b->path, n);

	if (cmp)
		return cmp;
	if (a->path_len != b->path_len)
		return a->path_len < b->path_len ? -1 : 1;
	return (int)a->stage - (int)b->stage;
}

int order_check_next(struct order_check *o, const struct gitindex_entry *e,
                     struct gitindex_error *err)
{
	if (o->any) {
		struct gitindex_entry prev = {.path = o->prev_path, .path_len = o->len, .stage = o->stage};
		int cmp = entry_compare(&prev, e);

		if (cmp >= 0 || (o->stage == 0 && o->len == e->path_len &&
		                 memcmp(o->prev_path, e->path, o->len) == 0))
			return fail(err, -EINVAL, "entries out of git's order");
	}
	if (o->stable) {
		o->prev_path = e->path;
	} else {
		memcpy(o->prev, e->path, e->path_len + 1);
		o->prev_path = o->prev;
	}
	o->len = e->path_len;
	o->stage = e->stage;
	o->any = true;
	return 0;
}
