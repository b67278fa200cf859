/* The snapshot's layout, shared by policy/ only (not part of the API). */
#pragma once

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

struct policy_object {
	struct policy_id id;
	unsigned flags;
	char *path;
	char *reason;
};

/* A name in a directory: a protected missing name, or a watched entry. */
struct policy_name {
	struct policy_id parent;
	unsigned flags;
	char *name;
	char *path;
	char *reason;
};

/* Open addressing over an entry array: slots hold index + 1, 0 is empty.
 * The capacity is a power of two at least twice the entries, so a probe
 * always meets an empty slot. */
struct policy_index {
	uint32_t *slots;
	size_t mask;
};

struct policy_snapshot {
	atomic_uint refs; /* the holder's reference and each reader's */
	struct policy_object *objects;
	size_t n_objects;
	struct policy_index object_index;
	struct policy_name *missing;
	size_t n_missing;
	struct policy_index missing_index;
	struct policy_name *watched;
	size_t n_watched;
	struct policy_index watched_index;
	struct policy_name *denied; /* names refused anywhere: parent is {0, 0} */
	size_t n_denied;
	struct policy_index denied_index;
};

/* The parent the denied names are indexed under: they hold in every folder. */
#define POLICY_ANY_FOLDER ((struct policy_id){0, 0})

const struct policy_object *policy_find_object(const struct policy_snapshot *s, struct policy_id id);
const struct policy_name *policy_find_name(const struct policy_name *names, const struct policy_index *index,
					   struct policy_id parent, const char *name);
void policy_snapshot_free(struct policy_snapshot *s);

/* How many snapshots are built and not yet freed: for the tests that check
 * a snapshot goes once its last reader lets go (tests/unit/test-holder.c). */
extern atomic_size_t policy_snapshots_alive;
