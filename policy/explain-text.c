#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/explain-text.h"

const char *explain_type(const struct explain_target *t)
{
	if (!t->exists)
		return "missing";
	switch (t->st.st_mode & S_IFMT) {
	case S_IFREG:
		return "file";
	case S_IFDIR:
		return "folder";
	case S_IFLNK:
		return "symbolic link";
	case S_IFIFO:
		return "FIFO";
	case S_IFSOCK:
		return "socket";
	default:
		return "device";
	}
}

static void answer_line(FILE *out, const struct explanation *e, const struct op_answer *a)
{
	if (a->r == 0) {
		fprintf(out, "  %s: allowed\n", a->op);
		return;
	}
	fprintf(out, "  %s: refused%s (%s %s)\n", a->op,
	        a->r != POLICY_IF_IDENTICAL ? ""
	        : e->rewritable             ? " unless the new bytes are identical or a harmless configuration change"
	                                    : " unless the new bytes are identical",
	        a->v.rule, a->v.path);
}

static void first_line(FILE *out, const struct explanation *e, const struct explain_target *t, const char *asked)
{
	bool link_on_way = t->exists && S_ISLNK(t->st.st_mode) && t->rest;

	fprintf(out, "%s: ", asked);
	if (link_on_way)
		fprintf(out,
		        "%s on the way is a symbolic link, explained itself (the mount judges no path through a "
		        "link: what it names is judged by its own identity); ",
		        t->path);
	else if (t->rest)
		fprintf(out, "%s on the way does not exist; ", t->path);
	if (!e->rule)
		fputs("not protected\n", out);
	else
		fprintf(out, "%s (rule %s%s%s): %s\n",
		        strcmp(e->rule, POLICY_RULE_MISSING) == 0 ? "protected name" : "protected", e->rule,
		        e->frozen_in ? ", frozen-dir " : "", e->frozen_in ? e->frozen_in : "", e->reason);
}

static void write_text(FILE *out, const struct explanation *e, const struct explain_target *t, const char *asked)
{
	first_line(out, e, t, asked);
	fprintf(out, "  type: %s\n", explain_type(t));
	if (e->missing_flags & POLICY_MISSING_MKDIR_OK)
		fputs("  only an empty folder made by mkdir may take this name; the model then protects what lies in "
		      "it\n",
		      out);
	for (size_t i = 0; i < e->n_chain; i++)
		fprintf(out, "  because: %s (%s): %s\n", e->chain[i].path, e->chain[i].rule, e->chain[i].reason);
	for (size_t i = 0; i < e->n_ops; i++)
		answer_line(out, e, &e->ops[i]);
}

int explain_text(const struct explanation *e, const struct explain_target *t, const char *asked, char **out,
                 size_t *len)
{
	_cleanup_free_ char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	bool failed;

	if (!f)
		return -ENOMEM;
	write_text(f, e, t, asked);
	failed = ferror(f);
	/* fclose writes the last bytes and the final size; the buffer is ours
	 * even when it fails. */
	if (fclose(f) != 0 || failed)
		return -ENOMEM;
	*out = TAKE_PTR(buf);
	return 0;
}
