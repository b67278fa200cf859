/* Building snapshots and looking entries up in them. A snapshot is immutable
 * once finished, so lookups take no lock. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
/* Inlined: every decision hashes a 16-byte id or a short name, where the
 * call into the shared library would cost about as much as the hash. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/cleanup.h"
#include "snapshot-internal.h"

/* Past this many entries a snapshot is refused: the model bounds what it
 * reads long before, so this only guards the 32-bit slot indices. */
#define POLICY_MAX_ENTRIES (1u << 30)

struct entry_array {
	void *items;
	size_t n, cap, size;
};

struct policy_builder {
	struct entry_array objects;  /* struct policy_object */
	struct entry_array missing;  /* struct policy_name */
	struct entry_array watched;  /* struct policy_name */
	struct entry_array denied;   /* struct policy_name */
	bool failed;                 /* an allocation failed: finish() refuses */
};

static void *entry_array_push(struct entry_array *a)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		void *p;

		if (cap > POLICY_MAX_ENTRIES)
			return NULL;
		p = reallocarray(a->items, cap, a->size);
		if (!p)
			return NULL;
		a->items = p;
		a->cap = cap;
	}
	return memset((char *)a->items + a->n++ * a->size, 0, a->size);
}

struct policy_builder *policy_builder_new(void)
{
	struct policy_builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->objects.size = sizeof(struct policy_object);
	b->missing.size = sizeof(struct policy_name);
	b->watched.size = sizeof(struct policy_name);
	b->denied.size = sizeof(struct policy_name);
	return b;
}

static void free_objects(struct policy_object *o, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(o[i].path);
		free(o[i].reason);
	}
	free(o);
}

static void free_names(struct policy_name *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(names[i].name);
		free(names[i].path);
		free(names[i].reason);
	}
	free(names);
}

void policy_builder_free(struct policy_builder *b)
{
	if (!b)
		return;
	free_objects(b->objects.items, b->objects.n);
	free_names(b->missing.items, b->missing.n);
	free_names(b->watched.items, b->watched.n);
	free_names(b->denied.items, b->denied.n);
	free(b);
}

/* strdup that maps NULL to "" so every stored string can be printed. */
static char *dup_text(const char *s)
{
	return strdup(s ? s : "");
}

int policy_builder_protect(struct policy_builder *b, struct policy_id id, unsigned flags, const char *path,
			   const char *reason)
{
	struct policy_object *o = entry_array_push(&b->objects);

	if (!o)
		goto oom;
	o->id = id;
	o->flags = flags;
	o->path = dup_text(path);
	o->reason = dup_text(reason);
	if (!o->path || !o->reason)
		goto oom;
	return 0;
oom:
	b->failed = true;
	return -ENOMEM;
}

static int push_name(struct policy_builder *b, struct entry_array *a, struct policy_id parent, const char *name,
		     unsigned flags, const char *path, const char *reason)
{
	struct policy_name *n = entry_array_push(a);

	if (!n)
		goto oom;
	n->parent = parent;
	n->flags = flags;
	n->name = dup_text(name);
	n->path = dup_text(path);
	n->reason = dup_text(reason);
	if (!n->name || !n->path || !n->reason)
		goto oom;
	return 0;
oom:
	b->failed = true;
	return -ENOMEM;
}

int policy_builder_protect_missing(struct policy_builder *b, struct policy_id parent, const char *name,
				   unsigned missing_flags, const char *path, const char *reason)
{
	return push_name(b, &b->missing, parent, name, missing_flags, path, reason);
}

int policy_builder_watch(struct policy_builder *b, struct policy_id parent, const char *name)
{
	return push_name(b, &b->watched, parent, name, 0, NULL, NULL);
}

int policy_builder_deny_name(struct policy_builder *b, const char *name, const char *reason)
{
	return push_name(b, &b->denied, POLICY_ANY_FOLDER, name, 0, name, reason);
}

/* ---- Hashing and probing ------------------------------------------------ */

static uint64_t hash_id(struct policy_id id)
{
	return XXH3_64bits(&id, sizeof(id));
}

static uint64_t hash_name(struct policy_id parent, const char *name)
{
	return XXH3_64bits_withSeed(name, strlen(name), hash_id(parent));
}

static bool id_equal(struct policy_id a, struct policy_id b)
{
	return a.dev == b.dev && a.ino == b.ino;
}

static int index_alloc(struct policy_index *ix, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	ix->slots = calloc(cap, sizeof(*ix->slots));
	if (!ix->slots)
		return -ENOMEM;
	ix->mask = cap - 1;
	return 0;
}

const struct policy_object *policy_find_object(const struct policy_snapshot *s, struct policy_id id)
{
	const struct policy_index *ix = &s->object_index;

	for (size_t i = hash_id(id) & ix->mask;; i = (i + 1) & ix->mask) {
		uint32_t slot = ix->slots[i];

		if (slot == 0)
			return NULL;
		if (id_equal(s->objects[slot - 1].id, id))
			return &s->objects[slot - 1];
	}
}

const struct policy_name *policy_find_name(const struct policy_name *names, const struct policy_index *ix,
					   struct policy_id parent, const char *name)
{
	for (size_t i = hash_name(parent, name) & ix->mask;; i = (i + 1) & ix->mask) {
		uint32_t slot = ix->slots[i];

		if (slot == 0)
			return NULL;
		if (id_equal(names[slot - 1].parent, parent) && strcmp(names[slot - 1].name, name) == 0)
			return &names[slot - 1];
	}
}

/* Indexes the objects; an object protected twice keeps one entry with the
 * union of the flags and the first reason. Returns the number kept. */
static int index_objects(struct policy_snapshot *s)
{
	size_t kept = 0;
	int r = index_alloc(&s->object_index, s->n_objects);

	if (r < 0)
		return r;
	for (size_t i = 0; i < s->n_objects; i++) {
		struct policy_object *o = &s->objects[i];
		struct policy_object *dup = (struct policy_object *)policy_find_object(s, o->id);
		size_t slot;

		if (dup) {
			dup->flags |= o->flags;
			free(o->path);
			free(o->reason);
			continue;
		}
		s->objects[kept] = *o;
		for (slot = hash_id(o->id) & s->object_index.mask; s->object_index.slots[slot];
		     slot = (slot + 1) & s->object_index.mask)
			;
		s->object_index.slots[slot] = (uint32_t)++kept;
	}
	s->n_objects = kept;
	return 0;
}

/* Same for names: a name listed twice keeps the first entry, with the flags
 * of both. Note that MKDIR_OK widens what is allowed, so it survives only if
 * every listing of the name asked for it. */
static int index_names(struct policy_name *names, size_t *n, struct policy_index *ix)
{
	size_t kept = 0;
	int r = index_alloc(ix, *n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < *n; i++) {
		struct policy_name *e = &names[i];
		struct policy_name *dup = (struct policy_name *)policy_find_name(names, ix, e->parent, e->name);
		size_t slot;

		if (dup) {
			dup->flags &= e->flags;
			free(e->name);
			free(e->path);
			free(e->reason);
			continue;
		}
		names[kept] = *e;
		for (slot = hash_name(e->parent, e->name) & ix->mask; ix->slots[slot]; slot = (slot + 1) & ix->mask)
			;
		ix->slots[slot] = (uint32_t)++kept;
	}
	*n = kept;
	return 0;
}

atomic_size_t policy_snapshots_alive;

void policy_snapshot_free(struct policy_snapshot *s)
{
	if (!s)
		return;
	atomic_fetch_sub_explicit(&policy_snapshots_alive, 1, memory_order_relaxed);
	free_objects(s->objects, s->n_objects);
	free_names(s->missing, s->n_missing);
	free_names(s->watched, s->n_watched);
	free_names(s->denied, s->n_denied);
	free(s->object_index.slots);
	free(s->missing_index.slots);
	free(s->watched_index.slots);
	free(s->denied_index.slots);
	free(s);
}

struct policy_snapshot *policy_builder_finish(struct policy_builder *b)
{
	struct policy_snapshot *s;

	if (!b)
		return NULL;
	if (b->failed || !(s = calloc(1, sizeof(*s)))) {
		policy_builder_free(b);
		return NULL;
	}
	atomic_fetch_add_explicit(&policy_snapshots_alive, 1, memory_order_relaxed);
	atomic_init(&s->refs, 1);
	s->objects = TAKE_PTR(b->objects.items);
	s->n_objects = b->objects.n;
	s->missing = TAKE_PTR(b->missing.items);
	s->n_missing = b->missing.n;
	s->watched = TAKE_PTR(b->watched.items);
	s->n_watched = b->watched.n;
	s->denied = TAKE_PTR(b->denied.items);
	s->n_denied = b->denied.n;
	free(b);

	/* The index_* functions fail only while allocating, before they merge
	 * or move an entry, so freeing the snapshot frees each string once. */
	if (index_objects(s) < 0 || index_names(s->missing, &s->n_missing, &s->missing_index) < 0 ||
	    index_names(s->watched, &s->n_watched, &s->watched_index) < 0 ||
	    index_names(s->denied, &s->n_denied, &s->denied_index) < 0) {
		policy_snapshot_free(s);
		return NULL;
	}
	return s;
}

size_t policy_snapshot_objects(const struct policy_snapshot *s)
{
	return s ? s->n_objects : 0;
}

size_t policy_snapshot_missing(const struct policy_snapshot *s)
{
	return s ? s->n_missing : 0;
}

bool policy_snapshot_denies(const struct policy_snapshot *s)
{
	return s && s->n_denied > 0;
}

const char *policy_lookup_denied_name(const struct policy_snapshot *s, const char *name)
{
	const struct policy_name *d;

	if (!policy_snapshot_denies(s))
		return NULL;
	d = policy_find_name(s->denied, &s->denied_index, POLICY_ANY_FOLDER, name);
	return d ? d->reason : NULL;
}

unsigned policy_lookup(const struct policy_snapshot *s, struct policy_id id, const char **path, const char **reason)
{
	const struct policy_object *o = s ? policy_find_object(s, id) : NULL;

	if (path)
		*path = o ? o->path : NULL;
	if (reason)
		*reason = o ? o->reason : NULL;
	return o ? o->flags : 0;
}

bool policy_lookup_missing(const struct policy_snapshot *s, struct policy_id parent, const char *name,
			   const char **path, const char **reason, unsigned *flags)
{
	const struct policy_name *m = s ? policy_find_name(s->missing, &s->missing_index, parent, name) : NULL;

	if (path)
		*path = m ? m->path : NULL;
	if (reason)
		*reason = m ? m->reason : NULL;
	if (flags)
		*flags = m ? m->flags : 0;
	return m != NULL;
}

void policy_snapshot_foreach_object(const struct policy_snapshot *s,
				    void (*fn)(const struct policy_entry *e, void *data), void *data)
{
	for (size_t i = 0; s && i < s->n_objects; i++) {
		const struct policy_object *o = &s->objects[i];

		fn(&(struct policy_entry){ .id = o->id, .flags = o->flags, .path = o->path, .reason = o->reason },
		   data);
	}
}

void policy_snapshot_foreach_missing(const struct policy_snapshot *s,
				     void (*fn)(const struct policy_entry *e, void *data), void *data)
{
	for (size_t i = 0; s && i < s->n_missing; i++) {
		const struct policy_name *m = &s->missing[i];

		fn(&(struct policy_entry){ .id = m->parent,
					   .name = m->name,
					   .flags = m->flags,
					   .path = m->path,
					   .reason = m->reason },
		   data);
	}
}
