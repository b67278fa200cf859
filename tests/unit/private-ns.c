#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/private-ns.h"

void need_root(const char *why)
{
	if (geteuid() == 0)
		return;
	if (getenv("CI") && strcmp(getenv("CI"), "true") == 0)
		cr_assert_fail("CI=true: this test needs root, %s", why);
	cr_skip_test("%s needs root", why);
}

void in_private_mounts(int (*fn)(void *), void *arg)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
			fprintf(stderr, "cannot make a private mount namespace: %s\n", strerror(errno));
			_exit(2);
		}
		_exit(fn(arg) == 0 ? 0 : 1);
	}
	while (waitpid(pid, &status, 0) < 0)
		cr_assert_eq(errno, EINTR);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	          "the child in a private mount namespace failed (status %#x; its stderr says where)", status);
}
