#include "config.h"

/* How a run ended (tools/run/outcome.h): the report read back with json-c,
 * every key checked; it replaces the file whole and leaves nothing beside
 * it; bytes that are not UTF-8 keep it JSON; and the same facts in words,
 * one line each. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/read-file.h"
#include "tools/run/outcome.h"

static char dir[] = P_tmpdir "/oz0-outcome-XXXXXX";
static char file[sizeof(dir) + 16];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/report.json", dir);
}

static void teardown(void)
{
	_cleanup_free_ char *target = NULL;

	unlink(file);
	cr_assert_neq(asprintf(&target, "%s/target", dir), -1);
	unlink(target);
	rmdir(dir);
}

TestSuite(outcome, .init = setup, .fini = teardown);

DEFINE_TRIVIAL_CLEANUP_FUNC(struct json_object *, json_object_put)

static char *const argv[] = { "sh", "-c", "exit 3", NULL };

static struct run_outcome sample(void)
{
	return (struct run_outcome){
		.argv = argv,
		.asked = { .memory_mb = 2048, .pids = 512, .cpu_millis = 2000 },
		.applied = { .memory_mb = 1024, .pids = 512, .cpu_millis = 500 },
		.capped = RUN_CAPPED_MEMORY | RUN_CAPPED_CPUS,
		.cgroup = RUN_CGROUP_V1,
		.ended = RUN_ENDED_EXITED,
		.exit_status = 3,
		.timeout_s = 3600,
		.peak_memory_bytes = 5 * 1048576 + 1,
		.daemon_pid = 4242,
		.status = 3,
	};
}

static struct json_object *read_report(void)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = open(file, O_RDONLY | O_CLOEXEC);
	struct json_tokener *tok = json_tokener_new();
	struct json_object *j;
	size_t len;

	cr_assert_geq(fd, 0);
	cr_assert_eq(read_fd_bounded(fd, 0, 1 << 20, &buf, &len), 0);
	cr_assert_gt(len, 0);
	cr_assert_eq(buf[len - 1], '\n', "the report ends its line");
	cr_assert_null(memchr(buf, '\n', len - 1), "the report is one line: %s", buf);
	cr_assert_not_null(tok);
	/* Strict, and UTF-8 checked: what any reader takes. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	j = json_tokener_parse_ex(tok, buf, (int)len - 1);
	cr_assert_eq(json_tokener_get_error(tok), json_tokener_success, "%s: %s", buf,
		     json_tokener_error_desc(json_tokener_get_error(tok)));
	json_tokener_free(tok);
	cr_assert_not_null(j);
	return j;
}

static struct json_object *get(struct json_object *o, const char *key, enum json_type type)
{
	struct json_object *v = NULL;

	cr_assert(json_object_object_get_ex(o, key, &v), "no key '%s'", key);
	cr_assert_eq(json_object_get_type(v), type, "'%s' is a %s", key, json_type_to_name(json_object_get_type(v)));
	return v;
}

static void assert_keys(struct json_object *o, const char *const *keys, size_t n)
{
	size_t seen = 0;

	json_object_object_foreach(o, k, v) {
		bool known = false;

		(void)v;
		for (size_t i = 0; i < n; i++)
			known |= strcmp(k, keys[i]) == 0;
		cr_assert(known, "key '%s' is not one the issue names", k);
		seen++;
	}
	cr_assert_eq(seen, n, "%zu keys, want %zu", seen, n);
}

static void assert_limits(struct json_object *l, int64_t memory_mb, int64_t pids, double cpus)
{
	static const char *const keys[] = { "memory_mb", "pids", "cpus" };

	assert_keys(l, keys, ELEMENTSOF(keys));
	cr_assert_eq(json_object_get_int64(get(l, "memory_mb", json_type_int)), memory_mb);
	cr_assert_eq(json_object_get_int64(get(l, "pids", json_type_int)), pids);
	cr_assert_float_eq(json_object_get_double(json_object_object_get(l, "cpus")), cpus, 1e-9);
}

Test(outcome, report_has_every_key)
{
	static const char *const top[] = { "argv",   "limits",      "cgroup",       "ended",
		                           "exit_status", "signal", "peak_memory_bytes", "daemon_pid",
		                           "settled", "status" };
	static const char *const limit_keys[] = { "asked", "applied", "capped" };
	struct run_outcome o = sample();
	_cleanup_(json_object_putp) struct json_object *j = NULL;
	struct json_object *a, *l, *capped;

	cr_assert_eq(run_outcome_write_report(&o, file), 0);
	j = read_report();
	assert_keys(j, top, ELEMENTSOF(top));
	a = get(j, "argv", json_type_array);
	cr_assert_eq(json_object_array_length(a), 3);
	for (size_t i = 0; i < 3; i++)
		cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(a, i)), argv[i]);
	l = get(j, "limits", json_type_object);
	assert_keys(l, limit_keys, ELEMENTSOF(limit_keys));
	assert_limits(get(l, "asked", json_type_object), 2048, 512, 2);
	assert_limits(get(l, "applied", json_type_object), 1024, 512, 0.5);
	cr_assert_eq(json_object_get_type(json_object_object_get(get(l, "applied", json_type_object), "cpus")),
		     json_type_double);
	capped = get(l, "capped", json_type_array);
	cr_assert_eq(json_object_array_length(capped), 2);
	cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(capped, 0)), "memory_mb");
	cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(capped, 1)), "cpus");
	cr_assert_str_eq(json_object_get_string(get(j, "cgroup", json_type_string)), "v1");
	cr_assert_str_eq(json_object_get_string(get(j, "ended", json_type_string)), "exited");
	cr_assert_eq(json_object_get_int(get(j, "exit_status", json_type_int)), 3);
	cr_assert_eq(json_object_get_int(get(j, "signal", json_type_int)), 0);
	cr_assert_eq(json_object_get_int64(get(j, "peak_memory_bytes", json_type_int)), 5 * 1048576 + 1);
	cr_assert_eq(json_object_get_int(get(j, "daemon_pid", json_type_int)), 4242);
	cr_assert_eq(json_object_array_length(get(j, "settled", json_type_array)), 0);
	cr_assert_eq(json_object_get_int(get(j, "status", json_type_int)), 3);
}

/* The cpus number is spelt as a person would: "0.5", not 0.50000000000000001. */
Test(outcome, cpus_spelt_short)
{
	struct run_outcome o = sample();
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	size_t len;

	o.applied.cpu_millis = 100;
	cr_assert_eq(run_outcome_write_report(&o, file), 0);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	cr_assert_eq(read_fd_bounded(fd, 0, 1 << 20, &buf, &len), 0);
	cr_assert_not_null(strstr(buf, "\"asked\":{\"memory_mb\":2048,\"pids\":512,\"cpus\":2}"), "%s", buf);
	cr_assert_not_null(strstr(buf, "\"cpus\":0.1}"), "%s", buf);
}

Test(outcome, settled_actions)
{
	static const char *const with_to[] = { "action", "path", "to", "reason", "earlier" };
	static const char *const without_to[] = { "action", "path", "reason", "earlier" };
	struct run_outcome o = sample();
	_cleanup_(json_object_putp) struct json_object *j = NULL;
	struct json_object *s, *e;

	o.cgroup_why = strdup("v2: not mounted; scope: no bus");
	cr_assert_not_null(o.cgroup_why);
	cr_assert_eq(run_outcome_add_settled(&o, "moved aside", "sub/.git/hooks/pre-commit",
					     "sub/.git/hooks/pre-commit.sandbox-refused", "a hook made during the run",
					     false),
		     0);
	cr_assert_eq(run_outcome_add_settled(&o, "removed", "new/.git", NULL, NULL, true), 0);
	cr_assert_eq(o.n_settled, 2);
	cr_assert_eq(run_outcome_write_report(&o, file), 0);
	j = read_report();
	s = get(j, "settled", json_type_array);
	cr_assert_eq(json_object_array_length(s), 2);
	e = json_object_array_get_idx(s, 0);
	assert_keys(e, with_to, ELEMENTSOF(with_to));
	cr_assert_str_eq(json_object_get_string(get(e, "action", json_type_string)), "moved aside");
	cr_assert_str_eq(json_object_get_string(get(e, "path", json_type_string)), "sub/.git/hooks/pre-commit");
	cr_assert_str_eq(json_object_get_string(get(e, "to", json_type_string)),
			 "sub/.git/hooks/pre-commit.sandbox-refused");
	cr_assert_str_eq(json_object_get_string(get(e, "reason", json_type_string)), "a hook made during the run");
	cr_assert_not(json_object_get_boolean(get(e, "earlier", json_type_boolean)));
	e = json_object_array_get_idx(s, 1);
	assert_keys(e, without_to, ELEMENTSOF(without_to));
	cr_assert_str_eq(json_object_get_string(get(e, "action", json_type_string)), "removed");
	get(e, "reason", json_type_null);
	cr_assert(json_object_get_boolean(get(e, "earlier", json_type_boolean)));
	run_outcome_free(&o);
	cr_assert_eq(o.n_settled, 0);
	cr_assert_null(o.settled);
	cr_assert_null(o.cgroup_why);
	run_outcome_free(&o); /* twice is harmless */
	run_outcome_free(NULL);
}

/* Mode none: nothing applied, so each applied field is null, and what is
 * not known (peak memory, a daemon) is null too. */
Test(outcome, none_and_unknowns_are_null)
{
	struct run_outcome o = sample();
	_cleanup_(json_object_putp) struct json_object *j = NULL;
	struct json_object *applied;

	o.cgroup = RUN_CGROUP_NONE;
	o.applied = (struct run_limits){ 0 };
	o.capped = 0;
	o.peak_memory_bytes = 0;
	o.daemon_pid = 0;
	cr_assert_eq(run_outcome_write_report(&o, file), 0);
	j = read_report();
	applied = get(get(j, "limits", json_type_object), "applied", json_type_object);
	get(applied, "memory_mb", json_type_null);
	get(applied, "pids", json_type_null);
	get(applied, "cpus", json_type_null);
	cr_assert_eq(json_object_array_length(get(get(j, "limits", json_type_object), "capped", json_type_array)), 0);
	cr_assert_str_eq(json_object_get_string(get(j, "cgroup", json_type_string)), "none");
	get(j, "peak_memory_bytes", json_type_null);
	get(j, "daemon_pid", json_type_null);
}

Test(outcome, how_it_ended)
{
	static const struct {
		enum run_ended ended;
		enum run_cgroup_mode cgroup;
		const char *ended_name, *cgroup_name;
	} cases[] = {
		{ RUN_ENDED_SIGNALED, RUN_CGROUP_V2, "signaled", "v2" },
		{ RUN_ENDED_TIMEOUT, RUN_CGROUP_SCOPE, "timeout", "scope" },
		{ RUN_ENDED_OOM, RUN_CGROUP_V1, "oom", "v1" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct run_outcome o = sample();
		_cleanup_(json_object_putp) struct json_object *j = NULL;

		o.ended = cases[i].ended;
		o.cgroup = cases[i].cgroup;
		o.signal = SIGKILL;
		o.exit_status = 128 + SIGKILL;
		cr_assert_eq(run_outcome_write_report(&o, file), 0);
		j = read_report();
		cr_assert_str_eq(json_object_get_string(get(j, "ended", json_type_string)), cases[i].ended_name);
		cr_assert_str_eq(json_object_get_string(get(j, "cgroup", json_type_string)), cases[i].cgroup_name);
		cr_assert_eq(json_object_get_int(get(j, "signal", json_type_int)), SIGKILL);
		cr_assert_eq(json_object_get_int(get(j, "exit_status", json_type_int)), 137);
	}
}

Test(outcome, bytes_not_utf8_keep_it_json)
{
	static char *const odd[] = { "printf", "caf\xc3\xa9", "\xff\xfe", "a\xe2\x82", "\xed\xa0\x80", "\"\\\n\x01", NULL };
	struct run_outcome o = sample();
	_cleanup_(json_object_putp) struct json_object *j = NULL;
	struct json_object *a;

	o.argv = odd;
	cr_assert_eq(run_outcome_add_settled(&o, "removed", "x\x80y", NULL, "why\xc0", false), 0);
	cr_assert_eq(run_outcome_write_report(&o, file), 0);
	j = read_report();
	a = get(j, "argv", json_type_array);
	cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(a, 1)), "caf\xc3\xa9");
	cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(a, 2)), "\xef\xbf\xbd\xef\xbf\xbd");
	cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(a, 3)), "a\xef\xbf\xbd\xef\xbf\xbd");
	cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(a, 4)),
			 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(a, 5)), "\"\\\n\x01");
	cr_assert_str_eq(json_object_get_string(json_object_object_get(
				 json_object_array_get_idx(get(j, "settled", json_type_array), 0), "path")),
			 "x\xef\xbf\xbdy");
	run_outcome_free(&o);
}

/* Written beside and renamed: the old report is replaced whole, a link at
 * FILE is replaced rather than followed, and nothing is left beside it. */
Test(outcome, replaces_whole)
{
	struct run_outcome o = sample();
	_cleanup_free_ char *target = NULL;
	struct dirent *d;
	struct stat st;
	DIR *listing;
	size_t n = 0;

	cr_assert_neq(asprintf(&target, "%s/target", dir), -1);
	cr_assert_eq(close(open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)), 0);
	cr_assert_eq(symlink(target, file), 0);
	cr_assert_eq(run_outcome_write_report(&o, file), 0);
	cr_assert_eq(lstat(file, &st), 0);
	cr_assert(S_ISREG(st.st_mode), "the link was followed");
	cr_assert_eq(stat(target, &st), 0);
	cr_assert_eq(st.st_size, 0, "the link's target was written");
	o.status = 7;
	cr_assert_eq(run_outcome_write_report(&o, file), 0);
	{
		_cleanup_(json_object_putp) struct json_object *j = read_report();

		cr_assert_eq(json_object_get_int(get(j, "status", json_type_int)), 7);
	}
	listing = opendir(dir);
	cr_assert_not_null(listing);
	while ((d = readdir(listing)))
		n += d->d_name[0] != '.';
	closedir(listing);
	cr_assert_eq(n, 2, "only report.json and target are left");
}

Test(outcome, report_into_a_missing_folder)
{
	struct run_outcome o = sample();
	_cleanup_free_ char *missing = NULL;

	cr_assert_neq(asprintf(&missing, "%s/none/report.json", dir), -1);
	cr_assert_eq(run_outcome_write_report(&o, missing), -ENOENT);
	cr_assert_eq(run_outcome_write_report(&o, "/"), -EISDIR);
}

/* What run_outcome_say() writes for O, malloc'd. */
static char *words(const struct run_outcome *o)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	cr_assert_not_null(f);
	run_outcome_say(o, f);
	cr_assert_eq(fclose(f), 0);
	return text;
}

static void assert_lines(const char *text, const char *const *want, size_t n)
{
	const char *s = text;

	for (size_t i = 0; i < n; i++) {
		const char *nl = strchr(s, '\n');

		cr_assert_not_null(nl, "line %zu missing in:\n%s", i + 1, text);
		cr_assert(strlen(want[i]) == (size_t)(nl - s) && memcmp(s, want[i], (size_t)(nl - s)) == 0,
			  "line %zu is '%.*s', want '%s'", i + 1, (int)(nl - s), s, want[i]);
		s = nl + 1;
	}
	cr_assert_eq(*s, '\0', "more lines than expected: %s", s);
}

Test(outcome, words_exited)
{
	static const char *const want[] = {
		("oz0run: limits: asked 2048 MiB, 512 processes, 2 CPUs; applied 1024 MiB (lowered by the ceiling), 512, "
		 "0.5 (lowered by the ceiling)"),
		"oz0run: cgroup: v1 (memory at /m; v2: not mounted)",
		"oz0run: the command exited with status 3",
		"oz0run: peak memory: 6 MiB",
		"oz0run: daemon pid 4242",
	};
	struct run_outcome o = sample();
	_cleanup_free_ char *text = NULL;

	o.cgroup_why = (char *)"v1 (memory at /m; v2: not mounted)";
	text = words(&o);
	assert_lines(text, want, ELEMENTSOF(want));
}

Test(outcome, words_for_each_ending)
{
	static const struct {
		enum run_ended ended;
		int signal;
		const char *line;
	} cases[] = {
		{ RUN_ENDED_SIGNALED, SIGKILL, "oz0run: the command was killed by signal 9 (SIGKILL)" },
		{ RUN_ENDED_SIGNALED, SIGUSR1, "oz0run: the command was killed by signal 10 (SIGUSR1)" },
		{ RUN_ENDED_TIMEOUT, SIGTERM, "oz0run: the command was stopped after the 2 s timeout" },
		{ RUN_ENDED_OOM, SIGKILL,
		  "oz0run: the command ran out of memory (limit 256 MiB): the sandbox was stopped, all of it" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct run_outcome o = sample();
		_cleanup_free_ char *text = NULL;

		o.ended = cases[i].ended;
		o.signal = cases[i].signal;
		o.timeout_s = 2;
		o.applied.memory_mb = 256;
		text = words(&o);
		cr_assert_not_null(strstr(text, cases[i].line), "no '%s' in:\n%s", cases[i].line, text);
	}
}

Test(outcome, words_without_limits)
{
	static const char *const want[] = {
		"oz0run: limits: asked 1024 MiB, 256 processes, 1 CPU; applied none: the sandbox runs without limits",
		"oz0run: cgroup: none",
		"oz0run: the command exited with status 0",
	};
	struct run_outcome o = sample();
	_cleanup_free_ char *text = NULL;

	o.asked = (struct run_limits){ .memory_mb = 1024, .pids = 256, .cpu_millis = 1000 };
	o.applied = (struct run_limits){ 0 };
	o.capped = 0;
	o.cgroup = RUN_CGROUP_NONE;
	o.exit_status = 0;
	o.peak_memory_bytes = 0;
	o.daemon_pid = 0;
	text = words(&o);
	assert_lines(text, want, ELEMENTSOF(want));
}

Test(outcome, words_each_capped_field)
{
	struct run_outcome o = sample();
	_cleanup_free_ char *text = NULL;

	o.asked.pids = 1;
	o.applied = (struct run_limits){ .memory_mb = 2048, .pids = 1, .cpu_millis = 2000 };
	o.capped = RUN_CAPPED_PIDS;
	text = words(&o);
	cr_assert_not_null(strstr(text, "asked 2048 MiB, 1 process, 2 CPUs; applied 2048 MiB, 1 (lowered by the ceiling), 2\n"),
			   "%s", text);
}

/* A field a mode could not limit is said so, not shown as 0. */
Test(outcome, words_field_not_limited)
{
	struct run_outcome o = sample();
	_cleanup_free_ char *text = NULL;

	o.applied = (struct run_limits){ .pids = 512 };
	o.capped = 0;
	text = words(&o);
	cr_assert_not_null(strstr(text, "; applied no memory limit, 512, no CPU limit\n"), "%s", text);
}
