#include "config.h"

#include <errno.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/run/wait.h"

int run_pidfd(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? negative_errno() : fd;
}

int run_wait_bounded(pid_t pid, int ms)
{
	_cleanup_close_ int fd = run_pidfd(pid);
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int status;

	if (fd >= 0) {
		int n;
		while ((n = poll(&p, 1, ms)) < 0 && errno == EINTR)
			;
		if (n < 0)
			return negative_errno();
		if (n == 0)
			return -ETIME;
	} else if (ms >= 0) {
		return fd;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return negative_errno();
	return status;
}
