/* The mount: a FUSE low-level passthrough of one tree that asks the judge
 * (policy/) before every mutating operation and tells the Git model (git/)
 * when a watched entry changed. This is the API the oz0fs command uses. */
#pragma once

#include <stdbool.h>

#include "git/model.h"
#include "policy/audit.h"

enum fs_cache {
	FS_CACHE_NEVER,  /* no kernel caching: the tree is changed from outside too */
	FS_CACHE_AUTO,   /* short timeouts, page cache dropped when mtime changes */
	FS_CACHE_ALWAYS, /* an exclusive mount: long timeouts, keep_cache */
};

enum fs_passthrough {
	FS_PASSTHROUGH_AUTO, /* the kernel does file I/O itself where it can */
	FS_PASSTHROUGH_OFF,  /* every read and write is a request to the daemon */
};

enum fs_uring {
	FS_URING_AUTO, /* FUSE over io_uring where the kernel offers it */
	FS_URING_OFF,  /* every request through /dev/fuse */
};

struct fs_options {
	enum fs_cache cache;
	enum fs_passthrough passthrough;
	enum fs_uring uring;
	bool allow_other;
	bool default_permissions;
	bool read_only;
	bool debug;             /* libfuse's request trace */
	const char *fuse_opts;  /* further generic mount options ("a,b=c"), or NULL */
	const char *fsname;     /* shown in /proc/mounts; the source path */
	unsigned fd_cache_size; /* cached O_PATH fds; 0 picks one from RLIMIT_NOFILE */
	int spin_us;            /* how long an idle daemon looks for the next request
	                         * before it sleeps (fs/loop.h); < 0: what suits the CPUs */
};

struct fs;

/* ROOTFD is the tree, an O_RDONLY directory fd (duplicated: the caller keeps
 * its own). MODEL and AUDIT are borrowed and must outlive the fs. */
int fs_new(int rootfd, const struct fs_options *opt, struct git_model *model, struct audit *audit, struct fs **out);
/* Mounts on MOUNTPOINT; installs the SIGTERM/SIGINT/SIGHUP handlers that end
 * fs_run(). Sets the process umask to 0 (the kernel applies the caller's) and
 * the working directory to /proc/self/fd, which the xattr calls name objects
 * in: the caller must not change either afterwards.
 * Returns 0, or -errno with a malloc'd one-line reason in *errmsg. */
int fs_mount(struct fs *fs, const char *mountpoint, char **errmsg);
/* False when inodes pin an fd each (no CAP_DAC_READ_SEARCH, or a file system
 * without handles): the kernel may then hold at most RLIMIT_NOFILE inodes,
 * and lookups past that fail with EMFILE. */
bool fs_uses_file_handles(const struct fs *fs);
/* Serves requests (fs/loop.h) until unmounted or signalled. */
int fs_run(struct fs *fs);
/* Unmounts if mounted, and frees. */
void fs_free(struct fs *fs);
