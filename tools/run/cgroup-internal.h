/* Between the files of the cgroup layer (tools/run/cgroup-*.c) and their
 * unit test: the cgroup's state, each mode's steps, and the small file
 * helpers they share. Every file operation is relative to a folder's fd. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tools/run/cgroup.h"

struct sd_bus;

/* The v1 hierarchies the runner uses, as bits (one folder may hold several). */
enum {
	CG_MEMORY = 1u << 0,
	CG_PIDS = 1u << 1,
	CG_CPU = 1u << 2,
	CG_ALL = CG_MEMORY | CG_PIDS | CG_CPU,
};

/* The cpu period the runner writes (and systemd uses): 100 ms. A quota of
 * N CPUs is N periods of CPU time in each period. */
#define CG_CPU_PERIOD_US 100000u

struct cg_v1_folder {
	unsigned controllers; /* CG_* bits held by this hierarchy */
	char *base;           /* this process's cgroup in it */
	char *path;           /* the sandbox's folder, once made */
	int base_fd, fd;
};

struct run_cgroup {
	enum run_cgroup_mode mode;
	struct run_limits applied;
	const struct run_cgroup_folders *folders;
	bool swap_limited;
	const char *swap_file;
	int oom_fd; /* -1: none */
	short oom_events;

	/* v2 and scope: the sandbox's folder, a v2 one. */
	int fd;
	char *path;

	char *name; /* the sandbox's folder's name, below each base */

	/* v2: what was made below and changed in the base. */
	int base_fd;
	char *base;
	char *leaf;           /* the supervisor leaf this process moved into, or NULL */
	unsigned enabled;     /* CG_* bits this run enabled in base's subtree_control */

	/* v1: one folder per hierarchy, co-mounted controllers sharing one. */
	struct cg_v1_folder v1[3];
	size_t n_v1;

	/* scope */
	char *unit;
	struct sd_bus *bus;
};

/* A cgroup of mode none, holding nothing yet; NULL when out of memory.
 * run_cgroup_remove() frees it. */
struct run_cgroup *cg_new(const struct run_cgroup_folders *folders);

/* Each mode's start: 0 when used (CG filled in), 1 when not (*WHY says
 * why, starting with the mode's name), or -ENOMEM. */
int cg_v2_start(const struct run_cgroup_bases *b, const char *name, const struct run_limits *limits, pid_t pid,
                struct run_cgroup *cg, char **why);
int cg_scope_start(const struct run_cgroup_bases *b, const char *name, const struct run_limits *limits, pid_t pid,
                   struct run_cgroup *cg, char **why);
int cg_v1_start(const struct run_cgroup_bases *b, const char *name, const struct run_limits *limits, pid_t pid,
                struct run_cgroup *cg, char **why);

/* The part of a scope's start after the bus: the scope's v2 folder PATH
 * (made by the manager) must read back LIMITS; then CG holds it. 0, 1
 * with *WHY, or -ENOMEM. */
int cg_scope_adopt(const char *path, const struct run_limits *limits, struct run_cgroup *cg, char **why);

/* Reads the limits of a v2 folder back: memory.max, memory.swap.max
 * (must be 0; a missing file, no swap accounting, leaves *SWAP_LIMITED
 * false), pids.max and cpu.max, each compared with LIMITS exactly. 0, 1
 * with *WHY ("MODE: PATH/pids.max reads 64, not 32"), or -ENOMEM. */
int cg_v2_read_back(int dirfd, const char *mode, const char *path, const struct run_limits *limits,
                    bool *swap_limited, char **why);

void cg_v2_remove(struct run_cgroup *cg);
void cg_v1_remove(struct run_cgroup *cg);
void cg_scope_remove(struct run_cgroup *cg);
bool cg_v1_oom_killed(const struct run_cgroup *cg);
uint64_t cg_v1_peak(const struct run_cgroup *cg);

/* The folder of PID's cgroup in the cgroup2 hierarchy, from
 * /proc/self/mountinfo and /proc/PID/cgroup: 0, -ENOENT, or -ENOMEM. */
int cg_locate_v2_of(pid_t pid, char **folder);
/* run_cgroup_locate() over other files than /proc's (tests). */
int cg_locate_from(const char *mountinfo, const char *cgroup, struct run_cgroup_bases *out);

/* ---- cgroup-files.c ------------------------------------------------------- */

/* Replaces *WHY with the formatted text and returns 1, so "return
 * cg_say(why, ...)" reads as "not used, because"; -ENOMEM when it cannot. */
int cg_say(char **why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* FILE of DIRFD whole (64 KiB at most), NUL-terminated: 0 or -errno. */
int cg_read(int dirfd, const char *file, char **text);
/* FILE's text without its trailing newline, compared with WANT: 0 when
 * equal, 1 when not (*GOT the text), or -errno. */
int cg_read_equal(int dirfd, const char *file, const char *want, char **got);
/* Writes VALUE to the existing FILE of DIRFD in one write(): 0 or -errno. */
int cg_write(int dirfd, const char *file, const char *value);
int cg_write_u64(int dirfd, const char *file, uint64_t value);
/* The number after KEY in a "key value" per line file (memory.events,
 * memory.oom_control): 0, -ENOENT when no line has KEY, or -errno. */
int cg_read_key(int dirfd, const char *file, const char *key, uint64_t *value);
/* A file holding one decimal number: 0 or -errno. */
int cg_read_u64(int dirfd, const char *file, uint64_t *value);
/* Whether a space or newline separated LIST (cgroup.controllers) holds WORD. */
bool cg_list_has(const char *list, const char *word);
/* "memory, pids and cpu" for the CG_* bits of MASK, into BUF. */
const char *cg_controller_names(unsigned mask, char buf[static 32]);
extern const char *const cg_controller_name[3]; /* by bit index */

/* A value a cgroup file is set to and must read back as exactly. An
 * OPTIONAL file may be missing (memory.swap.max without swap accounting):
 * PRESENT says whether it was there. */
struct cg_setting {
	const char *file;
	char value[32];
	bool optional, present;
};
/* Writes each setting in DIRFD, in order; then reads each back. 0, 1 with
 * *WHY ("MODE: cannot write FILE in PATH: ...", "MODE: PATH/FILE reads X,
 * not Y"), or -ENOMEM. */
int cg_settings_write(int dirfd, struct cg_setting *s, size_t n, const char *mode, const char *path, char **why);
int cg_settings_check(int dirfd, struct cg_setting *s, size_t n, const char *mode, const char *path, char **why);

/* Opens the folder PATH (O_DIRECTORY): the fd, or -errno. */
int cg_open_dir(const char *path);
int cg_open_child(int dirfd, const char *name);
/* Makes or removes folder NAME in DIRFD with FOLDERS (NULL: the kernel).
 * Removing retries while the cgroup is busy (still holds a process), for
 * 5 s at most. 0 or -errno. */
int cg_make(const struct run_cgroup_folders *folders, int dirfd, const char *name);
int cg_remove(const struct run_cgroup_folders *folders, int dirfd, const char *name);
/* Moves PID into the folder DIRFD (its cgroup.procs). */
int cg_move(int dirfd, pid_t pid);

/* How many pids the folder's cgroup.procs lists; with *ONLY whether it
 * lists SELF alone. */
int cg_procs_count(int dirfd, size_t *n);
int cg_procs_only(int dirfd, pid_t self, size_t *n, bool *only);
/* cgroup.kill when the folder has one, else SIGKILL to each listed pid
 * until none is listed (a second at most: -EBUSY). */
int cg_procs_kill(int dirfd);
/* The v2 memory.events folder's OOM descriptor (POLLPRI), or -1. */
int cg_v2_oom_fd(int dirfd);
bool cg_v2_oom_killed(int dirfd);
uint64_t cg_v2_peak(int dirfd);
