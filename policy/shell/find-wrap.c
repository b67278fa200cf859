/* The program finder's wrappers and interpreters: the command env, sudo,
 * timeout, flock and their kin start (policy/shell/programs.h parses their
 * options), the script or -c line an interpreter runs, find's -exec, and what
 * a shell reads as its program on standard input. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/shell/find-internal.h"
#include "policy/shell/parse.h"

/* Wrappers that are shell builtins: what they run changes the shell itself
 * (command cd tools), so their state is not undone. */
bool finder_wrapper_in_shell(const char *name)
{
	return strcmp(name, "command") == 0 || strcmp(name, "builtin") == 0 || strcmp(name, "exec") == 0 ||
	       strcmp(name, "time") == 0;
}

/* env -S STRING: the string split as words, then the rest, read again as env's arguments. */
static int run_env_split(struct finder *f, const struct wrapper_result *res, const char *const *argv,
			 const struct shell_word *const *words, size_t argc, uint32_t pos)
{
	_cleanup_free_ const char **nargv = NULL;
	_cleanup_free_ const struct shell_word **nwords = NULL;
	struct shell_ast *ast = NULL;
	struct shell_error err;
	size_t n = 1, i;
	int k;

	k = shell_parse(res->split, strlen(res->split), "env -S", &ast, &err);
	if (k < 0 || !ast->body || ast->body->kind != SHELL_CMD_SIMPLE) {
		shell_ast_free(ast);
		finder_note(f, SHELL_NOTE_UNREADABLE, pos, "env -S's string cannot be read");
		return 0;
	}
	for (const struct shell_word *w = ast->body->words; w; w = w->next)
		n++;
	nargv = calloc(n + argc, sizeof(*nargv));
	nwords = calloc(n + argc, sizeof(*nwords));
	if (!nargv || !nwords) {
		shell_ast_free(ast);
		return f->error = -ENOMEM;
	}
	nargv[0] = argv[0];
	i = 1;
	for (const struct shell_word *w = ast->body->words; w; w = w->next, i++) {
		nargv[i] = shell_word_static(ast, w);
		nwords[i] = w;
	}
	for (size_t j = res->command; j < argc; j++, i++) {
		nargv[i] = argv[j];
		nwords[i] = words[j];
	}
	k = finder_run_argv(f, nargv, nwords, i, pos);
	shell_ast_free(ast);
	return k;
}

int finder_run_wrapper(struct finder *f, const char *name, const struct wrapper_result *res, const char *const *argv,
		       const struct shell_word *const *words, size_t argc, uint32_t pos)
{
	struct state saved = f->st;
	int k = 0;

	if (res->runs_nothing)
		return 0;
	if (res->unknown)
		finder_note(f, SHELL_NOTE_UNKNOWN_OPTION, pos, "%s: option %s is not known", name, res->unknown);
	if (res->chdir_dynamic)
		finder_note(f, SHELL_NOTE_CD_VARIABLE, pos, "a folder named through a variable is not followed");
	if (res->chdir) { /* the command runs there only: env -C fails otherwise */
		struct shell_folders next = {0};

		for (size_t i = 0; i < f->st.cwd.n; i++)
			shell_folders_add(&next, finder_join(f, f->st.cwd.v[i], res->chdir));
		if (!f->error) {
			f->st.cwd = next;
			for (size_t i = 0; i < next.n; i++)
				finder_learn_folder(f, next.v[i]);
		}
	}
	for (size_t i = res->assigns_from; i < res->assigns_to; i++)
		finder_word_assign(f, words[i], pos);
	if (res->altpath) {
		struct shell_word w = {0};
		struct shell_part p = {.kind = SHELL_PART_LIT, .text = res->altpath, .len = strlen(res->altpath)};

		w.parts = &p;
		finder_path_assign(f, &w, 0, pos);
	}
	if (res->split)
		k = run_env_split(f, res, argv, words, argc, pos);
	else if (res->shell_c)
		finder_read_line_apart(f, res->shell_c, pos);
	else if (res->shell_c_dynamic)
		finder_note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos, "%s -c's line built from a variable is not read", name);
	else if (res->command < argc) {
		if (res->default_path)
			f->st.path.set = f->st.path.unset = false;
		k = finder_run_argv(f, argv + res->command, words + res->command, argc - res->command, pos);
		if (res->default_path) {
			f->st.path.set = saved.path.set;
			f->st.path.unset = saved.path.unset;
		}
	}
	if (!finder_wrapper_in_shell(name))
		f->st = saved;
	return k;
}

int finder_run_interpreter(struct finder *f, enum interp_family family, const char *const *argv, size_t argc,
			   uint32_t pos)
{
	struct interp_result res;
	struct state saved = f->st;

	shell_interp_parse(family, argv, argc, &res);
	if (res.chdir)
		finder_apply_cd(f, res.chdir, pos);
	if (res.inline_code < argc) {
		if (family != INTERP_SHELL)
			finder_note(f, SHELL_NOTE_INLINE_CODE, pos, "%s runs code given on its command line", argv[0]);
		else if (!argv[res.inline_code])
			finder_note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos,
				    "a sh -c line built from a variable is not read");
		else
			finder_read_line_apart(f, argv[res.inline_code], pos);
	}
	if (res.module && res.module[0]) {
		char *mod = shell_pool_strdup(&f->pool, res.module);

		for (char *c = mod; c && *c; c++)
			if (*c == '.')
				*c = '/';
		if (mod) {
			char *file = NULL, *main_file = NULL;

			if (asprintf(&file, "%s.py", mod) >= 0) {
				finder_hold_where_exists(f, file, pos);
				free(file);
			}
			if (asprintf(&main_file, "%s/__main__.py", mod) >= 0) {
				finder_hold_where_exists(f, main_file, pos);
				free(main_file);
			}
		}
	}
	if (res.require)
		finder_hold_relative(f, res.require, pos);
	if (res.script < argc) {
		const char *s = argv[res.script];

		if (!s)
			finder_note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos,
				    "a script named through a variable is not followed");
		else if (strchr(s, '/'))
			finder_hold_relative(f, s, pos);
		else
			finder_hold_where_exists(f, s, pos);
	}
	f->st.cwd = saved.cwd;
	return family == INTERP_SHELL && res.reads_stdin ? RAN_SHELL_FROM_STDIN : 0;
}

/* find's -exec, -execdir, -ok and -okdir run their words as a command:
 * -exec where find stands, -execdir in the folders of what it finds, which
 * start at the folders find is given. */
void finder_run_find(struct finder *f, const char *const *argv, const struct shell_word *const *words, size_t argc,
		     uint32_t pos)
{
	size_t starts = 1;

	while (starts < argc && !(argv[starts] && strchr("-(!", argv[starts][0])))
		starts++;
	for (size_t i = starts; i < argc; i++) {
		bool in_found = argv[i] && (strcmp(argv[i], "-execdir") == 0 || strcmp(argv[i], "-okdir") == 0);
		struct state saved = f->st;
		size_t end = i + 1;

		if (!argv[i] || (!in_found && strcmp(argv[i], "-exec") != 0 && strcmp(argv[i], "-ok") != 0))
			continue;
		while (end < argc && !(argv[end] && (strcmp(argv[end], ";") == 0 || strcmp(argv[end], "+") == 0)))
			end++;
		for (size_t s = 1; in_found && s < starts; s++)
			if (argv[s])
				for (size_t k = 0, n = saved.cwd.n; k < n; k++)
					shell_folders_add(&f->st.cwd, finder_join(f, saved.cwd.v[k], argv[s]));
		if (i + 1 < end && argv[i + 1] && strcmp(argv[i + 1], "{}") == 0)
			finder_note(f, SHELL_NOTE_PROGRAM_VARIABLE, pos, "find runs what it finds: not followed");
		else if (i + 1 < end)
			finder_run_argv(f, argv + i + 1, words + i + 1, end - i - 1, pos);
		f->st = saved;
		i = end;
	}
}

void finder_run_make(struct finder *f, const char *const *argv, size_t argc, uint32_t pos)
{
	for (size_t i = 1; i < argc; i++)
		if (argv[i] && (strncmp(argv[i], "-f", 2) == 0 || strncmp(argv[i], "--file", 6) == 0 ||
				strncmp(argv[i], "--makefile", 10) == 0)) {
			finder_note(f, SHELL_NOTE_LATER_ARGUMENT, pos, "a file make reads (-f) is not followed");
			return;
		}
}

/* The last redirection of standard input: a shell reading its program
 * there runs that file, a here-document or a here-string. */
static const struct shell_redir *stdin_redir(const struct shell_redir *r)
{
	const struct shell_redir *last = NULL;

	for (; r; r = r->next)
		if ((r->fd == -1 || r->fd == 0) && (r->op == SHELL_REDIR_IN || r->op == SHELL_REDIR_INOUT ||
						    r->op == SHELL_REDIR_HEREDOC || r->op == SHELL_REDIR_HERESTRING))
			last = r;
	return last;
}

/* sh < tools/x.sh runs the file as sh tools/x.sh would: it is opened
 * from the folder the command stands in, named with a folder or not. */
static void stdin_script(struct finder *f, struct shell_ast *ast, const struct shell_redir *r, uint32_t pos)
{
	const char *file = shell_word_static(ast, r->word);

	if (!file)
		finder_note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos, "a script named through a variable is not followed");
	else
		finder_hold_relative(f, file, pos);
}

/* The text 'echo WORDS' or 'printf FORMAT [ARGS]' writes, when static. */
static const char *literal_written(struct finder *f, const struct shell_cmd *c)
{
	_cleanup_free_ const char **argv = NULL;
	struct shell_ast *ast = finder_tree(f);
	size_t argc = 0, i = 0, from = 1;
	char *text;

	if (!c || c->kind != SHELL_CMD_SIMPLE || !c->words)
		return NULL;
	for (const struct shell_word *w = c->words; w; w = w->next)
		argc++;
	argv = calloc(argc, sizeof(*argv));
	if (!argv)
		return NULL;
	for (const struct shell_word *w = c->words; w; w = w->next)
		if (!(argv[i++] = shell_word_static(ast, w)))
			return NULL;
	if (strcmp(argv[0], "echo") == 0) {
		while (from < argc && (strcmp(argv[from], "-n") == 0 || strcmp(argv[from], "-e") == 0))
			from++;
	} else if (strcmp(argv[0], "printf") == 0 && argc > 1) {
		/* printf '%s\n' LINE...: the arguments; a format alone: itself */
		from = argc > 2 ? 2 : 1;
	} else
		return NULL;
	text = finder_join_words(f, argv, from, argc);
	for (char *p = text; p && *p; p++)
		if (p[0] == '\\' && p[1] == 'n')
			p[0] = ' ', p[1] = '\n';
	return text;
}

/* cat FILE... | sh runs the files as scripts: true when FROM is such a cat
 * (every word static), with its files held. */
static bool cat_files(struct finder *f, struct shell_ast *ast, const struct shell_cmd *from, uint32_t pos)
{
	const char *name;

	if (from->kind != SHELL_CMD_SIMPLE || !from->words)
		return false;
	name = shell_word_static(ast, from->words);
	if (!name || strcmp(name, "cat") != 0)
		return false;
	for (const struct shell_word *w = from->words->next; w; w = w->next)
		if (!shell_word_static(ast, w))
			return false;
	for (const struct shell_word *w = from->words->next; w; w = w->next) {
		const char *file = shell_word_static(ast, w);

		if (file[0] != '-') /* an option, or '-' for cat's own input */
			finder_hold_relative(f, file, pos);
	}
	return true;
}

/* What a shell reads from standard input: the file it is redirected from, a
 * here-document or here-string as a line of its own, or what the pipeline
 * element FROM writes (NULL when the shell is not in a pipeline). */
void finder_stdin_program(struct finder *f, struct shell_ast *ast, const struct shell_redir *redirs,
			  const struct shell_cmd *from, uint32_t pos)
{
	const struct shell_redir *r = stdin_redir(redirs);
	const char *text;

	if (r && (r->op == SHELL_REDIR_IN || r->op == SHELL_REDIR_INOUT)) {
		stdin_script(f, ast, r, pos);
		return;
	}
	if (r && r->op == SHELL_REDIR_HEREDOC)
		text = !r->body ? NULL : r->body->parts ? shell_word_static(ast, r->body) : "";
	else if (r)
		text = shell_word_static(ast, r->word);
	else if (from)
		text = literal_written(f, from);
	else
		return; /* what the line's caller gives it */
	if (text)
		finder_read_line_apart(f, text, pos);
	else if (r || !cat_files(f, ast, from, pos))
		finder_note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos, "what the shell reads is not a literal line: not read");
}
