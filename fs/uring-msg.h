/* Between a FUSE-over-io_uring entry and the messages libfuse knows: a ring
 * entry holds a request as three pieces (the fuse_in_header, the request's
 * first argument in op_in, the rest in the payload buffer), where /dev/fuse
 * gives it as one buffer; a reply goes back as the fuse_out_header in the
 * header buffer and its arguments in the payload buffer. Pure functions over
 * memory, so that they are tested without a kernel. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "fs/uring-abi.h"

/* The queues the kernel waits for before it uses the ring: one per possible
 * CPU (its num_possible_cpus()), from a CPU list as in
 * /sys/devices/system/cpu/possible ("0-3,8" is 5 CPUs). Returns the count,
 * or -EINVAL for a list that is not one. */
int uring_queue_count(const char *possible);

/* The payload buffer the kernel requires of every entry (it refuses a
 * registration with less): the largest request or reply argument, from the
 * INIT reply's max_write and max_pages. */
size_t uring_payload_size(uint32_t max_write, uint32_t max_pages, size_t page_size);

/* The room a request needs as one buffer: its header, the largest first
 * argument, and PAYLOAD_SIZE. */
size_t uring_request_room(size_t payload_size);

/* Copies the request in an entry (HDR, and PAYLOAD of PAYLOAD_SIZE bytes)
 * into BUF of ROOM bytes as /dev/fuse would have given it. Returns its
 * length, or -EPROTO when the header's sizes do not add up. */
ssize_t uring_request_read(const struct fuse_uring_req_header *hdr, const void *payload, size_t payload_size,
                           void *buf, size_t room);

/* Puts the reply IOV[0..COUNT) (a fuse_out_header, then its arguments, as
 * libfuse hands it to writev) into the entry. Returns its length, or
 * -EPROTO when IOV has no header and -E2BIG when the arguments exceed
 * PAYLOAD_SIZE: the entry then holds an EIO reply instead. */
ssize_t uring_reply_write(const struct iovec *iov, int count, struct fuse_uring_req_header *hdr, void *payload,
                          size_t payload_size);

/* Puts a bare error reply, errno ERROR (> 0), to request UNIQUE into the
 * entry. */
void uring_reply_error(struct fuse_uring_req_header *hdr, uint64_t unique, int error);
