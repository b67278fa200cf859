/* Extended attributes: setxattr, getxattr, listxattr, removexattr.
 *
 * The f*xattr calls need a real fd, so the object is opened for the call.
 * Only regular files and directories are: opening a device may act on it and
 * a symlink cannot be opened; their xattrs are reported unsupported. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "fs/internal.h"
#include "fs/judge.h"

static int xattr_fd(struct fs *fs, struct inode *i)
{
	mode_t type = inode_type(i);

	if (S_ISDIR(type))
		return inode_open(fs->table, i, O_RDONLY | O_DIRECTORY);
	if (S_ISREG(type))
		return inode_open(fs->table, i, O_RDONLY | O_NONBLOCK);
	return -EOPNOTSUPP;
}

/* Replies with the attribute's size when SIZE is 0, else with its bytes:
 * GET reads NAME (or the list when NAME is NULL) into BUF. */
static void reply_xattr(fuse_req_t req, ssize_t n, const char *buf, size_t size)
{
	if (n < 0)
		fs_reply_err(req, (int)n);
	else if (size == 0)
		fuse_reply_xattr(req, (size_t)n);
	else
		fuse_reply_buf(req, buf, (size_t)n);
}

static ssize_t do_getxattr(struct fs *fs, struct inode *i, const char *name, char *buf, size_t size)
{
	_cleanup_close_ int fd = xattr_fd(fs, i);
	if (fd < 0)
		return fd;
	ssize_t n = name ? fgetxattr(fd, name, buf, size) : flistxattr(fd, buf, size);
	return n < 0 ? negative_errno() : n;
}

static void get_or_list(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	struct fs *fs = fs_of(req);
	_cleanup_free_ char *buf = NULL;

	if (size > 0 && !(buf = malloc(size))) {
		fs_reply_err(req, -ENOMEM);
		return;
	}
	reply_xattr(req, do_getxattr(fs, fs_inode(fs, ino), name, buf, size), buf, size);
}

static void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	get_or_list(req, ino, name, size);
}

static void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	get_or_list(req, ino, NULL, size);
}

/* Sets NAME to VALUE, or removes it when VALUE is NULL. */
static int do_change(struct fs *fs, fuse_req_t req, struct inode *i, const char *name, const char *value,
		     size_t size, int flags)
{
	_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);
	enum policy_op op = value ? POLICY_OP_SETXATTR : POLICY_OP_REMOVEXATTR;

	int r = judge_object(fs, req, s, op, fs_policy_id(i), (unsigned long)flags);
	if (r < 0)
		return r;
	_cleanup_close_ int fd = xattr_fd(fs, i);
	if (fd < 0)
		return fd;
	r = value ? fsetxattr(fd, name, value, size, flags) : fremovexattr(fd, name);
	return r < 0 ? negative_errno() : 0;
}

static void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value, size_t size,
			int flags)
{
	struct fs *fs = fs_of(req);

	fs_reply_err(req, do_change(fs, req, fs_inode(fs, ino), name, value ? value : "", size, flags));
}

static void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	struct fs *fs = fs_of(req);

	fs_reply_err(req, do_change(fs, req, fs_inode(fs, ino), name, NULL, 0, 0));
}

void fs_ops_xattr(struct fuse_lowlevel_ops *ops)
{
	ops->setxattr = op_setxattr;
	ops->getxattr = op_getxattr;
	ops->listxattr = op_listxattr;
	ops->removexattr = op_removexattr;
}
