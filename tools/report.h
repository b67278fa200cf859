/* The lines of oz0fs --check, in the manner of seed 000's `sandbox check`:
 * each one "Name: STATE — why", where STATE is on, off or a value; with
 * --json, one object holding the same facts, a line's counts as numbers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define REPORT_ON         "on"
#define REPORT_OFF        "off"
#define REPORT_MAX_COUNTS 4

struct report_count {
	const char *name; /* a JSON key, static */
	size_t n;
};

struct report_line {
	const char *key;  /* the JSON key, static */
	const char *name; /* as people read it, static */
	char *state;
	char *why;
	struct report_count counts[REPORT_MAX_COUNTS];
	size_t n_counts;
};

struct report {
	struct report_line *lines;
	size_t n;
};

/* Adds a line. Returns 0 or -ENOMEM. */
int report_add(struct report *r, const char *key, const char *name, const char *state, const char *why_fmt, ...)
        __attribute__((format(printf, 5, 6)));
/* Adds a named count to the last line (JSON only: the text says it in words). */
void report_add_count(struct report *r, const char *name, size_t n);

void report_print_text(const struct report *r, FILE *out);
/* One object: "ok", then each line under its key. */
void report_print_json(const struct report *r, bool ok, FILE *out);
void report_free(struct report *r);
