/* The command rules (seed 002, "Subprocess argv-only schema"): an agent's
 * command is an argv, never a string to split; shell features need an
 * explicit sh -c / bash -c, whose line is parsed by the shell reader and
 * every command node in it checked, nested sh -c lines included. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct command_rules {
	const char *const *denied;  /* names refused everywhere (denied_command) */
	size_t n_denied;
	const char *const *allowed; /* when non-empty, the only names allowed besides the builtins */
	size_t n_allowed;
	bool allow_rm, allow_sudo;  /* both refused unless configured */
};

/* Why a command was refused. RULE is a stable id ("bare-name",
 * "dynamic-command", "rm", "sudo", "denied", "not-allowed",
 * "nested-not-static", "shell-without-c", "unreadable-script", "empty");
 * NODE the command node that broke it, as text; POS its offset in the sh -c
 * line that holds it (0 at the top). */
struct command_verdict {
	const char *rule;
	const char *reason;
	char *node;
	uint32_t pos;
};

/* Returns 0 when ARGV may run, -EACCES with *V filled when it may not, or
 * -ENOMEM. */
int command_rules_check(const struct command_rules *rules, const char *const *argv, size_t argc,
			struct command_verdict *v);
void command_verdict_clear(struct command_verdict *v);

/* The shell builtins that pass without an allow-list entry. */
bool command_rules_is_builtin(const char *name);
