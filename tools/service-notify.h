/* Tells a service manager how the mount is doing, when one asked: systemd
 * sets NOTIFY_SOCKET for a Type=notify unit (contrib/systemd/oz0fs@.service),
 * which counts as started only once READY=1 comes. Without NOTIFY_SOCKET
 * nothing is sent.
 *
 * A message that cannot be sent is logged as a warning and the mount goes
 * on: the manager times the start out by itself, and a mount that is live
 * should not be torn down for want of a message. */
#pragma once

/* The mount answers: READY=1. Returns 0 (sent, or nobody asked) or -errno. */
int service_notify_ready(void);

/* The mount is going away (unmounted, or SIGTERM): STOPPING=1. Returns 0 or
 * -errno. */
int service_notify_stopping(void);
