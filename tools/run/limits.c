#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "tools/run/limits.h"

/* Seed 000's table and seed 002's timeouts (a command of its own is
 * run_command: 60 minutes). */
static const struct profile {
	const char *name;
	struct run_limits limits;
	unsigned timeout_s;
} profiles[] = {
	[RUN_PROFILE_COMMAND] = { "command", { .memory_mb = 2048, .pids = 512, .cpu_millis = 2000 }, 3600 },
	[RUN_PROFILE_HARNESS] = { "harness", { .memory_mb = 4096, .pids = 1024, .cpu_millis = 2000 }, 0 },
	[RUN_PROFILE_MCP] = { "mcp", { .memory_mb = 1024, .pids = 256, .cpu_millis = 1000 }, 0 },
};

int run_profile_parse(const char *name, enum run_profile *out)
{
	for (size_t i = 0; i < ELEMENTSOF(profiles); i++)
		if (strcmp(name, profiles[i].name) == 0) {
			*out = (enum run_profile)i;
			return 0;
		}
	return -EINVAL;
}

const char *run_profile_name(enum run_profile p)
{
	return (size_t)p < ELEMENTSOF(profiles) ? profiles[p].name : "?";
}

struct run_limits run_profile_limits(enum run_profile p)
{
	return (size_t)p < ELEMENTSOF(profiles) ? profiles[p].limits : (struct run_limits){ 0 };
}

unsigned run_profile_timeout(enum run_profile p)
{
	return (size_t)p < ELEMENTSOF(profiles) ? profiles[p].timeout_s : 0;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The digits at *S, one spelling per number: a leading zero only when it is
 * the whole run ("0", "0.5"; never "01"). Stops at the first non-digit;
 * -EINVAL for no digit or a leading zero, -ERANGE past MAX. */
static int parse_digits(const char **s, uint64_t max, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;
	bool range = false;

	if (!is_digit(*p) || (p[0] == '0' && is_digit(p[1])))
		return -EINVAL;
	for (; is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		/* Keeps reading after an overflow, so "99999999999999999999x" is
		 * still -EINVAL: the spelling is judged before the size. */
		if (d > max || v > (max - d) / 10)
			range = true;
		else
			v = v * 10 + d;
	}
	*s = p;
	*out = v;
	return range ? -ERANGE : 0;
}

int run_parse_whole(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int r = parse_digits(&s, max, &v);

	if (r == -EINVAL || *s != '\0')
		return -EINVAL;
	if (r < 0 || v == 0)
		return -ERANGE;
	*out = v;
	return 0;
}

/* "N" or "N.F" with F one to three digits: thousandths are exact, so a
 * quota written from them is what was asked. */
int run_parse_cpus(const char *s, uint32_t *millis)
{
	uint64_t whole, frac = 0;
	size_t n_frac = 0;
	int r = parse_digits(&s, RUN_CPUS_MAX, &whole);

	if (r == -EINVAL)
		return r;
	if (*s == '.') {
		s++;
		for (; is_digit(*s) && n_frac < 3; s++, n_frac++)
			frac = frac * 10 + (uint64_t)(*s - '0');
		if (n_frac == 0)
			return -EINVAL;
		for (size_t i = n_frac; i < 3; i++)
			frac *= 10;
	}
	if (*s != '\0')
		return -EINVAL;
	if (r < 0)
		return r;
	whole = whole * 1000 + frac;
	if (whole == 0 || whole > (uint64_t)RUN_CPUS_MAX * 1000)
		return -ERANGE;
	*millis = (uint32_t)whole;
	return 0;
}

void run_format_cpus(uint32_t millis, char buf[static 16])
{
	unsigned frac = millis % 1000;
	int digits = 3;

	if (frac == 0) {
		snprintf(buf, 16, "%u", millis / 1000);
		return;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	snprintf(buf, 16, "%u.%0*u", millis / 1000, digits, frac);
}

/* An unset field asked is no limit at all, which is above any cap. */
static bool cap_field(uint64_t *asked, uint64_t ceiling)
{
	if (ceiling == 0 || (*asked != 0 && *asked <= ceiling))
		return false;
	*asked = ceiling;
	return true;
}

struct run_limits run_limits_cap(struct run_limits asked, struct run_limits ceiling, unsigned *capped)
{
	uint64_t cpus = asked.cpu_millis;
	unsigned bits = 0;

	if (cap_field(&asked.memory_mb, ceiling.memory_mb))
		bits |= RUN_CAPPED_MEMORY;
	if (cap_field(&asked.pids, ceiling.pids))
		bits |= RUN_CAPPED_PIDS;
	if (cap_field(&cpus, ceiling.cpu_millis))
		bits |= RUN_CAPPED_CPUS;
	asked.cpu_millis = (uint32_t)cpus;
	if (capped)
		*capped = bits;
	return asked;
}
