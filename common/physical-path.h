/* Where the kernel takes an absolute path: what git reaches when it opens a
 * path it was given, links and ".." included. */
#pragma once

/* ABS (absolute) with its ".", ".." and empty components taken lexically,
 * as a person reads it. Returns 0 and *OUT, -EINVAL or -ENOMEM. */
int lexical_path(const char *abs, char **out);

/* The physical path of ABS (absolute): realpath() of its deepest existing
 * ancestor, with the missing rest appended and its "." and ".." taken
 * lexically. Returns 0 and *OUT (malloc'd, absolute, normalised), -EINVAL
 * for a path that is not absolute, or -ENOMEM. */
int physical_path(const char *abs, char **out);
