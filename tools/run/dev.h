/* The sandbox's /dev: a tmpfs with the few nodes a command uses (null,
 * zero, full, random, urandom, tty, each a bind of the machine's node), a
 * devpts of its own and the usual links, instead of the machine's /dev,
 * where root would find raw disks, loop devices and consoles. */
#pragma once

#define RUN_DEV_NODES 6

/* Detached copies of the machine's nodes, taken before /dev is covered
 * (-1 for one the machine lacks). 0, or -errno. */
int run_dev_capture(int nodes[RUN_DEV_NODES]);
/* Fills the new /dev open as DEVFD: the nodes (each closed), devpts, the
 * links. 0, or -errno with the name in *FAILED (static storage). */
int run_dev_fill(int devfd, int nodes[RUN_DEV_NODES], const char **failed);
