/* Whether a mount on DIR would start, and what it would protect by rule. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "tools/probes.h"

/* Objects by the rule that refuses a change of them (policy/decide.c): a
 * frozen folder first, then a read-only object, then a bare anchor. */
struct rule_counts {
	size_t protected, frozen, anchors, missing, mkdir_ok;
};

static void count_object(const struct policy_entry *e, void *data)
{
	struct rule_counts *c = data;

	if (e->flags & POLICY_FROZEN)
		c->frozen++;
	else if (e->flags & POLICY_CONTENT)
		c->protected ++;
	else if (e->flags & POLICY_ANCHOR)
		c->anchors++;
}

static void count_missing(const struct policy_entry *e, void *data)
{
	struct rule_counts *c = data;

	c->missing++;
	if (e->flags & POLICY_MISSING_MKDIR_OK)
		c->mkdir_ok++;
}

static int report_counts(struct report *r, const struct policy_snapshot *s)
{
	struct rule_counts c = {0};
	char total[32];
	int k;

	policy_snapshot_foreach_object(s, count_object, &c);
	policy_snapshot_foreach_missing(s, count_missing, &c);
	snprintf(total, sizeof(total), "%zu", c.protected + c.frozen + c.anchors + c.missing);
	k = report_add(r, "protected_objects", "Protected objects", total,
	               "read-only: %zu (rule protected), frozen folders: %zu (frozen-dir), anchors: %zu (anchor), "
	               "missing names: %zu (protected-name; %zu of them may be made as an empty folder)",
	               c.protected, c.frozen, c.anchors, c.missing, c.mkdir_ok);
	if (k < 0)
		return k;
	report_add_count(r, "protected", c.protected);
	report_add_count(r, "frozen_dirs", c.frozen);
	report_add_count(r, "anchors", c.anchors);
	report_add_count(r, "missing_names", c.missing);
	return 0;
}

int probe_tree(struct report *r, const char *dir, const char *config, bool *would_mount)
{
	_cleanup_free_ char *err = NULL;
	struct tree_model tm;
	int k = tree_model_open(dir, config, &tm, &err);

	*would_mount = k >= 0;
	if (k == -ENOMEM)
		return k;
	if (k < 0)
		return report_add(r, "mount", "Mount on the tree", REPORT_OFF, "'%s' would refuse: %s", dir,
		                  err ? err : strerror(-k));
	k = report_add(r, "mount", "Mount on the tree", REPORT_ON, "'%s' would start: its protection model builds",
	               dir);
	if (k >= 0)
		k = report_counts(r, tm.snap);
	tree_model_close(&tm);
	return k;
}
