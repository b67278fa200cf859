#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "tools/run/gone-runner.h"

pid_t run_gone_runner(const char *name, const char *prefix, char end)
{
	size_t n = strlen(prefix);
	const char *p = name + n;
	int64_t pid = 0;

	if (strncmp(name, prefix, n) != 0 || *p < '1' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((pid = pid * 10 + (*p - '0')) > INT32_MAX)
			return 0;
	if (*p != end || pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	return (pid_t)pid;
}
