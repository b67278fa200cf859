/* The request loop's spin: none where the daemon may use one CPU only, since
 * a spinning leader would keep the caller it waits for off that CPU. (The
 * loop itself is tested on a real mount: tests/integration/test-loop.sh.) */
#include "config.h"

#include <criterion/criterion.h>
#include <sched.h>

#include "fs/loop.h"

static cpu_set_t saved;

static void save_affinity(void)
{
	cr_assert_eq(sched_getaffinity(0, sizeof(saved), &saved), 0);
}

static void restore_affinity(void)
{
	sched_setaffinity(0, sizeof(saved), &saved);
}

TestSuite(loop, .init = save_affinity, .fini = restore_affinity);

Test(loop, no_spin_on_one_cpu)
{
	cpu_set_t one;
	int first = 0;

	while (!CPU_ISSET(first, &saved))
		first++;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	cr_assert_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	cr_expect_eq(loop_default_spin_us(), 0);
}

Test(loop, spins_with_two_cpus_or_more)
{
	unsigned spin = loop_default_spin_us();

	if (CPU_COUNT(&saved) >= 2)
		cr_expect(spin > 0 && spin <= 1000, "spin %u µs", spin);
	else
		cr_expect_eq(spin, 0);
}
