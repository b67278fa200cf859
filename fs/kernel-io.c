#include "config.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/fuse.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/capability.h"
#include "common/cleanup.h"
#include "common/log.h"
#include "fs/internal.h"
#include "fs/kernel-io.h"
#include "fs/uring-abi.h"
#include "fs/uring-msg.h"
#include "fs/uring.h"

/* Protocol 7.40 (Linux 6.9), which bookworm's uapi header predates: the
 * INIT flag (bits 32..63 travel in flags2), the open flag, and the ioctls
 * that register a backing file. */
#ifndef FUSE_PASSTHROUGH
#define FUSE_PASSTHROUGH (1ULL << 37)
#endif
#ifndef FOPEN_PASSTHROUGH
#define FOPEN_PASSTHROUGH (1 << 7)
#endif
#ifndef FUSE_DEV_IOC_BACKING_OPEN
struct fuse_backing_map {
	int32_t fd;
	uint32_t flags;
	uint64_t padding;
};
#define FUSE_DEV_IOC_BACKING_OPEN  _IOW(FUSE_DEV_IOC_MAGIC, 1, struct fuse_backing_map)
#define FUSE_DEV_IOC_BACKING_CLOSE _IOW(FUSE_DEV_IOC_MAGIC, 2, uint32_t)
#endif
/* Fields 7.40 carved out of what older headers call unused or padding. */
#define INIT_OUT_FLAGS2          offsetof(struct fuse_init_out, flags2)
#define INIT_OUT_MAX_STACK_DEPTH (INIT_OUT_FLAGS2 + sizeof(uint32_t))
#define OPEN_OUT_FLAGS           offsetof(struct fuse_open_out, open_flags)
#define OPEN_OUT_BACKING_ID      (OPEN_OUT_FLAGS + sizeof(uint32_t))

/* What the kernel's INIT request offered, and what its reply is to accept.
 * Written and read only while INIT is handled, before any other request. */
static bool init_pending;
static uint64_t init_unique;
static bool killpriv_offered;
static bool passthrough_offered;
static bool passthrough_accept; /* set by op_init */
static bool uring_offered;
static bool uring_accept; /* set by op_init */
/* The INIT reply being written accepted the ring, which waits for it. */
static bool uring_pending;

/* The INIT reply accepted passthrough: written once by the thread that
 * replied to INIT, before the kernel sends any open. */
static atomic_bool passthrough_granted;
/* The session and its /dev/fuse, for the backing-file ioctls and the
 * rings; set before the first request is read. */
static struct fuse_session *session;
static int dev_fd = -1;

/* Set by the read hook for the request this thread is about to handle. */
static _Thread_local bool kill_suidgid;
static _Thread_local bool is_tmpfile;
static _Thread_local uint64_t request_unique;
/* Set by the open or create being handled: the backing id its reply is to
 * carry (0: none), matched to the reply by the request's unique. */
static _Thread_local int reply_backing_id;
static _Thread_local uint64_t reply_unique;

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
	struct fuse_init_in in = {0};

	if (!request_arg(buf, len, &in, offsetof(struct fuse_init_in, flags2)))
		return;
	init_pending = true;
	init_unique = unique;
	killpriv_offered = in.flags & FUSE_HANDLE_KILLPRIV_V2;
	/* flags2 is there, and valid, only with FUSE_INIT_EXT. */
	if ((in.flags & FUSE_INIT_EXT) && request_arg(buf, len, &in, offsetof(struct fuse_init_in, flags2) + 4)) {
		passthrough_offered = in.flags2 & (uint32_t)(FUSE_PASSTHROUGH >> 32);
		uring_offered = in.flags2 & (uint32_t)(FUSE_OVER_IO_URING >> 32);
	}
}

void kernel_io_note_request(char *buf, size_t len)
{
	struct fuse_in_header h;
	struct fuse_write_in w;
	struct fuse_open_in o;
	struct fuse_create_in c;
	struct fuse_setattr_in s;

	kill_suidgid = false;
	is_tmpfile = false;
	request_unique = 0;
	reply_backing_id = 0;
	if (len < sizeof(h))
		return;
	memcpy(&h, buf, sizeof(h));
	request_unique = h.unique;
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

	kernel_io_note_request(buf, n > 0 ? (size_t)n : 0);
	return n;
}

static uint32_t get_u32(const struct iovec *v, size_t at)
{
	uint32_t x;

	memcpy(&x, (const char *)v->iov_base + at, sizeof(x));
	return x;
}

static void put_u32(struct iovec *v, size_t at, uint32_t x)
{
	memcpy((char *)v->iov_base + at, &x, sizeof(x));
}

/* Whether IOV is the successful reply to request UNIQUE, with an argument. */
static bool reply_to(const struct iovec *iov, int count, uint64_t unique)
{
	struct fuse_out_header h;

	if (count < 2 || iov[0].iov_len < sizeof(h))
		return false;
	memcpy(&h, iov[0].iov_base, sizeof(h));
	return h.unique == unique && h.error == 0;
}

/* Sets FLAG, one of bits 32..63, in the INIT reply OUT whose flags are
 * *FLAGS. */
static void accept_flag2(struct iovec *out, uint32_t *flags, uint64_t flag)
{
	*flags |= FUSE_INIT_EXT;
	put_u32(out, INIT_OUT_FLAGS2, get_u32(out, INIT_OUT_FLAGS2) | (uint32_t)(flag >> 32));
}

/* Accepts passthrough in the INIT reply OUT, whose flags are *FLAGS. The
 * kernel ignores it next to the writeback cache, which op_init left off. */
static bool grant_passthrough(struct iovec *out, uint32_t *flags)
{
	if (out->iov_len < INIT_OUT_MAX_STACK_DEPTH + sizeof(uint32_t) || (*flags & FUSE_WRITEBACK_CACHE))
		return false;
	accept_flag2(out, flags, FUSE_PASSTHROUGH);
	/* Backing files on a file system that stacks on nothing (not on an
	 * overlayfs, say): ours are the tree's own. */
	put_u32(out, INIT_OUT_MAX_STACK_DEPTH, 1);
	return true;
}

/* Accepts the ring in the INIT reply OUT once the rings are ready for it,
 * sized by the reply's largest request. */
static bool grant_uring(struct iovec *out, uint32_t *flags)
{
	struct fuse_init_out o = {0};

	if (out->iov_len < INIT_OUT_FLAGS2 + sizeof(uint32_t))
		return false;
	memcpy(&o, out->iov_base, out->iov_len < sizeof(o) ? out->iov_len : sizeof(o));
	long page = sysconf(_SC_PAGESIZE);
	size_t payload = uring_payload_size(o.max_write, o.max_pages, page > 0 ? (size_t)page : 4096);
	int r = uring_prepare(session, dev_fd, payload);
	if (r < 0) {
		log_warning("fuse over io_uring: cannot set the rings up (%s): requests go through /dev/fuse",
		            strerror(-r));
		return false;
	}
	accept_flag2(out, flags, FUSE_OVER_IO_URING);
	return true;
}

/* Accepts what the INIT request offered and libfuse 3.14 cannot: KILLPRIV_V2
 * and, when op_init asked, passthrough and the ring. */
static void patch_init_reply(struct iovec *iov, int count)
{
	size_t at = offsetof(struct fuse_init_out, flags);

	if (!init_pending || !reply_to(iov, count, init_unique) || iov[1].iov_len < at + sizeof(uint32_t))
		return;
	init_pending = false;
	uint32_t flags = get_u32(&iov[1], at);
	if (killpriv_offered)
		flags |= FUSE_HANDLE_KILLPRIV_V2;
	if (passthrough_accept && grant_passthrough(&iov[1], &flags))
		atomic_store(&passthrough_granted, true);
	uring_pending = uring_accept && grant_uring(&iov[1], &flags);
	put_u32(&iov[1], at, flags);
}

/* Makes the open (or create) reply carry the backing file: struct
 * fuse_open_out ends the argument in both. */
static void patch_open_reply(struct iovec *iov, int count)
{
	if (!reply_backing_id)
		return;
	int id = reply_backing_id;
	bool ours = reply_to(iov, count, reply_unique);
	reply_backing_id = 0;
	if (!ours || iov[1].iov_len < sizeof(struct fuse_open_out))
		return;
	size_t at = iov[1].iov_len - sizeof(struct fuse_open_out);
	/* The kernel refuses passthrough next to the page-cache flags. */
	uint32_t flags = (get_u32(&iov[1], at + OPEN_OUT_FLAGS) & ~(uint32_t)FOPEN_KEEP_CACHE) | FOPEN_PASSTHROUGH;
	put_u32(&iov[1], at + OPEN_OUT_FLAGS, flags);
	put_u32(&iov[1], at + OPEN_OUT_BACKING_ID, (uint32_t)id);
}

/* The rings serve once the kernel has the INIT reply that accepted them. */
static void start_uring(ssize_t written)
{
	uring_pending = false;
	if (written >= 0)
		uring_start();
	else
		uring_stop();
}

static ssize_t io_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	ssize_t n;

	patch_init_reply(iov, count);
	patch_open_reply(iov, count);
	if (uring_reply(iov, count, &n))
		return n;
	n = writev(fd, iov, count);
	if (uring_pending)
		start_uring(n);
	return n;
}

int kernel_io_install(struct fuse_session *se)
{
	static const struct fuse_custom_io io = {
	        .read = io_read,
	        .writev = io_writev,
	};

	session = se;
	dev_fd = fuse_session_fd(se);
	return fuse_session_custom_io(se, &io, dev_fd) < 0 ? -EINVAL : 0;
}

bool kernel_io_passthrough_offered(void)
{
	return passthrough_offered && capability_effective(CAP_SYS_ADMIN);
}

void kernel_io_passthrough_accept(void)
{
	passthrough_accept = passthrough_offered;
}

bool kernel_io_uring_offered(void)
{
	return uring_offered;
}

void kernel_io_uring_accept(void)
{
	uring_accept = uring_offered;
}

bool kernel_io_passthrough(void)
{
	return atomic_load(&passthrough_granted);
}

int kernel_io_backing_open(int fd)
{
	struct fuse_backing_map map = {.fd = fd};

	if (!kernel_io_passthrough())
		return -EPERM;
	int id = ioctl(dev_fd, FUSE_DEV_IOC_BACKING_OPEN, &map);
	if (id < 0)
		return negative_errno();
	return id > 0 ? id : -EIO; /* 0 means none in a reply */
}

void kernel_io_backing_close(int id)
{
	uint32_t u = (uint32_t)id;

	if (ioctl(dev_fd, FUSE_DEV_IOC_BACKING_CLOSE, &u) < 0)
		log_debug("cannot release backing file %d: %m", id);
}

void kernel_io_reply_backing(int id)
{
	reply_backing_id = id;
	reply_unique = request_unique;
}
