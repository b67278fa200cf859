/* Waiting for one child with a bound, through a pidfd. */
#pragma once

#include <sys/types.h>

/* A pidfd of PID (a child of the caller): a descriptor, or -errno. */
int run_pidfd(pid_t pid);
/* Waits for the child PID at most MS milliseconds (-1: no bound) and
 * reaps it: its wait status, -ETIME when it is still alive, or -errno. */
int run_wait_bounded(pid_t pid, int ms);
