/* For the unit tests that mount: as root, in a child of the test with a
 * mount namespace of its own, so that nothing they mount reaches the
 * machine, and all of it goes when the child ends. */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Skips the test when not root (a failure when CI=true): WHY says what needs it. */
void need_root(const char *why);

/* Runs FN(ARG) in a forked child that unshared its mount namespace and
 * made every mount in it private; the test fails unless FN returns 0. */
void in_private_mounts(int (*fn)(void *), void *arg);

/* In FN: a failed COND says where on stderr and makes FN fail. */
#define NS_CHECK(cond)                                                                                                 \
	do {                                                                                                           \
		if (!(cond)) {                                                                                         \
			fprintf(stderr, "%s:%d: %s (errno: %s)\n", __FILE__, __LINE__, #cond, strerror(errno));        \
			return 1;                                                                                      \
		}                                                                                                      \
	} while (0)
