/* The index reader's parts, shared between git/index*.c only. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "git/index.h"

#define INDEX_HEADER_SIZE 12

/* A set of base-index positions, decoded from one of the link extension's
 * EWAH bitmaps into plain bits, one per entry of the shared index. */
struct index_bitmap {
	uint64_t *words;
	size_t set; /* bits set */
};

void index_bitmap_free(struct index_bitmap *b);

static inline bool index_bitmap_has(const struct index_bitmap *b, uint32_t pos)
{
	return b->words && (b->words[pos / 64] >> (pos % 64)) & 1;
}

/* The link extension of a split index, still encoded. */
struct index_link {
	const unsigned char *base_oid;
	const unsigned char *delete_ewah, *replace_ewah; /* NULL without bitmaps */
	size_t delete_len, replace_len;
};

/* One index file, its structure validated by index_file_open(). */
struct index_file {
	const char *buf;
	size_t len;
	size_t hash_len;
	unsigned version;
	uint32_t nr;
	size_t body_end; /* offset of the trailing checksum */
	size_t ext_off;  /* offset of the first extension */
	/* EOIE and IEOT as git's threaded reader would use them, or 0/NULL. */
	size_t eoie_offset;
	const unsigned char *ieot;
	uint32_t ieot_blocks;
	bool has_link;
	struct index_link link;
};

enum index_open_flags {
	INDEX_OPEN_SHARED      = 1 << 0, /* the shared index of a split index */
	INDEX_OPEN_NO_CHECKSUM = 1 << 1, /* a first look; the parse proper checks it */
};

/* Validates header, checksum, every entry (and their order) and every
 * extension. Returns 0 or -EINVAL/-E2BIG/-EFBIG with err->reason set. */
int index_file_open(struct index_file *f, const char *buf, size_t len, enum gitindex_hash hash,
                    enum index_open_flags flags, struct gitindex_error *err);

/* Whether f has a link extension naming a shared index (git reads a link
 * with an all-zero hash as no split). */
bool index_file_is_split(const struct index_file *f);

/* Walks the entries of a file in order. path is the current path: in the
 * file's own bytes for versions 2 and 3 (NUL-terminated there), in name for
 * version 4, whose paths build on the previous one. */
struct entry_cursor {
	const struct index_file *f;
	size_t off;
	uint32_t next; /* index of the entry entry_next() decodes next */
	size_t copy_len; /* version 4: bytes of the previous path kept */
	const char *path;
	size_t name_len;
	char name[GITINDEX_MAX_PATH + 1];
};

void entry_cursor_init(struct entry_cursor *c, const struct index_file *f);

/* Decodes the next entry into e (its path is c->path). Returns 1, 0 past
 * the last entry, or -EINVAL/-E2BIG with err->reason set. */
int entry_next(struct entry_cursor *c, struct gitindex_entry *e, struct gitindex_error *err);

/* Git's order of entries (fsck's check_ce_order): by path bytes, then
 * stage; a merged (stage 0) path appears once and alone. */
struct order_check {
	bool any;
	/* The entries' paths stay where they are while the walk goes on (a
	 * file of version 2 or 3): the previous one is pointed at, not copied. */
	bool stable;
	unsigned stage;
	size_t len;
	const char *prev_path;
	char prev[GITINDEX_MAX_PATH + 1];
};

int order_check_next(struct order_check *o, const struct gitindex_entry *e,
                     struct gitindex_error *err);

/* Compares two entries as git's index_name_stage_pos does. */
int entry_compare(const struct gitindex_entry *a, const struct gitindex_entry *b);

/* The bytes one EWAH bitmap at p takes, as git's ewah_read_mmap reads it:
 * 0, or -EINVAL when it runs past len. */
int index_ewah_size(const unsigned char *p, size_t len, size_t *used);

/* Decodes a bitmap index_ewah_size() measured, as git's ewah_each_bit walks
 * it, into bits for positions below nr. Returns 0, -ENOMEM, or -EINVAL for a
 * set bit at or past nr (git dies on it) or literal words past the end. */
int index_ewah_decode(const unsigned char *p, uint32_t nr, struct index_bitmap *out);

/* Hashes with the repository's algorithm (nettle). */
void index_hash(enum gitindex_hash hash, const void *data, size_t len, unsigned char *out);

/* Hashes the 8-byte extension headers from offset start while below end,
 * as git's read_eoie_extension does, and returns the offset it stopped at.
 * The caller guarantees end + 8 <= the buffer's length. */
size_t index_hash_ext_headers(enum gitindex_hash hash, const char *buf, size_t start, size_t end,
                              unsigned char *out);

/* The merge of a split index: the entries of the index `split` applied to
 * its shared index `base`, as git's merge_base_index does; cb may be NULL to
 * only validate. Returns the number of entries or -errno. */
int index_split_merge(const struct index_file *split, const struct index_file *base,
                      gitindex_cb cb, void *userdata, struct gitindex_error *err);

static inline uint32_t get_be32(const void *p)
{
	const unsigned char *b = p;
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static inline uint16_t get_be16(const void *p)
{
	const unsigned char *b = p;
	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint64_t get_be64(const void *p)
{
	const unsigned char *b = p;
	return (uint64_t)get_be32(b) << 32 | get_be32(b + 4);
}
