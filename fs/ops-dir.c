/* Directories and their entries: mkdir, mknod, symlink, link, unlink, rmdir,
 * rename, opendir, readdir(plus), releasedir, fsyncdir. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "fs/internal.h"
#include "fs/judge.h"
#include "fs/replace.h"

/* ---- New entries ------------------------------------------------------------ */

struct new_node {
	enum policy_op op; /* MKDIR, MKNOD or SYMLINK */
	mode_t mode;
	dev_t rdev;
	const char *target;
};

static int make_node(int dirfd, const char *name, const struct new_node *n)
{
	int r;

	switch (n->op) {
	case POLICY_OP_MKDIR:
		r = mkdirat(dirfd, name, n->mode);
		break;
	case POLICY_OP_SYMLINK:
		r = symlinkat(n->target, dirfd, name);
		break;
	default:
		r = mknodat(dirfd, name, n->mode, n->rdev);
		break;
	}
	return r < 0 ? negative_errno() : 0;
}

/* Makes NAME as the caller, if the judge allows, and looks it up. */
static int do_make(struct fs *fs, fuse_req_t req, struct inode *parent, const char *name, const struct new_node *n,
                   struct fuse_entry_param *e)
{
	_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);
	_cleanup_ifd_ struct ifd p = {0};
	struct policy_id pid = fs_policy_id(parent);

	int r = judge_add(fs, req, s, n->op, pid, name);
	if (r < 0)
		return r;
	r = inode_fd_acquire(fs->table, parent, &p);
	if (r < 0)
		return r;
	{
		_cleanup_caller_ struct caller_saved c = {0};
		r = fs_become_caller(fs, req, &c);
		if (r >= 0)
			r = make_node(p.fd, name, n);
	}
	if (r < 0)
		return r;
	judge_changed(fs, s, p.fd, pid, name);
	return fs_lookup_entry(fs, parent, name, e);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct fs *fs = fs_of(req);
	struct new_node n = {.op = POLICY_OP_MKDIR, .mode = mode};
	struct fuse_entry_param e;

	fs_reply_entry(fs, req, do_make(fs, req, fs_inode(fs, parent), name, &n, &e), &e);
}

static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	struct fs *fs = fs_of(req);
	struct new_node n = {.op = POLICY_OP_MKNOD, .mode = mode, .rdev = rdev};
	struct fuse_entry_param e;

	fs_reply_entry(fs, req, do_make(fs, req, fs_inode(fs, parent), name, &n, &e), &e);
}

static void op_symlink(fuse_req_t req, const char *target, fuse_ino_t parent, const char *name)
{
	struct fs *fs = fs_of(req);
	struct new_node n = {.op = POLICY_OP_SYMLINK, .target = target};
	struct fuse_entry_param e;

	fs_reply_entry(fs, req, do_make(fs, req, fs_inode(fs, parent), name, &n, &e), &e);
}

/* A new name for the object FD. Linking an O_PATH fd by itself needs
 * CAP_DAC_READ_SEARCH; without it, its /proc/self/fd entry is followed. */
static int link_fd(struct fs *fs, int fd, int dirfd, const char *name)
{
	char proc_name[16];

	if (fs->as_caller)
		return linkat(fd, "", dirfd, name, AT_EMPTY_PATH) < 0 ? negative_errno() : 0;
	snprintf(proc_name, sizeof(proc_name), "%d", fd);
	return linkat(inode_table_proc_fd(fs->table), proc_name, dirfd, name, AT_SYMLINK_FOLLOW) < 0 ? negative_errno()
	                                                                                             : 0;
}

static int do_link(struct fs *fs, fuse_req_t req, struct inode *i, struct inode *newparent, const char *newname,
                   struct fuse_entry_param *e)
{
	_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);
	_cleanup_ifd_ struct ifd f = {0};
	_cleanup_ifd_ struct ifd p = {0};
	struct policy_id pid = fs_policy_id(newparent);

	int r = judge_link(fs, req, s, fs_policy_id(i), pid, newname);
	if (r >= 0)
		r = inode_fd_acquire(fs->table, i, &f);
	if (r >= 0)
		r = inode_fd_acquire(fs->table, newparent, &p);
	if (r >= 0)
		r = link_fd(fs, f.fd, p.fd, newname);
	if (r < 0)
		return r;
	judge_changed(fs, s, p.fd, pid, newname);
	/* The new name is the object linked: answer with it as the table knows
	 * it rather than look the name up (an openat, a stat and a handle). */
	return fs_known_entry(fs, &f, e);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	struct fs *fs = fs_of(req);
	struct fuse_entry_param e;

	fs_reply_entry(fs, req, do_link(fs, req, fs_inode(fs, ino), fs_inode(fs, newparent), newname, &e), &e);
}

/* ---- Removal and renames ---------------------------------------------------- */

/* Stats the entry an operation names. A missing entry answers as the
 * operation would; any other failure refuses (fail closed). */
static int stat_entry(struct fs *fs, fuse_req_t req, enum policy_op op, int dirfd, const char *name, struct stat *st)
{
	if (fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	int r = negative_errno();
	if (r == -ENOENT || r == -ENOTDIR || r == -ENAMETOOLONG)
		return r;
	return judge_fail_closed(fs, req, op, name, r);
}

static int do_remove(struct fs *fs, fuse_req_t req, struct inode *parent, const char *name, enum policy_op op)
{
	_cleanup_ifd_ struct ifd p = {0};
	struct policy_id pid = fs_policy_id(parent);
	struct stat st;

	int r = inode_fd_acquire(fs->table, parent, &p);
	if (r >= 0)
		r = stat_entry(fs, req, op, p.fd, name, &st);
	if (r < 0)
		return r;
	_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);
	r = judge_remove(fs, req, s, op, pid, name, stat_policy_id(&st));
	if (r < 0)
		return r;
	if (unlinkat(p.fd, name, op == POLICY_OP_RMDIR ? AT_REMOVEDIR : 0) < 0)
		return negative_errno();
	judge_removed(fs, s, p.fd, pid, name, &st);
	return 0;
}

static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fs *fs = fs_of(req);

	fs_reply_err(req, do_remove(fs, req, fs_inode(fs, parent), name, POLICY_OP_UNLINK));
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fs *fs = fs_of(req);

	fs_reply_err(req, do_remove(fs, req, fs_inode(fs, parent), name, POLICY_OP_RMDIR));
}

struct rename_side {
	struct ifd dir;
	struct policy_id parent;
	const char *name;
	struct stat st;
	bool exists;
};

static void rename_side_release(struct rename_side *side)
{
	inode_fd_release(&side->dir);
}

static int rename_side_open(struct fs *fs, struct inode *parent, const char *name, struct rename_side *side)
{
	side->parent = fs_policy_id(parent);
	side->name = name;
	return inode_fd_acquire(fs->table, parent, &side->dir);
}

/* Refuses a replacement of a protected file, saying why the new bytes did
 * not pass when the model said. */
static int refuse_replacement(struct fs *fs, fuse_req_t req, const struct policy_verdict *v, const char *why,
                              unsigned flags)
{
	char reason[512];
	struct policy_verdict told = *v;

	if (why) {
		snprintf(reason, sizeof(reason), "%s; the new bytes change %s", v->reason, why);
		told.reason = reason;
	}
	return judge_refuse(fs, req, policy_op_name(POLICY_OP_RENAME), &told, flags);
}

/* The judge allowed replacing a protected file only with what fs/replace.h
 * lets through: then the source name goes and the target keeps its identity.
 * Returns the outcome, or -EACCES after auditing the refusal (any error
 * examining the files refuses too: fail closed). */
static int replace_or_refuse(struct fs *fs, fuse_req_t req, const struct policy_snapshot *s,
                             const struct rename_side *from, const struct rename_side *to, unsigned flags,
                             const struct policy_verdict *v)
{
	struct policy_id target = stat_policy_id(&to->st);
	bool rewritable = policy_lookup(s, target, NULL, NULL) & POLICY_REWRITABLE;
	const char *why = NULL;
	int r = REPLACE_REFUSED;

	if (flags == 0 && to->exists)
		r = replace_protected(fs->model, rewritable, from->dir.fd, from->name, stat_policy_id(&from->st),
		                      to->dir.fd, to->name, target, &why);
	if (r == REPLACE_REWRITTEN)
		fs_note_rewritten(fs, target, to->st.st_mtim);
	if (r == REPLACE_KEPT || r == REPLACE_REWRITTEN)
		return unlinkat(from->dir.fd, from->name, 0) < 0 ? negative_errno() : r;
	return refuse_replacement(fs, req, v, why, flags);
}

/* Returns 0, or the replace_outcome when a protected target kept its inode;
 * then *kept is that inode with a lookup reference the caller forgets. */
static int do_rename(struct fs *fs, fuse_req_t req, struct inode *parent, const char *name, struct inode *newparent,
                     const char *newname, unsigned flags, struct inode **kept)
{
	_cleanup_(rename_side_release) struct rename_side from = {0};
	_cleanup_(rename_side_release) struct rename_side to = {0};
	enum policy_op op = (flags & RENAME_EXCHANGE) ? POLICY_OP_EXCHANGE : POLICY_OP_RENAME;
	struct policy_verdict v;

	int r = rename_side_open(fs, parent, name, &from);
	if (r >= 0)
		r = rename_side_open(fs, newparent, newname, &to);
	if (r >= 0)
		r = stat_entry(fs, req, op, from.dir.fd, name, &from.st);
	if (r >= 0) {
		r = stat_entry(fs, req, op, to.dir.fd, newname, &to.st);
		to.exists = r >= 0;
		if (r == -ENOENT)
			r = 0;
	}
	if (r < 0)
		return r;
	_cleanup_snapshot_ const struct policy_snapshot *s = judge_acquire(fs);
	struct policy_id target = stat_policy_id(&to.st);
	r = judge_rename(fs, req, s, from.parent, name, stat_policy_id(&from.st), to.parent, newname,
	                 to.exists ? &target : NULL, flags, &v);
	if (r == POLICY_IF_IDENTICAL) {
		r = replace_or_refuse(fs, req, s, &from, &to, flags, &v);
		if (r == REPLACE_REWRITTEN && inode_lookup(fs->table, newparent, newname, &to.st, kept) < 0)
			*kept = NULL;
	} else if (r >= 0 && renameat2(from.dir.fd, name, to.dir.fd, newname, flags) < 0) {
		r = negative_errno();
	}
	if (r < 0)
		return r;
	/* Only a plain rename replaces the target (REPLACE_* kept its inode). */
	bool replaced = r == 0 && to.exists && !(flags & RENAME_EXCHANGE) &&
	                (to.st.st_dev != from.st.st_dev || to.st.st_ino != from.st.st_ino);
	judge_renamed(fs, s, &(struct judge_move){from.dir.fd, from.parent, name},
	              &(struct judge_move){to.dir.fd, to.parent, newname}, &from.st, replaced ? &to.st : NULL);
	return r;
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent, const char *newname,
                      unsigned int flags)
{
	struct fs *fs = fs_of(req);

	struct inode *kept = NULL;
	int r = do_rename(fs, req, fs_inode(fs, parent), name, fs_inode(fs, newparent), newname, flags, &kept);
	fs_reply_err(req, r < 0 ? r : 0);
	/* The kernel moved its dentry onto NEWNAME, but the entry there is
	 * still the target: make it look again. Only after the reply, since the
	 * rename holds the directory lock the invalidation waits for. */
	if (r == REPLACE_KEPT || r == REPLACE_REWRITTEN)
		fuse_lowlevel_notify_inval_entry(fs->se, newparent, newname, strlen(newname));
	/* New bytes in the kept inode: drop the kernel's cached pages and
	 * attributes of it, or readers would see the old configuration. */
	if (kept) {
		fuse_lowlevel_notify_inval_inode(fs->se, fs_ino(fs, kept), 0, 0);
		inode_forget(fs->table, kept, 1);
	}
}

/* ---- Listing ------------------------------------------------------------------ */

struct dir_handle {
	DIR *dp;
	off_t offset;         /* the position dp is at */
	struct dirent *entry; /* read but not yet returned, or NULL */
};

static struct dir_handle *dir_handle_of(const struct fuse_file_info *fi)
{
	return (struct dir_handle *)(uintptr_t)fi->fh;
}

static void dir_handle_free(struct dir_handle *d)
{
	if (d) {
		closedir(d->dp);
		free(d);
	}
}

static void dir_handle_freep(struct dir_handle **d)
{
	dir_handle_free(*d);
}

static int do_opendir(struct fs *fs, fuse_req_t req, struct inode *i, struct fuse_file_info *fi)
{
	int r = judge_read(fs, req, "opendir", fs_policy_id(i), 0);
	if (r < 0)
		return r;
	_cleanup_free_ struct dir_handle *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	_cleanup_close_ int fd = inode_open(fs->table, i, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	d->dp = fdopendir(fd);
	if (!d->dp)
		return negative_errno();
	TAKE_FD(fd);
	fi->fh = (uintptr_t)TAKE_PTR(d);
	if (fs->opt.cache == FS_CACHE_ALWAYS) {
		fi->keep_cache = 1;
		fi->cache_readdir = 1;
	}
	return 0;
}

/* With cache=always the kernel is told that opendir is not supported: it then
 * opens folders without asking (no OPENDIR or RELEASEDIR round trip, two per
 * folder a walk visits), and keeps their listings in its cache (its default
 * for a daemon without opendir is FOPEN_KEEP_CACHE | FOPEN_CACHE_DIR), which
 * every change made through the mount invalidates. Listing needs no judge.
 * READDIR then comes with no handle, and opens the folder for the request. */
static bool opendir_unsupported(const struct fs *fs)
{
	return fs->opt.cache == FS_CACHE_ALWAYS;
}

/* A folder the caller holds open holds one of the daemon's descriptors. */
static int do_opendir_held(struct fs *fs, fuse_req_t req, struct inode *i, struct fuse_file_info *fi)
{
	_cleanup_claim_ struct fd_claim c = {0};

	int r = fs_claim_open(fs, req, &c);
	if (r >= 0)
		r = do_opendir(fs, req, i, fi);
	if (r >= 0)
		fd_share_bind(&c, dirfd(dir_handle_of(fi)->dp));
	return r;
}

/* Closes the handle of a folder a caller held open. */
static void dir_handle_release(struct fs *fs, struct dir_handle *d)
{
	fd_share_release(fs->share, dirfd(d->dp));
	dir_handle_free(d);
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);

	if (opendir_unsupported(fs)) {
		fs_reply_err(req, -ENOSYS);
		return;
	}
	int r = do_opendir_held(fs, req, fs_inode(fs, ino), fi);
	if (r < 0) {
		fs_reply_err(req, r);
	} else if (fuse_reply_open(req, fi) != 0) {
		dir_handle_release(fs, dir_handle_of(fi));
	}
}

static bool is_dot_or_dotdot(const char *name)
{
	return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* Fills E for one entry: a full lookup for readdirplus, else what the
 * directory itself says. Returns -ENOENT for an entry gone meanwhile. */
static int dir_entry(struct fs *fs, struct inode *dir, const struct dirent *de, bool plus, struct fuse_entry_param *e)
{
	if (plus && !is_dot_or_dotdot(de->d_name))
		return fs_lookup_entry(fs, dir, de->d_name, e);
	memset(e, 0, sizeof(*e));
	e->attr.st_ino = de->d_ino;
	e->attr.st_mode = (mode_t)de->d_type << 12;
	return 0;
}

/* Adds one entry; returns its size, which exceeds REM when it did not fit. */
static size_t add_entry(fuse_req_t req, char *p, size_t rem, const struct dirent *de, const struct fuse_entry_param *e,
                        bool plus)
{
	if (plus)
		return fuse_add_direntry_plus(req, p, rem, de->d_name, e, de->d_off);
	return fuse_add_direntry(req, p, rem, de->d_name, &e->attr, de->d_off);
}

static int fill_dir(struct fs *fs, fuse_req_t req, struct inode *dir, struct dir_handle *d, char *buf, size_t size,
                    bool plus)
{
	size_t rem = size;

	for (;;) {
		struct fuse_entry_param e;
		if (!d->entry) {
			errno = 0;
			d->entry = readdir(d->dp);
			if (!d->entry) {
				if (errno && rem == size)
					return negative_errno();
				break;
			}
		}
		int r = dir_entry(fs, dir, d->entry, plus, &e);
		if (r == -ENOENT) {
			d->offset = d->entry->d_off;
			d->entry = NULL;
			continue;
		}
		if (r < 0) {
			if (rem == size)
				return r;
			break;
		}
		size_t len = add_entry(req, buf + (size - rem), rem, d->entry, &e, plus);
		if (len > rem) {
			if (plus)
				fs_entry_forget(fs, &e);
			break;
		}
		rem -= len;
		d->offset = d->entry->d_off;
		d->entry = NULL;
	}
	return (int)(size - rem);
}

/* The handle of FI, or one opened for this request (none was: see
 * opendir_unsupported()), which *OWNED then holds. */
static int dir_handle_for(struct fs *fs, fuse_req_t req, struct inode *i, struct fuse_file_info *fi,
                          struct dir_handle **owned, struct dir_handle **out)
{
	struct fuse_file_info mine = {0};
	int r;

	if (fi->fh) {
		*out = dir_handle_of(fi);
		return 0;
	}
	r = do_opendir(fs, req, i, &mine);
	if (r < 0)
		return r;
	*owned = *out = dir_handle_of(&mine);
	return 0;
}

static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t offset, struct fuse_file_info *fi, bool plus)
{
	struct fs *fs = fs_of(req);
	_cleanup_(dir_handle_freep) struct dir_handle *owned = NULL;
	struct dir_handle *d;
	_cleanup_free_ char *buf = malloc(size);

	int r = buf ? dir_handle_for(fs, req, fs_inode(fs, ino), fi, &owned, &d) : -ENOMEM;
	if (r < 0) {
		fs_reply_err(req, r);
		return;
	}
	if (offset != d->offset) {
		seekdir(d->dp, offset);
		d->entry = NULL;
		d->offset = offset;
	}
	r = fill_dir(fs, req, fs_inode(fs, ino), d, buf, size, plus);
	if (r < 0)
		fs_reply_err(req, r);
	else
		fuse_reply_buf(req, buf, (size_t)r);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t offset, struct fuse_file_info *fi)
{
	do_readdir(req, ino, size, offset, fi, false);
}

static void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t offset, struct fuse_file_info *fi)
{
	do_readdir(req, ino, size, offset, fi, true);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	dir_handle_release(fs_of(req), dir_handle_of(fi));
	fs_reply_err(req, 0);
}

static void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	_cleanup_(dir_handle_freep) struct dir_handle *owned = NULL;
	struct dir_handle *d;

	int r = dir_handle_for(fs, req, fs_inode(fs, ino), fi, &owned, &d);
	if (r >= 0)
		r = (datasync ? fdatasync(dirfd(d->dp)) : fsync(dirfd(d->dp))) < 0 ? negative_errno() : 0;
	fs_reply_err(req, r);
}

void fs_ops_dir(struct fuse_lowlevel_ops *ops)
{
	ops->mkdir = op_mkdir;
	ops->mknod = op_mknod;
	ops->symlink = op_symlink;
	ops->link = op_link;
	ops->unlink = op_unlink;
	ops->rmdir = op_rmdir;
	ops->rename = op_rename;
	ops->opendir = op_opendir;
	ops->readdir = op_readdir;
	ops->readdirplus = op_readdirplus;
	ops->releasedir = op_releasedir;
	ops->fsyncdir = op_fsyncdir;
}
