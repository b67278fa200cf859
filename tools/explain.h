/* oz0fs --explain [--json] [--config FILE] DIR PATH
 * Builds the protection model of DIR as a mount would and says whether PATH
 * (relative to DIR, or absolute inside it) is protected, by which rule, with
 * the chain of reasons the model holds for it and the folders on its way,
 * and what the mount would answer to a write, a chmod, a rename away and a
 * replacement (or, for a missing name, a create and a mkdir): the answers
 * come from the same policy_check_* calls the mount makes. Exit 0; 1 when a
 * mount on DIR would refuse or PATH cannot be looked at; 2 on a usage error.
 * ARGC/ARGV start at the word "--explain". */
#pragma once

int explain_main(int argc, char **argv);
