/* The messages to a service manager (tools/service-notify.c): each test
 * listens on a datagram socket of its own, named by NOTIFY_SOCKET as systemd
 * names its own, and reads what arrives. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tests/unit/scratch-dir.h"
#include "tools/service-notify.h"

static int listener = -1;

static void setup(void)
{
	scratch_make();
}

static void teardown(void)
{
	if (listener >= 0)
		close(listener);
	scratch_remove();
}

TestSuite(service_notify, .init = setup, .fini = teardown);

/* Listens on ADDRESS (a path, or "@name" for an abstract socket) and points
 * NOTIFY_SOCKET at it. */
static void listen_on(const char *address)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t len = strlen(address);

	cr_assert_lt(len, sizeof(sa.sun_path));
	memcpy(sa.sun_path, address, len);
	if (address[0] == '@')
		sa.sun_path[0] = '\0';
	listener = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(listener, 0, "socket: %m");
	cr_assert_eq(bind(listener, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)), 0,
	             "bind %s: %m", address);
	cr_assert_eq(setenv("NOTIFY_SOCKET", address, 1), 0);
}

/* The next datagram (waiting up to TIMEOUT_MS), or NULL when none came. */
static char *next_message(int timeout_ms)
{
	struct pollfd p = {.fd = listener, .events = POLLIN};
	char buf[256];

	if (poll(&p, 1, timeout_ms) != 1)
		return NULL;
	ssize_t n = recv(listener, buf, sizeof(buf) - 1, 0);
	cr_assert_geq(n, 0, "recv: %m");
	buf[n] = '\0';
	return strdup(buf);
}

/* MESSAGE holds the line LINE. */
static bool has_line(const char *message, const char *line)
{
	size_t len = strlen(line);

	for (const char *p = message; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, line, len) == 0 && (p[len] == '\n' || p[len] == '\0'))
			return true;
	return false;
}

/* SEND, with a listener on a socket file, sends a message with the line
 * LINE and without the line OTHER. */
static void sends(int (*send)(void), const char *line, const char *other)
{
	_cleanup_free_ char *path = scratch_path("notify");

	listen_on(path);
	cr_assert_eq(send(), 0);
	_cleanup_free_ char *m = next_message(1000);
	cr_assert_not_null(m, "no message came");
	cr_assert(has_line(m, line), "got '%s', expected %s", m, line);
	cr_assert(!has_line(m, other), "got '%s', with %s", m, other);
}

Test(service_notify, ready_is_sent_to_the_socket)
{
	sends(service_notify_ready, "READY=1", "STOPPING=1");
}

Test(service_notify, stopping_is_sent_to_the_socket)
{
	sends(service_notify_stopping, "STOPPING=1", "READY=1");
}

Test(service_notify, an_abstract_socket_is_reached)
{
	_cleanup_free_ char *name = NULL;

	cr_assert_neq(asprintf(&name, "@oz0-notify-test-%d", (int)getpid()), -1);
	listen_on(name);
	cr_assert_eq(service_notify_ready(), 0);
	_cleanup_free_ char *m = next_message(1000);
	cr_assert_not_null(m, "no message came");
	cr_assert(has_line(m, "READY=1"), "got '%s'", m);
}

Test(service_notify, nothing_is_sent_when_nobody_asked)
{
	_cleanup_free_ char *path = scratch_path("notify");

	listen_on(path);
	cr_assert_eq(unsetenv("NOTIFY_SOCKET"), 0);
	cr_assert_eq(service_notify_ready(), 0);
	cr_assert_eq(service_notify_stopping(), 0);
	cr_assert_null(next_message(100), "a message came though NOTIFY_SOCKET was unset");
}

Test(service_notify, a_socket_that_is_not_there_is_an_error)
{
	_cleanup_free_ char *path = scratch_path("none");

	cr_assert_eq(setenv("NOTIFY_SOCKET", path, 1), 0);
	int r = service_notify_ready();
	cr_assert(r == -ENOENT || r == -ECONNREFUSED, "got %d (%s)", r, strerror(-r));
}
