#include "config.h"

#include <criterion/criterion.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/gone-process.h"

pid_t gone_process(void)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(0);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	return pid;
}
