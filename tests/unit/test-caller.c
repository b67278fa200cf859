/* caller_in_group: the primary group, then the supplementary groups read
 * from /proc, as the kernel's in_group_p() asks; and caller_process, the
 * process a thread belongs to. */
#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fs/caller.h"
#include "tests/unit/gone-process.h"

Test(caller, primary_and_supplementary_groups)
{
	int proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	gid_t extra = getgid() + 4242; /* this process's only supplementary group */

	cr_assert_geq(proc, 0);
	cr_assert_eq(setgroups(1, &extra), 0, "the test runs as root");
	cr_expect(caller_in_group(getgid(), getgid(), getpid(), proc), "the primary group");
	cr_expect(caller_in_group(extra, 12345, getpid(), proc), "a supplementary group, from /proc");
	cr_expect_not(caller_in_group(extra + 1, getgid(), getpid(), proc), "a group it is not in");
	close(proc);
}

Test(caller, a_process_gone_has_its_primary_group_only)
{
	int proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	pid_t pid = gone_process();

	cr_assert_geq(proc, 0);
	cr_expect(caller_in_group(7, 7, pid, proc));
	cr_expect_not(caller_in_group(8, 7, pid, proc));
	close(proc);
}

Test(caller, a_process_is_its_own_and_one_gone_is_itself)
{
	int proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	pid_t pid = gone_process();

	cr_assert_geq(proc, 0);
	cr_expect_eq(caller_process(getpid(), proc), getpid(), "the main thread is the process");
	cr_expect_eq(caller_process(pid, proc), pid, "a process gone counts as itself");
	close(proc);
}

static void *ask_process(void *arg)
{
	int proc = *(int *)arg;

	return (void *)(intptr_t)caller_process(gettid(), proc);
}

Test(caller, a_live_thread_names_its_process)
{
	int proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	pthread_t t;
	void *got;

	cr_assert_geq(proc, 0);
	cr_assert_eq(pthread_create(&t, NULL, ask_process, &proc), 0);
	cr_assert_eq(pthread_join(t, &got), 0);
	cr_expect_eq((pid_t)(intptr_t)got, getpid());
	close(proc);
}
