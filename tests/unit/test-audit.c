/* The audit log: the exact line, JSON escaping of hostile bytes (checked with
 * Python's strict JSON reader), the file sink, and whole lines under
 * concurrent writers. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "policy/audit.h"

static const struct timespec when = { .tv_sec = 1796025600, .tv_nsec = 123456789 }; /* 2026-11-30T08:00:00.123Z */

static char *format(const char *op, const struct policy_verdict *v, unsigned long flags)
{
	char *buf = malloc(65536);

	cr_assert_not_null(buf);
	cr_assert_geq(audit_format(buf, 65536, op, v, flags, 42, 1000, &when), 0);
	return buf;
}

Test(audit, exact_line)
{
	struct policy_verdict v = {
		.rule = POLICY_RULE_PROTECTED,
		.reason = "configuration of the git directory .git: it can name programs git runs",
		.path = ".git/config",
		.name = "config",
	};
	_cleanup_free_ char *line = format("rename", &v, 0x1);

	cr_assert_str_eq(line, "{\"time\":\"2026-11-30T08:00:00.123Z\",\"op\":\"rename\",\"path\":\".git/config\","
			       "\"name\":\"config\",\"flags\":\"0x1\",\"rule\":\"protected\","
			       "\"reason\":\"configuration of the git directory .git: it can name programs git "
			       "runs\",\"pid\":42,\"uid\":1000}\n");
}

Test(audit, null_name)
{
	struct policy_verdict v = { .rule = "anchor", .reason = "r", .path = ".git", .name = NULL };
	_cleanup_free_ char *line = format("write", &v, 0x8241);

	cr_assert_not_null(strstr(line, "\"name\":null,\"flags\":\"0x8241\""), "%s", line);
}

Test(audit, escaping)
{
	struct policy_verdict v = {
		.rule = "r",
		.reason = "quote \" backslash \\ tab \t nl \n del \x7f",
		.path = "caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x98\x80", /* valid UTF-8 stays as it is */
		.name = "\x01\x1f",
	};
	_cleanup_free_ char *line = format("create", &v, 0);

	cr_assert_not_null(strstr(line, "\"reason\":\"quote \\\" backslash \\\\ tab \\u0009 nl \\u000a del "
					 "\\u007f\""),
			   "%s", line);
	cr_assert_not_null(strstr(line, "\"path\":\"caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x98\x80\""), "%s", line);
	cr_assert_not_null(strstr(line, "\"name\":\"\\u0001\\u001f\""), "%s", line);
	cr_assert_eq(strchr(line, '\n'), line + strlen(line) - 1, "one line: %s", line);
}

Test(audit, invalid_utf8_is_escaped)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "\xff", "\\u00ff" },                         /* never in UTF-8 */
		{ "\xc3", "\\u00c3" },                         /* cut short at the end */
		{ "\xc3(", "\\u00c3(" },                       /* cut short by ASCII */
		{ "\xc0\xaf", "\\u00c0\\u00af" },              /* overlong '/' */
		{ "\xe0\x80\xaf", "\\u00e0\\u0080\\u00af" },   /* overlong, 3 bytes */
		{ "\xed\xa0\x80", "\\u00ed\\u00a0\\u0080" },   /* a surrogate */
		{ "\xf4\x90\x80\x80", "\\u00f4\\u0090\\u0080\\u0080" }, /* past U+10FFFF */
		{ "\x80", "\\u0080" },                         /* a lone continuation byte */
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct policy_verdict v = { .rule = "r", .reason = "r", .path = cases[i].in };
		_cleanup_free_ char *line = format("write", &v, 0), *want = NULL;

		cr_assert_neq(asprintf(&want, "\"path\":\"%s\"", cases[i].out), -1);
		cr_assert_not_null(strstr(line, want), "case %zu: %s lacks %s", i, line, want);
	}
}

/* Feeds LINE to python3's json module over a strict UTF-8 decode and checks
 * that the path reads back as PATH: valid UTF-8 as itself, every other byte
 * as the code point of its value. PATH travels as hex, free of any locale. */
static void assert_python_reads(const char *line, const char *path)
{
	const char *prog = "import json,sys\n"
			   "raw=sys.stdin.buffer.read()\n"
			   "assert raw.count(b'\\n')==1 and raw.endswith(b'\\n')\n"
			   "d=json.loads(raw.decode('utf-8','strict'))\n"
			   "assert sorted(d)==sorted(['time','op','path','name','flags','rule','reason','pid','uid']),d\n"
			   "s=bytes.fromhex(sys.argv[1]).decode('utf-8','surrogateescape')\n"
			   "want=''.join(chr(ord(c)-0xdc00) if 0xdc80<=ord(c)<=0xdcff else c for c in s)\n"
			   "assert d['path']==want,(d['path'],want)\n"
			   "assert d['pid']==42 and d['uid']==1000 and d['name'] is None\n";
	_cleanup_free_ char *hex = malloc(2 * strlen(path) + 1);
	int in[2];
	pid_t pid;
	int status;

	if (access("/usr/bin/python3", X_OK) != 0)
		cr_skip_test("python3 is missing");
	cr_assert_not_null(hex);
	for (size_t i = 0; path[i]; i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)path[i]);
	hex[2 * strlen(path)] = '\0';
	cr_assert_eq(pipe(in), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(in[0], 0);
		close(in[0]);
		close(in[1]);
		execl("/usr/bin/python3", "python3", "-c", prog, hex, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	cr_assert_eq(write(in[1], line, strlen(line)), (ssize_t)strlen(line));
	close(in[1]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "python3 refused %s", line);
}

Test(audit, hostile_bytes_give_valid_json)
{
	char path[256];
	struct policy_verdict v = { .rule = "r", .reason = "\"\\\x7f", .path = path, .name = NULL };
	_cleanup_free_ char *line = NULL;

	/* Every byte value but NUL, twice, in an order that cuts sequences. */
	for (int i = 0; i < 255; i++)
		path[i] = (char)(255 - i);
	path[255] = '\0';
	line = format("write", &v, 0);
	assert_python_reads(line, path);
}

Test(audit, too_small_buffer)
{
	struct policy_verdict v = { .rule = "r", .reason = "r", .path = "p" };
	char buf[32];

	cr_assert_eq(audit_format(buf, sizeof(buf), "write", &v, 0, 1, 1, &when), -ENOSPC);
	cr_assert_eq(strlen(buf), sizeof(buf) - 1); /* truncated, still a string */
}

static char *read_all(const char *file)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	FILE *f = fopen(file, "re");
	char *line = NULL;
	size_t cap = 0;
	FILE *out = open_memstream(&buf, &size);

	cr_assert_not_null(f);
	cr_assert_not_null(out);
	while (getline(&line, &cap, f) > 0)
		fputs(line, out);
	free(line);
	fclose(f);
	fclose(out);
	return TAKE_PTR(buf);
}

/* A fresh folder DIR (a mkdtemp template) and the path NAME in it. */
static char *temp_path(char *dir, const char *name)
{
	char *path;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_neq(asprintf(&path, "%s/%s", dir, name), -1);
	return path;
}

static void remove_temp(const char *dir, const char *path)
{
	unlink(path);
	rmdir(dir);
}

Test(audit, file_sink)
{
	char dir[] = P_tmpdir "/oz0-audit-XXXXXX";
	_cleanup_free_ char *file = NULL, *text = NULL;
	struct policy_verdict v = { .rule = "frozen-dir", .reason = "hooks", .path = ".git/hooks", .name = "x" };
	struct audit *a = NULL;
	struct stat st;

	file = temp_path(dir, "audit.log");
	cr_assert_eq(audit_open(AUDIT_FILE, file, &a), 0);
	audit_refusal(a, "create", &v, 0xc1, 7, 8);
	audit_close(a);
	cr_assert_eq(audit_open(AUDIT_FILE, file, &a), 0); /* appends */
	audit_refusal(a, "mkdir", &v, 0, 7, 8);
	audit_close(a);

	cr_assert_eq(stat(file, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	text = read_all(file);
	cr_assert_not_null(strstr(text, "\"op\":\"create\""), "%s", text);
	cr_assert_not_null(strstr(text, "\"op\":\"mkdir\""), "%s", text);
	cr_assert_not_null(strstr(text, "\"flags\":\"0xc1\",\"rule\":\"frozen-dir\""), "%s", text);
	cr_assert_not_null(strstr(text, "\"pid\":7,\"uid\":8}\n"), "%s", text);
	remove_temp(dir, file);
}

Test(audit, open_errors)
{
	struct audit *a = NULL;

	cr_assert_eq(audit_open(AUDIT_FILE, "/nonexistent-dir-oz0/audit.log", &a), -ENOENT);
	cr_assert_eq(audit_open(AUDIT_FILE, NULL, &a), -EINVAL);
	cr_assert_null(a);
}

Test(audit, stderr_sink_writes_the_line)
{
	char dir[] = P_tmpdir "/oz0-audit-XXXXXX";
	_cleanup_free_ char *file = NULL, *text = NULL;
	struct policy_verdict v = { .rule = "protected", .reason = "r", .path = ".envrc" };
	struct audit *a = NULL;
	int fd;

	file = temp_path(dir, "stderr");
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	close(fd);
	cr_assert_eq(audit_open(AUDIT_STDERR, NULL, &a), 0);
	audit_refusal(a, "write", &v, 0x241, 3, 4);
	audit_close(a);
	text = read_all(file);
	cr_assert(strncmp(text, "{\"time\":\"", 9) == 0, "%s", text);
	cr_assert_not_null(strstr(text, "\"path\":\".envrc\",\"name\":null,\"flags\":\"0x241\""), "%s", text);
	cr_assert_eq(strchr(text, '\n'), text + strlen(text) - 1);
	remove_temp(dir, file);
}

/* syslog() copies each record to stderr under LOG_PERROR, which lets the
 * test see what reached syslog. */
Test(audit, also_syslog_copies_file_lines)
{
	char dir[] = P_tmpdir "/oz0-audit-XXXXXX";
	_cleanup_free_ char *file = NULL, *logged = NULL, *errors = NULL, *text = NULL;
	struct policy_verdict v = { .rule = "protected", .reason = "r", .path = ".git/config" };
	struct audit *a = NULL;
	int fd;

	file = temp_path(dir, "audit.log");
	cr_assert_neq(asprintf(&errors, "%s/stderr", dir), -1);
	fd = open(errors, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	close(fd);
	openlog("test-audit", LOG_PERROR, LOG_USER);
	cr_assert_eq(audit_open(AUDIT_FILE, file, &a), 0);
	audit_also_syslog(a);
	audit_refusal(a, "write", &v, 0x1, 5, 6);
	audit_close(a);
	closelog();
	logged = read_all(file);
	text = read_all(errors);
	cr_assert_not_null(strstr(logged, "\"path\":\".git/config\""), "%s", logged);
	cr_assert_not_null(strstr(text, "\"path\":\".git/config\""), "syslog got: %s", text);
	unlink(errors);
	remove_temp(dir, file);
}

#define WRITERS 8
#define LINES_EACH 500

struct writer {
	struct audit *a;
	int id;
	const char *padding;
};

static void *write_lines(void *arg)
{
	struct writer *w = arg;
	char name[32];
	struct policy_verdict v = { .rule = "protected", .reason = w->padding, .path = ".git/config", .name = name };

	for (int i = 0; i < LINES_EACH; i++) {
		snprintf(name, sizeof(name), "w%d-%d", w->id, i);
		audit_refusal(w->a, "write", &v, 0, w->id, 0);
	}
	return NULL;
}

Test(audit, concurrent_writers_give_whole_lines)
{
	char dir[] = P_tmpdir "/oz0-audit-XXXXXX";
	_cleanup_free_ char *file = NULL, *padding = malloc(6000);
	pthread_t threads[WRITERS];
	struct writer w[WRITERS];
	struct audit *a = NULL;
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int count = 0;

	cr_assert_not_null(padding);
	/* Longer than the stack buffer and than PIPE_BUF, so it takes the heap path. */
	memset(padding, 'p', 5999);
	padding[5999] = '\0';
	file = temp_path(dir, "audit.log");
	cr_assert_eq(audit_open(AUDIT_FILE, file, &a), 0);
	for (int i = 0; i < WRITERS; i++) {
		w[i] = (struct writer){ .a = a, .id = i, .padding = padding };
		cr_assert_eq(pthread_create(&threads[i], NULL, write_lines, &w[i]), 0);
	}
	for (int i = 0; i < WRITERS; i++)
		pthread_join(threads[i], NULL);
	audit_close(a);

	f = fopen(file, "re");
	cr_assert_not_null(f);
	while ((n = getline(&line, &cap, f)) > 0) {
		cr_assert(strncmp(line, "{\"time\":", 8) == 0, "line %d starts badly", count);
		cr_assert(n > 2 && strcmp(line + n - 2, "}\n") == 0, "line %d ends badly", count);
		cr_assert_not_null(strstr(line, padding), "line %d lost its middle", count);
		count++;
	}
	free(line);
	fclose(f);
	cr_assert_eq(count, WRITERS * LINES_EACH);
	remove_temp(dir, file);
}

/* The log is an untrusted path: a FIFO must not stall the start (no reader:
 * open() would wait forever without O_NONBLOCK), a link is not followed,
 * and only a regular file is kept. */
Test(audit, only_a_regular_file)
{
	char dir[] = P_tmpdir "/oz0-audit-XXXXXX";
	_cleanup_free_ char *fifo = temp_path(dir, "fifo"), *sym = NULL, *target = NULL;
	struct audit *a = NULL;
	char *msg = NULL;

	cr_assert_neq(asprintf(&sym, "%s/link", dir), -1);
	cr_assert_neq(asprintf(&target, "%s/target", dir), -1);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(audit_open(AUDIT_FILE, fifo, &a), -EINVAL);
	cr_assert_eq(audit_open_outside(fifo, -1, &a, &msg), -EINVAL);
	cr_assert_not_null(strstr(msg, "not a regular file: name a regular file"), "%s", msg);
	free(msg);
	cr_assert_eq(audit_open(AUDIT_FILE, dir, &a), -EINVAL);
	cr_assert_eq(symlink(target, sym), 0);
	cr_assert_eq(audit_open_outside(sym, -1, &a, &msg), -ELOOP);
	cr_assert_not_null(strstr(msg, "it is a symbolic link: name the file itself"), "%s", msg);
	free(msg);
	cr_assert_eq(access(target, F_OK), -1, "the link's target was made");
	cr_assert_null(a);
	unlink(sym);
	remove_temp(dir, fifo);
}

/* A reader on the FIFO does not make it a log either. */
Test(audit, fifo_with_a_reader)
{
	char dir[] = P_tmpdir "/oz0-audit-XXXXXX";
	_cleanup_free_ char *fifo = temp_path(dir, "fifo");
	struct audit *a = NULL;

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	_cleanup_close_ int reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	cr_assert_geq(reader, 0);
	cr_assert_eq(audit_open(AUDIT_FILE, fifo, &a), -EINVAL);
	remove_temp(dir, fifo);
}

/* A log the agent could truncate through the mount is refused, and one
 * this open made for the purpose is removed again. */
Test(audit, refused_inside_the_tree)
{
	char tree_dir[] = P_tmpdir "/oz0-audit-tree-XXXXXX";
	_cleanup_free_ char *made = temp_path(tree_dir, "new.log"), *old = NULL;
	_cleanup_close_ int tree = open(tree_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct audit *a = NULL;
	char *msg = NULL;

	cr_assert_geq(tree, 0);
	cr_assert_eq(audit_open_outside(made, tree, &a, &msg), -EXDEV);
	cr_assert_not_null(strstr(msg, "inside the tree being mounted"), "%s", msg);
	cr_assert_not_null(strstr(msg, "keep it outside the tree"), "%s", msg);
	free(msg);
	cr_assert_eq(access(made, F_OK), -1, "the refused log was left in the tree");
	cr_assert_neq(asprintf(&old, "%s/old.log", tree_dir), -1);
	_cleanup_close_ int fd = open(old, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(audit_open_outside(old, tree, &a, &msg), -EXDEV);
	free(msg);
	cr_assert_eq(access(old, F_OK), 0, "a log that was there was removed");
	cr_assert_null(a);
	unlink(old);
	rmdir(tree_dir);
}

Test(audit, outside_the_tree_appends)
{
	char tree_dir[] = P_tmpdir "/oz0-audit-tree-XXXXXX", dir[] = P_tmpdir "/oz0-audit-XXXXXX";
	_cleanup_free_ char *file = temp_path(dir, "audit.log"), *text = NULL;
	struct policy_verdict v = { .rule = "protected", .reason = "r", .path = ".envrc" };
	struct audit *a = NULL;
	char *msg = NULL;

	cr_assert_not_null(mkdtemp(tree_dir));
	_cleanup_close_ int tree = open(tree_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(audit_open_outside(file, tree, &a, &msg), 0, "%s", msg);
		audit_refusal(a, i ? "second" : "first", &v, 0, 1, 2);
		audit_close(a);
	}
	text = read_all(file);
	cr_assert_not_null(strstr(text, "\"op\":\"first\""), "%s", text);
	cr_assert_not_null(strstr(text, "\"op\":\"second\""), "%s", text);
	remove_temp(dir, file);
	rmdir(tree_dir);
}

/* ---- What the writers report: whether the sink took the line ------------ */

static const char digest[] = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

Test(audit, file_write_line)
{
	char dir[] = P_tmpdir "/oz0-audit-XXXXXX";
	_cleanup_free_ char *file = temp_path(dir, "audit.log"), *text = NULL, *want = NULL;
	struct audit *a = NULL;

	cr_assert_eq(audit_open(AUDIT_FILE, file, &a), 0);
	cr_assert_eq(audit_file_write(a, 4, digest, "src/\"a\".c"), 0);
	audit_close(a);
	text = read_all(file);
	cr_assert(strncmp(text, "{\"time\":\"", 9) == 0, "%s", text);
	cr_assert_neq(asprintf(&want, "\",\"event\":\"run.file_write\",\"size\":4,\"sha256\":\"%s\","
				      "\"private\":{\"path\":\"src/\\\"a\\\".c\"}}\n",
			       digest),
		      -1);
	cr_assert_not_null(strstr(text, want), "%s", text);
	cr_assert_eq(strchr(text, '\n'), text + strlen(text) - 1, "one line: %s", text);
	remove_temp(dir, file);
}

Test(audit, writers_say_the_file_took_the_line)
{
	char dir[] = P_tmpdir "/oz0-audit-XXXXXX";
	_cleanup_free_ char *file = temp_path(dir, "audit.log");
	struct policy_verdict v = { .rule = "protected", .reason = "r", .path = ".envrc" };
	struct audit *a = NULL;

	cr_assert_eq(audit_open(AUDIT_FILE, file, &a), 0);
	cr_assert_eq(audit_refusal(a, "write", &v, 0, 1, 2), 0);
	cr_assert_eq(audit_event(a, "new-git-dir", "sub/.git", "r"), 0);
	cr_assert_eq(audit_file_write(a, 0, digest, "x"), 0);
	audit_close(a);
	remove_temp(dir, file);
}

/* A file that may grow by only a few bytes (RLIMIT_FSIZE) stands in for a
 * full disk: the kernel takes part of the line (a short write), then none
 * (EFBIG). Neither counts, though syslog still gets the line. */
Test(audit, a_full_file_does_not_count)
{
	char dir[] = P_tmpdir "/oz0-audit-XXXXXX";
	_cleanup_free_ char *file = temp_path(dir, "audit.log");
	struct policy_verdict v = { .rule = "protected", .reason = "r", .path = ".envrc" };
	struct rlimit small = { .rlim_cur = 40, .rlim_max = RLIM_INFINITY };
	struct audit *a = NULL;
	struct stat st;

	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(audit_open(AUDIT_FILE, file, &a), 0);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
	cr_assert_eq(audit_file_write(a, 1, digest, "x"), -ENOSPC);
	cr_assert_eq(audit_file_write(a, 1, digest, "x"), -EFBIG);
	cr_assert_eq(audit_refusal(a, "write", &v, 0, 1, 2), -EFBIG);
	cr_assert_eq(audit_event(a, "e", "p", "r"), -EFBIG);
	audit_close(a);
	cr_assert_eq(stat(file, &st), 0);
	cr_assert_eq(st.st_size, 40);
	remove_temp(dir, file);
}

Test(audit, a_closed_stderr_does_not_count)
{
	struct audit *a = NULL;

	cr_assert_eq(audit_open(AUDIT_STDERR, NULL, &a), 0);
	close(STDERR_FILENO);
	cr_assert_eq(audit_file_write(a, 1, digest, "x"), -EBADF);
	cr_assert_eq(audit_file_write(NULL, 1, digest, "x"), -EBADF);
	audit_close(a);
}

Test(audit, syslog_counts_as_taken)
{
	struct audit *a = NULL;

	cr_assert_eq(audit_open(AUDIT_SYSLOG, NULL, &a), 0);
	cr_assert_eq(audit_file_write(a, 1, digest, "x"), 0);
	audit_close(a);
}
