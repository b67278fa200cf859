#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/check.h"
#include "tools/probes.h"
#include "tools/tool-args.h"

static const char usage[] =
        "usage: oz0fs --check [--json] [--config FILE] [DIR]   (or oz0run --check ...)\n"
        "Says, one line each, whether this machine can run oz0fs and its runner: FUSE, the kernel,\n"
        "descriptors, cgroup limits, swap, credential read-protection, rootless runs and the ceiling;\n"
        "with DIR, whether a mount on DIR would start and what it would protect. Exit 1 when FUSE\n"
        "cannot mount, a mount on DIR would refuse, or the ceiling cannot be read (no run starts).\n";

/* Every probe, in the order people read them; DIR's last. */
static int run_probes(struct report *r, const char *dir, const char *config, bool *ok)
{
	_cleanup_close_ int dirfd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool can_mount = false, would_mount = true, ceiling_ok = true;
	int k;

	if (dirfd < 0)
		dirfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if ((k = probe_fuse(r, &can_mount)) < 0 || (k = probe_files(r, dirfd)) < 0 || (k = probe_cgroup(r)) < 0 ||
	    (k = probe_credentials(r)) < 0 || (k = probe_rootless(r)) < 0 || (k = probe_ceiling(r, config, &ceiling_ok)) < 0)
		return k;
	if (dir && (k = probe_tree(r, dir, config, &would_mount)) < 0)
		return k;
	*ok = can_mount && would_mount && ceiling_ok;
	return 0;
}

int check_main(int argc, char **argv)
{
	struct report r = {0};
	struct tool_args a;
	bool ok = false;
	int k = tool_args_parse(argc, argv, 0, 1, usage, &a);

	if (k != 0)
		return k > 0 ? 0 : TOOL_EXIT_USAGE;
	k = run_probes(&r, a.n_rest ? a.rest[0] : NULL, a.config, &ok);
	if (k < 0) {
		fputs("oz0fs --check: out of memory\n", stderr);
		report_free(&r);
		return 1;
	}
	if (a.json)
		report_print_json(&r, ok, stdout);
	else
		report_print_text(&r, stdout);
	report_free(&r);
	return ok ? 0 : 1;
}
