/* The protected file the daemon last rewrote in place (fs/replace.h): the
 * rename that led to the rewrite is ops-dir.c's, the setattr that must not
 * mistake the kernel's flush of the old mtime for an attack ops-entry.c's. */
#include "config.h"

#include "fs/internal.h"

void fs_note_rewritten(struct fs *fs, struct policy_id id, struct timespec mtime)
{
	pthread_mutex_lock(&fs->rewritten_lock);
	fs->rewritten = id;
	fs->rewritten_mtime = mtime;
	pthread_mutex_unlock(&fs->rewritten_lock);
}

bool fs_rewritten_before(struct fs *fs, struct policy_id id, struct timespec mtime)
{
	pthread_mutex_lock(&fs->rewritten_lock);
	bool stale = fs->rewritten.dev == id.dev && fs->rewritten.ino == id.ino &&
	             fs->rewritten_mtime.tv_sec == mtime.tv_sec && fs->rewritten_mtime.tv_nsec == mtime.tv_nsec;
	pthread_mutex_unlock(&fs->rewritten_lock);
	return stale;
}
