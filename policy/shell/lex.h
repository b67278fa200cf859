/* The shell reader's lexer, shared by the lexer and the parser only.
 *
 * Lexing and parsing are interleaved as in every shell: a '$(' inside a word
 * is read by the parser (shell_parse_subst), and the lexer reads the bodies of
 * pending here-documents when it meets the end of their line.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/shell/ast.h"

enum shell_tok_kind {
	SHELL_TOK_EOF,
	SHELL_TOK_NEWLINE,
	SHELL_TOK_WORD,
	SHELL_TOK_OP,
};

enum shell_op {
	SHELL_OP_AND_IF,   /* && */
	SHELL_OP_OR_IF,    /* || */
	SHELL_OP_PIPE,     /* | */
	SHELL_OP_PIPE_ALL, /* |& */
	SHELL_OP_AMP,      /* & */
	SHELL_OP_SEMI,     /* ; */
	SHELL_OP_DSEMI,    /* ;; and the bash ;& ;;& */
	SHELL_OP_LPAREN,
	SHELL_OP_RPAREN,
	SHELL_OP_REDIR,    /* see redir, fd */
};

struct shell_token {
	enum shell_tok_kind kind;
	uint32_t pos;
	enum shell_op op;
	enum shell_redir_op redir;
	int fd;                 /* explicit descriptor of a redirection, or -1 */
	bool strip_tabs;        /* <<- */
	struct shell_word *word;
};

/* Syntax only one of dash and bash reads: bash's own (|&, <<<, <(...),
 * 'function NAME'), which dash refuses, and what only dash reads (a function
 * body that is not a compound command, 'function' as a program, a first
 * word 'NAME[' that no ']' closes, '[[' without ']]', '$[' without ']', more
 * than 16 here-documents waiting for their line's end), which bash refuses.
 * A line holding both is read by neither. */
enum shell_dialect {
	SHELL_BASH_ONLY,
	SHELL_DASH_ONLY,
};

/* Where the line first holds each, and how much of it was complete then. */
struct shell_dialects {
	bool seen[2];
	uint32_t pos[2], complete[2];
};

struct shell_heredoc {
	struct shell_redir *redir;
	bool strip_tabs;
	struct shell_heredoc *next;
};

struct shell_reader {
	const char *buf;
	size_t len, pos;
	size_t look; /* the line's length: LEN, or more when reading a prefix of it */
	uint32_t base; /* offset of buf in the outermost line, for positions */
	struct shell_arena *arena;
	size_t *nodes;            /* shared by nested readers */
	unsigned depth;
	struct shell_error *err;
	struct shell_dialects *dialects; /* shared by nested readers */
	bool in_backquote; /* bash reads what is inside only when it runs */
	struct shell_token ahead; /* the parser's one token of lookahead */
	bool have_ahead;
	struct shell_heredoc *heredocs; /* awaiting the end of their line, in order */
};

/* Records the first error and returns its code. */
int shell_reader_fail(struct shell_reader *r, int code, size_t pos, const char *what);
/* A zeroed node counted against SHELL_MAX_NODES, or NULL with the error set. */
void *shell_reader_node(struct shell_reader *r, size_t size);
/* Records that the line holds syntax of dialect D at POS. */
void shell_reader_mark(struct shell_reader *r, enum shell_dialect d, size_t pos);
/* Whether the N bytes of WHAT stand in the line at FROM or later, past the
 * end of a prefix being read too: bash reads some constructs up to their
 * closing bracket, however far. */
bool shell_reader_closed(const struct shell_reader *r, size_t from, const char *what, size_t n);
/* Enters one level of nesting; fails past SHELL_MAX_DEPTH. */
int shell_reader_enter(struct shell_reader *r, size_t pos);

/* Reads the next token at r->pos. */
int shell_lex_next(struct shell_reader *r, struct shell_token *t);
/* Queues a here-document whose body follows the current line. */
int shell_lex_queue_heredoc(struct shell_reader *r, struct shell_redir *redir, bool strip_tabs);
/* The value of a word made only of literal and quoted text, or NULL. */
const char *shell_lex_word_literal(struct shell_arena *arena, const struct shell_word *w);

/* Implemented by the parser: reads the list of a '$(' up to its ')', with
 * r->pos just after the '('. */
int shell_parse_subst(struct shell_reader *r, struct shell_cmd **out);
/* Implemented by the parser: reads TEXT (unescaped backquote contents) as a
 * line of its own, up to a token that ends a list, sharing r's arena and
 * bounds. */
int shell_parse_nested(struct shell_reader *r, const char *text, size_t len, uint32_t base, struct shell_cmd **out);
