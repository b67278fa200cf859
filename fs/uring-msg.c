#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fs/uring-msg.h"

/* The kernel's floor for a request buffer (FUSE_MIN_READ_BUFFER). */
#define MIN_READ_BUFFER 8192

/* Reads one decimal CPU number at *S; -1 when there is none. */
static long cpu_number(const char **s)
{
	char *end;

	if (**s < '0' || **s > '9')
		return -1;
	errno = 0;
	long n = strtol(*s, &end, 10);
	if (errno || n > INT_MAX - 1)
		return -1;
	*s = end;
	return n;
}

int uring_queue_count(const char *possible)
{
	const char *s = possible;
	long count = 0;

	for (;;) {
		long first = cpu_number(&s), last = first;
		if (first < 0)
			return -EINVAL;
		if (*s == '-') {
			s++;
			last = cpu_number(&s);
			if (last < first)
				return -EINVAL;
		}
		count += last - first + 1;
		if (count > INT_MAX)
			return -EINVAL;
		if (*s != ',')
			break;
		s++;
	}
	if (*s == '\n')
		s++;
	return *s ? -EINVAL : (int)count;
}

size_t uring_payload_size(uint32_t max_write, uint32_t max_pages, size_t page_size)
{
	size_t size = MIN_READ_BUFFER;

	if (max_write > size)
		size = max_write;
	if ((size_t)max_pages * page_size > size)
		size = (size_t)max_pages * page_size;
	return size;
}

size_t uring_request_room(size_t payload_size)
{
	return sizeof(struct fuse_in_header) + FUSE_URING_OP_IN_OUT_SZ + payload_size;
}

ssize_t uring_request_read(const struct fuse_uring_req_header *hdr, const void *payload, size_t payload_size,
                           void *buf, size_t room)
{
	struct fuse_in_header in;
	struct fuse_uring_ent_in_out ent;

	memcpy(&in, hdr->in_out, sizeof(in));
	memcpy(&ent, &hdr->ring_ent_in_out, sizeof(ent));
	/* The header's length counts every argument: what the payload does
	 * not hold is the first one, which the kernel put in op_in. */
	size_t len = in.len, rest = ent.payload_sz;
	if (rest > payload_size || len < sizeof(in) + rest || len > room)
		return -EPROTO;
	size_t first = len - sizeof(in) - rest;
	if (first > FUSE_URING_OP_IN_OUT_SZ)
		return -EPROTO;
	char *p = buf;
	memcpy(p, &in, sizeof(in));
	memcpy(p + sizeof(in), hdr->op_in, first);
	memcpy(p + sizeof(in) + first, payload, rest);
	return (ssize_t)len;
}

void uring_reply_error(struct fuse_uring_req_header *hdr, uint64_t unique, int error)
{
	struct fuse_out_header out = {.len = sizeof(out), .error = -error, .unique = unique};

	memcpy(hdr->in_out, &out, sizeof(out));
	hdr->ring_ent_in_out.payload_sz = 0;
}

ssize_t uring_reply_write(const struct iovec *iov, int count, struct fuse_uring_req_header *hdr, void *payload,
                          size_t payload_size)
{
	struct fuse_out_header out;
	size_t len = 0;

	if (count < 1 || iov[0].iov_len != sizeof(out))
		return -EPROTO;
	memcpy(&out, iov[0].iov_base, sizeof(out));
	for (int i = 1; i < count; i++) {
		if (iov[i].iov_len > payload_size - len) {
			uring_reply_error(hdr, out.unique, EIO);
			return -E2BIG;
		}
		memcpy((char *)payload + len, iov[i].iov_base, iov[i].iov_len);
		len += iov[i].iov_len;
	}
	out.len = (uint32_t)(sizeof(out) + len);
	memcpy(hdr->in_out, &out, sizeof(out));
	hdr->ring_ent_in_out.payload_sz = (uint32_t)len;
	return (ssize_t)(sizeof(out) + len);
}
