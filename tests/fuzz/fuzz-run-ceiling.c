#include "config.h"

/* libFuzzer harness for the runner's ceiling file (tools/run/ceiling.h).
 *
 * Properties beyond "no crash, no leak": a refusal is -EINVAL (or -ENOMEM)
 * with a one-line reason that names the origin, and leaves *OUT as it was;
 * a ceiling read sets at least one field, each within its bounds, and the
 * same limits written out as a plain file read back the same. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "tools/run/ceiling.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ORIGIN "fuzz"

static const struct run_limits untouched = { 11, 22, 33 };

static bool same(struct run_limits a, struct run_limits b)
{
	return a.memory_mb == b.memory_mb && a.pids == b.pids && a.cpu_millis == b.cpu_millis;
}

static void check_refusal(int r, const char *msg, struct run_limits out)
{
	if (!same(out, untouched))
		abort();
	if (r == -ENOMEM)
		return;
	if (r != -EINVAL || !msg || strncmp(msg, ORIGIN ":", strlen(ORIGIN) + 1) != 0 || strchr(msg, '\n'))
		abort();
}

static void check_bounds(struct run_limits l)
{
	if (!l.memory_mb && !l.pids && !l.cpu_millis)
		abort();
	if (l.memory_mb > RUN_MEMORY_MB_MAX || l.pids > RUN_PIDS_MAX || l.cpu_millis > RUN_CPUS_MAX * 1000u)
		abort();
}

/* L as a file of our own spelling, parsed again. */
static void check_reads_back(struct run_limits l)
{
	_cleanup_free_ char *text = NULL, *msg = NULL;
	struct run_limits back = untouched;
	size_t size = 0;
	char cpus[16];
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return;
	fputs("[ceiling]\n", f);
	if (l.memory_mb)
		fprintf(f, "memory_mb = %" PRIu64 "\n", l.memory_mb);
	if (l.pids)
		fprintf(f, "pids = %" PRIu64 "\n", l.pids);
	run_format_cpus(l.cpu_millis, cpus);
	if (l.cpu_millis)
		fprintf(f, "cpus = %s\n", cpus);
	if (fclose(f) != 0)
		return;
	if (run_ceiling_parse(text, size, ORIGIN, &back, &msg) != 0 || msg || !same(back, l))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly the size parsed, so ASan sees any read past it. */
	_cleanup_free_ char *buf = malloc(size ? size : 1), *msg = NULL;
	struct run_limits out = untouched;
	int r;

	if (!buf || size > RUN_CEILING_MAX_BYTES)
		return 0;
	memcpy(buf, data, size);
	r = run_ceiling_parse(buf, size, ORIGIN, &out, &msg);
	if (r < 0) {
		check_refusal(r, msg, out);
		return 0;
	}
	if (r != 0 || msg)
		abort();
	check_bounds(out);
	check_reads_back(out);
	return 0;
}
