/* oz0fs --check [--json] [--config FILE] [DIR]
 * One line per capability, in the manner of seed 000's `sandbox check` and
 * `doctor`: FUSE (device, libfuse, fusermount3, a real mount), the kernel
 * and FUSE passthrough, descriptors, the cgroup mode the runner would use,
 * swap, credential read-protection and, with DIR, whether a mount on DIR
 * would start and what it would protect. Exit 0; 1 when FUSE cannot mount
 * or a mount on DIR would refuse; 2 on a usage error. ARGC/ARGV start at
 * the word "--check". */
#pragma once

int check_main(int argc, char **argv);
