#include "config.h"

/* The runner's channel (tools/run/channel.h) over a real SOCK_SEQPACKET
 * pair: a message arrives whole, an error carries its errno and text, a
 * closed peer is -EPIPE on both sides, and anything unexpected (another
 * type, a packet of another size) is a protocol fault. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/run/channel.h"

static int pair[2] = {-1, -1};

static void setup(void)
{
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
}

static void teardown(void)
{
	for (int i = 0; i < 2; i++)
		if (pair[i] >= 0)
			close(pair[i]);
}

TestSuite(channel, .init = setup, .fini = teardown);

Test(channel, a_message_arrives_whole)
{
	struct run_msg m;

	cr_assert_eq(run_msg_send(pair[0], RUN_MSG_PID, 4242, NULL), 0);
	cr_assert_eq(run_msg_send(pair[0], RUN_MSG_EXITED, 256, "done"), 0);
	cr_assert_eq(run_msg_recv(pair[1], &m), 0);
	cr_assert_eq(m.type, RUN_MSG_PID);
	cr_assert_eq(m.value, 4242);
	cr_assert_str_eq(m.text, "");
	cr_assert_eq(run_msg_expect(pair[1], RUN_MSG_EXITED, &m), 0);
	cr_assert_eq(m.value, 256);
	cr_assert_str_eq(m.text, "done");
	/* both ways */
	cr_assert_eq(run_msg_send(pair[1], RUN_MSG_GO, 0, NULL), 0);
	cr_assert_eq(run_msg_expect(pair[0], RUN_MSG_GO, &m), 0);
}

Test(channel, an_error_gives_its_errno_and_text)
{
	struct run_msg m;

	cr_assert_eq(run_msg_send(pair[0], RUN_MSG_ERROR, ENOSPC, "cannot mount /tmp"), 0);
	cr_assert_eq(run_msg_expect(pair[1], RUN_MSG_PID, &m), -ENOSPC);
	cr_assert_eq(m.type, RUN_MSG_ERROR);
	cr_assert_str_eq(m.text, "cannot mount /tmp");
}

Test(channel, an_error_without_errno_is_eio)
{
	struct run_msg m;

	cr_assert_eq(run_msg_send(pair[0], RUN_MSG_ERROR, 0, "no reason"), 0);
	cr_assert_eq(run_msg_expect(pair[1], RUN_MSG_GO, &m), -EIO);
	cr_assert_eq(run_msg_send(pair[0], RUN_MSG_ERROR, -3, NULL), 0);
	cr_assert_eq(run_msg_expect(pair[1], RUN_MSG_GO, &m), -EIO);
}

Test(channel, another_type_is_a_protocol_fault)
{
	struct run_msg m;

	cr_assert_eq(run_msg_send(pair[0], RUN_MSG_MAP_ME, 0, NULL), 0);
	cr_assert_eq(run_msg_expect(pair[1], RUN_MSG_PID, &m), -EPROTO);
	cr_assert_eq(m.type, RUN_MSG_MAP_ME);
}

Test(channel, a_packet_of_another_size_is_a_protocol_fault)
{
	struct run_msg m;
	int small[2] = {RUN_MSG_GO, 0};

	cr_assert_eq(send(pair[0], small, sizeof(small), 0), (ssize_t)sizeof(small));
	cr_assert_eq(run_msg_recv(pair[1], &m), -EPROTO);
	/* the next one is read on its own, the short packet gone */
	cr_assert_eq(run_msg_send(pair[0], RUN_MSG_TERM, 0, NULL), 0);
	cr_assert_eq(run_msg_expect(pair[1], RUN_MSG_TERM, &m), 0);
}

Test(channel, a_closed_peer_is_epipe)
{
	struct run_msg m;

	cr_assert_eq(run_msg_send(pair[0], RUN_MSG_EXITED, 9, NULL), 0);
	close(TAKE_FD(pair[0]));
	/* what was sent before the close still arrives */
	cr_assert_eq(run_msg_expect(pair[1], RUN_MSG_EXITED, &m), 0);
	cr_assert_eq(m.value, 9);
	cr_assert_eq(run_msg_recv(pair[1], &m), -EPIPE);
	cr_assert_eq(run_msg_expect(pair[1], RUN_MSG_EXITED, &m), -EPIPE);
	/* and sending is -EPIPE, not a SIGPIPE that would end the runner */
	cr_assert_eq(run_msg_send(pair[1], RUN_MSG_TERM, 0, NULL), -EPIPE);
}

Test(channel, a_long_text_is_cut_to_its_size)
{
	char text[2 * sizeof(((struct run_msg *)0)->text)];
	struct run_msg m;

	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	cr_assert_eq(run_msg_send(pair[0], RUN_MSG_ERROR, EPERM, text), 0);
	cr_assert_eq(run_msg_expect(pair[1], RUN_MSG_GO, &m), -EPERM);
	cr_assert_eq(strlen(m.text), sizeof(m.text) - 1);
	cr_assert_eq(strspn(m.text, "x"), sizeof(m.text) - 1);
}

Test(channel, a_received_text_is_always_terminated)
{
	struct run_msg raw, m;

	/* a peer that fills the text to its last byte */
	memset(&raw, 'y', sizeof(raw));
	raw.type = RUN_MSG_ERROR;
	raw.value = EACCES;
	cr_assert_eq(send(pair[0], &raw, sizeof(raw), 0), (ssize_t)sizeof(raw));
	cr_assert_eq(run_msg_recv(pair[1], &m), 0);
	cr_assert_eq(strlen(m.text), sizeof(m.text) - 1);
}

Test(channel, a_bad_descriptor_is_its_errno)
{
	struct run_msg m;

	cr_assert_eq(run_msg_send(-1, RUN_MSG_GO, 0, NULL), -EBADF);
	cr_assert_eq(run_msg_recv(-1, &m), -EBADF);
}
