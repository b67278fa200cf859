/* The ceiling (seed 000, "Set resource ceilings"): the most any one sandbox
 * gets, whatever is asked. It comes from the configuration's [ceiling]
 * section (memory_mb, pids, cpus) and from the file its `file =` key names,
 * which a fleet pushes; until that file can be read, no sandbox starts. */
#pragma once

#include <stddef.h>

#include "tools/run/limits.h"

/* A ceiling file larger than this is not a ceiling file. */
#define RUN_CEILING_MAX_BYTES (64 * 1024)

/* The [ceiling] values as the configuration spells them, each NULL when
 * unset (policy/conf.c keeps them as text: it knows nothing of limits). */
struct run_ceiling_text {
	const char *memory_mb, *pids, *cpus, *file;
};

/* Parses TEXT, and reads TEXT->file when set: an INI file with the same
 * three keys in a [ceiling] section. Where both set a field, the lower
 * holds. Returns 0, or -errno with a one-line *ERRMSG that names the file,
 * the line and what is wrong ("FILE: cannot read: ...: no sandbox starts
 * until it can"). A file that sets none of the keys is refused too: a fleet
 * file that says nothing is a mistake, not "no ceiling". */
int run_ceiling_load(const struct run_ceiling_text *text, struct run_limits *out, char **errmsg);
/* The file's half of run_ceiling_load(): BUF (LEN bytes) as the ceiling
 * file ORIGIN holds it, into *OUT (the fields it does not set 0). Returns 0,
 * or -errno with *ERRMSG "ORIGIN:LINE: reason" (or "ORIGIN: reason" for the
 * file as a whole). */
int run_ceiling_parse(const char *buf, size_t len, const char *origin, struct run_limits *out, char **errmsg);
