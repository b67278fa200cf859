/* A scratch folder for one test: made fresh, the paths in it named
 * relative to it, removed whole. */
#pragma once

#include <stdbool.h>

extern char scratch_dir[];

void scratch_make(void);
/* rm -rf: anything mounted in it must be gone first. */
void scratch_remove(void);
/* rm -rf of REST below the folder. */
void scratch_remove_below(const char *rest);
/* REST below the folder (malloc'd). */
char *scratch_path(const char *rest);
void scratch_mkdir(const char *rest);
void scratch_symlink(const char *target, const char *rest);
/* The file REST holding TEXT, made or replaced. */
void scratch_write(const char *rest, const char *text);
/* The folder PATH (anywhere) can be read and holds nothing. */
bool scratch_empty_folder(const char *path);
