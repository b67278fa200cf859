/* The kernel's FUSE-over-io_uring ABI (protocol 7.42, Linux 6.14), which
 * Debian bookworm's linux-libc-dev (6.1) predates. The names and layouts are
 * the kernel's own (include/uapi/linux/fuse.h): a header that has them wins,
 * and these must match it byte for byte. */
#pragma once

#include <linux/fuse.h>
#include <stdint.h>

/* INIT flag, in flags2 (bits 32..63) with FUSE_INIT_EXT: the kernel offers
 * it only while /sys/module/fuse/parameters/enable_uring is Y, and a reply
 * that accepts it makes the kernel wait for the queues' registration. */
#ifndef FUSE_OVER_IO_URING
#define FUSE_OVER_IO_URING (1ULL << 41)
#endif

#ifndef FUSE_URING_IN_OUT_HEADER_SZ
#define FUSE_URING_IN_OUT_HEADER_SZ 128
#define FUSE_URING_OP_IN_OUT_SZ     128

/* Filled by the kernel with a request; by the daemon with its reply. */
struct fuse_uring_ent_in_out {
	uint64_t flags;
	uint64_t commit_id;  /* the request's unique: the commit names it */
	uint32_t payload_sz; /* bytes of the payload buffer in use */
	uint32_t padding;
	uint64_t reserved;
};

/* The header buffer of a ring entry (iov[0] of its registration). */
struct fuse_uring_req_header {
	char in_out[FUSE_URING_IN_OUT_HEADER_SZ]; /* fuse_in_header / fuse_out_header */
	char op_in[FUSE_URING_OP_IN_OUT_SZ];      /* the request's first argument */
	struct fuse_uring_ent_in_out ring_ent_in_out;
};

/* IORING_OP_URING_CMD's cmd_op on /dev/fuse. */
enum fuse_uring_cmd {
	FUSE_IO_URING_CMD_INVALID = 0,
	FUSE_IO_URING_CMD_REGISTER = 1,         /* hand the kernel an entry's buffers */
	FUSE_IO_URING_CMD_COMMIT_AND_FETCH = 2, /* reply, and take the next request */
};

/* In the command area of a 128-byte SQE. */
struct fuse_uring_cmd_req {
	uint64_t flags;
	uint64_t commit_id;
	uint16_t qid;
	uint8_t padding[6];
};
#endif
