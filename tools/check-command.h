/* oz0fs --check-command [--json] [--config FILE] [--deny NAME]...
 *                       [--allow NAME]... [--allow-rm] [--allow-sudo] -- ARGV...
 * Judges ARGV by the command rules (policy/command-rules.h) before an agent
 * harness runs it. The rules are the [commands] section of FILE (by default
 * POLICY_CONFIG_DEFAULT_FILE when it exists), the options adding to them. Exit 0 allowed, 1 refused (the rule and the node that
 * broke it on stdout), 2 usage error. ARGC/ARGV start at the first word after
 * --check-command. */
#pragma once

int command_check_main(int argc, char **argv);
