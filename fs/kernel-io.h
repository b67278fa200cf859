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
 *
 * And FUSE passthrough (protocol 7.40), which libfuse 3.14 cannot negotiate:
 * when op_init accepts it, the INIT reply says so, and an open or create
 * reply may name a backing file (an fd the daemon registered with the
 * kernel) that the kernel then reads and writes itself, without a request
 * per call. The reply patch is noted per thread, as the flags above.
 *
 * And FUSE over io_uring (protocol 7.42), likewise unknown to libfuse 3.14:
 * when op_init accepts it, the rings are set up before the INIT reply says
 * so, and start once the kernel has it (fs/uring.h). The ring threads hand
 * their requests through kernel_io_note_request, and their replies come
 * through the same writev hook, patched alike, which passes them to the
 * ring instead of /dev/fuse.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct fuse_session;

/* Installs the hooks on the session's (mounted) fd. Returns 0 or -errno. */
int kernel_io_install(struct fuse_session *se);
/* Notes, for the thread about to hand it to libfuse, what libfuse will not
 * pass on in the request BUF of LEN bytes: the kill-set-id flags, O_TMPFILE
 * (rewritten in place to a CREATE), INIT's offers. The read hook calls it,
 * and a ring thread (fs/uring.h) for each request it rebuilds. */
void kernel_io_note_request(char *buf, size_t len);
/* Whether the request this thread is handling asked to drop set-id bits. */
bool kernel_io_kill_suidgid(void);
/* Whether the CREATE this thread is handling is an O_TMPFILE open. */
bool kernel_io_tmpfile(void);

/* During op_init: the INIT request offered passthrough and this daemon may
 * use it (it has CAP_SYS_ADMIN). */
bool kernel_io_passthrough_offered(void);
/* During op_init: accept passthrough in the INIT reply (if offered). The
 * kernel refuses it beside the writeback cache, so op_init must not want
 * that. */
void kernel_io_passthrough_accept(void);
/* During op_init: the INIT request offered FUSE over io_uring (the kernel
 * has it, and its enable_uring parameter is Y). */
bool kernel_io_uring_offered(void);
/* During op_init: accept it in the INIT reply (if offered) when the rings
 * can be set up (fs/uring.h). libfuse must then not splice replies to
 * /dev/fuse: a reply to a ring's request goes through the writev hook. */
void kernel_io_uring_accept(void);
/* After INIT: the kernel granted passthrough. */
bool kernel_io_passthrough(void);
/* Registers the open file FD as a backing file. Returns its id (> 0), or
 * -errno: -EPERM when passthrough is not granted or not allowed to this
 * daemon, -ELOOP when FD's file system is stacked too deep. The kernel holds
 * its own reference to the file: FD may be closed afterwards. */
int kernel_io_backing_open(int fd);
/* Drops the registration (open files that use it keep the file). */
void kernel_io_backing_close(int id);
/* The reply to the open or create this thread is handling is to carry
 * FOPEN_PASSTHROUGH and backing file ID. */
void kernel_io_reply_backing(int id);
