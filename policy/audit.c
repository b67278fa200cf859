#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/tree-place.h"
#include "common/utf8.h"
#include "policy/audit.h"

/* Most lines fit; a longer one (a long path of escaped bytes) is malloc'd. */
#define AUDIT_LINE_STACK 2048

struct audit {
	enum audit_sink sink;
	int fd;                /* AUDIT_FILE's descriptor (immutable), else -1 */
	bool also_syslog;      /* set before the first line, then immutable */
	pthread_mutex_t lock;  /* serialises writes, so lines never interleave */
};

/* An snprintf-like buffer: it counts every byte it is given and stores those
 * that fit, so one pass both formats and measures. */
struct out {
	char *buf;
	size_t size, len;
};

static void out_char(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out_printf(struct out *o, const char *fmt, ...)
{
	size_t room = o->len < o->size ? o->size - o->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

/* A JSON string, or null. Control characters, DEL and every byte that is not
 * part of well-formed UTF-8 become \u00XX, so the line is valid JSON whatever
 * bytes an agent put in a file name. */
static void out_json_string(struct out *o, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!str) {
		out_printf(o, "null");
		return;
	}
	out_char(o, '"');
	while (*s) {
		size_t n = *s >= 0x80 ? utf8_sequence(s, strnlen((const char *)s, 4)) : 1;

		if (*s == '"' || *s == '\\') {
			out_char(o, '\\');
			out_char(o, (char)*s);
		} else if (*s < 0x20 || *s == 0x7f || n == 0) {
			out_printf(o, "\\u%04x", *s);
			n = 1;
		} else {
			for (size_t i = 0; i < n; i++)
				out_char(o, (char)s[i]);
		}
		s += n;
	}
	out_char(o, '"');
}

static void out_time(struct out *o, const struct timespec *when)
{
	struct tm tm;
	char stamp[32];

	if (!gmtime_r(&when->tv_sec, &tm) || strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
		out_printf(o, "null");
		return;
	}
	out_printf(o, "\"%s.%03ldZ\"", stamp, when->tv_nsec / 1000000);
}

/* What one line says: a refusal, an event the model noticed, or a file
 * written for an agent. */
struct audit_line {
	const char *op_name; /* a refusal's operation; NULL for the others */
	const struct policy_verdict *v;
	unsigned long flags;
	pid_t pid;
	uid_t uid;
	const char *event; /* an event's kind, or AUDIT_EVENT_FILE_WRITE */
	const char *path;
	const char *reason;
	unsigned long long size; /* a file write's */
	const char *sha256;      /* a file write's, in hex; NULL for the others */
};

static void out_refusal(struct out *o, const struct audit_line *l)
{
	out_printf(o, ",\"op\":");
	out_json_string(o, l->op_name);
	out_printf(o, ",\"path\":");
	out_json_string(o, l->v->path);
	out_printf(o, ",\"name\":");
	out_json_string(o, l->v->name);
	out_printf(o, ",\"flags\":\"0x%lx\",\"rule\":", l->flags);
	out_json_string(o, l->v->rule);
	out_printf(o, ",\"reason\":");
	out_json_string(o, l->v->reason);
	out_printf(o, ",\"pid\":%ld,\"uid\":%lu}\n", (long)l->pid, (unsigned long)l->uid);
}

static void out_event(struct out *o, const struct audit_line *l)
{
	out_printf(o, ",\"event\":");
	out_json_string(o, l->event);
	out_printf(o, ",\"path\":");
	out_json_string(o, l->path);
	out_printf(o, ",\"reason\":");
	out_json_string(o, l->reason);
	out_printf(o, "}\n");
}

/* The path goes in "private" (seed 000): a log shipped on may drop that part
 * and keep what was written, how much and its digest. */
static void out_file_write(struct out *o, const struct audit_line *l)
{
	out_printf(o, ",\"event\":");
	out_json_string(o, l->event);
	out_printf(o, ",\"size\":%llu,\"sha256\":", l->size);
	out_json_string(o, l->sha256);
	out_printf(o, ",\"private\":{\"path\":");
	out_json_string(o, l->path);
	out_printf(o, "}}\n");
}

/* Formats into BUF (NUL-terminated when anything fits) and returns the full
 * length the line needs, without the NUL. */
static size_t format_line(char *buf, size_t size, const struct audit_line *l, const struct timespec *when)
{
	struct out o = { .buf = buf, .size = size };

	out_printf(&o, "{\"time\":");
	out_time(&o, when);
	if (l->op_name)
		out_refusal(&o, l);
	else if (l->sha256)
		out_file_write(&o, l);
	else
		out_event(&o, l);
	if (size > 0)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len;
}

int audit_format(char *buf, size_t size, const char *op_name, const struct policy_verdict *v,
		 unsigned long flags, pid_t pid, uid_t uid, const struct timespec *when)
{
	const struct audit_line l = { .op_name = op_name, .v = v, .flags = flags, .pid = pid, .uid = uid };
	size_t n = format_line(buf, size, &l, when);

	return n < size ? (int)n : -ENOSPC;
}

/* The audit log is a path from the command line or the configuration, opened
 * as every untrusted path is: a link there is not followed, and O_NONBLOCK
 * keeps a FIFO from stalling the start; only a regular file is kept. Sets
 * *CREATED when this open made the file. */
static int open_log(const char *file, bool *created)
{
	const int flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK;
	_cleanup_close_ int fd = open(file, flags | O_CREAT | O_EXCL, 0600);
	struct stat st;

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(file, flags);
	if (fd < 0)
		/* ENXIO: a FIFO without a reader; EISDIR: a folder. */
		return errno == ENXIO || errno == EISDIR ? -EINVAL : negative_errno();
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (fcntl(fd, F_SETFL, O_WRONLY | O_APPEND) < 0)
		return negative_errno();
	return TAKE_FD(fd);
}

/* Removes the file open as FD that this open made, if FILE still names it. */
static void remove_made(const char *file, int fd)
{
	struct stat a, b;

	if (fstat(fd, &a) == 0 && lstat(file, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		unlink(file);
}

static int refuse_log(char **errmsg, int r, const char *file, const char *why)
{
	if (asprintf(errmsg, "cannot open the audit log '%s': %s", file, why) < 0)
		*errmsg = NULL;
	return r;
}

/* The refusal of a log that cannot be opened, with what to do. */
static int open_error(char **errmsg, int r, const char *file)
{
	if (r == -ELOOP)
		return refuse_log(errmsg, r, file, "it is a symbolic link: name the file itself");
	if (r == -EINVAL)
		return refuse_log(errmsg, r, file, "not a regular file: name a regular file (it is made when missing)");
	return refuse_log(errmsg, r, file, strerror(-r));
}

/* Refuses a log the mount would put in the agent's hands. */
static int check_outside(const char *file, int fd, bool created, int tree_fd, char **errmsg)
{
	_cleanup_free_ char *why = NULL;
	int place = tree_place(fd, tree_fd);

	if (place == TREE_PLACE_OUTSIDE)
		return 0;
	if (created)
		remove_made(file, fd);
	if (place < 0) {
		if (asprintf(&why, "cannot tell whether it lies inside the tree: %s", strerror(-place)) < 0)
			return -ENOMEM;
		return refuse_log(errmsg, place, file, why);
	}
	if (asprintf(&why, "%s: keep it outside the tree", tree_place_problem((enum tree_place)place)) < 0)
		return -ENOMEM;
	return refuse_log(errmsg, -EXDEV, file, why);
}

static int audit_new(enum audit_sink sink, int fd, struct audit **out)
{
	_cleanup_free_ struct audit *a = calloc(1, sizeof(*a));
	int r;

	if (!a)
		return -ENOMEM;
	a->sink = sink;
	a->fd = fd;
	r = pthread_mutex_init(&a->lock, NULL);
	if (r != 0)
		return -r;
	*out = TAKE_PTR(a);
	return 0;
}

int audit_open(enum audit_sink sink, const char *file, struct audit **out)
{
	_cleanup_close_ int fd = -1;
	bool created;
	int r;

	if (sink == AUDIT_FILE) {
		if (!file)
			return -EINVAL;
		fd = open_log(file, &created);
		if (fd < 0)
			return fd;
	}
	r = audit_new(sink, fd, out);
	if (r >= 0)
		TAKE_FD(fd);
	return r;
}

int audit_open_outside(const char *file, int tree_fd, struct audit **out, char **errmsg)
{
	_cleanup_close_ int fd = -1;
	bool created;
	int r;

	*errmsg = NULL;
	fd = open_log(file, &created);
	if (fd < 0)
		return open_error(errmsg, fd, file);
	r = check_outside(file, fd, created, tree_fd, errmsg);
	if (r >= 0)
		r = audit_new(AUDIT_FILE, fd, out);
	if (r >= 0)
		TAKE_FD(fd);
	return r;
}

void audit_close(struct audit *a)
{
	if (!a)
		return;
	closep(&a->fd);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

void audit_also_syslog(struct audit *a)
{
	a->also_syslog = true;
}

/* One write(2) for the whole line: with O_APPEND the kernel places it whole
 * at the end, so other writers (another mount, logrotate's copy) never split
 * it. A short write counts as a failure (a full disk, past the file size
 * limit): 0, -ENOSPC for a short write, or the write's -errno. */
static int write_whole(int fd, const char *line, size_t len)
{
	ssize_t n;

	do
		n = write(fd, line, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return negative_errno();
	return n == (ssize_t)len ? 0 : -ENOSPC;
}

static void send_syslog(const char *line, size_t len)
{
	/* Without the trailing newline: syslog makes its own records. */
	syslog(LOG_AUTHPRIV | LOG_WARNING, "%.*s", (int)(len > 0 ? len - 1 : 0), line);
}

/* Sends the line to the sink; with SYNC a file sink's line is also on the
 * disk before this returns, so that a disk that takes the write into the
 * page cache but has no room for it (delayed allocation) or fails it says
 * so now. 0 when the sink took it whole. syslog(3) tells nothing back: a
 * syslog sink counts as taking every line, but the syslog fallback for a
 * line the file or stderr did not take does not. */
static int emit(struct audit *a, const char *line, size_t len, bool sync)
{
	enum audit_sink sink = a ? a->sink : AUDIT_STDERR;
	int fd = sink == AUDIT_FILE ? a->fd : STDERR_FILENO;
	int r;

	if (sink == AUDIT_SYSLOG) {
		send_syslog(line, len);
		return 0;
	}
	if (a)
		pthread_mutex_lock(&a->lock);
	r = write_whole(fd, line, len);
	if (r == 0 && sync && sink == AUDIT_FILE && fdatasync(fd) < 0)
		r = negative_errno();
	if (a)
		pthread_mutex_unlock(&a->lock);
	/* A refusal is never silent: what the file or stderr did not take goes
	 * to syslog. */
	if (r < 0 || (a && a->also_syslog))
		send_syslog(line, len);
	return r;
}

/* Writes L whole: on the stack when it fits, else once more on the heap. */
static int write_line(struct audit *a, const struct audit_line *l, bool sync)
{
	char stack[AUDIT_LINE_STACK];
	_cleanup_free_ char *heap = NULL;
	struct timespec now;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &now);
	n = format_line(stack, sizeof(stack), l, &now);
	if (n < sizeof(stack))
		return emit(a, stack, n, sync);
	heap = malloc(n + 1);
	if (!heap) {
		/* Still say that something happened, without the long parts. */
		syslog(LOG_AUTHPRIV | LOG_WARNING, "%s %s; the audit line did not fit in memory",
		       l->op_name ? "refused" : "event", l->op_name ? l->op_name : l->event);
		return -ENOMEM;
	}
	format_line(heap, n + 1, l, &now);
	return emit(a, heap, n, sync);
}

int audit_refusal(struct audit *a, const char *op_name, const struct policy_verdict *v,
		  unsigned long flags, pid_t pid, uid_t uid)
{
	return write_line(a, &(struct audit_line){ .op_name = op_name ? op_name : "?", .v = v, .flags = flags,
						   .pid = pid, .uid = uid },
			  false);
}

int audit_event(struct audit *a, const char *event, const char *path, const char *reason)
{
	return write_line(a, &(struct audit_line){ .event = event, .path = path, .reason = reason }, false);
}

int audit_file_write(struct audit *a, unsigned long long size, const char *sha256_hex, const char *path)
{
	return write_line(a, &(struct audit_line){ .event = AUDIT_EVENT_FILE_WRITE, .size = size,
						   .sha256 = sha256_hex, .path = path },
			  true);
}
