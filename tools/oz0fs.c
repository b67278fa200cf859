/* oz0fs: mounts a tree, refusing every write to protected Git metadata and
 * agent/editor files.
 *
 *   oz0fs [-f] [-d] [-o OPT[,OPT...]] [--config FILE] SOURCE MOUNTPOINT
 *
 * Start-up refusals are one line on stderr: exit 2 for a bad command line,
 * 1 for anything else. Without -f the command returns only once the mount is
 * live (0) or has failed (non-zero), and the daemon carries on. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "fs/fs.h"
#include "git/model.h"
#include "policy/audit.h"
#include "policy/conf.h"
#include "tools/check-command.h"
#include "tools/check-path.h"
#include "tools/check.h"
#include "tools/explain.h"
#include "tools/mount-target.h"
#include "tools/service-notify.h"
#include "tools/tool-args.h"
#include "tools/write.h"

#define EXIT_USAGE 2

struct args {
	bool foreground;
	bool debug;
	const char *config;
	const char *audit_file;
	const char *seen_as; /* where git runs see the tree; NULL: the mount point */
	const char *source;
	const char *mountpoint;
	int ready_fd;    /* with -f: told one byte once the mount is live (a runner waits on it) */
	char *fuse_opts; /* generic options passed on to libfuse */
	struct fs_options fs;
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: oz0fs [-f] [-d] [-o OPT[,OPT...]] [--config FILE] SOURCE MOUNTPOINT\n"
	             "Mounts SOURCE on MOUNTPOINT (they may be the same directory), refusing every\n"
	             "write to protected Git metadata and agent/editor files with EACCES.\n"
	             "\n"
	             "  -f                 stay in the foreground (refusals are audited on stderr)\n"
	             "  -d                 debug: -f plus a trace of every FUSE request\n"
	             "  --config FILE      the configuration (default " POLICY_CONFIG_DEFAULT_FILE " if present)\n"
	             "  --ready-fd FD      with -f: write one byte to FD once the mount is live, and close it\n"
	             "  --help, --version\n"
	             "\n"
	             "Other modes (each with --help):\n"
	             "  oz0fs --check [--json] [--config FILE] [DIR]        can this machine run oz0fs; would DIR mount\n"
	             "  oz0fs --explain [--json] [--config FILE] DIR PATH   is PATH protected, by which rule, and why\n"
	             "  oz0fs --check-command [--json] ... -- ARGV...       judge a command before it runs\n"
	             "  oz0fs --check-path [--read|--write] [--json] [--config FILE] [--tree DIR] -- PATH...\n"
	             "                                                     may a harness read or write PATH\n"
	             "  oz0fs --write [--tree DIR] [--audit FILE] [--config FILE] [--] PATH\n"
	             "                                                     write standard input to PATH for an agent\n"
	             "\n"
	             "Options (-o):\n"
	             "  cache=never|auto|always  kernel caching; use never or auto when the tree is\n"
	             "                           also changed from outside the mount (default: always)\n"
	             "  passthrough=auto|off     let the kernel read and write files itself once an\n"
	             "                           open is allowed (FUSE passthrough: needs Linux 6.9\n"
	             "                           and root; replaces the writeback cache; default: auto)\n"
	             "  uring=auto|off           take requests through one io_uring per CPU instead of\n"
	             "                           /dev/fuse where the kernel offers it (Linux 6.14 with\n"
	             "                           fuse's enable_uring parameter Y; default: auto)\n"
	             "  spin=MICROSECONDS        how long an idle daemon keeps looking for the next\n"
	             "                           request before it sleeps: saves a wake-up per request\n"
	             "                           (default 200 with two CPUs or more, else 0; an io_uring\n"
	             "                           thread at most 10)\n"
	             "  audit=FILE               append refusals to FILE (default: the config's, else\n"
	             "                           syslog, or stderr with -f)\n"
	             "  seen_as=PATH             where git sees the tree, when a sandbox binds the mount\n"
	             "                           elsewhere (/workspace): the path in the .git files git\n"
	             "                           writes there (default: MOUNTPOINT)\n"
	             "  allow_other, default_permissions   on by default as root\n"
	             "  ro                       read-only\n"
	             "  fsname=, subtype=, max_read=, auto_unmount, noatime, nodiratime, relatime,\n"
	             "  noexec, nosuid, nodev, sync, dirsync   passed to FUSE\n"
	             "\n"
	             "Unmount with 'fusermount3 -u MOUNTPOINT' or 'umount MOUNTPOINT'.\n");
}

static _Noreturn void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static _Noreturn void die(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("oz0fs: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* ---- -o options: a table, one small handler each --------------------------- */

/* The index of VALUE among the N NAMES, or -EINVAL. */
static int choice(const char *const *names, size_t n, const char *value)
{
	for (size_t k = 0; k < n; k++)
		if (strcmp(value, names[k]) == 0)
			return (int)k;
	return -EINVAL;
}

static int opt_cache(struct args *a, const char *value)
{
	static const char *const names[] = {
	        [FS_CACHE_NEVER] = "never",
	        [FS_CACHE_AUTO] = "auto",
	        [FS_CACHE_ALWAYS] = "always",
	};
	int k = choice(names, ELEMENTSOF(names), value);

	if (k >= 0)
		a->fs.cache = (enum fs_cache)k;
	return k < 0 ? k : 0;
}

/* "auto" (0) or "off" (1), or -EINVAL. */
static int auto_or_off(const char *value)
{
	static const char *const names[] = {"auto", "off"};

	return choice(names, ELEMENTSOF(names), value);
}

static int opt_passthrough(struct args *a, const char *value)
{
	int k = auto_or_off(value);

	if (k >= 0)
		a->fs.passthrough = k ? FS_PASSTHROUGH_OFF : FS_PASSTHROUGH_AUTO;
	return k < 0 ? k : 0;
}

static int opt_uring(struct args *a, const char *value)
{
	int k = auto_or_off(value);

	if (k >= 0)
		a->fs.uring = k ? FS_URING_OFF : FS_URING_AUTO;
	return k < 0 ? k : 0;
}

static int opt_spin(struct args *a, const char *value)
{
	char *end;
	errno = 0;
	unsigned long us = strtoul(value, &end, 10);

	if (errno || end == value || *end || value[0] == '-' || us > 1000000)
		return -EINVAL;
	a->fs.spin_us = (int)us;
	return 0;
}

static int opt_audit(struct args *a, const char *value)
{
	if (!*value)
		return -EINVAL;
	a->audit_file = value;
	return 0;
}

static int opt_seen_as(struct args *a, const char *value)
{
	if (value[0] != '/')
		return -EINVAL;
	a->seen_as = value;
	return 0;
}

static int opt_allow_other(struct args *a, const char *value)
{
	a->fs.allow_other = true;
	return 0;
}

static int opt_default_permissions(struct args *a, const char *value)
{
	a->fs.default_permissions = true;
	return 0;
}

static int opt_ro(struct args *a, const char *value)
{
	a->fs.read_only = true;
	return 0;
}

static int opt_rw(struct args *a, const char *value)
{
	a->fs.read_only = false;
	return 0;
}

static int opt_fsname(struct args *a, const char *value)
{
	a->fs.fsname = value;
	return 0;
}

/* Set by the name alone (and value NULL), or NAME=VALUE when the name ends in '='. */
static const struct mount_option {
	const char *name;
	int (*set)(struct args *a, const char *value); /* NULL: passed on to libfuse */
} mount_options[] = {
        {"cache=", opt_cache},
        {"passthrough=", opt_passthrough},
        {"uring=", opt_uring},
        {"spin=", opt_spin},
        {"audit=", opt_audit},
        {"seen_as=", opt_seen_as},
        {"allow_other", opt_allow_other},
        {"default_permissions", opt_default_permissions},
        {"ro", opt_ro},
        {"rw", opt_rw},
        {"fsname=", opt_fsname},
        {"subtype=", NULL},
        {"max_read=", NULL},
        {"auto_unmount", NULL},
        {"noatime", NULL},
        {"nodiratime", NULL},
        {"relatime", NULL},
        {"noexec", NULL},
        {"nosuid", NULL},
        {"nodev", NULL},
        {"sync", NULL},
        {"dirsync", NULL},
};

static const struct mount_option *find_option(const char *opt, const char **value)
{
	for (size_t k = 0; k < ELEMENTSOF(mount_options); k++) {
		const char *name = mount_options[k].name;
		size_t len = strlen(name);
		bool takes_value = name[len - 1] == '=';
		if (takes_value ? strncmp(opt, name, len) == 0 : strcmp(opt, name) == 0) {
			*value = takes_value ? opt + len : NULL;
			return &mount_options[k];
		}
	}
	return NULL;
}

static int pass_to_fuse(struct args *a, const char *opt)
{
	char *joined;

	if (asprintf(&joined, "%s%s%s", a->fuse_opts ? a->fuse_opts : "", a->fuse_opts ? "," : "", opt) < 0)
		return -ENOMEM;
	free(a->fuse_opts);
	a->fuse_opts = joined;
	return 0;
}

static void parse_one_option(struct args *a, char *opt)
{
	const char *value;
	const struct mount_option *o = find_option(opt, &value);

	if (!o)
		die(EXIT_USAGE, "unknown option '-o %s' (see oz0fs --help)", opt);
	int r = o->set ? o->set(a, value) : pass_to_fuse(a, opt);
	if (r == -ENOMEM)
		die(1, "out of memory");
	if (r < 0)
		die(EXIT_USAGE, "bad value in '-o %s' (see oz0fs --help)", opt);
}

/* Splits a comma-separated -o list in place; the pieces stay in argv. */
static void parse_options(struct args *a, char *list)
{
	while (list) {
		char *comma = strchr(list, ',');
		if (comma)
			*comma = '\0';
		if (*list)
			parse_one_option(a, list);
		list = comma ? comma + 1 : NULL;
	}
}

/* An open descriptor number, or exit 2. */
static int ready_fd_arg(const char *value)
{
	char *end;
	errno = 0;
	long fd = strtol(value, &end, 10);

	if (errno || end == value || *end || fd < 0 || fd > INT_MAX || fcntl((int)fd, F_GETFD) < 0)
		die(EXIT_USAGE, "--ready-fd '%s': not an open descriptor", value);
	return (int)fd;
}

enum { LONG_CONFIG = 256, LONG_READY_FD, LONG_HELP, LONG_VERSION };

static void parse_args(int argc, char **argv, struct args *a)
{
	static const struct option longs[] = {
	        {"config", required_argument, NULL, LONG_CONFIG},
	        {"ready-fd", required_argument, NULL, LONG_READY_FD},
	        {"help", no_argument, NULL, LONG_HELP},
	        {"version", no_argument, NULL, LONG_VERSION},
	        {NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "fdo:", longs, NULL)) != -1) {
		switch (c) {
		case 'f':
			a->foreground = true;
			break;
		case 'd':
			a->foreground = a->debug = a->fs.debug = true;
			break;
		case 'o':
			parse_options(a, optarg);
			break;
		case LONG_CONFIG:
			if (!*optarg)
				die(EXIT_USAGE, "%s", TOOL_ARGS_EMPTY_CONFIG);
			a->config = optarg;
			break;
		case LONG_READY_FD:
			a->ready_fd = ready_fd_arg(optarg);
			break;
		case LONG_HELP:
			usage(stdout);
			exit(0);
		case LONG_VERSION:
			printf("oz0fs %s\n", PACKAGE_VERSION);
			exit(0);
		default:
			die(EXIT_USAGE, "bad option '%s' (see oz0fs --help)", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		die(EXIT_USAGE, "expected SOURCE and MOUNTPOINT (see oz0fs --help)");
	if (a->ready_fd >= 0 && !a->foreground)
		die(EXIT_USAGE, "--ready-fd is for -f: without it, oz0fs itself returns once the mount is live");
	a->source = argv[optind];
	a->mountpoint = argv[optind + 1];
	a->fs.fsname = a->fs.fsname ? a->fs.fsname : a->source;
	a->fs.fuse_opts = a->fuse_opts;
}

/* ---- Start-up ------------------------------------------------------------------- */

/* Forks; the parent waits until the child says the mount is live (exit 0)
 * or the child ends first (its status, at least 1). Returns the write end
 * of the pipe in the child. */
static int daemonize_when_ready(void)
{
	int p[2];
	char c;

	if (pipe2(p, O_CLOEXEC) < 0)
		die(1, "cannot create a pipe: %m");
	pid_t pid = fork();
	if (pid < 0)
		die(1, "cannot fork: %m");
	if (pid == 0) {
		close(p[0]);
		setsid();
		return p[1];
	}
	close(p[1]);
	if (read(p[0], &c, 1) == 1)
		exit(0);
	int status;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) == 0)
		exit(1);
	exit(WEXITSTATUS(status));
}

/* The mount is live: tell the waiting parent and leave the terminal. */
static void detach(int ready_fd, int null_fd)
{
	log_to_syslog();
	dup2(null_fd, STDIN_FILENO);
	dup2(null_fd, STDOUT_FILENO);
	dup2(null_fd, STDERR_FILENO);
	if (write(ready_fd, "", 1) != 1)
		log_error("cannot tell the parent the mount is live: %m");
	close(ready_fd);
}

/* The configuration, refused when it lies in the tree open as ROOTFD. */
static struct policy_config *load_config(const char *file, int rootfd)
{
	struct policy_config *cfg;
	_cleanup_free_ char *err = NULL;

	if (!file && access(POLICY_CONFIG_DEFAULT_FILE, F_OK) == 0)
		file = POLICY_CONFIG_DEFAULT_FILE;
	if (policy_config_load_outside(file, rootfd, &cfg, &err) < 0)
		die(1, "%s", err ? err : "cannot load the configuration");
	return cfg;
}

/* The audit log, refused when it lies in the tree open as ROOTFD. */
static struct audit *open_audit(const struct args *a, const struct policy_config *cfg, int rootfd)
{
	const char *file = a->audit_file ? a->audit_file : cfg->audit_file;
	_cleanup_free_ char *err = NULL;
	struct audit *audit;
	int r;

	if (file)
		r = audit_open_outside(file, rootfd, &audit, &err);
	else
		r = audit_open(a->foreground ? AUDIT_STDERR : AUDIT_SYSLOG, NULL, &audit);
	if (r < 0)
		die(1, "%s", err ? err : "cannot open the audit log");
	if (cfg->audit_syslog)
		audit_also_syslog(audit);
	return audit;
}

static struct git_model *build_model(int rootfd, const char *seen_as, const struct policy_config *cfg)
{
	_cleanup_free_ char *err = NULL;
	struct git_model *m;

	int r = git_model_new(rootfd, seen_as, cfg, &m, &err);
	if (r < 0)
		die(1, "%s", err ? err : strerror(-r));
	return m;
}

static int open_source(const char *source)
{
	_cleanup_free_ char *err = NULL;
	int fd = mount_source_open(source, &err);

	if (fd < 0)
		die(1, "%s", err ? err : strerror(-fd));
	return fd;
}

static void open_target(const struct args *a, int rootfd, struct mount_target *t)
{
	_cleanup_free_ char *err = NULL;
	int r = mount_target_open(a->mountpoint, rootfd, a->source, t, &err);

	if (r < 0)
		die(1, "%s", err ? err : strerror(-r));
}

int main(int argc, char **argv)
{
	struct args a = {.fs.cache = FS_CACHE_ALWAYS, .fs.spin_us = -1, .ready_fd = -1};
	int ready_fd = -1;
	char *err = NULL;
	struct fs *fs;

	log_init("oz0fs");
	/* Modes of their own, with options of their own: judge one command,
	 * check this machine, explain one path, judge paths, write a file. */
	if (argc > 1 && strcmp(argv[1], "--check-command") == 0)
		return command_check_main(argc - 2, argv + 2);
	if (argc > 1 && strcmp(argv[1], "--check") == 0)
		return check_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "--explain") == 0)
		return explain_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "--check-path") == 0)
		return path_check_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "--write") == 0)
		return write_main(argc - 1, argv + 1);
	if (geteuid() == 0)
		a.fs.allow_other = a.fs.default_permissions = true; /* the mount is for other users */
	parse_args(argc, argv, &a);
	if (a.debug)
		log_set_max_level(LOG_DEBUG);
	if (!a.foreground)
		ready_fd = daemonize_when_ready();

	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null_fd < 0)
		die(1, "cannot open /dev/null: %m");
	/* Both ends pinned first, so that the configuration and the log are
	 * placed against the tree itself, and nothing is resolved later. */
	int rootfd = open_source(a.source);
	struct mount_target target;
	open_target(&a, rootfd, &target);
	struct policy_config *cfg = load_config(a.config, rootfd);
	struct audit *audit = open_audit(&a, cfg, rootfd);
	struct git_model *model = build_model(rootfd, a.seen_as ? a.seen_as : target.path, cfg);
	git_model_set_audit(model, audit);

	int r = fs_new(rootfd, &a.fs, model, audit, &fs);
	if (r < 0)
		die(1, "cannot set up the mount of '%s': %s", a.source, strerror(-r));
	if (!fs_uses_file_handles(fs))
		log_warning("no file handles here (they need CAP_DAC_READ_SEARCH): every inode the kernel "
		            "holds keeps an fd open, so a tree past the open-file limit gets EMFILE; run as root "
		            "for large trees");
	r = fs_mount(fs, target.mount_arg, &err);
	if (r < 0)
		die(1, "cannot mount on '%s': %s", a.mountpoint, err ? err : strerror(-r));
	if (ready_fd >= 0)
		detach(ready_fd, null_fd);
	if (a.ready_fd >= 0 && (write(a.ready_fd, "", 1) != 1 || close(a.ready_fd) < 0))
		log_error("cannot tell the runner the mount is live: %m");
	service_notify_ready();

	r = fs_run(fs);
	service_notify_stopping();
	if (r < 0)
		log_error("the mount of '%s' on '%s' failed: %s", a.source, a.mountpoint, strerror(-r));
	fs_free(fs); /* unmounts through target.mount_arg: the pin goes after it */
	mount_target_close(&target);
	git_model_free(model);
	audit_close(audit);
	policy_config_free(cfg);
	close(rootfd);
	close(null_fd);
	free(a.fuse_opts);
	return r < 0 ? 1 : 0;
}
