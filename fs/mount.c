/* The session: creating the fs, negotiating with the kernel, mounting, the
 * multi-threaded loop, unmounting. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "fs/internal.h"
#include "fs/kernel-io.h"
#include "fs/loop.h"
#include "fs/uring.h"

/* Cached O_PATH fds: enough for a build's working set, far below the limit. */
#define FS_FD_CACHE_MAX     4096u
#define FS_MAX_IDLE_THREADS 8
#define FS_MAX_THREADS      64
/* Descriptors the daemon keeps from its callers' open files for its own
 * work beside the O_PATH cache: a few per request thread (a parent, an
 * object, a reopen, /proc) and the model's and the audit's reads. */
#define FS_FD_RESERVE (64 + 4 * FS_MAX_THREADS)

/* libfuse's last message on this thread, for fs_mount's error: libfuse
 * reports a failed mount only through its log. */
static _Thread_local char fuse_last_message[256];

static void fuse_log_to_ours(enum fuse_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void fuse_log_to_ours(enum fuse_log_level level, const char *fmt, va_list ap)
{
	vsnprintf(fuse_last_message, sizeof(fuse_last_message), fmt, ap);
	fuse_last_message[strcspn(fuse_last_message, "\n")] = '\0';
	log_debug("libfuse: %s", fuse_last_message);
}

/* Passthrough where it is offered to a daemon that may use it: the kernel
 * then reads and writes the tree's files at native speed, and its page cache
 * is the tree's own, shared with every process outside. Never the writeback
 * cache: under it write(2) only dirties the kernel's pages, so a full tree
 * was never told to the writer (a 20 MiB tree took 40 MiB of writes, the
 * mount then showed 40 MiB where the tree held 20, and only the first fsync
 * said ENOSPC). Each write is a request instead, answered with the tree's
 * own answer. */
static bool choose_io(struct fs *fs, struct fuse_conn_info *conn)
{
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	if (fs->opt.passthrough == FS_PASSTHROUGH_AUTO && kernel_io_passthrough_offered()) {
		kernel_io_passthrough_accept();
		return true;
	}
	return false;
}

/* The ring where the kernel offers it (fs/uring.h). Its replies must come
 * through the writev hook, never a splice to /dev/fuse. */
static bool choose_uring(struct fs *fs, struct fuse_conn_info *conn)
{
	if (fs->opt.uring != FS_URING_AUTO || !kernel_io_uring_offered())
		return false;
	kernel_io_uring_accept();
	conn->want &= ~(FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE);
	return true;
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	struct fs *fs = userdata;

	bool passthrough = choose_io(fs, conn);
	if (fs->opt.cache == FS_CACHE_ALWAYS && (conn->capable & FUSE_CAP_CACHE_SYMLINKS))
		conn->want |= FUSE_CAP_CACHE_SYMLINKS;
	if (conn->capable & FUSE_CAP_SPLICE_WRITE)
		conn->want |= FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE;
	bool uring = choose_uring(fs, conn);
	/* Requests must come through kernel-io.c's read hook, not a splice. */
	conn->want &= ~FUSE_CAP_SPLICE_READ;
	/* The daemon writes as root, which keeps set-id bits: let the kernel
	 * clear them on write, truncate and chown, as it does for a local file. */
	conn->want &= ~FUSE_CAP_HANDLE_KILLPRIV;
	conn->time_gran = 1;
	log_debug("FUSE protocol %u.%u, passthrough %s, io_uring %s", conn->proto_major, conn->proto_minor,
	          passthrough ? "asked" : "off", uring ? "asked" : "off");
}

static double timeout_for(enum fs_cache cache)
{
	switch (cache) {
	case FS_CACHE_NEVER:
		return 0;
	case FS_CACHE_AUTO:
		return 1.0;
	default:
		return 86400.0; /* an exclusive mount: every change goes through us */
	}
}

/* Raises the soft fd limit to the hard one and sizes the fd cache well
 * below it, leaving room for open files and directories. */
static unsigned fd_cache_size(unsigned asked)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (asked)
		return asked;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return FS_FD_CACHE_MAX;
	return rl.rlim_cur / 4 < FS_FD_CACHE_MAX ? (unsigned)(rl.rlim_cur / 4) : FS_FD_CACHE_MAX;
}

int fs_new(int rootfd, const struct fs_options *opt, struct git_model *model, struct audit *audit, struct fs **out)
{
	_cleanup_free_ struct fs *fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->opt = *opt;
	fs->model = model;
	fs->audit = audit;
	fs->timeout = timeout_for(opt->cache);
	fs->as_caller = geteuid() == 0;
	fs->judges_reads = git_model_denies(model);
	pthread_mutex_init(&fs->rewritten_lock, NULL);
	if (fs->as_caller) {
		int r = caller_init();
		if (r < 0)
			return r;
	}
	fs->proc_root_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fs->proc_root_fd < 0)
		return negative_errno();
	_cleanup_close_ int fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
	unsigned cache = fd_cache_size(opt->fd_cache_size);
	int r = fd < 0 ? negative_errno() : inode_table_new(fd, cache, true, &fs->table);
	if (r < 0) {
		close(fs->proc_root_fd);
		return r;
	}
	TAKE_FD(fd);
	r = fd_share_new(fd_share_pool_size(cache + FS_FD_RESERVE), fs->proc_root_fd, &fs->share);
	if (r < 0) {
		inode_table_free(fs->table);
		close(fs->proc_root_fd);
		return r;
	}
	log_debug("inodes are %s; callers may hold %u open files",
	          inode_table_uses_handles(fs->table) ? "reopened by file handle" : "pinned fds",
	          fd_share_pool(fs->share));
	*out = TAKE_PTR(fs);
	return 0;
}

/* The -o list for libfuse. */
static int mount_opts(const struct fs_options *opt, char **out)
{
	_cleanup_free_ char *opts = NULL;
	int r = fuse_opt_add_opt(&opts, "subtype=oz0fs");

	if (r == 0 && opt->fsname) {
		_cleanup_free_ char *fsname = NULL;
		if (asprintf(&fsname, "fsname=%s", opt->fsname) < 0)
			return -ENOMEM;
		r = fuse_opt_add_opt_escaped(&opts, fsname);
	}
	if (r == 0 && opt->allow_other)
		r = fuse_opt_add_opt(&opts, "allow_other");
	if (r == 0 && opt->default_permissions)
		r = fuse_opt_add_opt(&opts, "default_permissions");
	if (r == 0 && opt->read_only)
		r = fuse_opt_add_opt(&opts, "ro");
	if (r == 0 && opt->fuse_opts && *opt->fuse_opts)
		r = fuse_opt_add_opt(&opts, opt->fuse_opts);
	if (r < 0)
		return -ENOMEM;
	*out = TAKE_PTR(opts);
	return 0;
}

static struct fuse_session *session_new(struct fs *fs)
{
	struct fuse_lowlevel_ops ops = {.init = op_init};
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	_cleanup_free_ char *opts = NULL;
	struct fuse_session *se = NULL;

	fs_ops_entry(&ops);
	fs_ops_dir(&ops);
	fs_ops_file(&ops);
	fs_ops_xattr(&ops);
	if (mount_opts(&fs->opt, &opts) == 0 && fuse_opt_add_arg(&args, "oz0fs") == 0 &&
	    fuse_opt_add_arg(&args, "-o") == 0 && fuse_opt_add_arg(&args, opts) == 0 &&
	    (!fs->opt.debug || fuse_opt_add_arg(&args, "-d") == 0))
		se = fuse_session_new(&args, &ops, sizeof(ops), fs);
	fuse_opt_free_args(&args);
	return se;
}

/* Hands over libfuse's last word, without its "fuse: " prefix. */
static int mount_error(const char *fallback, char **errmsg)
{
	const char *msg = fuse_last_message[0] ? fuse_last_message : fallback;

	if (strncmp(msg, "fuse: ", 6) == 0)
		msg += 6;
	*errmsg = strdup(msg);
	return -EIO;
}

int fs_mount(struct fs *fs, const char *mountpoint, char **errmsg)
{
	fuse_set_log_func(fuse_log_to_ours);
	fuse_last_message[0] = '\0';
	umask(0);
	fs->se = session_new(fs);
	if (!fs->se)
		return mount_error("cannot start a FUSE session", errmsg);
	if (fuse_set_signal_handlers(fs->se) < 0)
		return mount_error("cannot install the signal handlers", errmsg);
	if (fuse_session_mount(fs->se, mountpoint) < 0)
		return mount_error("the mount failed", errmsg);
	fs->mounted = true;
	if (kernel_io_install(fs->se) < 0)
		log_debug("cannot hook /dev/fuse: set-id bits cost a round trip per write");
	/* The xattr calls name objects by their /proc/self/fd entry, relative
	 * to the working directory (see ops-xattr.c); it also keeps the daemon
	 * off the mount point. */
	if (fchdir(inode_table_proc_fd(fs->table)) < 0) {
		*errmsg = strdup("cannot enter /proc/self/fd");
		return negative_errno();
	}
	return 0;
}

bool fs_uses_file_handles(const struct fs *fs)
{
	return inode_table_uses_handles(fs->table);
}

int fs_run(struct fs *fs)
{
	struct loop_options opt = {
	        .spin_us = fs->opt.spin_us < 0 ? loop_default_spin_us() : (unsigned)fs->opt.spin_us,
	        .max_threads = FS_MAX_THREADS,
	        .max_idle = FS_MAX_IDLE_THREADS,
	};

	uring_set_spin(opt.spin_us);
	int r = loop_run(fs->se, &opt);
	uring_stop();
	return r;
}

void fs_free(struct fs *fs)
{
	if (!fs)
		return;
	uring_stop(); /* its threads use the session */
	if (fs->se) {
		fuse_remove_signal_handlers(fs->se);
		if (fs->mounted)
			fuse_session_unmount(fs->se);
		fuse_session_destroy(fs->se);
	}
	inode_table_free(fs->table);
	fd_share_free(fs->share);
	if (fs->proc_root_fd >= 0)
		close(fs->proc_root_fd);
	pthread_mutex_destroy(&fs->rewritten_lock);
	free(fs);
}
