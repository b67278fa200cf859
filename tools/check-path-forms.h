/* The spellings of one PATH that oz0fs --check-path judges (seed 004,
 * "..", "~" and symlinks): a rule on a path is easy to dodge when the path
 * can be written another way, so each is judged in every way a harness may
 * reach it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define PATH_FORMS_MAX 3

struct path_forms {
	/* plain: "~" expanded, made absolute, "." and ".." taken lexically (a
	 * harness that normalises the path itself reaches this); then what the
	 * kernel reaches through links, from the path as given and from the
	 * plain one (common/physical-path.h, reached_path); duplicates dropped */
	char *form[PATH_FORMS_MAX];
	bool folds_case[PATH_FORMS_MAX]; /* the volume there ignores case: lower-cased spellings too */
	size_t n;
};

/* PATH with "~" or "~/" expanded from HOME and made absolute against CWD
 * (either may be NULL when unknown), not yet normalised, in *OUT. Returns 0;
 * -EINVAL for an empty PATH, "~user" (which the harness may read as a name
 * in the working folder) or a "~" or relative PATH without the folder it
 * needs; -ENAMETOOLONG; -ENOMEM. */
int path_absolute(const char *path, const char *home, const char *cwd, char **out);

/* Fills F for PATH. Returns 0, or -errno with a malloc'd one-line reason in
 * *errmsg: PATH is unusable (path_absolute) or cannot be resolved (a file on
 * the way, a folder that cannot be searched, a loop of links). */
int path_forms_get(const char *path, const char *home, const char *cwd, struct path_forms *f, char **errmsg);
void path_forms_free(struct path_forms *f);

/* Whether PATH lies at or below ROOT (both absolute and normalised),
 * comparing ASCII letters without case when FOLD. */
bool path_within(const char *path, const char *root, bool fold);
