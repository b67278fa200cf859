/* oz0fs --check-path [--read|--write] [--json] [--config FILE] [--tree DIR] -- PATH...
 * Judges paths before an agent harness reads or writes them (seed 004,
 * layer A): each PATH in every spelling that reaches it (tools/check-path-
 * forms.h) against the denied roots (tools/check-path-roots.h), and for a
 * write (the default) against the model of the tree DIR (default: the
 * current folder), built as a mount on it would build it. Exit 0 when every
 * PATH is allowed, 1 when any is refused (a line each), 2 on a usage error
 * or a configuration that cannot be read. ARGC/ARGV start at the word
 * "--check-path". */
#pragma once

int path_check_main(int argc, char **argv);
