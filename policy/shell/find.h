/* The program finder: reads a configured command as sh would and names
 * every program and script it can start, in every folder it can start it
 * from (seed 000, "Reading configured commands", "Working directories in
 * configured commands", "Limits of configured-command discovery").
 *
 * Paths are relative to the folder the line starts in ("." is that folder;
 * a leading ".." stays), or absolute as written; the caller decides which lie
 * in the work tree. Nothing here touches the file system: where the seed says
 * "where it exists", the caller's exists() is asked, and without one every
 * candidate is held.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The combined size of the paths held after a literal cd (seed 000). */
#define SHELL_FIND_MAX_CD_BYTES (1024 * 1024)
/* Nested lines (sh -c, eval, trap, env -S, function calls) read inside one another. */
#define SHELL_FIND_MAX_NESTING 16
/* Commands visited in all, so that calls of calls cannot take forever. */
#define SHELL_FIND_MAX_STEPS 100000
/* Entries of the PATHs a line sets that are searched; the last one is held whole. */
#define SHELL_FIND_MAX_PATH_ENTRIES 64

struct shell_find_options {
	bool (*exists)(const char *path, void *userdata);
	void *userdata;
};

/* A program or script the line can run: PATH, named from FOLDER, the folder
 * the command stands in. POS is the byte offset of the command. */
struct shell_held {
	char *folder;
	char *path;
	uint32_t pos;
};

/* What was not followed, and why (for --explain). */
enum shell_note_kind {
	SHELL_NOTE_UNREADABLE,        /* the line is not valid sh, or past a parser bound */
	SHELL_NOTE_PROGRAM_VARIABLE,  /* the program is named through a variable */
	SHELL_NOTE_SCRIPT_VARIABLE,   /* a script, sh -c line or eval line through a variable */
	SHELL_NOTE_LATER_ARGUMENT,    /* a file a program reads (make -f tools/build.mk) */
	SHELL_NOTE_CD_VARIABLE,       /* cd to a folder named through a variable or home */
	SHELL_NOTE_CDPATH,            /* cd that CDPATH may send elsewhere */
	SHELL_NOTE_PATH_VARIABLE,     /* a PATH entry set through a variable */
	SHELL_NOTE_PATH_HOME,         /* a PATH entry in a home folder ($HOME, ~) */
	SHELL_NOTE_INLINE_CODE,       /* python -c, node -e...: code, not a file */
	SHELL_NOTE_UNKNOWN_OPTION,    /* a wrapper's option we do not know */
	SHELL_NOTE_BOUND_FOLDERS,     /* past 64 combinations of folders */
	SHELL_NOTE_BOUND_CD_BYTES,    /* past 1 MiB of paths after a cd */
	SHELL_NOTE_BOUND_NESTING,     /* nested lines too deep */
	SHELL_NOTE_BOUND_STEPS,       /* too many commands to visit */
	SHELL_NOTE_BOUND_PATH,        /* a PATH past 64 entries */
};

struct shell_note {
	enum shell_note_kind kind;
	uint32_t pos;
	char *text; /* one line for a person */
};

struct shell_finding {
	struct shell_held *held;
	size_t n_held;
	struct shell_note *notes;
	size_t n_notes;
};

/* Reads the command line BUF (LEN bytes). Returns 0 and a finding, or
 * -ENOMEM. A line we cannot parse to its end gives an UNREADABLE note, and
 * holds what the complete commands before the error can run: sh has run them
 * by the time it meets the error. */
int shell_find(const char *buf, size_t len, const char *origin, const struct shell_find_options *opts,
	       struct shell_finding **out);
struct shell_finding *shell_finding_free(struct shell_finding *f);

/* A short stable name of the note kind, e.g. "program-variable". */
const char *shell_note_kind_name(enum shell_note_kind kind);
