/* fs/uring-msg.c: the queue count from the kernel's CPU list, the payload
 * size, and the round trip between a ring entry's pieces and the single
 * buffers libfuse reads and writes, with the malformed entries refused. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "fs/uring-msg.h"

#define PAYLOAD 256

Test(uring_queues, counts_possible_cpus)
{
	cr_expect_eq(uring_queue_count("0\n"), 1);
	cr_expect_eq(uring_queue_count("0-1\n"), 2);
	cr_expect_eq(uring_queue_count("0-3,8"), 5);
	cr_expect_eq(uring_queue_count("0,2,4-5\n"), 4);
}

Test(uring_queues, refuses_what_is_no_cpu_list)
{
	const char *bad[] = {"", "\n", "-1", "3-1", "0-", "0,", "a", "0-1x", "0 1", "99999999999"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(uring_queue_count(bad[i]), -EINVAL, "'%s'", bad[i]);
}

Test(uring_sizes, payload_is_the_largest_argument)
{
	cr_expect_eq(uring_payload_size(0, 0, 4096), 8192, "the kernel's floor");
	cr_expect_eq(uring_payload_size(131072, 32, 4096), 131072);
	cr_expect_eq(uring_payload_size(4096, 256, 4096), 1048576, "max_pages wins");
	cr_expect_eq(uring_payload_size(1048576, 256, 4096), 1048576);
	cr_expect_eq(uring_request_room(PAYLOAD), sizeof(struct fuse_in_header) + FUSE_URING_OP_IN_OUT_SZ + PAYLOAD);
}

/* An entry as the kernel fills it: a header, FIRST bytes of first argument
 * in op_in, REST bytes of payload (sizes past the buffers are only claimed,
 * for the refusals). */
struct entry {
	struct fuse_uring_req_header hdr;
	char payload[PAYLOAD];
};

static void fill(struct entry *e, uint32_t opcode, uint64_t unique, size_t first, size_t rest)
{
	struct fuse_in_header in = {.len = (uint32_t)(sizeof(in) + first + rest), .opcode = opcode, .unique = unique};

	memset(e, 0, sizeof(*e));
	memcpy(e->hdr.in_out, &in, sizeof(in));
	memset(e->hdr.op_in, 'o', first < sizeof(e->hdr.op_in) ? first : sizeof(e->hdr.op_in));
	memset(e->payload, 'p', rest < PAYLOAD ? rest : PAYLOAD);
	e->hdr.ring_ent_in_out.commit_id = unique;
	e->hdr.ring_ent_in_out.payload_sz = (uint32_t)rest;
}

Test(uring_request, rebuilds_the_dev_fuse_buffer)
{
	struct entry e;
	char buf[sizeof(struct fuse_in_header) + FUSE_URING_OP_IN_OUT_SZ + PAYLOAD];
	const size_t h = sizeof(struct fuse_in_header);

	fill(&e, FUSE_WRITE, 42, sizeof(struct fuse_write_in), 100);
	ssize_t n = uring_request_read(&e.hdr, e.payload, PAYLOAD, buf, sizeof(buf));
	cr_assert_eq(n, (ssize_t)(h + sizeof(struct fuse_write_in) + 100));
	struct fuse_in_header in;
	memcpy(&in, buf, sizeof(in));
	cr_expect_eq(in.opcode, FUSE_WRITE);
	cr_expect_eq(in.unique, 42);
	cr_expect_eq(buf[h], 'o');
	cr_expect_eq(buf[h + sizeof(struct fuse_write_in) - 1], 'o');
	cr_expect_eq(buf[h + sizeof(struct fuse_write_in)], 'p');
	cr_expect_eq(buf[n - 1], 'p');
}

Test(uring_request, first_argument_may_be_empty)
{
	struct entry e;
	char buf[sizeof(struct fuse_in_header) + FUSE_URING_OP_IN_OUT_SZ + PAYLOAD];

	/* LOOKUP: an empty header argument, the name in the payload. */
	fill(&e, FUSE_LOOKUP, 7, 0, 6);
	memcpy(e.payload, "name\0", 6);
	ssize_t n = uring_request_read(&e.hdr, e.payload, PAYLOAD, buf, sizeof(buf));
	cr_assert_eq(n, (ssize_t)(sizeof(struct fuse_in_header) + 6));
	cr_expect_str_eq(buf + sizeof(struct fuse_in_header), "name");
	/* No arguments at all (STATFS). */
	fill(&e, FUSE_STATFS, 8, 0, 0);
	cr_expect_eq(uring_request_read(&e.hdr, e.payload, PAYLOAD, buf, sizeof(buf)),
	             (ssize_t)sizeof(struct fuse_in_header));
}

Test(uring_request, refuses_sizes_that_do_not_add_up)
{
	struct entry e;
	char buf[sizeof(struct fuse_in_header) + FUSE_URING_OP_IN_OUT_SZ + PAYLOAD];
	struct fuse_in_header in;

	fill(&e, FUSE_WRITE, 1, 40, PAYLOAD + 1); /* more payload than the buffer */
	cr_expect_eq(uring_request_read(&e.hdr, e.payload, PAYLOAD, buf, sizeof(buf)), -EPROTO);
	fill(&e, FUSE_WRITE, 1, FUSE_URING_OP_IN_OUT_SZ + 1, 0); /* a first argument past op_in */
	cr_expect_eq(uring_request_read(&e.hdr, e.payload, PAYLOAD, buf, sizeof(buf)), -EPROTO);
	fill(&e, FUSE_WRITE, 1, 0, 10); /* a length short of the payload */
	memcpy(&in, e.hdr.in_out, sizeof(in));
	in.len = sizeof(in) + 5;
	memcpy(e.hdr.in_out, &in, sizeof(in));
	cr_expect_eq(uring_request_read(&e.hdr, e.payload, PAYLOAD, buf, sizeof(buf)), -EPROTO);
	fill(&e, FUSE_WRITE, 1, 40, 100); /* a buffer too small */
	cr_expect_eq(uring_request_read(&e.hdr, e.payload, PAYLOAD, buf, 100), -EPROTO);
}

Test(uring_reply, header_to_in_out_arguments_to_payload)
{
	struct entry e = {0};
	struct fuse_out_header out = {.len = 0, .error = 0, .unique = 42};
	char a[] = "abc", b[] = "defgh";
	struct iovec iov[] = {{&out, sizeof(out)}, {a, 3}, {b, 5}};

	cr_assert_eq(uring_reply_write(iov, 3, &e.hdr, e.payload, PAYLOAD), (ssize_t)(sizeof(out) + 8));
	struct fuse_out_header got;
	memcpy(&got, e.hdr.in_out, sizeof(got));
	cr_expect_eq(got.unique, 42);
	cr_expect_eq(got.error, 0);
	cr_expect_eq(got.len, sizeof(out) + 8);
	cr_expect_eq(e.hdr.ring_ent_in_out.payload_sz, 8);
	cr_expect_eq(memcmp(e.payload, "abcdefgh", 8), 0);
}

Test(uring_reply, an_error_has_no_payload)
{
	struct entry e = {0};
	struct fuse_out_header out = {.len = sizeof(out), .error = -ENOENT, .unique = 9};
	struct iovec iov[] = {{&out, sizeof(out)}};

	e.hdr.ring_ent_in_out.payload_sz = 77;
	cr_assert_eq(uring_reply_write(iov, 1, &e.hdr, e.payload, PAYLOAD), (ssize_t)sizeof(out));
	struct fuse_out_header got;
	memcpy(&got, e.hdr.in_out, sizeof(got));
	cr_expect_eq(got.error, -ENOENT);
	cr_expect_eq(e.hdr.ring_ent_in_out.payload_sz, 0);
}

Test(uring_reply, too_long_becomes_eio)
{
	struct entry e = {0};
	struct fuse_out_header out = {.unique = 5};
	static char big[PAYLOAD + 1];
	struct iovec iov[] = {{&out, sizeof(out)}, {big, 10}, {big, PAYLOAD - 9}};

	cr_expect_eq(uring_reply_write(iov, 3, &e.hdr, e.payload, PAYLOAD), -E2BIG);
	struct fuse_out_header got;
	memcpy(&got, e.hdr.in_out, sizeof(got));
	cr_expect_eq(got.unique, 5);
	cr_expect_eq(got.error, -EIO);
	cr_expect_eq(e.hdr.ring_ent_in_out.payload_sz, 0);
}

Test(uring_reply, refuses_a_reply_without_header)
{
	struct entry e = {0};
	char a[8] = {0};
	struct iovec iov[] = {{a, 8}};

	cr_expect_eq(uring_reply_write(iov, 0, &e.hdr, e.payload, PAYLOAD), -EPROTO);
	cr_expect_eq(uring_reply_write(iov, 1, &e.hdr, e.payload, PAYLOAD), -EPROTO);
}

Test(uring_reply, bare_error)
{
	struct entry e = {0};
	struct fuse_out_header got;

	e.hdr.ring_ent_in_out.payload_sz = 3;
	uring_reply_error(&e.hdr, 11, EIO);
	memcpy(&got, e.hdr.in_out, sizeof(got));
	cr_expect_eq(got.unique, 11);
	cr_expect_eq(got.error, -EIO);
	cr_expect_eq(got.len, sizeof(got));
	cr_expect_eq(e.hdr.ring_ent_in_out.payload_sz, 0);
}
