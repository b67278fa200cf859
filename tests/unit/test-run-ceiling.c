#include "config.h"

/* The ceiling (tools/run/ceiling.h): the configuration's values and a fleet
 * file's, the lower of both; every refusal one line, naming the file and
 * the line; a file that cannot be read refuses every start, and neither a
 * FIFO nor a folder nor a huge file stalls or fools the reader. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/run/ceiling.h"

static char dir[] = P_tmpdir "/oz0-ceiling-XXXXXX";
static char file[sizeof(dir) + 16];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/ceiling", dir);
}

static void teardown(void)
{
	if (rmdir(file) < 0)
		unlink(file);
	rmdir(dir);
}

TestSuite(ceiling, .init = setup, .fini = teardown);

static void write_file(const char *text, size_t len)
{
	_cleanup_close_ int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
}

static int load_file(const char *text, struct run_limits *out, char **msg)
{
	const struct run_ceiling_text t = { .file = file };

	write_file(text, strlen(text));
	return run_ceiling_load(&t, out, msg);
}

static void assert_limits(struct run_limits l, uint64_t memory_mb, uint64_t pids, uint32_t cpu_millis)
{
	cr_assert_eq(l.memory_mb, memory_mb, "memory_mb %" PRIu64 ", want %" PRIu64, l.memory_mb, memory_mb);
	cr_assert_eq(l.pids, pids, "pids %" PRIu64 ", want %" PRIu64, l.pids, pids);
	cr_assert_eq(l.cpu_millis, cpu_millis, "cpu_millis %u, want %u", l.cpu_millis, cpu_millis);
}

/* MSG is one line, starts with PREFIX and says WHAT. */
static void assert_message(const char *msg, const char *prefix, const char *what)
{
	cr_assert_not_null(msg);
	cr_assert(strncmp(msg, prefix, strlen(prefix)) == 0, "'%s' does not start with '%s'", msg, prefix);
	cr_assert_not_null(strstr(msg, what), "'%s' does not say '%s'", msg, what);
	cr_assert_null(strchr(msg, '\n'), "'%s' is not one line", msg);
}

/* TEXT as the file is refused at LINE (0: the file as a whole), saying
 * WHAT, and *OUT is left as it was. */
static void assert_file_refused(const char *text, int err, int line, const char *what)
{
	struct run_limits out = { 1, 2, 3 };
	_cleanup_free_ char *msg = NULL, *prefix = NULL;
	int r = load_file(text, &out, &msg);

	cr_assert_eq(r, err, "'%s': %d, want %d (%s)", text, r, err, msg ? msg : "no message");
	cr_assert_neq(line ? asprintf(&prefix, "%s:%d: ", file, line) : asprintf(&prefix, "%s: ", file), -1);
	assert_message(msg, prefix, what);
	assert_limits(out, 1, 2, 3);
}

Test(ceiling, nothing_set_is_no_ceiling)
{
	const struct run_ceiling_text t = { 0 };
	struct run_limits out = { 1, 2, 3 };
	char *msg = NULL;

	cr_assert_eq(run_ceiling_load(&t, &out, &msg), 0);
	cr_assert_null(msg);
	assert_limits(out, 0, 0, 0);
	out = (struct run_limits){ 1, 2, 3 };
	cr_assert_eq(run_ceiling_load(NULL, &out, &msg), 0);
	assert_limits(out, 0, 0, 0);
}

Test(ceiling, configuration_text)
{
	const struct run_ceiling_text t = { .memory_mb = "8192", .pids = "2048", .cpus = "0.5" };
	struct run_limits out;
	char *msg = NULL;

	cr_assert_eq(run_ceiling_load(&t, &out, &msg), 0, "%s", msg);
	assert_limits(out, 8192, 2048, 500);
}

Test(ceiling, bad_configuration_text)
{
	static const struct {
		struct run_ceiling_text t;
		const char *what;
	} cases[] = {
		{ { .memory_mb = "01" }, "[ceiling] memory_mb = '01': not a whole number of MiB" },
		{ { .memory_mb = "0" }, "memory_mb = '0': out of range: above 0 and at most 1073741824 MiB" },
		{ { .pids = "-5" }, "pids = '-5': not a whole number of processes" },
		{ { .pids = "4194305" }, "pids = '4194305': out of range" },
		{ { .cpus = "0.0001" }, "cpus = '0.0001': not a decimal number of CPUs" },
		{ { .cpus = "4097" }, "cpus = '4097': out of range: above 0 and at most 4096 CPUs" },
		/* The text is judged before the file is read. */
		{ { .cpus = "x", .file = "/nonexistent/never-read" }, "cpus = 'x'" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct run_limits out = { 1, 2, 3 };
		_cleanup_free_ char *msg = NULL;

		cr_assert_eq(run_ceiling_load(&cases[i].t, &out, &msg), -EINVAL, "case %zu", i);
		assert_message(msg, "the configuration's [ceiling] ", cases[i].what);
		assert_limits(out, 1, 2, 3);
	}
}

Test(ceiling, good_file)
{
	struct run_limits out;
	_cleanup_free_ char *msg = NULL;

	cr_assert_eq(load_file("; pushed by the fleet\n"
			       "# another comment\n"
			       "\n"
			       "[ceiling]\n"
			       "memory_mb = 4096 ; inline comment\n"
			       "  ; an indented comment\n"
			       "pids=128\n"
			       " \t\n"
			       "cpus : 1.5\n",
			       &out, &msg),
		     0, "%s", msg);
	cr_assert_null(msg);
	assert_limits(out, 4096, 128, 1500);
}

Test(ceiling, file_fields_left_out_are_not_capped)
{
	struct run_limits out;
	_cleanup_free_ char *msg = NULL;

	cr_assert_eq(load_file("[ceiling]\ncpus = 3\n", &out, &msg), 0, "%s", msg);
	assert_limits(out, 0, 0, 3000);
}

Test(ceiling, lower_of_both)
{
	const struct run_ceiling_text t = { .memory_mb = "1024", .pids = "100", .file = file };
	struct run_limits out;
	_cleanup_free_ char *msg = NULL;

	/* memory: the configuration's is lower; pids: the file's; cpus: only
	 * the file sets it. */
	write_file("[ceiling]\nmemory_mb = 2048\npids = 50\ncpus = 2\n", 46);
	cr_assert_eq(run_ceiling_load(&t, &out, &msg), 0, "%s", msg);
	assert_limits(out, 1024, 50, 2000);
}

Test(ceiling, unknown_names)
{
	assert_file_refused("[ceiling]\nmemory_mb = 1\nmemory = 2\n", -EINVAL, 3,
			    "unknown key 'memory' in [ceiling]: expected memory_mb, pids or cpus");
	assert_file_refused("[ceiling]\nfile = /x\n", -EINVAL, 2, "unknown key 'file'");
	assert_file_refused("[ceiling]\npids = 1\n[limits]\ncpus = 1\n", -EINVAL, 3, "unknown section [limits]");
	/* Even one that holds no key. */
	assert_file_refused("[ceiling]\npids = 1\n\n[audit]\n", -EINVAL, 4, "unknown section [audit]");
	assert_file_refused("pids = 1\n", -EINVAL, 1, "'pids' outside [ceiling]");
}

Test(ceiling, bad_values)
{
	assert_file_refused("[ceiling]\nmemory_mb = 1e3\n", -EINVAL, 2, "memory_mb = '1e3': not a whole number");
	assert_file_refused("[ceiling]\n\npids = 0\n", -EINVAL, 3, "pids = '0': out of range");
	assert_file_refused("[ceiling]\ncpus = .5\n", -EINVAL, 2, "cpus = '.5': not a decimal number");
	assert_file_refused("[ceiling]\ncpus =\n", -EINVAL, 2, "cpus = ''");
	assert_file_refused("[ceiling]\ncpus = 1 2\n", -EINVAL, 2, "cpus = '1 2'");
}

Test(ceiling, duplicates)
{
	assert_file_refused("[ceiling]\npids = 10\npids = 10\n", -EINVAL, 3, "pids given twice");
	assert_file_refused("[ceiling]\ncpus = 1\n[ceiling]\ncpus = 2\n", -EINVAL, 4, "cpus given twice");
	/* inih reads an indented line after a key as more of its value: the
	 * key again. Refused as what it is. */
	assert_file_refused("[ceiling]\nmemory_mb = 10\n  20\n", -EINVAL, 3, "an indented line");
	assert_file_refused("[ceiling]\nmemory_mb = 10\n\tpids = 20\n", -EINVAL, 3, "start it at the margin");
	assert_file_refused(" [ceiling]\npids = 20\n", -EINVAL, 1, "an indented line");
}

Test(ceiling, says_nothing)
{
	assert_file_refused("", -EINVAL, 0, "sets none of memory_mb, pids or cpus in [ceiling]");
	assert_file_refused("[ceiling]\n; nothing yet\n", -EINVAL, 0, "sets none");
}

Test(ceiling, lines_inih_refuses)
{
	assert_file_refused("[ceiling]\npids = 1\nthis is not ini\n", -EINVAL, 3, "expected '[ceiling]' or 'key = value'");
	assert_file_refused("[ceiling\npids = 1\n", -EINVAL, 1, "expected");
	/* The first error wins, whoever found it. */
	assert_file_refused("[ceiling]\nnonsense\npids = x\n", -EINVAL, 2, "expected");
	assert_file_refused("[ceiling]\npids = x\nnonsense\n", -EINVAL, 2, "pids = 'x'");
}

Test(ceiling, nul_and_long_lines)
{
	static const char nul[] = "[ceiling]\npids = 1\0 2\n";
	struct run_limits out = { 1, 2, 3 };
	_cleanup_free_ char *msg = NULL, *prefix = NULL, *lng = NULL;
	const struct run_ceiling_text t = { .file = file };

	write_file(nul, sizeof(nul) - 1);
	cr_assert_eq(run_ceiling_load(&t, &out, &msg), -EINVAL);
	cr_assert_neq(asprintf(&prefix, "%s:2: ", file), -1);
	assert_message(msg, prefix, "a NUL byte");
	assert_limits(out, 1, 2, 3);
	/* Past inih's line buffer the rest would be read as a line of its own. */
	cr_assert_neq(asprintf(&lng, "[ceiling]\npids = 1 ;%0300d\n", 0), -1);
	assert_file_refused(lng, -EINVAL, 2, "longer than");
}

Test(ceiling, missing_file)
{
	const struct run_ceiling_text t = { .pids = "5", .file = file };
	struct run_limits out = { 1, 2, 3 };
	_cleanup_free_ char *msg = NULL, *want = NULL;

	cr_assert_eq(run_ceiling_load(&t, &out, &msg), -ENOENT);
	cr_assert_neq(asprintf(&want, "%s: cannot read: No such file or directory: no sandbox starts until it can be read",
			       file),
		      -1);
	cr_assert_str_eq(msg, want);
	assert_limits(out, 1, 2, 3);
}

/* Any reason the open fails refuses the same way (as root, a mode 000
 * file is readable: a path through a file stands in). */
Test(ceiling, unopenable_file)
{
	_cleanup_free_ char *below = NULL;
	struct run_limits out = { 1, 2, 3 };
	_cleanup_free_ char *msg = NULL;

	write_file("[ceiling]\npids = 1\n", 19);
	cr_assert_neq(asprintf(&below, "%s/x", file), -1);
	{
		const struct run_ceiling_text t = { .file = below };

		cr_assert_eq(run_ceiling_load(&t, &out, &msg), -ENOTDIR);
	}
	assert_message(msg, below, ": cannot read: Not a directory: no sandbox starts until it can be read");
	assert_limits(out, 1, 2, 3);
}

static void assert_not_regular(void)
{
	const struct run_ceiling_text t = { .file = file };
	struct run_limits out = { 1, 2, 3 };
	_cleanup_free_ char *msg = NULL, *want = NULL;

	cr_assert_eq(run_ceiling_load(&t, &out, &msg), -EINVAL);
	cr_assert_neq(asprintf(&want, "%s: cannot read: not a regular file: no sandbox starts until it can be read", file),
		      -1);
	cr_assert_str_eq(msg, want);
	assert_limits(out, 1, 2, 3);
}

/* Criterion's default timeout is none: a stall would hang the suite, so
 * this one has its own. */
Test(ceiling, fifo_does_not_stall, .timeout = 10)
{
	cr_assert_eq(mkfifo(file, 0600), 0);
	assert_not_regular();
}

Test(ceiling, directory)
{
	cr_assert_eq(mkdir(file, 0700), 0);
	assert_not_regular();
}

Test(ceiling, too_big)
{
	_cleanup_free_ char *big = malloc(RUN_CEILING_MAX_BYTES + 2);
	const char head[] = "[ceiling]\npids = 1\n";

	cr_assert_not_null(big);
	/* Comments, so only the size can refuse it. */
	memset(big, '\n', RUN_CEILING_MAX_BYTES + 1);
	memcpy(big, head, sizeof(head) - 1);
	big[RUN_CEILING_MAX_BYTES + 1] = '\0';
	assert_file_refused(big, -EFBIG, 0, "cannot read: larger than 65536 bytes: no sandbox starts");
	/* At the bound it is read. */
	big[RUN_CEILING_MAX_BYTES] = '\0';
	{
		struct run_limits out;
		_cleanup_free_ char *msg = NULL;

		cr_assert_eq(load_file(big, &out, &msg), 0, "%s", msg);
		assert_limits(out, 0, 1, 0);
	}
}

Test(ceiling, parse_names_its_origin)
{
	struct run_limits out = { 1, 2, 3 };
	_cleanup_free_ char *msg = NULL;
	static const char buf[] = "[ceiling]\npids = 7"; /* no newline at the end, no NUL read */

	cr_assert_eq(run_ceiling_parse(buf, sizeof(buf) - 1, "pushed", &out, &msg), 0, "%s", msg);
	assert_limits(out, 0, 7, 0);
	cr_assert_eq(run_ceiling_parse("[x]", 3, "pushed", &out, &msg), -EINVAL);
	assert_message(msg, "pushed:1: ", "unknown section [x]");
}
