#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/run/dev.h"
#include "tools/run/mounts.h"

static const char *const node_names[RUN_DEV_NODES] = {"null", "zero", "full", "random", "urandom", "tty"};

static const struct dev_link {
	const char *name, *target;
} links[] = {
        {"ptmx", "pts/ptmx"},      {"fd", "/proc/self/fd"},       {"stdin", "/proc/self/fd/0"},
        {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"},
};

int run_dev_capture(int nodes[RUN_DEV_NODES])
{
	_cleanup_close_ int dev = mounts_open("/dev");

	for (size_t i = 0; i < RUN_DEV_NODES; i++) {
		_cleanup_close_ int fd = dev < 0 ? -1 : mounts_open_at(dev, node_names[i]);
		nodes[i] = fd < 0 ? -1 : mounts_clone(fd, false);
	}
	return 0;
}

/* A devpts of the sandbox's own: its ptys are its own. */
static int new_devpts(void)
{
	_cleanup_close_ int fs = fsopen("devpts", FSOPEN_CLOEXEC);
	int m;

	if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "ptmxmode", "0666", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0620", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return negative_errno();
	m = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
	return m < 0 ? negative_errno() : m;
}

static int attach_node(int devfd, const char *name, int node)
{
	_cleanup_close_ int m = node;
	_cleanup_close_ int at = mounts_make_file(devfd, name);

	return at < 0 ? at : mounts_attach(m, at);
}

int run_dev_fill(int devfd, int nodes[RUN_DEV_NODES], const char **failed)
{
	_cleanup_close_ int pts = -1, ptsm = -1;
	int k;

	for (size_t i = 0; i < RUN_DEV_NODES; i++) {
		if (nodes[i] < 0)
			continue;
		k = attach_node(devfd, node_names[i], TAKE_FD(nodes[i]));
		if (k < 0) {
			*failed = node_names[i];
			return k;
		}
	}
	*failed = "pts";
	if ((pts = mounts_make_dirs(devfd, "pts")) < 0)
		return pts;
	if ((ptsm = new_devpts()) < 0 || (k = mounts_attach(ptsm, pts)) < 0)
		return ptsm < 0 ? ptsm : k;
	for (size_t i = 0; i < ELEMENTSOF(links); i++)
		if (symlinkat(links[i].target, devfd, links[i].name) < 0) {
			*failed = links[i].name;
			return negative_errno();
		}
	return 0;
}
