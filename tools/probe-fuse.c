#include "config.h"

#define FUSE_USE_VERSION 314

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/capability.h"
#include "fs/loop.h"
#include "tools/probe-mount.h"
#include "tools/probes.h"

#define FUSE_DEVICE "/dev/fuse"
/* Where libfuse looks for its mount helper first (its FUSERMOUNT_DIR). */
#define FUSERMOUNT            "/usr/bin/fusermount3"
#define MOUNT_PROBE_TIMEOUT_S 10

static int probe_device(struct report *r)
{
	struct stat st;
	int fd;

	if (stat(FUSE_DEVICE, &st) < 0)
		return report_add(r, "fuse_device", "FUSE device", REPORT_OFF,
		                  FUSE_DEVICE " is missing: load the fuse module (modprobe fuse) or, in a "
		                              "container, pass the device in (--device /dev/fuse)");
	if (!S_ISCHR(st.st_mode))
		return report_add(r, "fuse_device", "FUSE device", REPORT_OFF,
		                  FUSE_DEVICE " is not a character device");
	fd = open(FUSE_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return report_add(r, "fuse_device", "FUSE device", REPORT_OFF,
		                  FUSE_DEVICE " (%u:%u) cannot be opened read-write: %m", major(st.st_rdev),
		                  minor(st.st_rdev));
	close(fd);
	return report_add(r, "fuse_device", "FUSE device", REPORT_ON,
	                  FUSE_DEVICE " (%u:%u) present and opened read-write", major(st.st_rdev), minor(st.st_rdev));
}

static int probe_libfuse(struct report *r)
{
	return report_add(r, "libfuse", "libfuse", fuse_pkgversion(),
	                  "the library this oz0fs runs with (built against %d.%d)", FUSE_MAJOR_VERSION,
	                  FUSE_MINOR_VERSION);
}

/* Without root, libfuse mounts through fusermount3, which must be set-uid root. */
static int probe_fusermount(struct report *r)
{
	bool root = geteuid() == 0;
	struct stat st;

	if (stat(FUSERMOUNT, &st) < 0)
		return report_add(r, "fusermount3", "fusermount3", REPORT_OFF,
		                  FUSERMOUNT " is missing (Debian package fuse3): %s",
		                  root ? "not needed to mount as root, but needed to unmount as a user"
		                       : "a user cannot mount without it");
	if (st.st_uid != 0 || !(st.st_mode & S_ISUID))
		return report_add(r, "fusermount3", "fusermount3", REPORT_OFF,
		                  FUSERMOUNT " is not set-user-ID root: %s",
		                  root ? "not needed to mount as root" : "a user cannot mount with it");
	return report_add(r, "fusermount3", "fusermount3", REPORT_ON, FUSERMOUNT " present, set-user-ID root%s",
	                  root ? " (this process is root and mounts without it)" : " (this process mounts through it)");
}

static int report_mount(struct report *r, const struct fuse_mount_probe *m)
{
	if (!m->mounted)
		return report_add(r, "fuse_mount", "FUSE mount", REPORT_OFF, "cannot mount an empty folder: %s%s",
		                  m->error, geteuid() == 0 ? "" : " (as a user this needs fusermount3 and /dev/fuse)");
	if (!m->got_init)
		return report_add(r, "fuse_mount", "FUSE mount", REPORT_OFF, "mounted an empty folder, but %s",
		                  m->error);
	return report_add(r, "fuse_mount", "FUSE mount", REPORT_ON,
	                  "mounted an empty folder, kernel FUSE protocol %u.%u, and unmounted it", m->major, m->minor);
}


/* Whether oz0fs would use it, when the kernel offers it. */
static const char *daemon_note(bool offered)
{
	if (!offered)
		return "oz0fs cannot use it, so every read and write passes through the daemon";
	if (!capability_effective(CAP_SYS_ADMIN))
		return "oz0fs will not use it: the kernel lets only a daemon with CAP_SYS_ADMIN name backing "
		       "files, which this process lacks, so every read and write passes through the daemon";
	return "oz0fs will use it (this process has CAP_SYS_ADMIN): the kernel reads and writes the tree's "
	       "files itself once oz0fs allowed the open, instead of the daemon (-o passthrough=off "
	       "keeps the daemon in the path)";
}

/* Passthrough is known for sure only from the kernel's INIT request; with no
 * mount, the kernel version is all there is, and the line says so. */
static int report_passthrough(struct report *r, const struct fuse_mount_probe *m, const struct utsname *u)
{
	unsigned maj = 0, min = 0;

	if (m->got_init)
		return report_add(
		        r, "fuse_passthrough", "FUSE passthrough", m->passthrough ? REPORT_ON : REPORT_OFF,
		        "the kernel %s FUSE_PASSTHROUGH in its INIT request (protocol %u.%u; it needs 7.40, Linux "
		        "6.9, CONFIG_FUSE_PASSTHROUGH); %s",
		        m->passthrough ? "offered" : "did not offer", m->major, m->minor, daemon_note(m->passthrough));
	sscanf(u->release, "%u.%u", &maj, &min);
	bool new_enough = maj > 6 || (maj == 6 && min >= 9);
	return report_add(r, "fuse_passthrough", "FUSE passthrough", new_enough ? REPORT_ON : REPORT_OFF,
	                  "by the kernel version only (no mount to ask the kernel): Linux %s is %s 6.9, and "
	                  "CONFIG_FUSE_PASSTHROUGH is unknown; %s",
	                  u->release, new_enough ? "at least" : "older than", daemon_note(new_enough));
}

#define URING_PARAMETER "/sys/module/fuse/parameters/enable_uring"
#define URING_DISABLED  "/proc/sys/kernel/io_uring_disabled"

/* The first character of a small sysfs or procfs file, or 0 when it cannot
 * be read. */
static char first_char(const char *path)
{
	FILE *f = fopen(path, "re");
	int c = f ? fgetc(f) : EOF;

	if (f)
		fclose(f);
	return c == EOF ? 0 : (char)c;
}

/* Why this process could not make a ring even where the kernel offers one:
 * kernel.io_uring_disabled is 2 (nobody may), or 1 (only CAP_SYS_ADMIN or
 * the io_uring_group). NULL when it may. */
static const char *uring_refused(void)
{
	char d = first_char(URING_DISABLED);

	if (d == '2')
		return "kernel.io_uring_disabled is 2: no process may make an io_uring (sysctl "
		       "kernel.io_uring_disabled=0 allows it)";
	if (d == '1' && !capability_effective(CAP_SYS_ADMIN))
		return "kernel.io_uring_disabled is 1 and this process lacks CAP_SYS_ADMIN (sysctl "
		       "kernel.io_uring_disabled=0, or kernel.io_uring_group, allows it)";
	return NULL;
}

/* FUSE over io_uring: offered in the INIT request only while the fuse
 * module's enable_uring parameter is Y; without a mount, the parameter is
 * what there is to go by. */
static int report_uring(struct report *r, const struct fuse_mount_probe *m)
{
	char param = first_char(URING_PARAMETER);
	const char *refused = uring_refused();

	if (!param && !(m->got_init && m->over_io_uring))
		return report_add(r, "fuse_uring", "FUSE over io_uring", REPORT_OFF,
		                  "this kernel has no FUSE over io_uring (it needs Linux 6.14 with "
		                  "CONFIG_FUSE_IO_URING=y; " URING_PARAMETER " is missing): requests go through "
		                  "/dev/fuse");
	bool offered = m->got_init ? m->over_io_uring : param == 'Y';
	if (!offered)
		return report_add(r, "fuse_uring", "FUSE over io_uring", REPORT_OFF,
		                  "the kernel has it but does not offer it (%s is %c): requests go through /dev/fuse; "
		                  "as root, 'echo Y > %s' (or fuse.enable_uring=1 on the kernel command line) turns "
		                  "it on, and oz0fs then takes requests through one io_uring per CPU",
		                  URING_PARAMETER, param ? param : '?', URING_PARAMETER);
	if (refused)
		return report_add(r, "fuse_uring", "FUSE over io_uring", REPORT_OFF,
		                  "the kernel offers it, but oz0fs cannot use it: %s; requests go through /dev/fuse",
		                  refused);
	return report_add(r, "fuse_uring", "FUSE over io_uring", REPORT_ON,
	                  "the kernel %s (%s is Y): oz0fs takes requests through one io_uring per CPU "
	                  "instead of /dev/fuse (-o uring=off keeps /dev/fuse)",
	                  m->got_init ? "offered it in its INIT request" : "has it, by its parameter (no mount to ask)",
	                  URING_PARAMETER);
}

/* The request loop's spin (fs/loop.h) follows the CPUs this process may use. */
static int report_spin(struct report *r)
{
	int cpus = loop_usable_cpus();
	unsigned spin = loop_default_spin_us();

	if (spin)
		return report_add(r, "request_spin", "Request spin", REPORT_ON,
		                  "%d CPUs: after a request, the daemon looks for the next one for %u µs before it "
		                  "sleeps, which saves a wake-up per request (-o spin=0 turns it off)",
		                  cpus, spin);
	return report_add(r, "request_spin", "Request spin", REPORT_OFF,
	                  "%d CPU: a daemon that kept looking would keep the caller it waits for off the CPU, so "
	                  "it sleeps between requests",
	                  cpus);
}

int probe_fuse(struct report *r, bool *can_mount)
{
	struct fuse_mount_probe m;
	struct utsname u;
	int k;

	if ((k = probe_device(r)) < 0 || (k = probe_libfuse(r)) < 0 || (k = probe_fusermount(r)) < 0)
		return k;
	k = fuse_mount_probe(MOUNT_PROBE_TIMEOUT_S, &m);
	if (k < 0)
		snprintf(m.error, sizeof(m.error), "the probe could not run: %s", strerror(-k));
	*can_mount = m.mounted && m.got_init;
	if ((k = report_mount(r, &m)) < 0)
		return k;
	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "unknown");
	if ((k = report_add(r, "kernel", "Kernel", u.release, "%s %s, %s", u.sysname, u.release, u.machine)) < 0)
		return k;
	if ((k = report_passthrough(r, &m, &u)) < 0 || (k = report_uring(r, &m)) < 0)
		return k;
	return report_spin(r);
}
