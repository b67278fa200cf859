/* The kernel's INIT request, read with the kernel's own structures: libfuse
 * 3.14 hides flags2 and knows nothing of FUSE_PASSTHROUGH or
 * FUSE_OVER_IO_URING, so its fuse_conn_info cannot say whether the kernel
 * offers them. */
#include "config.h"

#include <errno.h>
#include <linux/fuse.h>
#include <stddef.h>
#include <string.h>

#include "fs/uring-abi.h"
#include "tools/probe-mount.h"

/* Protocol 7.40 (Linux 6.9) added it; bits 32..63 of the flags travel in
 * flags2, valid only when FUSE_INIT_EXT is set. Older uapi headers lack it. */
#ifndef FUSE_PASSTHROUGH
#define FUSE_PASSTHROUGH (1ULL << 37)
#endif

static uint32_t get_u32(const unsigned char *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v)); /* the kernel's byte order: ours */
	return v;
}

int fuse_init_parse(const void *buf, size_t len, struct fuse_mount_probe *out)
{
	const unsigned char *p = buf;
	const size_t in = sizeof(struct fuse_in_header);
	uint32_t flags, flags2 = 0;

	if (len < in + offsetof(struct fuse_init_in, flags2) ||
	    get_u32(p, offsetof(struct fuse_in_header, opcode)) != FUSE_INIT)
		return -EINVAL;
	out->major = get_u32(p, in + offsetof(struct fuse_init_in, major));
	out->minor = get_u32(p, in + offsetof(struct fuse_init_in, minor));
	flags = get_u32(p, in + offsetof(struct fuse_init_in, flags));
	if ((flags & FUSE_INIT_EXT) && len >= in + offsetof(struct fuse_init_in, flags2) + sizeof(uint32_t))
		flags2 = get_u32(p, in + offsetof(struct fuse_init_in, flags2));
	out->passthrough = flags2 & (uint32_t)(FUSE_PASSTHROUGH >> 32);
	out->over_io_uring = flags2 & (uint32_t)(FUSE_OVER_IO_URING >> 32);
	out->got_init = true;
	return 0;
}
