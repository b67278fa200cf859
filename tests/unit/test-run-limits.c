#include "config.h"

/* The runner's limits (tools/run/limits.h): the seed's profiles, one
 * spelling per number for every value a person types, the shortest
 * spelling of a CPU count, and the cap with each of its bits. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "common/cleanup.h"
#include "tools/run/limits.h"

Test(limits, profiles_are_the_seeds_table)
{
	static const struct {
		const char *name;
		enum run_profile p;
		uint64_t memory_mb, pids;
		uint32_t cpu_millis;
		unsigned timeout_s;
	} want[] = {
		{ "harness", RUN_PROFILE_HARNESS, 4096, 1024, 2000, 0 },
		{ "mcp", RUN_PROFILE_MCP, 1024, 256, 1000, 0 },
		{ "command", RUN_PROFILE_COMMAND, 2048, 512, 2000, 3600 },
	};

	for (size_t i = 0; i < ELEMENTSOF(want); i++) {
		enum run_profile p = (enum run_profile)-1;
		struct run_limits l;

		cr_assert_eq(run_profile_parse(want[i].name, &p), 0);
		cr_assert_eq(p, want[i].p);
		cr_assert_str_eq(run_profile_name(p), want[i].name);
		l = run_profile_limits(p);
		cr_assert_eq(l.memory_mb, want[i].memory_mb, "%s", want[i].name);
		cr_assert_eq(l.pids, want[i].pids, "%s", want[i].name);
		cr_assert_eq(l.cpu_millis, want[i].cpu_millis, "%s", want[i].name);
		cr_assert_eq(run_profile_timeout(p), want[i].timeout_s, "%s", want[i].name);
	}
}

Test(limits, unknown_profiles)
{
	static const char *const bad[] = { "", "Harness", "harness ", "cmd", "mcp\n", "commands" };

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		enum run_profile p = RUN_PROFILE_MCP;

		cr_assert_eq(run_profile_parse(bad[i], &p), -EINVAL, "'%s'", bad[i]);
		cr_assert_eq(p, RUN_PROFILE_MCP, "'%s' changed the output", bad[i]);
	}
}

/* Every value refused leaves *OUT as it was. */
static void assert_whole(const char *s, uint64_t max, int want, uint64_t value)
{
	uint64_t v = 777;
	int r = run_parse_whole(s, max, &v);

	cr_assert_eq(r, want, "'%s' (max %" PRIu64 "): %d, want %d", s, max, r, want);
	cr_assert_eq(v, r == 0 ? value : 777, "'%s': %" PRIu64, s, v);
}

Test(limits, whole_numbers)
{
	assert_whole("1", 10, 0, 1);
	assert_whole("10", 10, 0, 10);
	assert_whole("2048", RUN_MEMORY_MB_MAX, 0, 2048);
	assert_whole("1073741824", RUN_MEMORY_MB_MAX, 0, RUN_MEMORY_MB_MAX);
	assert_whole("18446744073709551615", UINT64_MAX, 0, UINT64_MAX);
	assert_whole("4194304", RUN_PIDS_MAX, 0, RUN_PIDS_MAX);
}

Test(limits, whole_number_spellings)
{
	static const char *const bad[] = {
		"", "01", "00", "-1", "+1", " 1", "1 ", "1\n", "1e3", "0.5", ".5", "5.", "1,000", "1_000",
		"0x10", "١", "one", "-0", "9x", "99999999999999999999x",
	};

	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		assert_whole(bad[i], UINT64_MAX, -EINVAL, 0);
}

Test(limits, whole_number_range)
{
	assert_whole("0", 10, -ERANGE, 0);
	assert_whole("11", 10, -ERANGE, 0);
	assert_whole("1073741825", RUN_MEMORY_MB_MAX, -ERANGE, 0);
	assert_whole("4194305", RUN_PIDS_MAX, -ERANGE, 0);
	assert_whole("18446744073709551616", UINT64_MAX, -ERANGE, 0);
	assert_whole("99999999999999999999999999999999", UINT64_MAX, -ERANGE, 0);
	assert_whole("9", 5, -ERANGE, 0); /* one digit above a one-digit MAX */
}

static void assert_cpus(const char *s, int want, uint32_t millis)
{
	uint32_t m = 777;
	int r = run_parse_cpus(s, &m);

	cr_assert_eq(r, want, "'%s': %d, want %d", s, r, want);
	cr_assert_eq(m, r == 0 ? millis : 777, "'%s': %u", s, m);
}

Test(limits, cpus)
{
	assert_cpus("2", 0, 2000);
	assert_cpus("0.5", 0, 500);
	assert_cpus("1.25", 0, 1250);
	assert_cpus("0.001", 0, 1);
	assert_cpus("1.500", 0, 1500);
	assert_cpus("4096", 0, 4096000);
	assert_cpus("4095.999", 0, 4095999);
}

Test(limits, cpu_spellings)
{
	static const char *const bad[] = {
		"", "01", "00.5", "-1", "+1", " 1", "1 ", "1e3", ".5", "5.", "0.0001", "1.2345", "1..5",
		"1.5.", "0,5", "1/2", "inf", "nan", "0x1", "1.-5", "1. 5",
	};

	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		assert_cpus(bad[i], -EINVAL, 0);
}

Test(limits, cpu_range)
{
	assert_cpus("0", -ERANGE, 0);
	assert_cpus("0.0", -ERANGE, 0);
	assert_cpus("0.000", -ERANGE, 0);
	assert_cpus("4097", -ERANGE, 0);
	assert_cpus("4096.001", -ERANGE, 0);
	assert_cpus("99999999999999999999", -ERANGE, 0);
	assert_cpus("99999999999999999999.5", -ERANGE, 0);
}

Test(limits, cpu_spelling_is_shortest)
{
	static const struct {
		uint32_t millis;
		const char *text;
	} cases[] = {
		{ 1, "0.001" },     { 10, "0.01" },    { 100, "0.1" },      { 500, "0.5" },
		{ 1000, "1" },      { 1250, "1.25" },  { 2000, "2" },       { 2005, "2.005" },
		{ 4096000, "4096" }, { 4095999, "4095.999" }, { 0, "0" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char buf[16];
		uint32_t back;

		run_format_cpus(cases[i].millis, buf);
		cr_assert_str_eq(buf, cases[i].text);
		if (cases[i].millis) {
			cr_assert_eq(run_parse_cpus(buf, &back), 0, "%s", buf);
			cr_assert_eq(back, cases[i].millis);
		}
	}
}

Test(limits, cap_with_each_bit)
{
	const struct run_limits asked = { .memory_mb = 2048, .pids = 512, .cpu_millis = 2000 };
	static const struct {
		struct run_limits ceiling;
		unsigned bits;
		struct run_limits want;
	} cases[] = {
		{ { 0, 0, 0 }, 0, { 2048, 512, 2000 } },
		{ { 1024, 0, 0 }, RUN_CAPPED_MEMORY, { 1024, 512, 2000 } },
		{ { 0, 256, 0 }, RUN_CAPPED_PIDS, { 2048, 256, 2000 } },
		{ { 0, 0, 500 }, RUN_CAPPED_CPUS, { 2048, 512, 500 } },
		{ { 1024, 256, 500 }, RUN_CAPPED_MEMORY | RUN_CAPPED_PIDS | RUN_CAPPED_CPUS, { 1024, 256, 500 } },
		/* Equal is not lowered; above is not raised. */
		{ { 2048, 512, 2000 }, 0, { 2048, 512, 2000 } },
		{ { 8192, 2048, 4000 }, 0, { 2048, 512, 2000 } },
		{ { 2047, 513, 1999 }, RUN_CAPPED_MEMORY | RUN_CAPPED_CPUS, { 2047, 512, 1999 } },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		unsigned bits = 99;
		struct run_limits got = run_limits_cap(asked, cases[i].ceiling, &bits);

		cr_assert_eq(bits, cases[i].bits, "case %zu: bits %u", i, bits);
		cr_assert_eq(got.memory_mb, cases[i].want.memory_mb, "case %zu", i);
		cr_assert_eq(got.pids, cases[i].want.pids, "case %zu", i);
		cr_assert_eq(got.cpu_millis, cases[i].want.cpu_millis, "case %zu", i);
	}
}

/* An unset field asked is no limit: a ceiling gives it one. */
Test(limits, cap_sets_what_was_unlimited)
{
	unsigned bits = 0;
	struct run_limits got = run_limits_cap((struct run_limits){ .pids = 10 },
	                                       (struct run_limits){ .memory_mb = 64, .pids = 20 }, &bits);

	cr_assert_eq(bits, RUN_CAPPED_MEMORY);
	cr_assert_eq(got.memory_mb, 64);
	cr_assert_eq(got.pids, 10);
	cr_assert_eq(got.cpu_millis, 0);
	got = run_limits_cap((struct run_limits){ 0 }, (struct run_limits){ 0 }, NULL);
	cr_assert_eq(got.memory_mb + got.pids + got.cpu_millis, 0);
}
