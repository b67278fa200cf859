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

/* Links followed at most by reached_path: the kernel's own limit. */
#define REACHED_PATH_MAX_LINKS 40

/* What a process reaches when it opens ABS (absolute), creating what is
 * missing on the way: realpath() of the deepest existing ancestor, the
 * missing rest appended with its "." and ".." taken lexically; unlike
 * physical_path, a link where the rest starts is followed even when what it
 * names is missing (a create through it lands there), a ".." in the rest
 * that climbs back to what exists is resolved again, and a failure other
 * than a missing name (a file on the way, a folder that cannot be searched,
 * a loop) is an error, never cut off. Returns 0 and *OUT (malloc'd,
 * absolute, normalised), -EINVAL, -ENOMEM, -ELOOP or the error met. */
int reached_path(const char *abs, char **out);
