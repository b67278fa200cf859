/* The syntax tree of one shell command line (POSIX sh plus the bash forms
 * found in real Git configuration), as produced by shell_parse().
 *
 * Every node lives in the tree's arena and is freed with it; every list is a
 * singly linked chain through 'next'. Positions are byte offsets into the
 * parsed buffer. Inside backquotes and in a here-document's body they are
 * counted over the text as read (backquotes' escaping backslashes and <<-'s
 * leading tabs removed), so there they fall short by the bytes removed before
 * them: a message points near the node, never past the end of the line.
 *
 * A word keeps each of its parts, so the reader can tell a static word (only
 * literal and quoted text) from a dynamic one (any expansion, glob or tilde).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds on one parse. A line past any of them is refused with an error
 * rather than read in part. */
#define SHELL_MAX_INPUT (256 * 1024) /* bytes of one command line */
#define SHELL_MAX_DEPTH 64           /* nesting of lists, words and substitutions */
#define SHELL_MAX_NODES 65536        /* parts, words, commands, redirections together */

enum shell_part_kind {
	SHELL_PART_LIT,      /* unquoted text, backslashes removed */
	SHELL_PART_SQUOTE,   /* '...' */
	SHELL_PART_ANSI,     /* $'...', escapes decoded */
	SHELL_PART_DQUOTE,   /* "..." (and $"..."), its own parts inside */
	SHELL_PART_PARAM,    /* $x, ${x...}; text is the name, parts the operator's word */
	SHELL_PART_CMDSUBST, /* $(...) or `...` */
	SHELL_PART_ARITH,    /* $((...)); parts hold the expression's expansions */
	SHELL_PART_PROCSUBST,/* <(...) or >(...) */
	SHELL_PART_GLOB,     /* an unquoted *, ? or [ that opens a bracket expression */
	SHELL_PART_TILDE,    /* a leading ~ or ~user; text is the user */
};

struct shell_list;

struct shell_part {
	enum shell_part_kind kind;
	uint32_t pos;
	const char *text; /* NUL-terminated; may hold NUL-free text only */
	size_t len;
	struct shell_part *parts; /* DQUOTE, PARAM, ARITH */
	struct shell_cmd *body;   /* CMDSUBST, PROCSUBST */
	struct shell_part *next;
};

struct shell_word {
	uint32_t pos, end;
	struct shell_part *parts;
	struct shell_word *next;
};

struct shell_assign {
	uint32_t pos;
	const char *name;
	struct shell_word *value; /* the text after '=', never NULL (may have no parts) */
	struct shell_assign *next;
};

enum shell_redir_op {
	SHELL_REDIR_IN,        /* <  */
	SHELL_REDIR_OUT,       /* >  */
	SHELL_REDIR_APPEND,    /* >> */
	SHELL_REDIR_CLOBBER,   /* >| */
	SHELL_REDIR_INOUT,     /* <> */
	SHELL_REDIR_DUP_IN,    /* <& */
	SHELL_REDIR_DUP_OUT,   /* >& */
	SHELL_REDIR_ALL,       /* &> */
	SHELL_REDIR_ALL_APPEND,/* &>> */
	SHELL_REDIR_HEREDOC,   /* << and <<- */
	SHELL_REDIR_HERESTRING,/* <<< */
};

struct shell_redir {
	uint32_t pos;
	enum shell_redir_op op;
	int fd;                   /* the explicit descriptor, or -1 */
	struct shell_word *word;  /* target, here-document delimiter or here-string */
	struct shell_word *body;  /* HEREDOC: the document; static when the delimiter was quoted */
	struct shell_redir *next;
};

struct shell_case_item {
	struct shell_word *patterns;
	struct shell_cmd *body;
	struct shell_case_item *next;
};

enum shell_cmd_kind {
	SHELL_CMD_SIMPLE,
	SHELL_CMD_PIPELINE, /* body: the commands, in order */
	SHELL_CMD_AND,      /* left && right */
	SHELL_CMD_OR,       /* left || right */
	SHELL_CMD_SUBSHELL, /* ( body ) */
	SHELL_CMD_GROUP,    /* { body; } */
	SHELL_CMD_IF,       /* if cond; then body; else alt (an IF for elif); fi */
	SHELL_CMD_WHILE,    /* while cond; do body; done */
	SHELL_CMD_UNTIL,
	SHELL_CMD_FOR,      /* for name [in words]; do body; done */
	SHELL_CMD_CASE,     /* case word in items esac */
	SHELL_CMD_FUNCDEF,  /* name () body */
};

struct shell_cmd {
	enum shell_cmd_kind kind;
	uint32_t pos;
	bool negated;    /* ! pipeline */
	bool background; /* ended by & */
	/* SIMPLE */
	struct shell_assign *assigns;
	struct shell_word *words;
	/* every kind may carry redirections */
	struct shell_redir *redirs;
	/* AND, OR */
	struct shell_cmd *left, *right;
	/* PIPELINE, SUBSHELL, GROUP, loops, FUNCDEF: a list (FUNCDEF: one compound command) */
	struct shell_cmd *body;
	/* IF, WHILE, UNTIL */
	struct shell_cmd *cond, *alt;
	/* FOR: name and words (has_in false means "$@"); FUNCDEF: name; CASE: word */
	const char *name;
	bool has_in;
	struct shell_word *subject;
	struct shell_case_item *items;
	struct shell_cmd *next; /* the following command of the same list */
};

struct shell_error {
	int code;         /* -EINVAL syntax, -E2BIG a bound, -ENOMEM */
	uint32_t pos;     /* byte offset where reading stopped */
	const char *what; /* a static description */
	const char *origin; /* the caller's name for the line */
	/* The line's first COMPLETE bytes are whole commands ended by a newline,
	 * which sh runs before it reads on and meets the error (0: none). */
	uint32_t complete;
};

struct shell_arena;

struct shell_ast {
	struct shell_arena *arena;
	struct shell_cmd *body; /* the top-level list, NULL for an empty line */
	size_t nodes;
};
