#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "common/cleanup.h"
#include "tools/run/channel.h"

int run_msg_send(int fd, int type, int value, const char *text)
{
	struct run_msg m = {.type = type, .value = value};

	if (text)
		snprintf(m.text, sizeof(m.text), "%s", text);
	for (;;) {
		if (send(fd, &m, sizeof(m), MSG_NOSIGNAL) == (ssize_t)sizeof(m))
			return 0;
		if (errno != EINTR)
			return negative_errno();
	}
}

int run_msg_recv(int fd, struct run_msg *m)
{
	for (;;) {
		ssize_t n = recv(fd, m, sizeof(*m), 0);
		if (n == (ssize_t)sizeof(*m)) {
			m->text[sizeof(m->text) - 1] = '\0';
			return 0;
		}
		if (n == 0)
			return -EPIPE;
		if (n > 0)
			return -EPROTO;
		if (errno != EINTR)
			return negative_errno();
	}
}

int run_msg_expect(int fd, int type, struct run_msg *m)
{
	int k = run_msg_recv(fd, m);

	if (k < 0)
		return k;
	if (m->type == RUN_MSG_ERROR)
		return m->value > 0 ? -m->value : -EIO;
	return m->type == type ? 0 : -EPROTO;
}
