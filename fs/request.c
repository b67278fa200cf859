/* What every operation family shares: the one reply of an error, looking an
 * entry up and replying with it, acting as the caller, and dropping set-id
 * bits. The ops-*.c files call these and never one another. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "fs/internal.h"

void fs_reply_err(fuse_req_t req, int r)
{
	fuse_reply_err(req, r < 0 ? -r : 0);
}

static void entry_fill(struct fs *fs, struct inode *i, struct fuse_entry_param *e)
{
	e->ino = fs_ino(fs, i);
	e->attr_timeout = fs->timeout;
	e->entry_timeout = fs->timeout;
}

int fs_lookup_entry(struct fs *fs, struct inode *parent, const char *name, struct fuse_entry_param *e)
{
	struct inode *i;

	memset(e, 0, sizeof(*e));
	int r = inode_lookup(fs->table, parent, name, &e->attr, &i);
	if (r < 0)
		return r;
	entry_fill(fs, i, e);
	return 0;
}

int fs_known_entry(struct fs *fs, const struct ifd *f, struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	if (fstatat(f->fd, "", &e->attr, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return negative_errno();
	inode_hold(fs->table, f->inode);
	entry_fill(fs, f->inode, e);
	return 0;
}

void fs_entry_forget(struct fs *fs, const struct fuse_entry_param *e)
{
	if (e->ino)
		inode_forget(fs->table, fs_inode(fs, e->ino), 1);
}

void fs_reply_entry(struct fs *fs, fuse_req_t req, int r, const struct fuse_entry_param *e)
{
	if (r < 0)
		fs_reply_err(req, r);
	else if (fuse_reply_entry(req, e) != 0)
		fs_entry_forget(fs, e); /* the request was interrupted: the kernel took no reference */
}

int fs_claim_open(struct fs *fs, fuse_req_t req, struct fd_claim *c)
{
	return fd_share_claim(fs->share, fuse_req_ctx(req)->pid, c);
}

void fs_close_open(struct fs *fs, int fd)
{
	fd_share_release(fs->share, fd); /* first: once closed, the number may be another's */
	close(fd);
}

int fs_become_caller(struct fs *fs, fuse_req_t req, struct caller_saved *c)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);

	c->switched = false;
	if (!fs->as_caller)
		return 0;
	return caller_become(ctx->uid, ctx->gid, ctx->pid, fs->proc_root_fd, c);
}

int fs_kill_suidgid(fuse_req_t req, int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return negative_errno();
	mode_t mode = st.st_mode & ~S_ISUID;
	/* Set-group-ID without group execute marks mandatory locking: it stays
	 * for a member of the group. */
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	if ((mode & S_IXGRP) ||
	    ((mode & S_ISGID) && !caller_in_group(st.st_gid, ctx->gid, ctx->pid, fs_of(req)->proc_root_fd)))
		mode &= ~S_ISGID;
	if (mode == st.st_mode || !S_ISREG(st.st_mode))
		return 0;
	return fchmod(fd, mode & 07777) < 0 ? negative_errno() : 1;
}
