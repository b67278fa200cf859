#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "tools/json.h"
#include "tools/report.h"

int report_add(struct report *r, const char *key, const char *name, const char *state, const char *why_fmt, ...)
{
	_cleanup_free_ char *why = NULL;
	_cleanup_free_ char *state_copy = strdup(state);
	struct report_line *grown;
	va_list ap;
	int n;

	va_start(ap, why_fmt);
	n = vasprintf(&why, why_fmt, ap);
	va_end(ap);
	if (n < 0) {
		why = NULL;
		return -ENOMEM;
	}
	if (!state_copy)
		return -ENOMEM;
	grown = reallocarray(r->lines, r->n + 1, sizeof(*r->lines));
	if (!grown)
		return -ENOMEM;
	r->lines = grown;
	r->lines[r->n++] =
	        (struct report_line){.key = key, .name = name, .state = TAKE_PTR(state_copy), .why = TAKE_PTR(why)};
	return 0;
}

void report_add_count(struct report *r, const char *name, size_t n)
{
	struct report_line *l = &r->lines[r->n - 1];

	if (l->n_counts < REPORT_MAX_COUNTS)
		l->counts[l->n_counts++] = (struct report_count){.name = name, .n = n};
}

void report_print_text(const struct report *r, FILE *out)
{
	for (size_t i = 0; i < r->n; i++)
		fprintf(out, "%s: %s — %s\n", r->lines[i].name, r->lines[i].state, r->lines[i].why);
}

static void print_json_line(const struct report_line *l, FILE *out)
{
	fprintf(out, ",\"%s\":{\"name\":", l->key);
	json_string(out, l->name);
	fputs(",\"state\":", out);
	json_string(out, l->state);
	fputs(",\"why\":", out);
	json_string(out, l->why);
	for (size_t k = 0; k < l->n_counts; k++)
		fprintf(out, ",\"%s\":%zu", l->counts[k].name, l->counts[k].n);
	fputc('}', out);
}

void report_print_json(const struct report *r, bool ok, FILE *out)
{
	fprintf(out, "{\"ok\":%s", ok ? "true" : "false");
	for (size_t i = 0; i < r->n; i++)
		print_json_line(&r->lines[i], out);
	fputs("}\n", out);
}

void report_free(struct report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->lines[i].state);
		free(r->lines[i].why);
	}
	free(r->lines);
	*r = (struct report){0};
}
