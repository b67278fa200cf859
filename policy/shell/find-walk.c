/* The program finder's walk over the tree in the order sh runs it:
 * subshells undo what they change, loops, function bodies and traps are held
 * in every folder the line names, function calls and nested lines (eval,
 * sh -c, traps) are read where they run, and builtins are told from
 * programs. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/shell/find-internal.h"
#include "policy/shell/parse.h"

static void walk_cmd(struct finder *f, const struct shell_cmd *c);

/* Reads TEXT as a line of its own, in the current state. */
static void read_line(struct finder *f, const char *text, uint32_t pos)
{
	struct shell_ast *ast = NULL, **v;
	struct shell_error err;
	int k;

	if (f->nesting >= SHELL_FIND_MAX_NESTING) {
		finder_note(f, SHELL_NOTE_BOUND_NESTING, pos, "lines nested too deeply are not read");
		return;
	}
	k = shell_parse_runs(text, strlen(text), "nested", &ast, &err);
	if (k == -ENOMEM) {
		f->error = k;
		return;
	}
	if (err.code)
		finder_note(f, SHELL_NOTE_UNREADABLE, pos, "a nested line cannot be read: %s", err.what);
	if (!ast)
		return;
	v = reallocarray(f->asts, f->n_asts + 1, sizeof(*v));
	if (!v) {
		shell_ast_free(ast);
		f->error = -ENOMEM;
		return;
	}
	f->asts = v;
	f->asts[f->n_asts++] = ast;
	if (f->nesting++ == 0)
		f->outer_pos = pos;
	finder_walk_list(f, ast->body);
	f->nesting--;
}

/* Reads TEXT as a line run by another process (sh -c, a trap, find -exec):
 * what it changes does not outlive it. */
void finder_read_line_apart(struct finder *f, const char *text, uint32_t pos)
{
	struct state saved = f->st;

	read_line(f, text, pos);
	f->st = saved;
}

/* ARGV[FROM..] joined by spaces, or NULL when a word is dynamic. */
char *finder_join_words(struct finder *f, const char *const *argv, size_t from, size_t argc)
{
	size_t len = 1;
	char *s, *o;

	for (size_t i = from; i < argc; i++) {
		if (!argv[i])
			return NULL;
		len += strlen(argv[i]) + 1;
	}
	s = o = shell_pool_alloc(&f->pool, len);
	if (!s) {
		f->error = -ENOMEM;
		return NULL;
	}
	for (size_t i = from; i < argc; i++)
		o += snprintf(o, len - (size_t)(o - s), "%s%s", i > from ? " " : "", argv[i]);
	return s;
}

static void cmd_eval(struct finder *f, const char *const *argv, size_t argc, uint32_t pos)
{
	char *line = finder_join_words(f, argv, 1, argc);

	if (!line) {
		finder_note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos, "an eval line built from a variable is not read");
		return;
	}
	read_line(f, line, pos);
}

static void cmd_source(struct finder *f, const char *const *argv, size_t argc, uint32_t pos)
{
	size_t i = argc > 1 && argv[1] && strcmp(argv[1], "--") == 0 ? 2 : 1;

	if (i >= argc)
		return;
	if (!argv[i]) {
		finder_note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos, "a script named through a variable is not followed");
		return;
	}
	if (strchr(argv[i], '/')) {
		finder_hold_relative(f, argv[i], pos);
		return;
	}
	/* sh searches the PATH for it, bash the current folder too */
	finder_hold_where_exists(f, argv[i], pos);
	finder_hold_bare(f, argv[i], pos);
}

static void cmd_trap(struct finder *f, const char *const *argv, size_t argc, uint32_t pos)
{
	size_t i = argc > 1 && argv[1] && strcmp(argv[1], "--") == 0 ? 2 : 1;

	if (i >= argc || i + 1 >= argc)
		return; /* trap, trap -p, trap SIG: nothing set */
	if (!argv[i]) {
		finder_note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos, "a trap's line built from a variable is not read");
		return;
	}
	if (strcmp(argv[i], "-") == 0 || argv[i][0] == '\0' || argv[i][0] == '-')
		return;
	f->repeat++;
	finder_read_line_apart(f, argv[i], pos);
	f->repeat--;
}

static struct func *func_find(struct finder *f, const char *name)
{
	for (struct func *fn = f->funcs; fn; fn = fn->next)
		if (strcmp(fn->name, name) == 0)
			return fn;
	return NULL;
}

/* A function is read at each call, from where the call stands; a call from
 * inside itself is read once. */
static void call_function(struct finder *f, struct func *fn, uint32_t pos)
{
	if (fn->active)
		return;
	if (f->nesting >= SHELL_FIND_MAX_NESTING) {
		finder_note(f, SHELL_NOTE_BOUND_NESTING, pos, "function calls nested too deeply are not read");
		return;
	}
	fn->active = true;
	if (f->nesting++ == 0)
		f->outer_pos = pos;
	f->repeat++;
	walk_cmd(f, fn->body);
	f->repeat--;
	f->nesting--;
	fn->active = false;
}

/* Builtins that run no program of their own. */
static bool is_plain_builtin(const char *name)
{
	static const char *const builtins[] = {
		":", "true", "false", "echo", "printf", "test", "[", "pwd", "read", "set", "shift", "exit",
		"return", "break", "continue", "wait", "type", "hash", "alias", "unalias", "umask", "ulimit",
		"getopts", "jobs", "fg", "bg", "kill", "let", "times", "shopt", "popd", "dirs", "local",
		"readonly", "declare", "typeset", "export", "unset",
	};

	for (size_t i = 0; i < ELEMENTSOF(builtins); i++)
		if (strcmp(builtins[i], name) == 0)
			return true;
	return false;
}

/* Builtins the line's own functions cannot replace (POSIX special builtins
 * among them), and cd, which changes where the line stands. */
static bool run_builtin(struct finder *f, const char *const *argv, const struct shell_word *const *words, size_t argc,
			uint32_t pos)
{
	const char *name = argv[0];

	if (strcmp(name, "cd") == 0 || strcmp(name, "pushd") == 0)
		finder_cd(f, argv, argc, pos);
	else if (strcmp(name, "eval") == 0)
		cmd_eval(f, argv, argc, pos);
	else if (strcmp(name, ".") == 0 || strcmp(name, "source") == 0)
		cmd_source(f, argv, argc, pos);
	else if (strcmp(name, "trap") == 0)
		cmd_trap(f, argv, argc, pos);
	else if (strcmp(name, "export") == 0 || strcmp(name, "readonly") == 0 || strcmp(name, "local") == 0 ||
		 strcmp(name, "declare") == 0 || strcmp(name, "typeset") == 0)
		finder_export(f, words, argc, pos);
	else if (strcmp(name, "unset") == 0)
		finder_unset(f, argv, argc);
	else
		return false;
	return true;
}

int finder_run_argv(struct finder *f, const char *const *argv, const struct shell_word *const *words, size_t argc,
		    uint32_t pos)
{
	struct wrapper_result wres;
	enum interp_family family;
	const char *name, *base;
	struct func *fn;

	if (argc == 0 || f->error)
		return 0;
	if (++f->steps > SHELL_FIND_MAX_STEPS) {
		finder_note(f, SHELL_NOTE_BOUND_STEPS, pos, "too many commands to read: the rest is not followed");
		return 0;
	}
	name = argv[0];
	if (!name) {
		finder_note(f, SHELL_NOTE_PROGRAM_VARIABLE, pos, "a program named through a variable is not followed");
		return 0;
	}
	base = shell_basename(name);
	if (!strchr(name, '/')) {
		if (run_builtin(f, argv, words, argc, pos))
			return 0;
		if ((fn = func_find(f, name))) {
			call_function(f, fn, pos);
			return 0;
		}
		if (is_plain_builtin(name))
			return 0;
	}
	/* command, exec and their kin are builtins: not looked up on the PATH */
	if (strchr(name, '/') || !finder_wrapper_in_shell(name))
		finder_hold_program(f, name, pos);
	if (shell_wrapper_parse(base, argv, argc, &wres))
		return finder_run_wrapper(f, base, &wres, argv, words, argc, pos);
	family = shell_interp_family(base);
	if (family != INTERP_NONE)
		return finder_run_interpreter(f, family, argv, argc, pos);
	if (strcmp(base, "find") == 0)
		finder_run_find(f, argv, words, argc, pos);
	else if (strcmp(base, "make") == 0 || strcmp(base, "gmake") == 0)
		finder_run_make(f, argv, argc, pos);
	return 0;
}

/* A command substitution runs in a subshell. */
static void walk_subst(struct finder *f, const struct shell_cmd *body)
{
	struct state saved = f->st;

	finder_walk_list(f, body);
	f->st = saved;
}

static void walk_parts(struct finder *f, const struct shell_part *p)
{
	for (; p; p = p->next) {
		walk_parts(f, p->parts);
		if (p->body)
			walk_subst(f, p->body);
	}
}

static void walk_words(struct finder *f, const struct shell_word *w)
{
	for (; w; w = w->next)
		walk_parts(f, w->parts);
}

static void walk_redirs(struct finder *f, const struct shell_redir *r)
{
	for (; r; r = r->next) {
		walk_parts(f, r->word->parts);
		if (r->body)
			walk_parts(f, r->body->parts);
	}
}

/* The tree whose arena holds the static values of words: the line's own,
 * which lives as long as the finder (any tree's arena would do). */
struct shell_ast *finder_tree(struct finder *f)
{
	return f->asts[0];
}

static void walk_simple(struct finder *f, const struct shell_cmd *c)
{
	_cleanup_free_ const char **argv = NULL;
	_cleanup_free_ const struct shell_word **words = NULL;
	struct shell_ast *ast = finder_tree(f);
	const struct shell_cmd *from = f->stdin_from;
	size_t argc = 0, i = 0;

	f->stdin_from = NULL;
	for (const struct shell_assign *a = c->assigns; a; a = a->next)
		walk_parts(f, a->value->parts);
	walk_words(f, c->words);
	walk_redirs(f, c->redirs);
	for (const struct shell_assign *a = c->assigns; a; a = a->next)
		finder_assign(f, a->name, a->value, 0, a->pos);
	for (const struct shell_word *w = c->words; w; w = w->next)
		argc++;
	if (argc == 0)
		return;
	argv = calloc(argc, sizeof(*argv));
	words = calloc(argc, sizeof(*words));
	if (!argv || !words) {
		f->error = -ENOMEM;
		return;
	}
	for (const struct shell_word *w = c->words; w; w = w->next, i++) {
		argv[i] = shell_word_static(ast, w);
		words[i] = w;
	}
	if (finder_run_argv(f, argv, words, argc, c->pos) & RAN_SHELL_FROM_STDIN)
		finder_stdin_program(f, ast, c->redirs, from, c->pos);
}

static void walk_pipeline(struct finder *f, const struct shell_cmd *c)
{
	const struct shell_cmd *prev = NULL;

	for (const struct shell_cmd *e = c->body; e; prev = e, e = e->next) {
		/* a literal piped into a shell is read as a line of its own */
		f->stdin_from = prev;
		walk_cmd(f, e);
		f->stdin_from = NULL;
	}
}

static void walk_loop(struct finder *f, const struct shell_cmd *c)
{
	f->repeat++;
	finder_walk_list(f, c->cond);
	finder_walk_list(f, c->body);
	f->repeat--;
}

static void walk_cmd(struct finder *f, const struct shell_cmd *c)
{
	struct state saved;

	if (f->error)
		return;
	switch (c->kind) {
	case SHELL_CMD_SIMPLE:
		walk_simple(f, c);
		return;
	case SHELL_CMD_PIPELINE:
		walk_pipeline(f, c);
		break;
	case SHELL_CMD_AND:
	case SHELL_CMD_OR:
		walk_cmd(f, c->left);
		walk_cmd(f, c->right);
		break;
	case SHELL_CMD_SUBSHELL:
		saved = f->st;
		finder_walk_list(f, c->body);
		f->st = saved;
		break;
	case SHELL_CMD_GROUP:
		finder_walk_list(f, c->body);
		break;
	case SHELL_CMD_IF:
		finder_walk_list(f, c->cond);
		finder_walk_list(f, c->body);
		if (c->alt)
			finder_walk_list(f, c->alt);
		break;
	case SHELL_CMD_WHILE:
	case SHELL_CMD_UNTIL:
		walk_loop(f, c);
		break;
	case SHELL_CMD_FOR:
		walk_words(f, c->subject);
		walk_loop(f, c);
		break;
	case SHELL_CMD_CASE:
		walk_words(f, c->subject);
		for (const struct shell_case_item *i = c->items; i; i = i->next) {
			walk_words(f, i->patterns);
			finder_walk_list(f, i->body);
		}
		break;
	case SHELL_CMD_FUNCDEF: {
		struct func *fn = shell_pool_alloc(&f->pool, sizeof(*fn));

		if (!fn) {
			f->error = -ENOMEM;
			return;
		}
		*fn = (struct func){.name = c->name, .body = c->body, .next = f->funcs};
		f->funcs = fn;
		return;
	}
	}
	walk_redirs(f, c->redirs);
}

void finder_walk_list(struct finder *f, const struct shell_cmd *c)
{
	for (; c && !f->error; c = c->next)
		walk_cmd(f, c);
}
