/* The audit log: one JSON line per refusal, never silent, one per event
 * the live model notices (a git directory made during the mount, a
 * dangerous change in one), and one per file written for an agent
 * (oz0fs --write), before it is written.
 *
 * {"time":"2026-11-30T08:00:00.123Z","op":"rename","path":".git/config",
 *  "name":"config","flags":"0x0","rule":"protected","reason":"...","pid":42,"uid":1000}
 *
 * Lines go to a file (O_APPEND, one write(2) per line so concurrent writers do
 * not interleave), else to syslog when daemonised, else to stderr. */
#pragma once

#include <stdio.h>
#include <sys/types.h>

#include "policy.h"

enum audit_sink {
	AUDIT_STDERR,
	AUDIT_SYSLOG,
	AUDIT_FILE,
};

struct audit;

/* FILE is used for AUDIT_FILE: opened O_APPEND, made with mode 0600 when
 * missing; as an untrusted path, O_NOFOLLOW|O_NONBLOCK. Returns 0, -ELOOP for
 * a symbolic link, -EINVAL for what is not a regular file (a FIFO, a folder)
 * or no FILE, or the open's -errno. */
int audit_open(enum audit_sink sink, const char *file, struct audit **out);
/* audit_open(AUDIT_FILE, FILE), refusing a file inside the tree open as
 * TREE_FD, or a hard link on its file system (see common/tree-place.h), with
 * -EXDEV; a file this open made is removed again. On failure *ERRMSG is a
 * malloc'd line, "cannot open the audit log 'FILE': why: what to do". */
int audit_open_outside(const char *file, int tree_fd, struct audit **out, char **errmsg);
void audit_close(struct audit *a);
/* Also sends every line to syslog ([audit] syslog = yes), whatever the sink. */
void audit_also_syslog(struct audit *a);

/* The writers below return 0 when the sink took the whole line: the file or
 * stderr one write(2) of all of it, or syslog (which tells nothing back, so
 * a syslog sink always counts). A line the file or stderr did not take
 * still goes to syslog, never silent, but that does not count: the writer
 * returns -errno (-ENOSPC for a short write, -ENOMEM), and a caller that
 * must not act unrecorded does not act. */

/* Writes one refusal. OP_NAME is policy_op_name() or a name of the caller's;
 * FLAGS are the operation's flags (open flags, rename flags, setattr mask). */
int audit_refusal(struct audit *a, const char *op_name, const struct policy_verdict *v,
		  unsigned long flags, pid_t pid, uid_t uid);

/* Writes one event the model noticed (see git/model.h), not a refusal:
 * {"time":"...","event":"new-git-dir","path":"sub/.git","reason":"..."} */
int audit_event(struct audit *a, const char *event, const char *path, const char *reason);

#define AUDIT_EVENT_FILE_WRITE "run.file_write"

/* Writes the line for a file about to be written for an agent (seed 000,
 * "Audit file writes before applying them"), the path in the private part:
 * {"time":"...","event":"run.file_write","size":12,"sha256":"<64 hex>",
 *  "private":{"path":"src/a.c"}}
 * A file sink's line also reaches the disk (fdatasync) before this returns
 * 0, so a write the log could not keep is not made either. */
int audit_file_write(struct audit *a, unsigned long long size, const char *sha256_hex, const char *path);

/* Formats the JSON line (with '\n') into BUF; returns its length, or -ENOSPC. Exposed for tests. */
int audit_format(char *buf, size_t size, const char *op_name, const struct policy_verdict *v,
		 unsigned long flags, pid_t pid, uid_t uid, const struct timespec *when);
