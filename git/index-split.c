#include "config.h"

/* The split index, merged as git's merge_base_index (split-index.c) merges
 * it. The index file holds, first, one nameless entry for each bit of the
 * link's replace bitmap, which takes the place of that shared entry under
 * the shared entry's path; then the entries new since the shared index was
 * written. The shared index's entries at the delete bitmap's bits are gone.
 *
 * Git replaces, then deletes, then inserts each new entry with
 * add_index_entry() (an entry of the same path and stage is replaced; a
 * merged entry drops the path's conflict stages). Since every stream here
 * is checked to be in git's order, one pass merging them makes the array
 * git's binary searches make. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "git/index-internal.h"

struct stream {
	struct entry_cursor cursor;
	struct order_check order;
	struct gitindex_entry head;
	bool has;
};

struct merge {
	struct stream base;           /* the shared entries, replaced and deleted */
	struct entry_cursor replacer; /* the index's nameless entries */
	struct stream added;          /* the index's other entries */
	struct order_check out_order;
	struct index_bitmap deleted, replaced;
	uint32_t pos; /* position in the shared index of the next base entry */
	gitindex_cb cb;
	void *userdata;
	struct gitindex_error *err;
	int count;
};

static void merge_free(struct merge *m)
{
	if (!m)
		return;
	index_bitmap_free(&m->deleted);
	index_bitmap_free(&m->replaced);
	free(m);
}

static void merge_freep(struct merge **m)
{
	merge_free(*m);
}

static int fail(struct gitindex_error *err, int r, const char *reason)
{
	err->reason = reason;
	return r;
}

/* The shared entry at m->pos with its replacement applied: git's
 * replace_entry() keeps the shared path and takes all else. */
static int replace(struct merge *m, struct gitindex_entry *e)
{
	struct gitindex_entry r;
	int got = entry_next(&m->replacer, &r, m->err);

	if (got < 0)
		return got;
	if (got == 0)
		return fail(m->err, -EINVAL, "link extension: more replacements than entries");
	if (r.path_len != 0)
		return fail(m->err, -EINVAL, "link extension: a replacement entry has a path");
	r.path = e->path;
	r.path_len = e->path_len;
	*e = r;
	return 0;
}

static int next_base(struct merge *m)
{
	struct stream *s = &m->base;
	int r;

	for (;;) {
		uint32_t pos = m->pos++;

		r = entry_next(&s->cursor, &s->head, m->err);
		if (r <= 0)
			break;
		if (index_bitmap_has(&m->replaced, pos)) {
			int q = replace(m, &s->head);

			if (q < 0)
				return q;
		}
		if (!index_bitmap_has(&m->deleted, pos))
			break;
	}
	s->has = r > 0;
	if (s->has)
		return order_check_next(&s->order, &s->head, m->err);
	return r;
}

static int next_added(struct merge *m)
{
	struct stream *s = &m->added;
	int r = entry_next(&s->cursor, &s->head, m->err);

	s->has = r > 0;
	if (r <= 0)
		return r;
	if (s->head.path_len == 0)
		return fail(m->err, -EINVAL, "link extension: a new entry without a path");
	return order_check_next(&s->order, &s->head, m->err);
}

static int emit(struct merge *m, const struct gitindex_entry *e)
{
	int r = order_check_next(&m->out_order, e, m->err);

	if (r < 0)
		return r;
	m->count++;
	return m->cb ? m->cb(e, m->userdata) : 0;
}

static bool same_path(const struct gitindex_entry *a, const struct gitindex_entry *b)
{
	return a->path_len == b->path_len && memcmp(a->path, b->path, a->path_len) == 0;
}

/* One step of the merge of the two sorted streams. */
static int merge_step(struct merge *m)
{
	struct stream *b = &m->base, *a = &m->added;
	int cmp, r;

	if (!a->has)
		return (r = emit(m, &b->head)) < 0 ? r : next_base(m);
	if (!b->has)
		return (r = emit(m, &a->head)) < 0 ? r : next_added(m);
	/* A merged entry takes the place of every stage of its path. */
	if (a->head.stage == 0 && same_path(&b->head, &a->head))
		return next_base(m);
	cmp = entry_compare(&b->head, &a->head);
	if (cmp < 0)
		return (r = emit(m, &b->head)) < 0 ? r : next_base(m);
	if (cmp == 0 && (r = next_base(m)) < 0)
		return r;
	return (r = emit(m, &a->head)) < 0 ? r : next_added(m);
}

static int decode_bitmaps(struct merge *m, const struct index_file *split, const struct index_file *base)
{
	int r;

	/* Git would follow a NULL bitmap here and crash. */
	if (!split->link.delete_ewah)
		return fail(m->err, -EINVAL, "link extension without its bitmaps");
	r = index_ewah_decode(split->link.delete_ewah, base->nr, &m->deleted);
	if (r == -EINVAL)
		return fail(m->err, r, "link extension: delete bitmap names an entry the shared index does not have");
	if (r < 0)
		return r;
	r = index_ewah_decode(split->link.replace_ewah, base->nr, &m->replaced);
	if (r == -EINVAL)
		return fail(m->err, r, "link extension: replace bitmap names an entry the shared index does not have");
	return r;
}

/* The index's own entries past its nameless ones. */
static int start_added(struct merge *m, const struct index_file *split)
{
	struct gitindex_entry e;

	entry_cursor_init(&m->added.cursor, split);
	for (size_t i = 0; i < m->replaced.set; i++) {
		int r = entry_next(&m->added.cursor, &e, m->err);

		if (r < 0)
			return r;
		if (r == 0)
			return fail(m->err, -EINVAL, "link extension: more replacements than entries");
	}
	return next_added(m);
}

int index_split_merge(const struct index_file *split, const struct index_file *base,
                      gitindex_cb cb, void *userdata, struct gitindex_error *err)
{
	_cleanup_(merge_freep) struct merge *m = calloc(1, sizeof(*m));
	int r;

	if (!m)
		return -ENOMEM;
	m->cb = cb;
	m->userdata = userdata;
	m->err = err;
	err->shared = false;
	r = decode_bitmaps(m, split, base);
	if (r < 0)
		return r;
	entry_cursor_init(&m->base.cursor, base);
	entry_cursor_init(&m->replacer, split);
	r = start_added(m, split);
	if (r >= 0)
		r = next_base(m);
	while (r >= 0 && (m->base.has || m->added.has))
		r = merge_step(m);
	return r < 0 ? r : m->count;
}
