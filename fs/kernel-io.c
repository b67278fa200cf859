#include "config.h"

#include <errno.h>
#include <linux/fuse.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fs/internal.h"
#include "fs/kernel-io.h"

/* The kernel's INIT request offered KILLPRIV_V2; its reply is to accept it.
 * Written and read only while INIT is handled, before any other request. */
static bool init_offered;
static uint64_t init_unique;

/* Set by the read hook for the request this thread is about to handle. */
static _Thread_local bool kill_suidgid;
static _Thread_local bool is_tmpfile;

bool kernel_io_kill_suidgid(void)
{
	return kill_suidgid;
}

bool kernel_io_tmpfile(void)
{
	return is_tmpfile;
}

/* Hands a TMPFILE request to libfuse as the CREATE it resembles. */
static void tmpfile_as_create(char *buf, struct fuse_in_header *h)
{
	h->opcode = FUSE_CREATE;
	memcpy(buf, h, sizeof(*h));
	is_tmpfile = true;
}

/* Copies the request's argument of SIZE bytes into ARG; false when short. */
static bool request_arg(const char *buf, size_t len, void *arg, size_t size)
{
	if (len < sizeof(struct fuse_in_header) + size)
		return false;
	memcpy(arg, buf + sizeof(struct fuse_in_header), size);
	return true;
}

static void note_init(const char *buf, size_t len, uint64_t unique)
{
	struct fuse_init_in in;

	if (request_arg(buf, len, &in, offsetof(struct fuse_init_in, flags2)) && (in.flags & FUSE_HANDLE_KILLPRIV_V2)) {
		init_offered = true;
		init_unique = unique;
	}
}

/* Notes what libfuse will not pass on: the kill-set-id flags, O_TMPFILE. */
static void note_request(char *buf, size_t len)
{
	struct fuse_in_header h;
	struct fuse_write_in w;
	struct fuse_open_in o;
	struct fuse_create_in c;
	struct fuse_setattr_in s;

	kill_suidgid = false;
	is_tmpfile = false;
	if (len < sizeof(h))
		return;
	memcpy(&h, buf, sizeof(h));
	switch (h.opcode) {
	case FUSE_INIT:
		note_init(buf, len, h.unique);
		break;
	case FUSE_WRITE:
		kill_suidgid = request_arg(buf, len, &w, sizeof(w)) && (w.write_flags & FUSE_WRITE_KILL_SUIDGID);
		break;
	case FUSE_OPEN:
		kill_suidgid = request_arg(buf, len, &o, sizeof(o)) && (o.open_flags & FUSE_OPEN_KILL_SUIDGID);
		break;
	case FUSE_TMPFILE:
		tmpfile_as_create(buf, &h);
		break;
	case FUSE_CREATE:
		kill_suidgid = request_arg(buf, len, &c, sizeof(c)) && (c.open_flags & FUSE_OPEN_KILL_SUIDGID);
		break;
	case FUSE_SETATTR:
		kill_suidgid = request_arg(buf, len, &s, sizeof(s)) && (s.valid & FATTR_KILL_SUIDGID);
		break;
	default:
		break;
	}
}

static ssize_t io_read(int fd, void *buf, size_t len, void *userdata)
{
	ssize_t n = read(fd, buf, len);

	note_request(buf, n > 0 ? (size_t)n : 0);
	return n;
}

/* Accepts KILLPRIV_V2 in the reply to the INIT that offered it. */
static void patch_init_reply(struct iovec *iov, int count)
{
	struct fuse_out_header h;
	uint32_t flags;
	size_t at = offsetof(struct fuse_init_out, flags);

	if (!init_offered || count < 2 || iov[0].iov_len < sizeof(h) || iov[1].iov_len < at + sizeof(flags))
		return;
	memcpy(&h, iov[0].iov_base, sizeof(h));
	if (h.unique != init_unique || h.error != 0)
		return;
	memcpy(&flags, (char *)iov[1].iov_base + at, sizeof(flags));
	flags |= FUSE_HANDLE_KILLPRIV_V2;
	memcpy((char *)iov[1].iov_base + at, &flags, sizeof(flags));
	init_offered = false;
}

static ssize_t io_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	patch_init_reply(iov, count);
	return writev(fd, iov, count);
}

int kernel_io_install(struct fuse_session *se)
{
	static const struct fuse_custom_io io = {
	        .read = io_read,
	        .writev = io_writev,
	};

	return fuse_session_custom_io(se, &io, fuse_session_fd(se)) < 0 ? -EINVAL : 0;
}
