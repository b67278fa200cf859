#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/explain-judge.h"
#include "policy/explain-text.h"
#include "tools/explain.h"
#include "tools/json.h"
#include "tools/tool-args.h"
#include "tools/tree-model.h"

static const char usage[] =
        "usage: oz0fs --explain [--json] [--config FILE] DIR PATH\n"
        "Says whether PATH (relative to DIR, or absolute inside it) is protected by a mount on DIR,\n"
        "by which rule and why, and what the mount would answer to a write, chmod, rename or create.\n";

/* ---- Output ------------------------------------------------------------------ */

/* The text form: the words the mount's user.oz0fs.why gives too. */
static int print_text(const struct explanation *e, const struct explain_target *t, const char *asked)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r = explain_text(e, t, asked, &text, &len);

	if (r >= 0)
		fwrite(text, 1, len, stdout);
	return r;
}

static void json_field(const char *key, const char *value, bool first)
{
	printf("%s\"%s\":", first ? "" : ",", key);
	json_string(stdout, value);
}

static void print_json(const struct explanation *e, const struct explain_target *t, const char *asked)
{
	bool link_on_way = t->exists && S_ISLNK(t->st.st_mode) && t->rest;

	putchar('{');
	json_field("asked", asked, true);
	json_field("path", t->path, false);
	json_field("type", explain_type(t), false);
	printf(",\"exists\":%s,\"link_on_the_way\":%s,\"protected\":%s", t->exists ? "true" : "false",
	       link_on_way ? "true" : "false", e->rule ? "true" : "false");
	json_field("rest", t->rest, false);
	json_field("rule", e->rule, false);
	json_field("rule_path", e->rule_path, false);
	json_field("reason", e->reason, false);
	json_field("frozen_in", e->frozen_in, false);
	printf(",\"mkdir_only\":%s,\"chain\":[", e->missing_flags & POLICY_MISSING_MKDIR_OK ? "true" : "false");
	for (size_t i = 0; i < e->n_chain; i++) {
		printf("%s{", i ? "," : "");
		json_field("path", e->chain[i].path, true);
		json_field("rule", e->chain[i].rule, false);
		json_field("reason", e->chain[i].reason, false);
		putchar('}');
	}
	printf("],\"ops\":{");
	for (size_t i = 0; i < e->n_ops; i++) {
		const struct op_answer *a = &e->ops[i];

		printf("%s\"%s\":{\"allowed\":%s,\"unless_identical\":%s", i ? "," : "", a->op,
		       a->r == 0 ? "true" : "false", a->r == POLICY_IF_IDENTICAL ? "true" : "false");
		json_field("rule", a->r ? a->v.rule : NULL, false);
		json_field("path", a->r ? a->v.path : NULL, false);
		json_field("reason", a->r ? a->v.reason : NULL, false);
		putchar('}');
	}
	printf("}}\n");
}

/* ---- The command ------------------------------------------------------------- */

static int explain_in(const struct tree_model *tm, const char *rel, bool json)
{
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ struct explanation *e = calloc(1, sizeof(*e));
	struct explain_target t;
	int r;

	if (!e)
		return -ENOMEM;
	r = explain_path(tm->rootfd, tm->snap, rel, e, &t, &err);
	if (r >= 0 && json)
		print_json(e, &t, rel);
	else if (r >= 0)
		r = print_text(e, &t, rel);
	else if (r != -ENOMEM)
		fprintf(stderr, "oz0fs --explain: %s: %s\n", rel, err ? err : strerror(-r));
	explain_target_free(&t);
	return r;
}

int explain_main(int argc, char **argv)
{
	_cleanup_free_ char *err = NULL, *rel = NULL;
	struct tree_model tm;
	struct tool_args a;
	int r = tool_args_parse(argc, argv, 2, 2, usage, &a);

	if (r != 0)
		return r > 0 ? 0 : TOOL_EXIT_USAGE;
	r = explain_tree_relative(a.rest[0], a.rest[1], &rel);
	if (r == -EXDEV) {
		fprintf(stderr, "oz0fs --explain: '%s' is not inside '%s'\n", a.rest[1], a.rest[0]);
		return TOOL_EXIT_USAGE;
	}
	if (r >= 0)
		r = tree_model_open(a.rest[0], a.config, &tm, &err);
	if (r == -ENOMEM) {
		fputs("oz0fs --explain: out of memory\n", stderr);
		return 1;
	}
	if (r < 0) {
		fprintf(stderr, "oz0fs --explain: a mount on '%s' would refuse: %s\n", a.rest[0],
		        err ? err : strerror(-r));
		return 1;
	}
	r = explain_in(&tm, rel, a.json);
	tree_model_close(&tm);
	if (r == -ENOMEM)
		fputs("oz0fs --explain: out of memory\n", stderr);
	if (r == -EXDEV) /* '..' past the tree: PATH is not inside DIR */
		return TOOL_EXIT_USAGE;
	return r < 0 ? 1 : 0;
}
