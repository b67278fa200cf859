#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/command-rules.h"
#include "policy/shell/parse.h"
#include "policy/shell/programs.h"

/* sh -c lines inside sh -c lines, each checked. */
#define MAX_NESTED_SCRIPTS 16

static const char *const builtins[] = {
	"cd", "echo", "test", "[", "export", "printf", "true", "false", "pwd", ":", "read", "set", "unset",
	"shift", "exit", "return", "break", "continue", "local", "readonly", "wait", "type", "umask", "getopts",
};

bool command_rules_is_builtin(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(builtins); i++)
		if (strcmp(builtins[i], name) == 0)
			return true;
	return false;
}

static bool in_list(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

struct checker {
	const struct command_rules *rules;
	struct command_verdict *v;
	unsigned nesting;
	uint32_t pos;
};

/* Refuses with RULE; the node is ARGV as text ('?' for a dynamic word). */
static int refuse(struct checker *c, const char *rule, const char *reason, const char *const *argv, size_t argc)
{
	size_t len = 1;
	char *node, *o;

	for (size_t i = 0; i < argc; i++)
		len += strlen(argv[i] ? argv[i] : "?") + 1;
	node = o = malloc(len);
	if (!node)
		return -ENOMEM;
	*o = '\0';
	for (size_t i = 0; i < argc; i++) {
		const char *w = argv[i] ? argv[i] : "?";

		if (i)
			*o++ = ' ';
		memcpy(o, w, strlen(w) + 1);
		o += strlen(w);
	}
	*c->v = (struct command_verdict){.rule = rule, .reason = reason, .node = node, .pos = c->pos};
	return -EACCES;
}

static int check_argv(struct checker *c, const char *const *argv, size_t argc);

static int check_script(struct checker *c, const char *line);

/* One command name against the name rules. */
static int check_name(struct checker *c, const char *const *argv, size_t argc)
{
	const struct command_rules *r = c->rules;
	const char *name = argv[0];

	if (!name)
		return refuse(c, "dynamic-command", "a command built from a variable or substitution", argv, argc);
	if (strchr(name, '/'))
		return refuse(c, "bare-name", "the program must be named without a folder", argv, argc);
	if (strcmp(name, "rm") == 0 && !r->allow_rm)
		return refuse(c, "rm", "rm is refused", argv, argc);
	if (strcmp(name, "sudo") == 0 && !r->allow_sudo)
		return refuse(c, "sudo", "sudo is refused: declare write paths instead", argv, argc);
	if (in_list(r->denied, r->n_denied, name))
		return refuse(c, "denied", "the command is on the denied list", argv, argc);
	if (r->n_allowed && !command_rules_is_builtin(name) && !in_list(r->allowed, r->n_allowed, name))
		return refuse(c, "not-allowed", "the command is not on the allowed list", argv, argc);
	return 0;
}

static int check_argv(struct checker *c, const char *const *argv, size_t argc)
{
	struct wrapper_result w;
	enum interp_family family;
	int k;

	if (argc == 0)
		return refuse(c, "empty", "no command", argv, argc);
	k = check_name(c, argv, argc);
	if (k < 0)
		return k;
	/* what a wrapper starts is a command too: env rm, timeout 5 sudo */
	if (shell_wrapper_parse(argv[0], argv, argc, &w)) {
		if (w.shell_c)
			return check_script(c, w.shell_c);
		if (w.shell_c_dynamic)
			return refuse(c, "nested-not-static", "the -c line is not a static string", argv, argc);
		if (w.split || (w.command < argc && !w.runs_nothing))
			return w.split ? refuse(c, "nested-not-static", "env -S is not checked", argv, argc)
				       : check_argv(c, argv + w.command, argc - w.command);
		return 0;
	}
	family = shell_interp_family(argv[0]);
	if (family == INTERP_SHELL) {
		struct interp_result res;

		shell_interp_parse(family, argv, argc, &res);
		if (res.inline_code >= argc)
			return refuse(c, "shell-without-c", "a shell runs only an explicit -c line", argv, argc);
		if (!argv[res.inline_code])
			return refuse(c, "nested-not-static", "the -c line is not a static string", argv, argc);
		return check_script(c, argv[res.inline_code]);
	}
	return 0;
}

static int check_cmds(struct checker *c, struct shell_ast *ast, const struct shell_cmd *cmd);

static int check_parts(struct checker *c, struct shell_ast *ast, const struct shell_part *p)
{
	int k;

	for (; p; p = p->next)
		if ((k = check_parts(c, ast, p->parts)) < 0 || (p->body && (k = check_cmds(c, ast, p->body)) < 0))
			return k;
	return 0;
}

static int check_simple(struct checker *c, struct shell_ast *ast, const struct shell_cmd *cmd)
{
	_cleanup_free_ const char **argv = NULL;
	size_t argc = 0, i = 0;
	int k;

	for (const struct shell_assign *a = cmd->assigns; a; a = a->next)
		if ((k = check_parts(c, ast, a->value->parts)) < 0)
			return k;
	for (const struct shell_word *w = cmd->words; w; w = w->next, argc++)
		if ((k = check_parts(c, ast, w->parts)) < 0)
			return k;
	if (argc == 0)
		return 0;
	argv = calloc(argc, sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	for (const struct shell_word *w = cmd->words; w; w = w->next)
		argv[i++] = shell_word_static(ast, w);
	c->pos = cmd->pos;
	return check_argv(c, argv, argc);
}

static int check_cmds(struct checker *c, struct shell_ast *ast, const struct shell_cmd *cmd)
{
	int k = 0;

	for (; cmd && k == 0; cmd = cmd->next) {
		if (cmd->kind == SHELL_CMD_SIMPLE)
			k = check_simple(c, ast, cmd);
		for (const struct shell_redir *r = cmd->redirs; r && k == 0; r = r->next)
			k = check_parts(c, ast, r->word->parts);
		if (k == 0 && (cmd->kind == SHELL_CMD_FOR || cmd->kind == SHELL_CMD_CASE))
			for (const struct shell_word *w = cmd->subject; w && k == 0; w = w->next)
				k = check_parts(c, ast, w->parts);
		for (const struct shell_case_item *i = cmd->items; i && k == 0; i = i->next)
			k = check_cmds(c, ast, i->body);
		if (k == 0)
			k = check_cmds(c, ast, cmd->left);
		if (k == 0)
			k = check_cmds(c, ast, cmd->right);
		if (k == 0)
			k = check_cmds(c, ast, cmd->cond);
		if (k == 0)
			k = check_cmds(c, ast, cmd->body);
		if (k == 0)
			k = check_cmds(c, ast, cmd->alt);
	}
	return k;
}

/* An sh -c line: parsed with the shell reader, every command node checked. */
static int check_script(struct checker *c, const char *line)
{
	struct shell_ast *ast = NULL;
	struct shell_error err;
	const char *argv[] = {line};
	int k;

	if (c->nesting >= MAX_NESTED_SCRIPTS)
		return refuse(c, "unreadable-script", "sh -c lines nested too deeply", argv, 1);
	k = shell_parse(line, strlen(line), "sh -c", &ast, &err);
	if (k == -ENOMEM)
		return k;
	if (k < 0)
		return refuse(c, "unreadable-script", err.what, argv, 1);
	c->nesting++;
	k = check_cmds(c, ast, ast->body);
	c->nesting--;
	shell_ast_free(ast);
	return k;
}

int command_rules_check(const struct command_rules *rules, const char *const *argv, size_t argc,
			struct command_verdict *v)
{
	struct checker c = {.rules = rules, .v = v};

	*v = (struct command_verdict){0};
	return check_argv(&c, argv, argc);
}

void command_verdict_clear(struct command_verdict *v)
{
	free(v->node);
	*v = (struct command_verdict){0};
}
