/* What the fs/ files share: the mount's state and the helpers every
 * operation family uses. Not for use outside fs/. */
#pragma once

#define FUSE_USE_VERSION 314
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "fs/caller.h"
#include "fs/fd-share.h"
#include "fs/fs.h"
#include "fs/inode.h"
#include "policy/policy.h"

struct fs {
	struct inode_table *table; /* owns a dup of the root fd */
	struct git_model *model;   /* borrowed */
	struct audit *audit;       /* borrowed */
	struct fd_share *share;    /* the callers' open files' descriptors */
	struct fuse_session *se;
	struct fs_options opt;
	double timeout;   /* entry and attribute timeout, by cache mode */
	bool as_caller;   /* root daemon: create as the calling process */
	bool judges_reads; /* [deny] names something: reads are judged too */
	int proc_root_fd; /* /proc, for callers' groups */
	bool mounted;
	/* The protected file the daemon last rewrote in place (fs/replace.h)
	 * and the mtime it had before. With the writeback cache, the rename
	 * that led to the rewrite makes the kernel flush that mtime back to
	 * the file, which must not read as an attack on it. */
	pthread_mutex_t rewritten_lock;
	struct policy_id rewritten;      /* protected by rewritten_lock */
	struct timespec rewritten_mtime; /* protected by rewritten_lock */
};

/* Notes that the daemon rewrote ID, whose mtime was MTIME (fs/rewritten.c). */
void fs_note_rewritten(struct fs *fs, struct policy_id id, struct timespec mtime);
/* Whether MTIME is the one ID had before the daemon last rewrote it. */
bool fs_rewritten_before(struct fs *fs, struct policy_id id, struct timespec mtime);

static inline struct fs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static inline struct inode *fs_inode(struct fs *fs, fuse_ino_t ino)
{
	return ino == FUSE_ROOT_ID ? inode_table_root(fs->table) : (struct inode *)(uintptr_t)ino;
}

static inline fuse_ino_t fs_ino(struct fs *fs, struct inode *i)
{
	return i == inode_table_root(fs->table) ? FUSE_ROOT_ID : (fuse_ino_t)(uintptr_t)i;
}

static inline struct policy_id fs_policy_id(const struct inode *i)
{
	struct inode_id id = inode_id(i);
	return (struct policy_id){.dev = id.dev, .ino = id.ino};
}

static inline struct policy_id stat_policy_id(const struct stat *st)
{
	return (struct policy_id){.dev = st->st_dev, .ino = st->st_ino};
}

/* ---- fs/request.c: what every operation family uses; the ops-*.c files
 * call these and never one another. */

/* The one place a negative errno becomes FUSE's positive one. */
void fs_reply_err(fuse_req_t req, int r);

/* Looks NAME up in PARENT and fills E (one lookup reference taken). */
int fs_lookup_entry(struct fs *fs, struct inode *parent, const char *name, struct fuse_entry_param *e);
/* Fills E for the known inode F names (one lookup reference taken), from a
 * stat through its fd: no lookup by name, which a racing rename could make
 * name another object. */
int fs_known_entry(struct fs *fs, const struct ifd *f, struct fuse_entry_param *e);
/* Undoes fs_lookup_entry when the reply could not be sent. */
void fs_entry_forget(struct fs *fs, const struct fuse_entry_param *e);
/* Replies with E, or forgets it if the kernel is gone. */
void fs_reply_entry(struct fs *fs, fuse_req_t req, int r, const struct fuse_entry_param *e);

/* Takes a place in the pool of descriptors for one file or folder the
 * caller of REQ opens (fs/fd-share.h): -EMFILE past its process's share. */
int fs_claim_open(struct fs *fs, fuse_req_t req, struct fd_claim *c);
/* Closes FD, which a caller held open, and gives its place back. */
void fs_close_open(struct fs *fs, int fd);

/* Drops the set-user-ID bit, and set-group-ID when group-executable or when
 * the caller of REQ is not in the file's group, from the open file FD: what a local
 * file system does when a caller without
 * CAP_FSETID writes or truncates, and what the kernel asks of us under
 * FUSE_HANDLE_KILLPRIV_V2 (see fs/kernel-io.h), since the daemon writes as
 * root and keeps them otherwise. Returns 1 when the mode changed, 0 when
 * there was nothing to drop, or -errno. */
int fs_kill_suidgid(fuse_req_t req, int fd);

/* Becomes the calling process for one creating syscall when the daemon runs
 * as root (see fs/caller.h); a no-op otherwise. */
int fs_become_caller(struct fs *fs, fuse_req_t req, struct caller_saved *c);

/* The operation families, registered by mount.c. */
void fs_ops_entry(struct fuse_lowlevel_ops *ops);
void fs_ops_dir(struct fuse_lowlevel_ops *ops);
void fs_ops_file(struct fuse_lowlevel_ops *ops);
void fs_ops_xattr(struct fuse_lowlevel_ops *ops);
