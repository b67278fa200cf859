/* What oz0fs --check-path prints: a line per PATH ("PATH: allowed" or
 * "PATH: refused (RULE): REASON"), or with --json one object for the run. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "tools/check-path-judge.h"

void path_report_text(const struct path_verdict *v, size_t n);
/* {"access":"write","tree":...,"allowed":...,"paths":[{"path":...,"allowed":...,"rule":...,"reason":...,
 *  "forms":[{"path":...,"folds_case":...}]}]} */
void path_report_json(const struct path_verdict *v, size_t n, bool write, const char *tree);
