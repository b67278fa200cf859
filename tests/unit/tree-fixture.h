/* A scratch tree for the tests of the Git model: made empty, filled with
 * shell commands (git itself), removed whole. */
#pragma once

extern char fixture_top[];
extern int fixture_rootfd; /* O_PATH fd of fixture_top */

/* Runs a shell command in the tree; the test fails when it fails. */
void fixture_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fixture_make(void);
void fixture_remove(void);
