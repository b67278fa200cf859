/* Our own read and writev on /dev/fuse, to use a protocol feature that
 * libfuse 3.14 does not know: FUSE_HANDLE_KILLPRIV_V2.
 *
 * Without it the kernel asks the daemon for security.capability before every
 * write(2) (one round trip per call: 4 KiB writes run at a sixth of native
 * speed). With it the kernel remembers that a file has no privileges to drop
 * (SB_NOSEC), and instead tells the daemon, in the write, open or setattr
 * request, when a caller without CAP_FSETID writes or truncates a set-id
 * file; the daemon, which writes as root, then drops the bits itself
 * (fs_kill_suidgid). libfuse hides that flag, so the read hook notes it for
 * the thread that handles the request (libfuse reads and handles a request
 * on the same thread).
 *
 * It also passes O_TMPFILE on, which libfuse 3.14 answers ENOSYS: a TMPFILE
 * request has CREATE's arguments and reply, so it reaches op_create as one,
 * with kernel_io_tmpfile() true and the name "/".
 */
#pragma once

#include <stdbool.h>

struct fuse_session;

/* Installs the hooks on the session's (mounted) fd. Returns 0 or -errno. */
int kernel_io_install(struct fuse_session *se);
/* Whether the request this thread is handling asked to drop set-id bits. */
bool kernel_io_kill_suidgid(void);
/* Whether the CREATE this thread is handling is an O_TMPFILE open. */
bool kernel_io_tmpfile(void);
