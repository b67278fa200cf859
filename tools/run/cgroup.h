/* The sandbox's cgroup (seed 000, "Set resource ceilings"): a delegated
 * cgroup v2 subtree, else a transient systemd scope whose limits read back,
 * else the cgroup v1 hierarchies (memory, pids, cpu), else none. The runner
 * and `--check` go through the same detection, so they agree.
 *
 * The sandbox gets a cgroup of its own below the runner's (never the
 * runner's own: the oz0fs daemon stays out of it). Memory has no swap
 * (v2 memory.swap.max = 0; v1 memsw where accounted); on v2 an OOM kill
 * takes the whole group (memory.oom.group); on v1 the runner is told
 * through an eventfd and stops the rest itself. Every folder made for a
 * sandbox is removed afterwards, and whatever the runner changed in a
 * parent (a v2 subtree_control, its own placement) is put back, so the
 * trees are the same before and after a run. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "tools/run/limits.h"

enum run_cgroup_mode { RUN_CGROUP_V2, RUN_CGROUP_SCOPE, RUN_CGROUP_V1, RUN_CGROUP_NONE };

/* "v2", "scope", "v1", "none": the report's `cgroup` values. */
const char *run_cgroup_mode_name(enum run_cgroup_mode m);

/* How a cgroup folder NAME in DIRFD is made and removed: 0 or -errno. The
 * kernel's (mkdirat, unlinkat AT_REMOVEDIR) add and drop the interface
 * files; a fake tree of plain files (tests) gives functions that do it too,
 * so every other path runs unchanged over it (writes land in the files). */
struct run_cgroup_folders {
	int (*make)(int dirfd, const char *name);
	int (*remove)(int dirfd, const char *name);
};

/* Where this process's cgroup lies: the folder in the cgroup2 hierarchy,
 * and in each v1 hierarchy that holds memory, pids or cpu (NULL where not
 * mounted or not placed; two of them are the same folder when their
 * controllers are mounted together). Tests point these at a fake tree. */
struct run_cgroup_bases {
	char *v2;
	char *v1_memory, *v1_pids, *v1_cpu;
	bool try_scope; /* ask a systemd manager on the bus (off in tests) */
	const struct run_cgroup_folders *folders; /* NULL: the kernel's */
};

/* From /proc/self/mountinfo and /proc/self/cgroup, with try_scope on. 0,
 * or -ENOMEM (a hierarchy that cannot be read is left NULL). */
int run_cgroup_locate(struct run_cgroup_bases *out);
void run_cgroup_bases_free(struct run_cgroup_bases *b);

struct run_cgroup;

/* Makes the sandbox's cgroup NAME (a single path component, e.g.
 * "oz0run.1234") in the first mode that works, writes LIMITS (every field
 * set), reads them back (a mode whose limits do not read back exactly is
 * not used), and moves PID (> 0, stopped, waiting for the go) into it.
 * Mode none is an answer too: *OUT is then a cgroup that limits nothing.
 * *WHY (malloc'd, always set unless -ENOMEM) says in one line which mode
 * was used and why each earlier one was not: "v1 (memory at ..., pids at
 * ..., cpu at ..., limits read back); v2: ...; scope: ...". On v2 this
 * process may be moved into a leaf of its own first (the no-internal-
 * processes rule), where what it forks later lands too. Returns 0,
 * -EINVAL (a bad NAME or PID), or -ENOMEM. */
int run_cgroup_start(const struct run_cgroup_bases *b, const char *name, const struct run_limits *limits, pid_t pid,
                     struct run_cgroup **out, char **why);

enum run_cgroup_mode run_cgroup_mode(const struct run_cgroup *cg);
/* The limits as read back (all 0 in mode none). */
struct run_limits run_cgroup_applied(const struct run_cgroup *cg);

/* A descriptor that polls ready (with *EVENTS, POLLIN or POLLPRI) when
 * the kernel killed for memory in the sandbox, or -1 when this mode cannot
 * tell. Owned by CG. */
int run_cgroup_oom_fd(const struct run_cgroup *cg, short *events);
/* Whether the kernel has killed a process of the sandbox for memory (v2
 * memory.events oom_kill, v1 memory.oom_control oom_kill). */
bool run_cgroup_oom_killed(const struct run_cgroup *cg);
/* The most memory the sandbox held at once, in bytes; 0 when unknown
 * (v2 memory.peak, v1 memory.max_usage_in_bytes). */
uint64_t run_cgroup_peak_memory(const struct run_cgroup *cg);
/* How many processes are left in it: 0, or -errno; -ENOTSUP in mode none,
 * which has no list (the caller counts through its pid namespace). */
int run_cgroup_count(const struct run_cgroup *cg, size_t *n);
/* SIGKILLs every process in it (v2 cgroup.kill, else each listed pid until
 * none is left, for a second at most: -EBUSY if some still are). 0, or
 * -errno; -ENOTSUP in mode none. */
int run_cgroup_kill(const struct run_cgroup *cg);
/* Removes what was made and puts back what was changed, then frees (NULL
 * is fine). It waits up to 5 s for the cgroup to empty (a process just
 * killed takes a moment to leave it). A scope is stopped. Says on stderr
 * what it could not remove. */
void run_cgroup_remove(struct run_cgroup *cg);

/* What run_cgroup_start() would choose, for --check: a stand-in child
 * (it only pauses) is started in a probe cgroup "oz0fs-check.PID" with
 * small limits, killed, and the cgroup removed. The mode and *WHY as
 * above, and whether swap can be kept from a sandbox (*SWAP_LIMIT, with
 * the file in *SWAP_FILE, a static string, NULL in mode none). 0, or
 * -errno (-ENOMEM, or the fork's). */
int run_cgroup_probe(const struct run_cgroup_bases *b, enum run_cgroup_mode *mode, char **why, bool *swap_limit,
                     const char **swap_file);
