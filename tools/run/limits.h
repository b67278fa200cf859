/* The limits a sandbox runs under (seed 000, "Limits, protected paths and
 * file writes" and "Set resource ceilings"): each profile's defaults, the
 * values a person may ask for, and a ceiling that caps them. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* A field 0 is "not set" (in a ceiling: no cap). CPUs are kept in
 * thousandths, so 0.5 is 500 and a quota written from it is exact. */
struct run_limits {
	uint64_t memory_mb;
	uint64_t pids;
	uint32_t cpu_millis;
};

/* Which fields a ceiling lowered, as bits of run_limits_cap()'s *CAPPED. */
enum {
	RUN_CAPPED_MEMORY = 1u << 0,
	RUN_CAPPED_PIDS = 1u << 1,
	RUN_CAPPED_CPUS = 1u << 2,
};

enum run_profile { RUN_PROFILE_COMMAND, RUN_PROFILE_HARNESS, RUN_PROFILE_MCP };

/* "harness", "mcp" or "command": 0, or -EINVAL. */
int run_profile_parse(const char *name, enum run_profile *out);
const char *run_profile_name(enum run_profile p);
/* The seed's table: harness 4096 MiB / 1024 / 2, mcp 1024 / 256 / 1,
 * command 2048 / 512 / 2. */
struct run_limits run_profile_limits(enum run_profile p);
/* Seconds; 0 for none (seed 002: a command 60 min, harness and mcp none). */
unsigned run_profile_timeout(enum run_profile p);

/* The most a limit may say: memory in MiB that, in bytes, a cgroup still
 * reads as a number (not "max"), and the kernel's PID_MAX_LIMIT. */
#define RUN_MEMORY_MB_MAX (UINT64_C(1) << 30)
#define RUN_PIDS_MAX UINT64_C(4194304)
#define RUN_CPUS_MAX 4096u

/* A whole number above 0 and at most MAX, in decimal digits only (no sign,
 * blank, or leading zero): 0, or -EINVAL / -ERANGE. */
int run_parse_whole(const char *s, uint64_t max, uint64_t *out);
/* A decimal above 0 with at most three digits after the point ("2", "0.5",
 * "1.25"), at most 4096 CPUs, in thousandths: 0, or -EINVAL / -ERANGE. */
int run_parse_cpus(const char *s, uint32_t *millis);
/* "0.5", "2", "1.25": the shortest spelling of MILLIS thousandths. */
void run_format_cpus(uint32_t millis, char buf[static 16]);

/* ASKED with every field above CEILING's (where set) lowered to it; the
 * lowered fields' bits in *CAPPED. */
struct run_limits run_limits_cap(struct run_limits asked, struct run_limits ceiling, unsigned *capped);
