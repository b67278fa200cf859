/* Prints, for each NUL-terminated record of standard input, the commands our shell parser
 * finds: one line per simple command, "NAME\tWORD\tWORD...", a dynamic word
 * printed as '?' and a static one JSON-escaped, followed by a line "--".
 * A line we cannot parse prints "error: WHAT at POS". The shfmt differential
 * (tests/shell-differential.sh) prints the same from shfmt's tree. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/shell/parse.h"

static void dump_cmds(struct shell_ast *ast, const struct shell_cmd *c);

static void dump_parts(struct shell_ast *ast, const struct shell_part *p)
{
	for (; p; p = p->next) {
		dump_parts(ast, p->parts);
		dump_cmds(ast, p->body);
	}
}

static void dump_word_cmds(struct shell_ast *ast, const struct shell_word *w)
{
	for (; w; w = w->next)
		dump_parts(ast, w->parts);
}

static void print_word(struct shell_ast *ast, const struct shell_word *w)
{
	const char *s = shell_word_static(ast, w);

	if (!s) {
		fputs("\t?", stdout);
		return;
	}
	putchar('\t');
	putchar('"');
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			printf("\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f)
			printf("\\u%04x", *c);
		else
			putchar(*c);
	}
	putchar('"');
}

static void dump_simple(struct shell_ast *ast, const struct shell_cmd *c)
{
	for (const struct shell_assign *a = c->assigns; a; a = a->next)
		dump_parts(ast, a->value->parts);
	dump_word_cmds(ast, c->words);
	if (c->words) {
		fputs("cmd", stdout);
		for (const struct shell_word *w = c->words; w; w = w->next)
			print_word(ast, w);
		putchar('\n');
	}
}

static void dump_cmds(struct shell_ast *ast, const struct shell_cmd *c)
{
	for (; c; c = c->next) {
		if (c->kind == SHELL_CMD_SIMPLE)
			dump_simple(ast, c);
		for (const struct shell_redir *r = c->redirs; r; r = r->next) {
			dump_parts(ast, r->word->parts);
			if (r->body)
				dump_parts(ast, r->body->parts);
		}
		dump_cmds(ast, c->left);
		dump_cmds(ast, c->right);
		dump_cmds(ast, c->cond);
		dump_cmds(ast, c->body);
		dump_cmds(ast, c->alt);
		if (c->kind == SHELL_CMD_FOR || c->kind == SHELL_CMD_CASE)
			dump_word_cmds(ast, c->subject);
		for (const struct shell_case_item *i = c->items; i; i = i->next) {
			dump_word_cmds(ast, i->patterns);
			dump_cmds(ast, i->body);
		}
	}
}

int main(void)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getdelim(&line, &cap, '\0', stdin)) >= 0) {
		struct shell_ast *ast;
		struct shell_error err;

		if (n > 0 && line[n - 1] == '\0')
			n--;
		if (shell_parse(line, (size_t)n, "stdin", &ast, &err) < 0)
			printf("error: %s at %u\n", err.what, err.pos);
		else
			dump_cmds(ast, ast->body);
		shell_ast_free(ast);
		puts("--");
	}
	return 0;
}
