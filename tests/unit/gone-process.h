/* For the unit tests that ask about a caller that has gone. */
#pragma once

#include <sys/types.h>

/* The pid of a child process that has ended and been reaped. */
pid_t gone_process(void);
