/* The command rules of seed 002 ("Subprocess argv-only schema"): each rule
 * of its table refuses what it names, and what it does not name passes. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/command-rules.h"

static const char *const denied[] = {"curl"};
static const struct command_rules rules = {.denied = denied, .n_denied = 1};

/* Checks ARGV (NULL-terminated) and returns the rule that refused it, or "allowed". */
static const char *judge(const struct command_rules *r, const char *const *argv)
{
	static char rule[64];
	struct command_verdict v;
	size_t argc = 0;
	int k;

	while (argv[argc])
		argc++;
	k = command_rules_check(r, argv, argc, &v);
	cr_assert(k == 0 || k == -EACCES, "%d", k);
	snprintf(rule, sizeof(rule), "%s", k == 0 ? "allowed" : v.rule);
	if (k < 0)
		cr_assert_not_null(v.node);
	command_verdict_clear(&v);
	return rule;
}

#define JUDGE(want, ...) cr_expect_str_eq(judge(&rules, (const char *const[]){__VA_ARGS__, NULL}), want)

Test(command_rules, bare_command_names_only)
{
	JUDGE("bare-name", "/usr/bin/curl", "x");
	JUDGE("bare-name", "sh", "-c", "/usr/bin/env ls");
	JUDGE("allowed", "git", "status");
}

Test(command_rules, no_dynamic_commands)
{
	JUDGE("dynamic-command", "sh", "-c", "$TOOL arg");
	JUDGE("dynamic-command", "bash", "-c", "$(echo rm) x");
	JUDGE("allowed", "sh", "-c", "echo $HOME | wc -c");
}

Test(command_rules, no_rm_or_sudo)
{
	JUDGE("rm", "rm", "-rf", "x");
	JUDGE("sudo", "sudo", "ls");
	JUDGE("rm", "sh", "-c", "ls && rm -rf x");
	JUDGE("sudo", "bash", "-c", "echo | sudo tee x");
	JUDGE("rm", "env", "rm", "x");
	JUDGE("rm", "sh", "-c", "find . | xargs -0 rm");
}

Test(command_rules, rm_and_sudo_are_configurable)
{
	struct command_rules r = {.allow_rm = true, .allow_sudo = true};

	cr_expect_str_eq(judge(&r, (const char *const[]){"rm", "x", NULL}), "allowed");
	cr_expect_str_eq(judge(&r, (const char *const[]){"sudo", "ls", NULL}), "allowed");
}

Test(command_rules, denied_binaries_everywhere)
{
	JUDGE("denied", "curl", "x");
	JUDGE("denied", "sh", "-c", "echo $(curl x)");
	JUDGE("denied", "sh", "-c", "if true; then curl x; fi");
}

Test(command_rules, builtins_pass_without_an_allow_list_entry)
{
	static const char *const allowed[] = {"git"};
	struct command_rules r = {.allowed = allowed, .n_allowed = 1};

	cr_expect_str_eq(judge(&r, (const char *const[]){"sh", "-c", "cd src && echo ok && git status", NULL}),
			 "not-allowed"); /* sh itself is not on the list */
	cr_expect_str_eq(judge(&r, (const char *const[]){"git", "status", NULL}), "allowed");
	cr_expect_str_eq(judge(&r, (const char *const[]){"make", NULL}), "not-allowed");
	cr_expect(command_rules_is_builtin("cd") && command_rules_is_builtin("export") &&
		  command_rules_is_builtin("test") && command_rules_is_builtin("echo"));
}

Test(command_rules, nested_sh_c_is_checked_recursively)
{
	JUDGE("rm", "sh", "-c", "bash -c 'sh -c \"rm x\"'");
	JUDGE("allowed", "sh", "-c", "bash -c 'echo ok'");
	JUDGE("nested-not-static", "sh", "-c", "bash -c \"$SCRIPT\"");
	JUDGE("rm", "flock", "/run/lock", "-c", "rm -rf x");
	JUDGE("nested-not-static", "sh", "-c", "flock /run/lock -c \"$X\"");
}

Test(command_rules, shell_features_need_an_explicit_sh_c)
{
	JUDGE("shell-without-c", "sh", "script.sh");
	JUDGE("unreadable-script", "sh", "-c", "echo 'open");
	JUDGE("allowed", "sh", "-c", "ls | grep x > out");
}

/* A script no shell can run is refused as what cannot be read (fail
 * closed), whether its fault is a reserved word out of place, a construct
 * left empty or one left open; a nested sh -c line the same. */
Test(command_rules, scripts_that_are_not_valid_shell)
{
	static const char *const scripts[] = {
		"if then fi", "while do done", "for in", "case x in a) true;;", "{ }", "( )", "$(ls",
		"true && fi", "ls | done", "then ls", ";; ls", "&& ls", "ls && || ls",
	};

	for (size_t i = 0; i < ELEMENTSOF(scripts); i++)
		cr_expect_str_eq(judge(&rules, (const char *const[]){"sh", "-c", scripts[i], NULL}), "unreadable-script",
				 "sh -c '%s'", scripts[i]);
	JUDGE("unreadable-script", "sh", "-c", "bash -c 'if then fi'");
	JUDGE("allowed", "sh", "-c", "if true; then ls; fi; echo fi done");
}
