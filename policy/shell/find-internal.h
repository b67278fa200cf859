/* The program finder's parts, shared by policy/shell/find*.c only: the state
 * of one reading and what each part offers the others.
 *
 *   find.c        the entry, and what a reading holds and notes
 *   find-cd.c     the folders the line may stand in, and cd
 *   find-path.c   PATH (and CDPATH) as the line sets it, and bare names on it
 *   find-wrap.c   wrappers and interpreters, and what a shell reads on stdin
 *   find-walk.c   the walk in the order sh runs the line: functions, loops,
 *                 nested lines (eval, traps, sh -c) and the builtins
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/shell/ast.h"
#include "policy/shell/find.h"
#include "policy/shell/folders.h"
#include "policy/shell/programs.h"

struct path_state {
	bool set;   /* the line set PATH: bare names are searched in its entries */
	bool unset; /* after unset PATH: bare names are looked for where the line stands */
	const char *entries[SHELL_FIND_MAX_PATH_ENTRIES]; /* every PATH set, oldest first */
	size_t n;
	const char **last; /* the PATH set last, held whole */
	size_t n_last;
};

/* What a subshell's end restores. */
struct state {
	struct shell_folders cwd;
	struct path_state path;
	bool cdpath; /* the line set CDPATH: a relative cd may go elsewhere */
};

struct func {
	const char *name;
	const struct shell_cmd *body;
	bool active; /* being read: a call from inside it is read once */
	struct func *next;
};

struct finder {
	const struct shell_find_options *opts;
	struct shell_pool pool;
	struct state st;
	struct shell_folders named; /* every folder the line stands in, learnt as the line is read */
	bool named_read;  /* a loop, function or trap was held in the named folders */
	bool named_stale; /* and a folder was named after that: the line is read again */
	unsigned nesting; /* lines read inside other lines, and function calls */
	unsigned repeat;  /* inside a loop, a function or a trap */
	uint32_t outer_pos;
	size_t steps;
	size_t cd_bytes;
	bool cd_overflow;
	const struct shell_cmd *stdin_from; /* the pipeline element before the command read */
	struct func *funcs;
	struct shell_ast **asts; /* nested lines, alive while functions point into them */
	size_t n_asts;
	struct shell_finding *out;
	size_t held_cap, notes_cap;
	size_t *slots; /* open addressing over out->held, for de-duplication */
	size_t n_slots;
	int error;
};

/* find.c: what a reading holds and notes. */
void finder_note(struct finder *f, enum shell_note_kind kind, uint32_t pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void finder_hold(struct finder *f, const char *folder, const char *path, uint32_t pos);
bool finder_exists(struct finder *f, const char *path);

/* find-cd.c: folders and cd. */
void finder_folders(struct finder *f, struct shell_folders *out);
void finder_learn_folder(struct finder *f, const char *dir);
char *finder_join(struct finder *f, const char *base, const char *rel);
void finder_hold_relative(struct finder *f, const char *name, uint32_t pos);
void finder_hold_where_exists(struct finder *f, const char *name, uint32_t pos);
void finder_apply_cd(struct finder *f, const char *dest, uint32_t pos);
void finder_cd(struct finder *f, const char *const *argv, size_t argc, uint32_t pos);

/* find-path.c: PATH and the assignments that set it. */
void finder_hold_bare(struct finder *f, const char *name, uint32_t pos);
void finder_hold_program(struct finder *f, const char *name, uint32_t pos);
void finder_path_assign(struct finder *f, const struct shell_word *w, size_t skip, uint32_t pos);
void finder_assign(struct finder *f, const char *name, const struct shell_word *value, size_t skip, uint32_t pos);
void finder_word_assign(struct finder *f, const struct shell_word *w, uint32_t pos);
void finder_export(struct finder *f, const struct shell_word *const *words, size_t argc, uint32_t pos);
void finder_unset(struct finder *f, const char *const *argv, size_t argc);

/* find-wrap.c: wrappers and interpreters. */
bool finder_wrapper_in_shell(const char *name);
int finder_run_wrapper(struct finder *f, const char *name, const struct wrapper_result *res, const char *const *argv,
		       const struct shell_word *const *words, size_t argc, uint32_t pos);
int finder_run_interpreter(struct finder *f, enum interp_family family, const char *const *argv, size_t argc,
			   uint32_t pos);
void finder_run_find(struct finder *f, const char *const *argv, const struct shell_word *const *words, size_t argc,
		     uint32_t pos);
void finder_run_make(struct finder *f, const char *const *argv, size_t argc, uint32_t pos);
void finder_stdin_program(struct finder *f, struct shell_ast *ast, const struct shell_redir *redirs,
			  const struct shell_cmd *from, uint32_t pos);

/* find-walk.c: the walk, function calls, nested lines and builtins. */
/* What finder_run_argv (and the wrappers and interpreters it calls) tells its caller. */
#define RAN_SHELL_FROM_STDIN 1
int finder_run_argv(struct finder *f, const char *const *argv, const struct shell_word *const *words, size_t argc,
		    uint32_t pos);
void finder_walk_list(struct finder *f, const struct shell_cmd *c);
void finder_read_line_apart(struct finder *f, const char *text, uint32_t pos);
char *finder_join_words(struct finder *f, const char *const *argv, size_t from, size_t argc);
struct shell_ast *finder_tree(struct finder *f);
