/* Names and attributes: lookup, forget, getattr, setattr, readlink, statfs,
 * access. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "fs/internal.h"
#include "fs/judge.h"
#include "fs/kernel-io.h"

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fs *fs = fs_of(req);
	struct inode *dir = fs_inode(fs, parent);
	struct fuse_entry_param e;

	/* Nothing in a denied folder is reached, whatever its name. */
	int r = judge_read(fs, req, "lookup", fs_policy_id(dir), 0);
	if (r >= 0)
		r = fs_lookup_entry(fs, dir, name, &e);
	if (r == -ENOENT && fs->timeout > 0) {
		/* A negative entry: git asks for many names that do not exist. */
		memset(&e, 0, sizeof(e));
		e.entry_timeout = fs->timeout;
		r = 0;
	}
	fs_reply_entry(fs, req, r, &e);
}

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	struct fs *fs = fs_of(req);

	inode_forget(fs->table, fs_inode(fs, ino), nlookup);
	fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	struct fs *fs = fs_of(req);

	for (size_t k = 0; k < count; k++)
		inode_forget(fs->table, fs_inode(fs, forgets[k].ino), forgets[k].nlookup);
	fuse_reply_none(req);
}

/* Stats through the open file FH when there is one, else through FD. */
static int stat_fd(int fd, int fh, struct stat *st)
{
	if (fh >= 0)
		return fstat(fh, st) < 0 ? negative_errno() : 0;
	return fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ? negative_errno() : 0;
}

/* Stats the object: through the open file when the kernel names one (an
 * unlinked file has no handle left to reopen), else through the inode. */
static int stat_inode(struct fs *fs, struct inode *i, const struct fuse_file_info *fi, struct stat *st)
{
	if (fi)
		return stat_fd(-1, (int)fi->fh, st);
	_cleanup_ifd_ struct ifd f = {0};
	int r = inode_fd_acquire(fs->table, i, &f);
	if (r < 0)
		return r;
	return stat_fd(f.fd, -1, st);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	struct stat st;

	int r = stat_inode(fs, fs_inode(fs, ino), fi, &st);
	if (r < 0)
		fs_reply_err(req, r);
	else
		fuse_reply_attr(req, &st, fs->timeout);
}

/* ---- setattr -------------------------------------------------------------- */

#define SETATTR_TIMES (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_ATIME_NOW | FUSE_SET_ATTR_MTIME_NOW)
#define SETATTR_CHANGES (SETATTR_TIMES | FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID | FUSE_SET_ATTR_SIZE)

/* Asks the judge about every change the mask carries, before any is made. */
static int judge_setattr(struct fs *fs, fuse_req_t req, struct policy_id id, int valid)
{
	static const struct {
		int mask;
		enum policy_op op;
	} checks[] = {
	        {FUSE_SET_ATTR_MODE, POLICY_OP_CHMOD},
	        {FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID, POLICY_OP_CHOWN},
	        {FUSE_SET_ATTR_SIZE, POLICY_OP_TRUNCATE},
	        {SETATTR_TIMES, POLICY_OP_UTIMES},
	};
	_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);

	for (size_t k = 0; k < ELEMENTSOF(checks); k++) {
		if (!(valid & checks[k].mask))
			continue;
		int r = judge_object(fs, req, s, checks[k].op, id, (unsigned long)valid);
		if (r < 0)
			return r;
	}
	return 0;
}

static int set_mode(struct fs *fs, int fd, int fh, mode_t mode)
{
	char name[16];

	if (fh >= 0)
		return fchmod(fh, mode) < 0 ? negative_errno() : 0;
	/* fchmod refuses O_PATH fds; the /proc/self/fd entry names the object. */
	snprintf(name, sizeof(name), "%d", fd);
	return fchmodat(inode_table_proc_fd(fs->table), name, mode, 0) < 0 ? negative_errno() : 0;
}

static int set_owner(int fd, int fh, const struct stat *attr, int valid)
{
	uid_t uid = (valid & FUSE_SET_ATTR_UID) ? attr->st_uid : (uid_t)-1;
	gid_t gid = (valid & FUSE_SET_ATTR_GID) ? attr->st_gid : (gid_t)-1;

	if (fh >= 0)
		return fchown(fh, uid, gid) < 0 ? negative_errno() : 0;
	return fchownat(fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ? negative_errno() : 0;
}

/* A chown as the caller. Under FUSE_HANDLE_KILLPRIV_V2 the kernel leaves
 * dropping set-id bits on chown to us: as the caller, the tree's file system
 * drops them as a local chown would (as root, a set-group-ID bit without
 * group execute would stay for a caller outside the group). */
static int set_owner_as_caller(struct fs *fs, fuse_req_t req, int fd, int fh, const struct stat *attr, int valid)
{
	_cleanup_caller_ struct caller_saved c = {0};

	int r = fs_become_caller(fs, req, &c);
	return r < 0 ? r : set_owner(fd, fh, attr, valid);
}

/* Truncates, dropping set-id bits when the kernel asks (see fs/kernel-io.h). */
static int truncate_fd(fuse_req_t req, int fd, off_t size)
{
	if (ftruncate(fd, size) < 0)
		return negative_errno();
	int r = kernel_io_kill_suidgid() ? fs_kill_suidgid(req, fd) : 0;
	return r < 0 ? r : 0; /* the reply carries the new mode */
}

static int set_size(struct fs *fs, fuse_req_t req, struct inode *i, int fh, off_t size)
{
	if (fh >= 0)
		return truncate_fd(req, fh, size);
	_cleanup_close_ int fd = inode_open(fs->table, i, O_WRONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	return truncate_fd(req, fd, size);
}

static struct timespec time_of(int valid, int set, int now, struct timespec t)
{
	if (valid & now)
		return (struct timespec){.tv_nsec = UTIME_NOW};
	if (valid & set)
		return t;
	return (struct timespec){.tv_nsec = UTIME_OMIT};
}

static int set_times(int fd, int fh, const struct stat *attr, int valid)
{
	struct timespec ts[2] = {
	        time_of(valid, FUSE_SET_ATTR_ATIME, FUSE_SET_ATTR_ATIME_NOW, attr->st_atim),
	        time_of(valid, FUSE_SET_ATTR_MTIME, FUSE_SET_ATTR_MTIME_NOW, attr->st_mtim),
	};

	if (fh >= 0)
		return futimens(fh, ts) < 0 ? negative_errno() : 0;
	return utimensat(fd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ? negative_errno() : 0;
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* Drops times set to what they are. With the writeback cache the kernel
 * flushes its cached times to files it believes changed (a rename target
 * kept by fs/replace.h), and a change that changes nothing, or puts back the
 * time a file had before the daemon rewrote it, must not read as an attack
 * on a protected file. */
static int drop_unchanged_times(struct fs *fs, struct policy_id id, const struct stat *now, const struct stat *attr,
                                int valid)
{
	if ((valid & FUSE_SET_ATTR_MTIME) && !(valid & FUSE_SET_ATTR_MTIME_NOW) &&
	    (same_time(attr->st_mtim, now->st_mtim) || fs_rewritten_before(fs, id, attr->st_mtim)))
		valid &= ~FUSE_SET_ATTR_MTIME;
	if ((valid & FUSE_SET_ATTR_ATIME) && !(valid & FUSE_SET_ATTR_ATIME_NOW) &&
	    same_time(attr->st_atim, now->st_atim))
		valid &= ~FUSE_SET_ATTR_ATIME;
	return valid;
}

/* git init probes core.fileMode by flipping the owner's execute bit of
 * .git/config and back, and fails if it cannot then record the answer. On a
 * Git configuration (POLICY_REWRITABLE) the execute bits mean nothing to
 * git, so a chmod that changes only those is not asked about. Returns the
 * mask to judge. */
static int drop_harmless_mode(struct fs *fs, struct policy_id id, const struct stat *now, const struct stat *attr,
                              int valid)
{
	const mode_t exec_bits = S_IXUSR | S_IXGRP | S_IXOTH;

	if (!(valid & FUSE_SET_ATTR_MODE) || ((now->st_mode ^ attr->st_mode) & 07777 & ~exec_bits))
		return valid;
	_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);
	if (s && (policy_lookup(s, id, NULL, NULL) & POLICY_REWRITABLE))
		valid &= ~FUSE_SET_ATTR_MODE;
	return valid;
}

static int do_setattr(struct fs *fs, fuse_req_t req, struct inode *i, const struct stat *attr, int valid,
                      const struct fuse_file_info *fi, struct stat *st)
{
	_cleanup_ifd_ struct ifd f = {0};
	int fh = fi ? (int)fi->fh : -1;

	int r = inode_fd_acquire(fs->table, i, &f);
	int judged = valid;
	const int asked = valid; /* before unchanged times are dropped */
	if (r >= 0 && (valid & (SETATTR_TIMES | FUSE_SET_ATTR_MODE))) {
		r = stat_fd(f.fd, fh, st);
		valid = drop_unchanged_times(fs, fs_policy_id(i), st, attr, valid);
		judged = drop_harmless_mode(fs, fs_policy_id(i), st, attr, valid);
	}
	if (r >= 0)
		r = judge_setattr(fs, req, fs_policy_id(i), judged);
	if (r >= 0 && (valid & FUSE_SET_ATTR_MODE))
		r = set_mode(fs, f.fd, fh, attr->st_mode);
	if (r >= 0 && (valid & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)))
		r = set_owner_as_caller(fs, req, f.fd, fh, attr, valid);
	if (r >= 0 && (valid & FUSE_SET_ATTR_SIZE))
		r = set_size(fs, req, i, fh, attr->st_size);
	if (r >= 0 && (valid & SETATTR_TIMES))
		r = set_times(f.fd, fh, attr, valid);
	/* Nothing to change: chown(f, -1, -1), or the kernel dropping set-id
	 * bits before a write (which FUSE_WRITE_KILL_SUIDGID completes). A
	 * local file system stamps the ctime and drops set-user-ID; so do we. */
	if (r >= 0 && !(asked & SETATTR_CHANGES))
		r = set_owner(f.fd, fh, attr, 0);
	if (r < 0)
		return r;
	return stat_fd(f.fd, fh, st);
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	struct stat st;

	int r = do_setattr(fs, req, fs_inode(fs, ino), attr, valid, fi, &st);
	if (r < 0)
		fs_reply_err(req, r);
	else
		fuse_reply_attr(req, &st, fs->timeout);
}

/* ---- The rest --------------------------------------------------------------- */

static int do_readlink(struct fs *fs, fuse_req_t req, struct inode *i, char *buf, size_t size)
{
	_cleanup_ifd_ struct ifd f = {0};

	int r = judge_read(fs, req, "readlink", fs_policy_id(i), 0);
	if (r >= 0)
		r = inode_fd_acquire(fs->table, i, &f);
	if (r < 0)
		return r;
	ssize_t len = readlinkat(f.fd, "", buf, size - 1);
	if (len < 0)
		return negative_errno();
	if ((size_t)len == size - 1)
		return -ENAMETOOLONG;
	buf[len] = '\0';
	return 0;
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct fs *fs = fs_of(req);
	char buf[PATH_MAX + 1];

	int r = do_readlink(fs, req, fs_inode(fs, ino), buf, sizeof(buf));
	if (r < 0)
		fs_reply_err(req, r);
	else
		fuse_reply_readlink(req, buf);
}

static int do_statfs(struct fs *fs, struct inode *i, struct statvfs *sv)
{
	_cleanup_ifd_ struct ifd f = {0};

	int r = inode_fd_acquire(fs->table, i, &f);
	if (r < 0)
		return r;
	return fstatvfs(f.fd, sv) < 0 ? negative_errno() : 0;
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct fs *fs = fs_of(req);
	struct statvfs sv;

	int r = do_statfs(fs, fs_inode(fs, ino), &sv);
	if (r < 0)
		fs_reply_err(req, r);
	else
		fuse_reply_statfs(req, &sv);
}

/* Only asked without default_permissions, where the daemon's user is the
 * only one the kernel lets in: its own access is the answer. */
static int do_access(struct fs *fs, struct inode *i, int mask)
{
	_cleanup_ifd_ struct ifd f = {0};

	int r = inode_fd_acquire(fs->table, i, &f);
	if (r < 0)
		return r;
	return faccessat(f.fd, "", mask, AT_EMPTY_PATH | AT_EACCESS) < 0 ? negative_errno() : 0;
}

static void op_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	struct fs *fs = fs_of(req);

	fs_reply_err(req, do_access(fs, fs_inode(fs, ino), mask));
}

void fs_ops_entry(struct fuse_lowlevel_ops *ops)
{
	ops->lookup = op_lookup;
	ops->forget = op_forget;
	ops->forget_multi = op_forget_multi;
	ops->getattr = op_getattr;
	ops->setattr = op_setattr;
	ops->readlink = op_readlink;
	ops->statfs = op_statfs;
	ops->access = op_access;
}
