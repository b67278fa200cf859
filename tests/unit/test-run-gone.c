/* run_gone_runner: a name made for a runner that is gone gives its pid;
 * this runner's, a live one's, and names of other shapes give 0. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <unistd.h>

#include "tests/unit/gone-process.h"
#include "tools/run/gone-runner.h"

Test(gone_runner, a_gone_runners_names)
{
	pid_t gone = gone_process();
	char name[64];

	snprintf(name, sizeof(name), "oz0run.%d", (int)gone);
	cr_expect_eq(run_gone_runner(name, "oz0run.", '\0'), gone);
	snprintf(name, sizeof(name), "oz0run.%d.a1B2c3", (int)gone);
	cr_expect_eq(run_gone_runner(name, "oz0run.", '.'), gone);
}

Test(gone_runner, live_runners_are_not_gone)
{
	char name[64];

	snprintf(name, sizeof(name), "oz0run.%d", (int)getpid());
	cr_expect_eq(run_gone_runner(name, "oz0run.", '\0'), 0, "this runner");
	snprintf(name, sizeof(name), "oz0run.%d", (int)getppid());
	cr_expect_eq(run_gone_runner(name, "oz0run.", '\0'), 0, "a live process");
	cr_expect_eq(run_gone_runner("oz0run.1", "oz0run.", '\0'), 0, "init");
}

Test(gone_runner, other_shapes_are_not_runners)
{
	pid_t gone = gone_process();
	char name[64];

	snprintf(name, sizeof(name), "oz0run.%d", (int)gone);
	cr_expect_eq(run_gone_runner(name, "oz0run.", '.'), 0, "no suffix where one is wanted");
	snprintf(name, sizeof(name), "oz0run.%d.x", (int)gone);
	cr_expect_eq(run_gone_runner(name, "oz0run.", '\0'), 0, "a suffix where none is wanted");
	snprintf(name, sizeof(name), "other.%d", (int)gone);
	cr_expect_eq(run_gone_runner(name, "oz0run.", '\0'), 0);
	snprintf(name, sizeof(name), "oz0run.0%d", (int)gone);
	cr_expect_eq(run_gone_runner(name, "oz0run.", '\0'), 0, "a leading zero");
	cr_expect_eq(run_gone_runner("oz0run.", "oz0run.", '\0'), 0);
	cr_expect_eq(run_gone_runner("oz0run.-5", "oz0run.", '\0'), 0);
	cr_expect_eq(run_gone_runner("oz0run.99999999999", "oz0run.", '\0'), 0, "past any pid");
}
