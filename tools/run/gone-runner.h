/* What a runner killed outright leaves behind is named after its pid: its
 * cgroups ("oz0run.PID") and its folder of files ("oz0run.PID.XXXXXX"); the
 * next run removes them once it knows that runner is gone. */
#pragma once

#include <sys/types.h>

/* The pid in NAME when NAME is PREFIX, the pid's digits and then END ('\0',
 * or the '.' before a suffix), and no process of that pid runs (nor is it
 * this one); else 0. */
pid_t run_gone_runner(const char *name, const char *prefix, char end);
