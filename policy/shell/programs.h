/* What the shell reader knows of programs that start other programs:
 * wrappers (env, sudo, timeout...) and interpreters (python, node, sh...),
 * with their options parsed as those programs parse them. Shared by the
 * program finder and the command rules. Works on argument vectors whose
 * dynamic words are NULL. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* What a wrapper's options and operands say about the command it starts. */
struct wrapper_result {
	size_t command;       /* index of the started command's name; == argc when none */
	bool runs_nothing;    /* it starts no command (command -v, sudo -l, sudo -e) */
	bool default_path;    /* command -p: the name is looked up on the system's PATH */
	const char *chdir;    /* the last folder of env -C / sudo -D, or NULL */
	bool chdir_dynamic;   /* that folder came through a variable */
	const char *split;    /* env -S's string, to be split and read before the rest */
	const char *altpath;  /* BSD env -P */
	const char *shell_c;  /* flock -c's command line, run by sh -c */
	bool shell_c_dynamic; /* that line is built from a variable or a substitution */
	size_t assigns_from, assigns_to; /* NAME=VALUE operands (env, sudo) */
	const char *unknown;  /* the first option it does not know, or NULL */
};

/* True when NAME (a basename) is a wrapper we read, filling *RES from ARGV
 * (ARGV[0] is the wrapper itself). */
bool shell_wrapper_parse(const char *name, const char *const *argv, size_t argc, struct wrapper_result *res);

enum interp_family {
	INTERP_NONE,
	INTERP_PYTHON,
	INTERP_NODE,
	INTERP_RUBY,
	INTERP_PERL,
	INTERP_SHELL,
};

/* What an interpreter's options say about what it runs. */
struct interp_result {
	size_t script;      /* index of the script file operand; == argc when none */
	size_t inline_code; /* index of -c/-e code (a shell's -c line for INTERP_SHELL); == argc when none */
	const char *module; /* python -m: a module found from the current folder too */
	const char *require;/* node -r / ruby -r file, when named from a folder ("./x", "../x", "/x") */
	const char *chdir;  /* ruby -C */
	bool reads_stdin;   /* no script and no code: it reads its program from stdin */
	const char *unknown;
};

/* The family of an interpreter's basename, by name regardless of version or
 * build: python3.12, pythonw, py, node22, ruby3.3, perl5.36, sh, bash... */
enum interp_family shell_interp_family(const char *name);
void shell_interp_parse(enum interp_family family, const char *const *argv, size_t argc, struct interp_result *res);

/* The part of PATH after the last '/'. */
const char *shell_basename(const char *path);
