/* The runner and its sandbox speak over one SOCK_SEQPACKET pair, one
 * message per packet, so neither side parses a stream. */
#pragma once

#include <stddef.h>

enum run_msg_type {
	RUN_MSG_GO = 1,   /* runner → sandbox: placed in the cgroup; init may start; its user namespace is mapped */
	RUN_MSG_PID,      /* sandbox → runner: the sandbox's init, as the runner sees it (VALUE) */
	RUN_MSG_MAP_ME,   /* init → runner: a new user namespace waits for its maps */
	RUN_MSG_TERM,     /* runner → init: SIGTERM to every process of the sandbox */
	RUN_MSG_EXITED,   /* init → runner: the command's wait status (VALUE) */
	RUN_MSG_NOT_RUN,  /* init → runner: ARGV[0] could not be executed (VALUE: errno) */
	RUN_MSG_ERROR,    /* sandbox → runner: it could not be set up (TEXT, VALUE: errno) */
};

struct run_msg {
	int type;
	int value;
	char text[496];
};

/* Sends one message (TEXT may be NULL): 0, or -errno. */
int run_msg_send(int fd, int type, int value, const char *text);
/* Receives one (blocking): 0, -EPIPE when the other side closed, or -errno. */
int run_msg_recv(int fd, struct run_msg *m);
/* Waits for a message of TYPE, anything else than an error being a
 * protocol fault: 0, or -errno (-EPROTO; an RUN_MSG_ERROR's errno, with
 * its text in *M). */
int run_msg_expect(int fd, int type, struct run_msg *m);
