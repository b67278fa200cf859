/* The kernel's INIT request as --check reads it: the protocol version, and
 * FUSE_PASSTHROUGH only where flags2 is valid. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <linux/fuse.h>
#include <string.h>

#include "tools/probe-mount.h"

#define PASSTHROUGH_FLAGS2 (1u << (37 - 32))
#define URING_FLAGS2       (1u << (41 - 32))

struct init_request {
	struct fuse_in_header in;
	struct fuse_init_in init;
};

static struct init_request request(uint32_t opcode, uint32_t minor, uint32_t flags, uint32_t flags2)
{
	struct init_request r;

	memset(&r, 0, sizeof(r));
	r.in.len = sizeof(r);
	r.in.opcode = opcode;
	r.init.major = 7;
	r.init.minor = minor;
	r.init.flags = flags;
	r.init.flags2 = flags2;
	return r;
}

Test(fuse_init, passthrough_offered)
{
	struct init_request r = request(FUSE_INIT, 45, FUSE_INIT_EXT, PASSTHROUGH_FLAGS2);
	struct fuse_mount_probe m = { 0 };

	cr_assert_eq(fuse_init_parse(&r, sizeof(r), &m), 0);
	cr_expect(m.got_init);
	cr_expect_eq(m.major, 7);
	cr_expect_eq(m.minor, 45);
	cr_expect(m.passthrough);
}

Test(fuse_init, passthrough_not_offered)
{
	struct init_request r = request(FUSE_INIT, 38, FUSE_INIT_EXT, 0);
	struct fuse_mount_probe m = { 0 };

	cr_assert_eq(fuse_init_parse(&r, sizeof(r), &m), 0);
	cr_expect_eq(m.minor, 38);
	cr_expect_not(m.passthrough);
}

Test(fuse_init, flags2_ignored_without_init_ext)
{
	struct init_request r = request(FUSE_INIT, 40, 0, PASSTHROUGH_FLAGS2);
	struct fuse_mount_probe m = { 0 };

	cr_assert_eq(fuse_init_parse(&r, sizeof(r), &m), 0);
	cr_expect_not(m.passthrough);
}

Test(fuse_init, other_requests_and_short_buffers_refused)
{
	struct init_request r = request(FUSE_LOOKUP, 45, FUSE_INIT_EXT, PASSTHROUGH_FLAGS2);
	struct fuse_mount_probe m = { 0 };

	cr_expect_eq(fuse_init_parse(&r, sizeof(r), &m), -EINVAL);
	cr_expect_not(m.got_init);
	r = request(FUSE_INIT, 45, 0, 0);
	cr_expect_eq(fuse_init_parse(&r, sizeof(r.in) + 4, &m), -EINVAL);
	cr_expect_not(m.got_init);
}

Test(fuse_init, io_uring_offered)
{
	struct init_request r = request(FUSE_INIT, 45, FUSE_INIT_EXT, URING_FLAGS2);
	struct fuse_mount_probe m = { 0 };

	cr_assert_eq(fuse_init_parse(&r, sizeof(r), &m), 0);
	cr_expect(m.over_io_uring);
	cr_expect_not(m.passthrough);
	r = request(FUSE_INIT, 45, FUSE_INIT_EXT, PASSTHROUGH_FLAGS2);
	cr_assert_eq(fuse_init_parse(&r, sizeof(r), &m), 0);
	cr_expect_not(m.over_io_uring);
	r = request(FUSE_INIT, 45, 0, URING_FLAGS2);
	cr_assert_eq(fuse_init_parse(&r, sizeof(r), &m), 0);
	cr_expect_not(m.over_io_uring, "flags2 is valid only with FUSE_INIT_EXT");
}
