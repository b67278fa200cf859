/* Extended attributes: setxattr, getxattr, listxattr, removexattr.
 *
 * The *xattr calls take a path and there is no fd-relative form before Linux
 * 6.13, so the object is named by its /proc/self/fd entry, relative to the
 * daemon's working directory, which fs_mount makes /proc/self/fd: the magic
 * link names the object itself, whatever its type, and nothing is opened (a
 * device may act on open). The kernel asks for security.capability before
 * every write, so this is one syscall, not an open, a call and a close.
 *
 * user.oz0fs.why (fs/why.h) is the mount's own: getxattr answers it from
 * the model, setxattr and removexattr refuse it with EPERM (a name no file
 * may hold, not a judgement of the object: no audit line), and listxattr
 * never lists it. Other names pay one strcmp. */
#include "config.h"

#include <errno.h>
#include <linux/limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "common/cleanup.h"
#include "fs/internal.h"
#include "fs/judge.h"
#include "fs/why.h"

/* Holds I's fd and writes its name in /proc/self/fd into NAME. */
static int proc_name(struct fs *fs, struct inode *i, struct ifd *f, char name[static 16])
{
	int r = inode_fd_acquire(fs->table, i, f);
	if (r < 0)
		return r;
	snprintf(name, 16, "%d", f->fd);
	return 0;
}

/* Reads NAME (or the list when NAME is NULL) into BUF. */
static ssize_t do_getxattr(struct fs *fs, struct inode *i, const char *name, char *buf, size_t size)
{
	_cleanup_ifd_ struct ifd f = {0};
	char path[16];

	int r = proc_name(fs, i, &f, path);
	if (r < 0)
		return r;
	ssize_t n = name ? getxattr(path, name, buf, size) : listxattr(path, buf, size);
	if (n < 0)
		return negative_errno();
	/* Asked for the size, the list's may count a hidden name: more room
	 * than needed, which callers take. */
	return name || size == 0 ? n : (ssize_t)why_hide(buf, (size_t)n);
}

/* Replies with the size when SIZE is 0 (the caller asks how much room it
 * needs), else with the bytes. */
static void get_or_list(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	struct fs *fs = fs_of(req);
	_cleanup_free_ char *buf = NULL;

	if (size > 0 && !(buf = malloc(size))) {
		fs_reply_err(req, -ENOMEM);
		return;
	}
	struct inode *i = fs_inode(fs, ino);
	ssize_t n = judge_read(fs, req, name ? "getxattr" : "listxattr", fs_policy_id(i), 0);
	if (n >= 0)
		n = do_getxattr(fs, i, name, buf, size);
	if (n < 0)
		fs_reply_err(req, (int)n);
	else if (size == 0)
		fuse_reply_xattr(req, (size_t)n);
	else
		fuse_reply_buf(req, buf, (size_t)n);
}

/* The answer of user.oz0fs.why for I, in a malloc'd *OUT of *LEN bytes. */
static int do_why(struct fs *fs, struct inode *i, char **out, size_t *len)
{
	_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);
	_cleanup_ifd_ struct ifd f = {0}, root = {0};
	int r = inode_fd_acquire(fs->table, i, &f);

	if (r >= 0)
		r = inode_fd_acquire(fs->table, inode_table_root(fs->table), &root);
	if (r < 0)
		return r;
	r = why_answer(inode_table_proc_fd(fs->table), root.fd, f.fd, fs_policy_id(i), s, out, len);
	return r >= 0 && *len > XATTR_SIZE_MAX ? -E2BIG : r;
}

static void reply_why(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	struct fs *fs = fs_of(req);
	_cleanup_free_ char *value = NULL;
	size_t len;
	int r = do_why(fs, fs_inode(fs, ino), &value, &len);

	if (r < 0)
		fs_reply_err(req, r);
	else if (size == 0)
		fuse_reply_xattr(req, len);
	else if (len > size)
		fs_reply_err(req, -ERANGE);
	else
		fuse_reply_buf(req, value, len);
}

static void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	if (strcmp(name, WHY_XATTR) == 0)
		reply_why(req, ino, size);
	else
		get_or_list(req, ino, name, size);
}

static void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	get_or_list(req, ino, NULL, size);
}

/* Sets NAME to VALUE, or removes it when VALUE is NULL. */
static int do_change(struct fs *fs, fuse_req_t req, struct inode *i, const char *name, const char *value, size_t size,
                     int flags)
{
	_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);
	_cleanup_ifd_ struct ifd f = {0};
	enum policy_op op = value ? POLICY_OP_SETXATTR : POLICY_OP_REMOVEXATTR;
	char path[16];

	if (strcmp(name, WHY_XATTR) == 0)
		return -EPERM;
	int r = judge_object(fs, req, s, op, fs_policy_id(i), (unsigned long)flags);
	if (r >= 0)
		r = proc_name(fs, i, &f, path);
	if (r < 0)
		return r;
	r = value ? setxattr(path, name, value, size, flags) : removexattr(path, name);
	return r < 0 ? negative_errno() : 0;
}

static void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value, size_t size, int flags)
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
