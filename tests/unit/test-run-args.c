#include "config.h"

/* oz0run's command line (tools/run-args.h): the defaults, each option,
 * a profile's limits with the options on top in any order, and every bad
 * value refused with -EINVAL and one line on stderr. */
#include <criterion/criterion.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/read-file.h"
#include "tools/run-args.h"

/* What the parse wrote on the descriptor FD (1 or 2), in *OUT. */
static int parse_capturing(int fd, int argc, char **argv, struct run_args *a, char **out)
{
	_cleanup_close_ int saved = dup(fd);
	FILE *t = tmpfile();
	size_t n;
	int k;

	cr_assert_geq(saved, 0);
	cr_assert_not_null(t);
	fflush(NULL);
	cr_assert_eq(dup2(fileno(t), fd), fd);
	optind = 0; /* getopt starts over: each test may parse more than once */
	k = run_args_parse(argc, argv, a);
	fflush(NULL);
	cr_assert_eq(dup2(saved, fd), fd);
	cr_assert_eq(lseek(fileno(t), 0, SEEK_SET), 0);
	cr_assert_eq(read_fd_bounded(fileno(t), 0, 65536, out, &n), 0);
	fclose(t);
	return k;
}

#define ARGV(...) ((char *[]){"oz0run", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"oz0run", __VA_ARGS__}) / sizeof(char *)))

/* Parses the arguments, which must be accepted in silence. */
#define PARSE_OK(a, ...) parse_ok((a), ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))
/* Parses the arguments, which must be refused with one line on stderr
 * that holds NEEDLE. */
#define PARSE_BAD(needle, ...) parse_bad((needle), ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static void parse_ok(struct run_args *a, int argc, char **argv)
{
	_cleanup_free_ char *err = NULL;
	int k = parse_capturing(2, argc, argv, a, &err);

	cr_assert_eq(k, 0, "%s: %d, %s", argv[1], k, err);
	cr_assert_str_empty(err, "%s", err);
}

static void parse_bad(const char *needle, int argc, char **argv)
{
	_cleanup_free_ char *err = NULL;
	struct run_args a;
	int k = parse_capturing(2, argc, argv, &a, &err);
	char *nl;

	cr_assert_eq(k, -EINVAL, "%s %s: %d", argv[1], argc > 2 ? argv[2] : "", k);
	nl = strchr(err, '\n');
	cr_assert_not_null(nl, "no line on stderr for %s", argv[1]);
	cr_assert_eq(nl[1], '\0', "more than one line: %s", err);
	cr_assert_eq(strncmp(err, "oz0run: ", 8), 0, "%s", err);
	cr_assert_not_null(strstr(err, needle), "'%s' not in: %s", needle, err);
}

static void assert_limits(const struct run_args *a, uint64_t memory_mb, uint64_t pids, uint32_t cpu_millis,
                          unsigned timeout_s)
{
	cr_assert_eq(a->asked.memory_mb, memory_mb);
	cr_assert_eq(a->asked.pids, pids);
	cr_assert_eq(a->asked.cpu_millis, cpu_millis);
	cr_assert_eq(a->timeout_s, timeout_s);
}

Test(args, the_defaults)
{
	struct run_args a;

	PARSE_OK(&a, "--", "make", "test");
	cr_assert_eq(a.profile, RUN_PROFILE_COMMAND);
	assert_limits(&a, 2048, 512, 2000, 3600);
	cr_assert_str_eq(a.tree, ".");
	cr_assert_null(a.workspace);
	cr_assert_null(a.home);
	cr_assert_null(a.config);
	cr_assert_null(a.audit);
	cr_assert_null(a.report);
	cr_assert_eq(a.network, RUN_NETWORK_NONE);
	cr_assert(a.settle);
	cr_assert_str_eq(a.argv[0], "make");
	cr_assert_str_eq(a.argv[1], "test");
	cr_assert_null(a.argv[2]);
}

Test(args, each_option)
{
	struct run_args a;

	PARSE_OK(&a, "--memory-mb", "100", "--pids", "64", "--cpus", "0.5", "--timeout", "30", "--tree", "t",
	         "--workspace", "/w", "--home", "h", "--network", "host", "--config", "c.conf", "--audit", "a.log",
	         "--report", "r.json", "--no-settle", "--", "sh", "-c", "exit 3");
	cr_assert_eq(a.profile, RUN_PROFILE_COMMAND);
	assert_limits(&a, 100, 64, 500, 30);
	cr_assert_str_eq(a.tree, "t");
	cr_assert_str_eq(a.workspace, "/w");
	cr_assert_str_eq(a.home, "h");
	cr_assert_eq(a.network, RUN_NETWORK_HOST);
	cr_assert_str_eq(a.config, "c.conf");
	cr_assert_str_eq(a.audit, "a.log");
	cr_assert_str_eq(a.report, "r.json");
	cr_assert_not(a.settle);
	cr_assert_str_eq(a.argv[0], "sh");
	cr_assert_str_eq(a.argv[2], "exit 3");
	cr_assert_null(a.argv[3]);
}

Test(args, values_in_the_same_word)
{
	struct run_args a;

	PARSE_OK(&a, "--memory-mb=300", "--network=none", "--tree=x", "--", "true");
	assert_limits(&a, 300, 512, 2000, 3600);
	cr_assert_eq(a.network, RUN_NETWORK_NONE);
	cr_assert_str_eq(a.tree, "x");
}

Test(args, the_last_of_an_option_given_twice_wins)
{
	struct run_args a;

	PARSE_OK(&a, "--pids", "10", "--pids", "20", "--network", "host", "--network", "none", "--", "true");
	cr_assert_eq(a.asked.pids, 20);
	cr_assert_eq(a.network, RUN_NETWORK_NONE);
}

Test(args, the_profiles_defaults)
{
	struct run_args a;

	PARSE_OK(&a, "--profile", "harness", "--", "claude");
	cr_assert_eq(a.profile, RUN_PROFILE_HARNESS);
	assert_limits(&a, 4096, 1024, 2000, 0);
	PARSE_OK(&a, "--profile", "mcp", "--", "server");
	cr_assert_eq(a.profile, RUN_PROFILE_MCP);
	assert_limits(&a, 1024, 256, 1000, 0);
	PARSE_OK(&a, "--profile", "command", "--", "make");
	cr_assert_eq(a.profile, RUN_PROFILE_COMMAND);
	assert_limits(&a, 2048, 512, 2000, 3600);
}

Test(args, options_go_on_top_of_the_profile_in_any_order)
{
	struct run_args a;

	PARSE_OK(&a, "--profile", "mcp", "--memory-mb", "100", "--", "server");
	assert_limits(&a, 100, 256, 1000, 0);
	/* before the profile too: the profile sets defaults, never overrides */
	PARSE_OK(&a, "--pids", "7", "--timeout", "9", "--profile", "harness", "--", "claude");
	assert_limits(&a, 4096, 7, 2000, 9);
	PARSE_OK(&a, "--cpus", "1.25", "--profile", "mcp", "--", "server");
	assert_limits(&a, 1024, 256, 1250, 0);
}

Test(args, the_largest_values)
{
	struct run_args a;

	PARSE_OK(&a, "--memory-mb", "1073741824", "--pids", "4194304", "--cpus", "4096", "--timeout", "3153600000",
	         "--", "true");
	assert_limits(&a, RUN_MEMORY_MB_MAX, RUN_PIDS_MAX, RUN_CPUS_MAX * 1000, 3153600000u);
}

Test(args, every_bad_value_is_refused_in_one_line)
{
	PARSE_BAD("--profile 'root'", "--profile", "root", "--", "true");
	PARSE_BAD("--profile ''", "--profile", "", "--", "true");
	PARSE_BAD("--memory-mb '0'", "--memory-mb", "0", "--", "true");
	PARSE_BAD("--memory-mb 'lots'", "--memory-mb", "lots", "--", "true");
	PARSE_BAD("--memory-mb '-1'", "--memory-mb", "-1", "--", "true");
	PARSE_BAD("--memory-mb '010'", "--memory-mb", "010", "--", "true");
	PARSE_BAD("--memory-mb ''", "--memory-mb", "", "--", "true");
	PARSE_BAD("--pids '0'", "--pids", "0", "--", "true");
	PARSE_BAD("--pids '4194305'", "--pids", "4194305", "--", "true");
	PARSE_BAD("--pids ' 5'", "--pids", " 5", "--", "true");
	PARSE_BAD("--cpus '0'", "--cpus", "0", "--", "true");
	PARSE_BAD("--cpus '1.2345'", "--cpus", "1.2345", "--", "true");
	PARSE_BAD("--cpus '4097'", "--cpus", "4097", "--", "true");
	PARSE_BAD("--cpus 'two'", "--cpus", "two", "--", "true");
	PARSE_BAD("--timeout '0'", "--timeout", "0", "--", "true");
	PARSE_BAD("--timeout '3153600001'", "--timeout", "3153600001", "--", "true");
	PARSE_BAD("--timeout '1h'", "--timeout", "1h", "--", "true");
	PARSE_BAD("--tree: an empty path", "--tree", "", "--", "true");
	PARSE_BAD("--workspace 'rel'", "--workspace", "rel", "--", "true");
	PARSE_BAD("--workspace ''", "--workspace", "", "--", "true");
	PARSE_BAD("--home: an empty path", "--home", "", "--", "true");
	PARSE_BAD("--network 'bridge'", "--network", "bridge", "--", "true");
	PARSE_BAD("--config: an empty path", "--config", "", "--", "true");
	PARSE_BAD("--audit: an empty path", "--audit", "", "--", "true");
	PARSE_BAD("--report: an empty path", "--report", "", "--", "true");
	PARSE_BAD("--no-such: an unknown option", "--no-such", "--", "true");
	PARSE_BAD("-x: an unknown option", "-x", "--", "true");
	PARSE_BAD("--no-settle=yes", "--no-settle=yes", "--", "true");
	/* an option at the end without its value */
	PARSE_BAD("--tree: an unknown option, or one without its value", "--tree");
}

/* limits.h: RUN_MEMORY_MB_MAX is "the most a limit may say: memory in MiB
 * that, in bytes, a cgroup still reads as a number"; a ceiling's memory_mb
 * is refused above it, and so must --memory-mb be. */
Test(args, memory_above_the_most_a_limit_may_say_is_refused)
{
	PARSE_BAD("--memory-mb '1073741825'", "--memory-mb", "1073741825", "--", "true");
	PARSE_BAD("--memory-mb '17592186044415'", "--memory-mb", "17592186044415", "--", "true");
}

Test(args, the_command_must_follow_a_double_dash)
{
	PARSE_BAD("must follow '--'", "make");
	PARSE_BAD("must follow '--'", "--no-settle", "make", "test");
	PARSE_BAD("must follow '--'", "--tree", ".", "make");
}

Test(args, a_command_is_needed_after_the_double_dash)
{
	PARSE_BAD("no command after '--'", "--");
	PARSE_BAD("no command after '--'", "--", "");
	PARSE_BAD("no command after '--'", "--no-settle", "--");
}

Test(args, a_double_dash_after_the_command_is_its_own)
{
	struct run_args a;

	PARSE_OK(&a, "--", "git", "--", "file");
	cr_assert_str_eq(a.argv[0], "git");
	cr_assert_str_eq(a.argv[1], "--");
	cr_assert_str_eq(a.argv[2], "file");
	/* and what follows '--' is never an option of ours */
	PARSE_OK(&a, "--", "--no-settle");
	cr_assert(a.settle);
	cr_assert_str_eq(a.argv[0], "--no-settle");
}

Test(args, help_and_version_print_and_return_1)
{
	_cleanup_free_ char *help = NULL, *version = NULL;
	struct run_args a;

	cr_assert_eq(parse_capturing(1, 2, ARGV("--help"), &a, &help), 1);
	cr_assert_eq(strncmp(help, "Usage: oz0run ", 14), 0, "%s", help);
	cr_assert_not_null(strstr(help, "--no-settle"));
	cr_assert_eq(parse_capturing(1, 2, ARGV("--version"), &a, &version), 1);
	cr_assert_str_eq(version, "oz0run " PACKAGE_VERSION "\n");
}
