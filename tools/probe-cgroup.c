/* The cgroup mode the runner would use (seed 000, "Set resource ceilings"):
 * the runner's own detection (tools/run/cgroup.h), which makes a probe
 * cgroup where the runner would make the sandbox's, with a stand-in
 * process in it, and removes it; so --check and the runner agree. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/probes.h"
#include "tools/run/cgroup.h"

struct cgroup_answer {
	enum run_cgroup_mode mode;
	char *why;             /* the mode used, and why each earlier one was not */
	bool swap_limit;       /* the swap limit can be set for a sandbox */
	const char *swap_file; /* the file that sets it, once a mode got that far */
};

static int find_mode(struct cgroup_answer *a)
{
	struct run_cgroup_bases b;
	int k = run_cgroup_locate(&b);

	if (k < 0)
		return k;
	k = run_cgroup_probe(&b, &a->mode, &a->why, &a->swap_limit, &a->swap_file);
	run_cgroup_bases_free(&b);
	return k;
}

/* /proc/swaps lists nothing past its header when there is no swap at all. */
static bool machine_has_swap(void)
{
	char buf[256];
	_cleanup_close_ int fd = open("/proc/swaps", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	char *nl;

	if (n < 0)
		return true; /* unknown: assume the worst */
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	return nl && nl[1] != '\0';
}

static int report_swap(struct report *r, const struct cgroup_answer *a)
{
	if (!machine_has_swap())
		return report_add(r, "no_swap", "No swap", REPORT_ON,
		                  "this machine has no swap (/proc/swaps lists none)");
	if (a->swap_limit)
		return report_add(r, "no_swap", "No swap", REPORT_ON, "%s is writable: a sandbox gets no swap",
		                  a->swap_file);
	if (!a->swap_file)
		return report_add(r, "no_swap", "No swap", REPORT_OFF,
		                  "the machine has swap and no cgroup can keep a sandbox from it");
	return report_add(r, "no_swap", "No swap", REPORT_OFF,
	                  "the machine has swap and %s cannot be set (no swap accounting): a sandbox may swap",
	                  a->swap_file);
}

int probe_cgroup(struct report *r)
{
	struct cgroup_answer a = {0};
	int k = find_mode(&a);

	if (k == -ENOMEM)
		return k;
	if (k < 0)
		k = report_add(r, "cgroup", "Cgroup limits", "none", "the probe could not start: %s", strerror(-k));
	else
		k = report_add(r, "cgroup", "Cgroup limits", run_cgroup_mode_name(a.mode),
		               "tried for real (a probe cgroup and a stand-in process, removed after): %s", a.why);
	free(a.why);
	return k < 0 ? k : report_swap(r, &a);
}
