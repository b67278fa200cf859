#include "config.h"

#include <errno.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "common/log.h"
#include "tools/service-notify.h"

/* libsystemd's sd_notify rather than a datagram of our own: it is already
 * linked (the runner's sd-bus), and it knows the socket forms a manager may
 * hand over (a path, an abstract name, vsock). NOTIFY_SOCKET is kept, so that
 * the stopping message finds it too. */
static int notify(const char *state, const char *what)
{
	int r = sd_notify(0, state);

	if (r < 0) {
		log_warning("cannot tell the service manager %s: %s", what, strerror(-r));
		return r;
	}
	return 0;
}

int service_notify_ready(void)
{
	return notify("READY=1\nSTATUS=Mounted", "the mount is live");
}

int service_notify_stopping(void)
{
	return notify("STOPPING=1\nSTATUS=Unmounting", "the mount is going away");
}
