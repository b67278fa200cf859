/* The inode table: every object the kernel holds a reference to, keyed by the
 * (dev, ino) of the underlying object.
 *
 * An inode does not own an fd for its life (the open-file limit is far below
 * the number of entries of a real tree). It is known by a file handle
 * (name_to_handle_at), and a bounded LRU cache keeps O_PATH|O_NOFOLLOW fds of
 * the recently used ones; open_by_handle_at reopens the rest, race-free, since
 * a handle names one object and never a path.
 *
 * Where handles are unavailable (a daemon without CAP_DAC_READ_SEARCH, or a
 * file system that has none) an inode pins its O_PATH fd until it is
 * forgotten, as libfuse's passthrough_ll does: the number of inodes the kernel
 * may hold is then bounded by RLIMIT_NOFILE, and a lookup past it fails with
 * EMFILE.
 *
 * All functions are thread-safe; one mutex guards the hash, the LRU and the
 * lookup counts.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct inode;
struct inode_table;

struct inode_id {
	uint64_t dev;
	uint64_t ino;
};

/* ROOTFD is the tree (an O_RDONLY directory fd; kept, closed with the table).
 * FD_CACHE_SIZE bounds the cached O_PATH fds; USE_HANDLES false forces the
 * pinned-fd mode (handles are also given up when the kernel refuses them). */
int inode_table_new(int rootfd, unsigned fd_cache_size, bool use_handles, struct inode_table **out);
void inode_table_free(struct inode_table *t);

struct inode *inode_table_root(struct inode_table *t);
bool inode_table_uses_handles(const struct inode_table *t);
/* Inodes in the table, and O_PATH fds held (cached plus pinned). */
size_t inode_table_count(struct inode_table *t);
size_t inode_table_fds(struct inode_table *t);

/* Looks NAME up in PARENT without following a link, fills *ST and returns
 * the inode with one more lookup reference. */
int inode_lookup(struct inode_table *t, struct inode *parent, const char *name, struct stat *st, struct inode **out);
/* Takes the unnamed open file FD (an O_TMPFILE) into the table with one
 * lookup reference, and fills *ST. Such an inode pins an O_PATH fd: an object
 * without a name cannot be reopened by handle. */
int inode_adopt(struct inode_table *t, int fd, struct stat *st, struct inode **out);
/* One more lookup reference on I, which the kernel names and so is alive:
 * for a reply that names an object the daemon already knows (a new link to
 * it), without looking its name up again. */
void inode_hold(struct inode_table *t, struct inode *i);
/* Drops N lookup references; the inode is freed at zero. */
void inode_forget(struct inode_table *t, struct inode *i, uint64_t n);

struct inode_id inode_id(const struct inode *i);

/* An O_PATH fd of the inode held for the length of one operation: it is not
 * evicted while held. Release with inode_fd_release (or _cleanup_ifd_). */
struct ifd {
	struct inode_table *table;
	struct inode *inode;
	int fd;
};
int inode_fd_acquire(struct inode_table *t, struct inode *i, struct ifd *out);
void inode_fd_release(struct ifd *f);
#define _cleanup_ifd_ __attribute__((cleanup(inode_fd_release)))

/* Opens the object itself with FLAGS (never O_CREAT), by handle or through
 * the pinned fd; the caller owns the fd. */
int inode_open(struct inode_table *t, struct inode *i, int flags);

/* The O_PATH fd of /proc/self/fd, for the few calls that take no fd
 * (fchmodat); the name is the fd number. */
int inode_table_proc_fd(const struct inode_table *t);
