/* Open files: open, create (and O_TMPFILE, see fs/kernel-io.h), read, write,
 * flush, release, fsync, fallocate, copy_file_range, lseek.
 *
 * Locks (flock and POSIX) are left to the kernel: without getlk/setlk/flock
 * operations it keeps them locally, with the exact semantics of a local file
 * system among every process that uses the mount. Done here instead, every
 * lock would belong to the daemon, so POSIX owners could not be told apart.
 * Locks taken on the underlying tree from outside the mount are not seen.
 *
 * With FUSE passthrough (see fs/kernel-io.h) an open judged and made here
 * names its backing file in the reply, and the kernel reads, writes and maps
 * the tree's file itself: read and write below then serve only the opens
 * that cannot pass through. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "fs/internal.h"
#include "fs/judge.h"
#include "fs/kernel-io.h"

/* Drops set-id bits from FD if the kernel asked, and makes the kernel forget
 * the mode it caches for INO (a reply that carries attributes does that by
 * itself: INO 0). */
static int kill_suidgid_asked(struct fs *fs, fuse_req_t req, fuse_ino_t ino, int fd)
{
	if (!kernel_io_kill_suidgid())
		return 0;
	int r = fs_kill_suidgid(req, fd);
	if (r > 0 && ino)
		fuse_lowlevel_notify_inval_inode(fs->se, ino, -1, 0);
	return r < 0 ? r : 0;
}

/* Takes FD back on failure. */
static int opened(struct fs *fs, fuse_req_t req, fuse_ino_t ino, int fd)
{
	int r = fd < 0 ? fd : kill_suidgid_asked(fs, req, ino, fd);

	if (r < 0 && fd >= 0)
		close(fd);
	return r < 0 ? r : fd;
}

static bool wants_write(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
}

/* The flags the daemon opens with: O_DIRECT is the kernel's business. */
static int backing_flags(const struct fs *fs, int flags)
{
	return flags & ~(O_CREAT | O_EXCL | O_NOCTTY | O_DIRECT);
}

/* FD, which holds the caller's place C, is the open file's from now on. */
static void set_open_reply(const struct fs *fs, struct fuse_file_info *fi, int fd, struct fd_claim *c)
{
	fd_share_bind(c, fd);
	fi->fh = (uint64_t)fd;
	/* A close has nothing to write back (there is no writeback cache), and
	 * locks are the kernel's: a FLUSH would be a round trip per close that
	 * does nothing, and would need a descriptor to do it (FOPEN_NOFLUSH). */
	fi->noflush = 1;
}

/* ---- Passthrough ------------------------------------------------------------ */

/* How the kernel does the I/O of an inode's open files. While any is open,
 * the kernel insists that they all agree: all use its page cache (and the
 * daemon), or all name one and the same registered backing file; an open
 * that differs fails with EIO. So the daemon counts, per inode, the opens it
 * replied to until their release, and answers a new open as the others
 * were. The kernel drops an open before it sends the release: the count
 * here is never below the kernel's.
 *
 * Which way a first open goes: a read-only open of a file smaller than
 * PASSTHROUGH_READ_MIN uses the page cache, everything else passes through.
 * A read through a backing file makes the kernel forget the inode's atime, so
 * the next stat of the file is a round trip (a warm grep would pay two per
 * file, the open and that); a read that hits the page cache costs none. A
 * large file's reads cost no round trip at all through its backing file.
 * The page cache stays true to the file: a passthrough open never keeps it
 * (see kernel-io.c), so the kernel drops it when the first one comes, and
 * while any is open no open uses it.
 *
 * The backing id lives as long as the count (one per inode, not per open:
 * a second id would be a different backing file to the kernel, EBUSY). The
 * kernel keeps its own reference to the file from the first open reply on,
 * so the id is released with the last open, not with the files. */
struct io_mode {
	fuse_ino_t ino;
	unsigned opens;
	int backing_id; /* > 0: passthrough; 0: the page cache */
	bool writable;  /* the backing file is open for writing too */
	struct io_mode *next;
};

#define IO_MODE_BUCKETS      1024
#define PASSTHROUGH_READ_MIN (1 << 20)
static pthread_mutex_t io_modes_lock = PTHREAD_MUTEX_INITIALIZER;
static struct io_mode *io_modes[IO_MODE_BUCKETS]; /* protected by io_modes_lock */
/* Cleared for good when the kernel refuses backing files to this daemon. */
static atomic_bool backing_allowed = true;
static atomic_bool backing_refusal_logged;

static struct io_mode **io_mode_slot(fuse_ino_t ino)
{
	struct io_mode **p = &io_modes[(ino >> 4) % IO_MODE_BUCKETS];

	while (*p && (*p)->ino != ino)
		p = &(*p)->next;
	return p;
}

/* An fd of FD's file for the kernel to read (and, if WRITE, write) through.
 * Every open of the inode shares it, so it must not carry one caller's
 * O_APPEND or O_SYNC (the kernel passes those per call), nor be write-only:
 * FD itself when it is clean, else the file reopened through
 * /proc/self/fd. Returns an fd, owned by the caller when not FD, or -errno. */
static int backing_fd(struct fs *fs, int fd, bool write)
{
	int want = write ? O_RDWR : O_RDONLY;
	int fl = fcntl(fd, F_GETFL);
	char name[16];

	if (fl < 0)
		return negative_errno();
	if ((fl & O_ACCMODE) == want && !(fl & (O_APPEND | O_SYNC | O_DSYNC | O_DIRECT)))
		return fd;
	snprintf(name, sizeof(name), "%d", fd);
	int b = openat(inode_table_proc_fd(fs->table), name, want | O_CLOEXEC);
	return b < 0 ? negative_errno() : b;
}

/* Logged once: the reason is the same for every file (no CAP_SYS_ADMIN, a
 * tree on a stacked file system). */
static void backing_refused(int r)
{
	if (r == -EPERM)
		atomic_store(&backing_allowed, false);
	if (!atomic_exchange(&backing_refusal_logged, true))
		log_debug("passthrough: cannot register a backing file (%s); such files go through the daemon%s",
		          strerror(-r), r == -EPERM ? ", all from now on" : "");
}

/* Registers FD's file as a backing file. Returns its id, or 0 when the
 * open is to use the page cache instead. */
static int backing_register(struct fs *fs, int fd, bool write)
{
	int b = backing_fd(fs, fd, write);
	int id = b < 0 ? b : kernel_io_backing_open(b);

	if (b >= 0 && b != fd)
		close(b);
	if (id > 0)
		return id;
	backing_refused(id);
	return 0;
}

/* The first open of INO: passthrough unless CACHED or refused. */
static int io_mode_new(struct fs *fs, fuse_ino_t ino, int fd, bool write, bool cached, struct io_mode **slot)
{
	struct io_mode *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->ino = ino;
	if (!cached && atomic_load(&backing_allowed))
		m->backing_id = backing_register(fs, fd, write);
	m->writable = m->backing_id && write;
	*slot = m;
	return 0;
}

/* Decides how the kernel does the I/O of the open of INO the daemon made as
 * FD, counts it until io_mode_release, and notes the backing file for the
 * reply. An open that must not or cannot use the inode's backing file as it
 * is (set-id, or a write through a read-only one) still names it, as the
 * kernel requires, but with direct_io: its reads and writes come to the
 * daemon, only its mappings use the backing file. */
static int io_mode_open(struct fs *fs, fuse_ino_t ino, int fd, struct fuse_file_info *fi)
{
	bool write = (fi->flags & O_ACCMODE) != O_RDONLY;
	struct stat st;
	int r = 0;

	fi->keep_cache = fs->opt.cache == FS_CACHE_ALWAYS;
	if (!kernel_io_passthrough())
		return 0;
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!S_ISREG(st.st_mode))
		return 0; /* the kernel sends no open for anything else */
	/* The kernel writes to a backing file as the daemon, root, and would
	 * keep set-id bits that a write by an unprivileged caller must clear. */
	bool setid = st.st_mode & (S_ISUID | S_ISGID);
	bool cached = setid || (!write && st.st_size < PASSTHROUGH_READ_MIN);
	pthread_mutex_lock(&io_modes_lock);
	struct io_mode **slot = io_mode_slot(ino);
	if (!*slot)
		r = io_mode_new(fs, ino, fd, write, cached, slot);
	if (r == 0) {
		struct io_mode *m = *slot;
		m->opens++;
		if (m->backing_id) {
			fi->direct_io = setid || (write && !m->writable);
			kernel_io_reply_backing(m->backing_id);
		}
	}
	pthread_mutex_unlock(&io_modes_lock);
	return r;
}

/* An open of INO was released, or its reply never reached the kernel. */
static void io_mode_release(fuse_ino_t ino)
{
	struct io_mode *m = NULL;

	if (!kernel_io_passthrough())
		return;
	pthread_mutex_lock(&io_modes_lock);
	struct io_mode **slot = io_mode_slot(ino);
	if (*slot && --(*slot)->opens == 0) {
		m = *slot;
		*slot = m->next;
	}
	pthread_mutex_unlock(&io_modes_lock);
	if (m && m->backing_id)
		kernel_io_backing_close(m->backing_id);
	free(m);
}

/* Opens the inode I, or NAME in DIRFD when I is NULL. */
static int open_once(struct fs *fs, struct inode *i, int dirfd, const char *name, int flags)
{
	if (i)
		return inode_open(fs->table, i, flags);
	int fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? negative_errno() : fd;
}

/* Opens with backing_flags(); a write-only file that the daemon may not read
 * (an unprivileged daemon) is opened as the caller asked. */
static int open_backing(struct fs *fs, struct inode *i, int dirfd, const char *name, int flags)
{
	int bflags = backing_flags(fs, flags);
	int fd = open_once(fs, i, dirfd, name, bflags);

	if (fd == -EACCES && (bflags & O_ACCMODE) != (flags & O_ACCMODE))
		fd = open_once(fs, i, dirfd, name, (bflags & ~O_ACCMODE) | (flags & O_ACCMODE));
	return fd;
}

static int do_open(struct fs *fs, fuse_req_t req, struct inode *i, struct fuse_file_info *fi)
{
	_cleanup_claim_ struct fd_claim c = {0};

	int r = fs_claim_open(fs, req, &c);
	if (r >= 0)
		r = judge_read(fs, req, "open", fs_policy_id(i), (unsigned long)fi->flags);
	if (r < 0)
		return r;
	if (wants_write(fi->flags)) {
		_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);
		r = judge_object(fs, req, s, POLICY_OP_WRITE, fs_policy_id(i), (unsigned long)fi->flags);
		if (r < 0)
			return r;
	}
	int fd = opened(fs, req, fs_ino(fs, i), open_backing(fs, i, -1, NULL, fi->flags));
	if (fd < 0)
		return fd;
	r = io_mode_open(fs, fs_ino(fs, i), fd, fi);
	if (r < 0) {
		close(fd);
		return r;
	}
	set_open_reply(fs, fi, fd, &c);
	return 0;
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);

	int r = do_open(fs, req, fs_inode(fs, ino), fi);
	if (r < 0) {
		fs_reply_err(req, r);
	} else if (fuse_reply_open(req, fi) != 0) {
		fs_close_open(fs, (int)fi->fh);
		io_mode_release(ino);
	}
}

/* create() of a name that exists already (no O_EXCL) is an open of it,
 * judged as one; the opened object must be the one judged. */
static int open_existing(struct fs *fs, fuse_req_t req, int dirfd, const char *name, const struct stat *st, int flags)
{
	struct stat now;

	if (flags & O_EXCL)
		return -EEXIST;
	/* Seen only when the kernel's negative entry is stale; a FIFO or a
	 * device is never opened by the daemon on a caller's behalf. */
	if (!S_ISREG(st->st_mode))
		return S_ISDIR(st->st_mode) ? -EISDIR : -EEXIST;
	int r = judge_read(fs, req, "open", stat_policy_id(st), (unsigned long)flags);
	if (r < 0)
		return r;
	if (wants_write(flags)) {
		_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);
		r = judge_object(fs, req, s, POLICY_OP_WRITE, stat_policy_id(st), (unsigned long)flags);
		if (r < 0)
			return r;
	}
	_cleanup_close_ int fd = opened(fs, req, 0, open_backing(fs, NULL, dirfd, name, flags));
	if (fd < 0)
		return fd;
	if (fstat(fd, &now) < 0)
		return negative_errno();
	if (now.st_dev != st->st_dev || now.st_ino != st->st_ino)
		return -EAGAIN; /* swapped under us from outside the mount */
	return TAKE_FD(fd);
}

/* openat() as the calling process, so that what it creates is the caller's. */
static int open_as_caller(struct fs *fs, fuse_req_t req, int dirfd, const char *name, int flags, mode_t mode)
{
	_cleanup_caller_ struct caller_saved c = {0};
	int r = fs_become_caller(fs, req, &c);
	if (r < 0)
		return r;
	int fd = openat(dirfd, name, flags, mode);
	return fd < 0 ? negative_errno() : fd;
}

/* Creates NAME as the caller; -EEXIST if it appeared meanwhile. */
static int create_new(struct fs *fs, fuse_req_t req, struct inode *parent, int dirfd, const char *name, mode_t mode,
                      int flags)
{
	_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);
	struct policy_id pid = fs_policy_id(parent);
	int fd;

	int r = judge_add(fs, req, s, POLICY_OP_CREATE, pid, name);
	if (r < 0)
		return r;
	fd = open_as_caller(fs, req, dirfd, name, backing_flags(fs, flags) | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	                    mode);
	if (fd < 0)
		return fd;
	judge_changed(fs, s, dirfd, pid, name);
	return fd;
}

static int create_or_open(struct fs *fs, fuse_req_t req, struct inode *parent, const char *name, mode_t mode, int flags)
{
	_cleanup_ifd_ struct ifd p = {0};
	struct stat st;

	int r = inode_fd_acquire(fs->table, parent, &p);
	if (r < 0)
		return r;
	/* Twice at most: a name that appears between the two looks is opened. */
	for (int tries = 0; tries < 2; tries++) {
		if (fstatat(p.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			return open_existing(fs, req, p.fd, name, &st, flags);
		if (errno != ENOENT)
			return negative_errno();
		r = create_new(fs, req, parent, p.fd, name, mode, flags);
		if (r != -EEXIST || (flags & O_EXCL))
			return r;
	}
	return -EEXIST;
}

static int do_create(struct fs *fs, fuse_req_t req, struct inode *parent, const char *name, mode_t mode,
                     struct fuse_file_info *fi, struct fuse_entry_param *e)
{
	_cleanup_claim_ struct fd_claim c = {0};

	int r = fs_claim_open(fs, req, &c);
	if (r < 0)
		return r;
	_cleanup_close_ int fd = create_or_open(fs, req, parent, name, mode, fi->flags);
	if (fd < 0)
		return fd;
	r = fs_lookup_entry(fs, parent, name, e);
	if (r < 0)
		return r;
	r = io_mode_open(fs, e->ino, fd, fi);
	if (r < 0) {
		fs_entry_forget(fs, e);
		return r;
	}
	set_open_reply(fs, fi, TAKE_FD(fd), &c);
	return 0;
}

/* The flags O_TMPFILE keeps: the access mode, O_EXCL (never to be linked)
 * and the like; what else the kernel passes is not for openat. */
static int tmpfile_flags(const struct fs *fs, int flags)
{
	return (backing_flags(fs, flags) & (O_ACCMODE | O_EXCL | O_APPEND | O_NOATIME | O_SYNC | O_DSYNC)) | O_TMPFILE;
}

/* An unnamed file in PARENT, made as the caller. Nothing is named, so there
 * is nothing to judge yet: giving it a name is a link, which is judged. */
static int do_tmpfile(struct fs *fs, fuse_req_t req, struct inode *parent, mode_t mode, struct fuse_file_info *fi,
                      struct fuse_entry_param *e)
{
	_cleanup_claim_ struct fd_claim c = {0};
	_cleanup_ifd_ struct ifd p = {0};
	struct inode *i;
	int fd;

	int r = fs_claim_open(fs, req, &c);
	if (r < 0)
		return r;
	r = inode_fd_acquire(fs->table, parent, &p);
	if (r < 0)
		return r;
	fd = open_as_caller(fs, req, p.fd, ".", tmpfile_flags(fs, fi->flags) | O_CLOEXEC, mode);
	if (fd < 0)
		return fd;
	memset(e, 0, sizeof(*e));
	r = inode_adopt(fs->table, fd, &e->attr, &i);
	if (r < 0) {
		close(fd);
		return r;
	}
	e->ino = fs_ino(fs, i);
	e->attr_timeout = e->entry_timeout = fs->timeout;
	r = io_mode_open(fs, e->ino, fd, fi);
	if (r < 0) {
		fs_entry_forget(fs, e);
		close(fd);
		return r;
	}
	set_open_reply(fs, fi, fd, &c);
	return 0;
}

static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	struct fuse_entry_param e;

	int r = kernel_io_tmpfile() ? do_tmpfile(fs, req, fs_inode(fs, parent), mode, fi, &e)
	                            : do_create(fs, req, fs_inode(fs, parent), name, mode, fi, &e);
	if (r < 0) {
		fs_reply_err(req, r);
	} else if (fuse_reply_create(req, &e, fi) != 0) {
		io_mode_release(e.ino); /* before the forget may free the inode */
		fs_entry_forget(fs, &e);
		fs_close_open(fs, (int)fi->fh);
	}
}

/* ---- Data ------------------------------------------------------------------- */

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct fuse_bufvec buf = FUSE_BUFVEC_INIT(size);

	/* The data goes from the file to the kernel by splice where it can. */
	buf.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	buf.buf[0].fd = (int)fi->fh;
	buf.buf[0].pos = off;
	fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
}

static void op_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *in, off_t off, struct fuse_file_info *fi)
{
	struct fuse_bufvec out = FUSE_BUFVEC_INIT(fuse_buf_size(in));

	int r = kill_suidgid_asked(fs_of(req), req, ino, (int)fi->fh);
	if (r < 0) {
		fs_reply_err(req, r);
		return;
	}
	out.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	out.buf[0].fd = (int)fi->fh;
	out.buf[0].pos = off;
	ssize_t n = fuse_buf_copy(&out, in, 0);
	if (n < 0)
		fs_reply_err(req, (int)n);
	else
		fuse_reply_write(req, (size_t)n);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);

	fs_close_open(fs, (int)fi->fh);
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		judge_written(fs, fs_policy_id(fs_inode(fs, ino)));
	io_mode_release(ino);
	fs_reply_err(req, 0);
}

static void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	int fd = (int)fi->fh;
	int r = datasync ? fdatasync(fd) : fsync(fd);

	fs_reply_err(req, r < 0 ? negative_errno() : 0);
}

static int do_fallocate(struct fs *fs, fuse_req_t req, struct inode *i, int mode, off_t off, off_t len,
                        const struct fuse_file_info *fi)
{
	_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);

	int r = judge_object(fs, req, s, POLICY_OP_FALLOCATE, fs_policy_id(i), (unsigned long)mode);
	if (r < 0)
		return r;
	return fallocate((int)fi->fh, mode, off, len) < 0 ? negative_errno() : 0;
}

static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off, off_t len, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);

	fs_reply_err(req, do_fallocate(fs, req, fs_inode(fs, ino), mode, off, len, fi));
}

static ssize_t do_copy_file_range(struct fs *fs, fuse_req_t req, const struct fuse_file_info *fi_in, off_t off_in,
                                  struct inode *out, const struct fuse_file_info *fi_out, off_t off_out, size_t len,
                                  int flags)
{
	_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);

	int r = judge_object(fs, req, s, POLICY_OP_COPY_INTO, fs_policy_id(out), (unsigned long)flags);
	if (r < 0)
		return r;
	ssize_t n = copy_file_range((int)fi_in->fh, &off_in, (int)fi_out->fh, &off_out, len, (unsigned)flags);
	return n < 0 ? negative_errno() : n;
}

static void op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in, struct fuse_file_info *fi_in,
                               fuse_ino_t ino_out, off_t off_out, struct fuse_file_info *fi_out, size_t len, int flags)
{
	struct fs *fs = fs_of(req);

	ssize_t n = do_copy_file_range(fs, req, fi_in, off_in, fs_inode(fs, ino_out), fi_out, off_out, len, flags);
	if (n < 0)
		fs_reply_err(req, (int)n);
	else
		fuse_reply_write(req, (size_t)n);
}

/* SEEK_DATA and SEEK_HOLE: every write reached the tree already. */
static void op_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence, struct fuse_file_info *fi)
{
	off_t pos = lseek((int)fi->fh, off, whence);
	if (pos < 0)
		fs_reply_err(req, negative_errno());
	else
		fuse_reply_lseek(req, pos);
}

void fs_ops_file(struct fuse_lowlevel_ops *ops)
{
	ops->open = op_open;
	ops->create = op_create;
	ops->read = op_read;
	ops->write_buf = op_write_buf;
	ops->release = op_release;
	ops->fsync = op_fsync;
	ops->fallocate = op_fallocate;
	ops->copy_file_range = op_copy_file_range;
	ops->lseek = op_lseek;
}
