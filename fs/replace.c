#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/write-whole.h"
#include "fs/replace.h"

#define COMPARE_CHUNK 16384
/* Git's configuration is read whole, at most this much (the model's bound). */
#define REWRITE_MAX (1u << 20)

/* Opens NAME in DIR, which must still be the object ID, with FLAGS; -ESTALE
 * when the name moved on. Anything but a regular file is not opened at all
 * (a device may act on open): -EINVAL. */
static int open_expected(int dir, const char *name, struct policy_id id, int flags, struct stat *st)
{
	if (fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) < 0)
		return negative_errno();
	if (!S_ISREG(st->st_mode))
		return -EINVAL;
	_cleanup_close_ int fd = openat(dir, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (fstat(fd, st) < 0)
		return negative_errno();
	if (st->st_dev != id.dev || st->st_ino != id.ino)
		return -ESTALE;
	return TAKE_FD(fd);
}

/* Reads exactly LEN bytes at OFF; -EIO when the file shrank meanwhile. */
static int read_full(int fd, char *buf, size_t len, off_t off)
{
	while (len > 0) {
		ssize_t n = pread(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return negative_errno();
		if (n == 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

static int compare_fds(int a, int b, off_t size)
{
	char buf_a[COMPARE_CHUNK], buf_b[COMPARE_CHUNK];

	for (off_t off = 0; off < size; off += COMPARE_CHUNK) {
		size_t len = size - off < COMPARE_CHUNK ? (size_t)(size - off) : COMPARE_CHUNK;
		int r = read_full(a, buf_a, len, off);
		if (r >= 0)
			r = read_full(b, buf_b, len, off);
		if (r < 0)
			return r == -EIO ? 0 : r;
		if (memcmp(buf_a, buf_b, len) != 0)
			return 0;
	}
	return 1;
}

static int read_whole(int fd, off_t size, char **out)
{
	_cleanup_free_ char *buf = malloc((size_t)size + 1);

	if (!buf)
		return -ENOMEM;
	int r = read_full(fd, buf, (size_t)size, 0);
	if (r < 0)
		return r;
	*out = TAKE_PTR(buf);
	return 0;
}

/* Writes BYTES into the protected file itself, so its identity, and with it
 * its protection, stay; then cuts it to length. */
static int rewrite_in_place(int dir, const char *name, struct policy_id id, const char *bytes, size_t len)
{
	struct stat st;
	_cleanup_close_ int fd = open_expected(dir, name, id, O_WRONLY, &st);

	if (fd < 0)
		return fd;
	int r = write_whole_at(fd, bytes, len, 0);
	if (r >= 0 && ftruncate(fd, (off_t)len) < 0)
		r = negative_errno();
	return r;
}

static int judge_rewrite(struct git_model *model, int from, const struct stat *from_st, int to_dir, const char *to,
			 struct policy_id to_id, int to_fd, const struct stat *to_st, const char **why)
{
	_cleanup_free_ char *old = NULL, *new = NULL;

	if (from_st->st_size > REWRITE_MAX || to_st->st_size > REWRITE_MAX)
		return REPLACE_REFUSED;
	int r = read_whole(from, from_st->st_size, &new);
	if (r >= 0)
		r = read_whole(to_fd, to_st->st_size, &old);
	if (r < 0)
		return r;
	r = git_model_may_rewrite(model, old, (size_t)to_st->st_size, new, (size_t)from_st->st_size, why);
	if (r <= 0)
		return r < 0 ? r : REPLACE_REFUSED;
	r = rewrite_in_place(to_dir, to, to_id, new, (size_t)from_st->st_size);
	return r < 0 ? r : REPLACE_REWRITTEN;
}

int replace_protected(struct git_model *model, bool rewritable, int from_dir, const char *from,
		      struct policy_id from_id, int to_dir, const char *to, struct policy_id to_id, const char **why)
{
	struct stat st_from, st_to;

	*why = NULL;
	_cleanup_close_ int a = open_expected(from_dir, from, from_id, O_RDONLY, &st_from);
	if (a == -EINVAL)
		return REPLACE_REFUSED;
	if (a < 0)
		return a;
	_cleanup_close_ int b = open_expected(to_dir, to, to_id, O_RDONLY, &st_to);
	if (b == -EINVAL)
		return REPLACE_REFUSED;
	if (b < 0)
		return b;
	if (st_from.st_size == st_to.st_size && st_from.st_size <= (off_t)REPLACE_COMPARE_MAX) {
		int r = compare_fds(a, b, st_from.st_size);
		if (r != 0)
			return r < 0 ? r : REPLACE_KEPT;
	}
	if (!rewritable)
		return REPLACE_REFUSED;
	return judge_rewrite(model, a, &st_from, to_dir, to, to_id, b, &st_to, why);
}
