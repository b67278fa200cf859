#include "config.h"

/* The runner's cgroup layer (tools/run/cgroup.h) over fake cgroup trees of
 * plain files in a temporary folder: v2 with the controllers enabled, v2
 * moving this process into a supervisor leaf and back, v2 refused (other
 * processes, a missing controller, a limit that does not read back), v1
 * with three hierarchies, two sharing a folder, one missing; the order
 * v2, scope, v1, none and its reasons; a scope's read-back; locating the
 * hierarchies from fake /proc files. The fake's folders are made by a
 * "kernel" that copies the parent's interface files, so writes land in
 * files that the tests read. One test runs on the machine's real v1
 * hierarchies as root (it must run in CI). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tools/run/cgroup-internal.h"
#include "tools/run/cgroup.h"

static char root[256];
static const struct run_limits limits = {.memory_mb = 256, .pids = 32, .cpu_millis = 500};
static const pid_t fake_pid = 4242; /* only written, never signalled */

/* ---- The fake tree ---------------------------------------------------------- */

static char *at(const char *rel)
{
	static char path[PATH_MAX + sizeof(root)];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return path;
}

static void put(const char *rel, const char *text)
{
	FILE *f = fopen(at(rel), "we");

	cr_assert_not_null(f, "create %s: %s", rel, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static void put_pid(const char *rel, pid_t pid)
{
	char text[24];

	snprintf(text, sizeof(text), "%d\n", (int)pid);
	put(rel, text);
}

/* The text of ROOT/REL, malloc'd; NULL when it is missing. */
static char *get(const char *rel)
{
	char *text = NULL;

	return cg_read(AT_FDCWD, at(rel), &text) == 0 ? text : NULL;
}

static void expect_text(const char *rel, const char *want)
{
	_cleanup_free_ char *got = get(rel);

	cr_assert_not_null(got, "%s is missing", rel);
	cr_expect_str_eq(got, want, "%s: \"%s\", not \"%s\"", rel, got, want);
}

static bool exists(const char *rel)
{
	return access(at(rel), F_OK) == 0;
}

static void make_dir(const char *rel)
{
	cr_assert_eq(mkdir(at(rel), 0755), 0, "mkdir %s: %s", rel, strerror(errno));
}

/* The fake kernel. A new cgroup gets the parent's interface files, its
 * lists (cgroup.procs, tasks, subtree_control) empty. With LINK_PIDS_MAX,
 * pids.max is the same file as the cpu quota's (cpu.max, v1's
 * cpu.cfs_quota_us): a limit that does not read back. */
static bool link_pids_max;
static unsigned made, removed;

static bool starts_empty(const char *name)
{
	return strcmp(name, "cgroup.procs") == 0 || strcmp(name, "tasks") == 0 ||
	       strcmp(name, "cgroup.subtree_control") == 0;
}

static int copy_file(int from_dir, int to_dir, const char *name)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;

	if (!starts_empty(name) && cg_read(from_dir, name, &text) < 0)
		return -EIO;
	fd = openat(to_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	return text && write(fd, text, strlen(text)) < 0 ? -errno : 0;
}

static int fake_make(int dirfd, const char *name)
{
	_cleanup_close_ int child = -1;
	DIR *d;
	struct dirent *e;
	int k = 0;

	if (mkdirat(dirfd, name, 0755) < 0)
		return -errno;
	child = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fdopendir(openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	cr_assert(child >= 0 && d);
	while (k == 0 && (e = readdir(d)))
		if (e->d_type == DT_REG)
			k = copy_file(dirfd, child, e->d_name);
	closedir(d);
	if (k == 0 && link_pids_max && unlinkat(child, "pids.max", 0) == 0) {
		const char *cpu = faccessat(child, "cpu.max", F_OK, 0) == 0 ? "cpu.max" : "cpu.cfs_quota_us";

		k = linkat(child, cpu, child, "pids.max", 0) < 0 ? -errno : 0;
	}
	made++;
	return k;
}

static int fake_remove(int dirfd, const char *name)
{
	_cleanup_close_ int child = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = child < 0 ? NULL : fdopendir(dup(child));
	struct dirent *e;

	if (!d)
		return -ENOENT;
	while ((e = readdir(d)))
		if (e->d_type == DT_REG)
			unlinkat(child, e->d_name, 0);
	closedir(d);
	removed++;
	return unlinkat(dirfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

static const struct run_cgroup_folders fake = {.make = fake_make, .remove = fake_remove};

/* Every path below ROOT with its text, sorted: two snapshots are equal
 * when the trees are. */
static void snap_into(const char *rel, char **out)
{
	struct dirent **names;
	int n = scandir(at(rel), &names, NULL, alphasort);

	cr_assert_geq(n, 0);
	for (int i = 0; i < n; i++) {
		char child[PATH_MAX], *before = *out;
		_cleanup_free_ char *text = NULL;

		snprintf(child, sizeof(child), "%s/%s", rel, names[i]->d_name);
		if (names[i]->d_name[0] != '.' || (names[i]->d_name[1] && strcmp(names[i]->d_name, "..") != 0)) {
			text = names[i]->d_type == DT_DIR ? NULL : get(child);
			cr_assert_neq(asprintf(out, "%s%s=%s\n", before, child, text ? text : "/"), -1);
			free(before);
			if (names[i]->d_type == DT_DIR)
				snap_into(child, out);
		}
		free(names[i]);
	}
	free(names);
}

static char *snapshot(void)
{
	char *s = strdup("");

	snap_into(".", &s);
	return s;
}

/* A v2 base: this process alone in it; ENABLED its subtree_control. */
static void fake_v2(const char *controllers, const char *enabled)
{
	make_dir("v2");
	put("v2/cgroup.controllers", controllers);
	put("v2/cgroup.subtree_control", enabled);
	put_pid("v2/cgroup.procs", getpid());
	put("v2/cgroup.kill", "");
	put("v2/memory.max", "max\n");
	put("v2/memory.swap.max", "max\n");
	put("v2/memory.oom.group", "0\n");
	put("v2/memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
	put("v2/memory.peak", "0\n");
	put("v2/pids.max", "max\n");
	put("v2/cpu.max", "max 100000\n");
}

static void fake_v1_memory(const char *dir)
{
	char rel[64];

	make_dir(dir);
#define V1(file, text) (snprintf(rel, sizeof(rel), "%s/%s", dir, file), put(rel, text))
	V1("cgroup.procs", "");
	V1("cgroup.event_control", "");
	V1("memory.limit_in_bytes", "9223372036854771712\n");
	V1("memory.memsw.limit_in_bytes", "9223372036854771712\n");
	V1("memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
	V1("memory.max_usage_in_bytes", "0\n");
}

static void fake_v1_pids_cpu(const char *dir, bool pids, bool cpu)
{
	char rel[64];

	make_dir(dir);
	V1("cgroup.procs", "");
	if (pids)
		V1("pids.max", "max\n");
	if (cpu) {
		V1("cpu.cfs_period_us", "100000\n");
		V1("cpu.cfs_quota_us", "-1\n");
	}
#undef V1
}

static struct run_cgroup_bases bases;

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/oz0-test-cgroup.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	bases = (struct run_cgroup_bases){.folders = &fake};
	link_pids_max = false;
	made = removed = 0;
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	free(bases.v2);
	free(bases.v1_memory);
	free(bases.v1_pids);
	free(bases.v1_cpu);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

static char *dup_at(const char *rel)
{
	char *p = strdup(at(rel));

	cr_assert_not_null(p);
	return p;
}

static struct run_cgroup *start(char **why)
{
	struct run_cgroup *cg = NULL;

	cr_assert_eq(run_cgroup_start(&bases, "oz0run.t", &limits, fake_pid, &cg, why), 0);
	cr_assert_not_null(cg);
	cr_assert_not_null(*why);
	return cg;
}

static void expect_applied(const struct run_cgroup *cg, const struct run_limits *want)
{
	struct run_limits got = run_cgroup_applied(cg);

	cr_expect_eq(got.memory_mb, want->memory_mb);
	cr_expect_eq(got.pids, want->pids);
	cr_expect_eq(got.cpu_millis, want->cpu_millis);
}

/* What the runner asks of a sandbox while it runs (one process in it):
 * the OOM descriptor, an OOM kill once OOM_FILE says OOM_TEXT, the peak
 * from PEAK_FILE, the count. */
static void expect_running(const struct run_cgroup *cg, short events, const char *oom_file, const char *oom_text,
                           const char *peak_file)
{
	short got;
	size_t n;

	cr_expect_geq(run_cgroup_oom_fd(cg, &got), 0);
	cr_expect_eq(got, events);
	cr_expect(!run_cgroup_oom_killed(cg));
	put(oom_file, oom_text);
	cr_expect(run_cgroup_oom_killed(cg));
	cr_expect_eq(run_cgroup_peak_memory(cg), 0);
	put(peak_file, "123456789\n");
	cr_expect_eq(run_cgroup_peak_memory(cg), 123456789);
	cr_expect_eq(run_cgroup_count(cg, &n), 0);
	cr_expect_eq(n, 1);
}

TestSuite(run_cgroup, .init = setup, .fini = teardown);

/* ---- v2 ------------------------------------------------------------------- */

static void expect_v2_limits(const char *dir)
{
	char rel[64];

#define EXPECT(file, text) (snprintf(rel, sizeof(rel), "%s/%s", dir, file), expect_text(rel, text))
	EXPECT("memory.max", "268435456");
	EXPECT("memory.swap.max", "0");
	EXPECT("memory.oom.group", "1");
	EXPECT("pids.max", "32");
	EXPECT("cpu.max", "50000 100000");
	EXPECT("cgroup.procs", "4242");
#undef EXPECT
}

Test(run_cgroup, v2_with_the_controllers_enabled)
{
	_cleanup_free_ char *before = NULL, *after = NULL, *why = NULL, *want = NULL;
	struct run_cgroup *cg;

	fake_v2("cpu io memory pids\n", "cpu memory pids\n");
	bases.v2 = dup_at("v2");
	before = snapshot();
	cg = start(&why);
	cr_assert_eq(run_cgroup_mode(cg), RUN_CGROUP_V2, "%s", why);
	cr_assert_neq(asprintf(&want, "v2 (a delegated subtree at %s, limits read back)", bases.v2), -1);
	cr_expect_str_eq(why, want);
	expect_v2_limits("v2/oz0run.t");
	expect_applied(cg, &limits);
	expect_text("v2/cgroup.subtree_control", "cpu memory pids\n");
	cr_expect(!exists("v2/oz0run.supervisor.1") && made == 1);

	expect_running(cg, POLLPRI, "v2/oz0run.t/memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n",
	               "v2/oz0run.t/memory.peak");
	cr_expect_eq(run_cgroup_kill(cg), 0);
	expect_text("v2/oz0run.t/cgroup.kill", "1");

	run_cgroup_remove(cg);
	after = snapshot();
	cr_expect_str_eq(after, before);
	cr_expect_eq(removed, 1);
}

Test(run_cgroup, v2_moves_this_process_into_a_leaf_and_back)
{
	_cleanup_free_ char *before = NULL, *after = NULL, *why = NULL, *leaf = NULL;
	struct run_cgroup *cg;
	char self[24];

	fake_v2("cpu memory pids\n", "");
	bases.v2 = dup_at("v2");
	before = snapshot();
	cg = start(&why);
	cr_assert_eq(run_cgroup_mode(cg), RUN_CGROUP_V2, "%s", why);
	snprintf(self, sizeof(self), "%d", (int)getpid());
	cr_assert_neq(asprintf(&leaf, "v2/oz0run.supervisor.%s/cgroup.procs", self), -1);
	expect_text(leaf, self);
	expect_text("v2/cgroup.subtree_control", "+memory +pids +cpu");
	expect_v2_limits("v2/oz0run.t");
	cr_expect_not_null(strstr(why, "this process moved to "), "%s", why);
	cr_expect_not_null(strstr(why, "to enable memory, pids and cpu in its cgroup.subtree_control"), "%s", why);

	run_cgroup_remove(cg);
	/* Undone in the reverse order: the controllers off, this process
	 * back, the leaf gone. Plain files keep the last write; put back
	 * what the kernel would show, and the trees are equal. */
	expect_text("v2/cgroup.subtree_control", "-memory -pids -cpu");
	expect_text("v2/cgroup.procs", self);
	cr_expect(!exists("v2/oz0run.t") && !exists(leaf));
	cr_expect_eq(removed, 2);
	put("v2/cgroup.subtree_control", "");
	put_pid("v2/cgroup.procs", getpid());
	after = snapshot();
	cr_expect_str_eq(after, before);
}

Test(run_cgroup, v2_enables_only_what_is_missing)
{
	_cleanup_free_ char *why = NULL;
	struct run_cgroup *cg;

	fake_v2("cpu memory pids\n", "memory\n");
	bases.v2 = dup_at("v2");
	cg = start(&why);
	cr_assert_eq(run_cgroup_mode(cg), RUN_CGROUP_V2, "%s", why);
	expect_text("v2/cgroup.subtree_control", "+pids +cpu");
	cr_expect_not_null(strstr(why, "to enable pids and cpu in"), "%s", why);
	run_cgroup_remove(cg);
	expect_text("v2/cgroup.subtree_control", "-pids -cpu");
}

/* A refused v2 leaves the tree as it was; with nothing else, mode none. */
static void expect_refused(const char *reason)
{
	_cleanup_free_ char *before = snapshot(), *after = NULL, *why = NULL;
	struct run_cgroup *cg = start(&why);
	struct run_limits none = {0};
	size_t n;
	short events;

	cr_expect_eq(run_cgroup_mode(cg), RUN_CGROUP_NONE, "%s", why);
	cr_expect_not_null(strstr(why, reason), "\"%s\" is not in: %s", reason, why);
	cr_expect_eq(strncmp(why, "none (no limits); v2: ", 22), 0, "%s", why);
	expect_applied(cg, &none);
	cr_expect_eq(run_cgroup_oom_fd(cg, &events), -1);
	cr_expect(!run_cgroup_oom_killed(cg));
	cr_expect_eq(run_cgroup_peak_memory(cg), 0);
	cr_expect_eq(run_cgroup_count(cg, &n), -ENOTSUP);
	cr_expect_eq(run_cgroup_kill(cg), -ENOTSUP);
	run_cgroup_remove(cg);
	after = snapshot();
	cr_expect_str_eq(after, before);
}

Test(run_cgroup, v2_refused_when_other_processes_share_the_base)
{
	_cleanup_free_ char *reason = NULL;

	fake_v2("cpu memory pids\n", "");
	put("v2/cgroup.procs", "1\n4243\n");
	bases.v2 = dup_at("v2");
	cr_assert_neq(asprintf(&reason,
	                       "v2: %s/cgroup.subtree_control does not enable memory, pids and cpu, and other processes "
	                       "share %s with this one (2 in its cgroup.procs)",
	                       bases.v2, bases.v2),
	              -1);
	expect_refused(reason);
	cr_expect_eq(made, 0);
}

Test(run_cgroup, v2_refused_without_a_controller)
{
	_cleanup_free_ char *reason = NULL;

	fake_v2("cpu io memory\n", "cpu memory\n");
	bases.v2 = dup_at("v2");
	cr_assert_neq(asprintf(&reason, "v2: %s does not offer pids (its cgroup.controllers: cpu io memory)", bases.v2),
	              -1);
	expect_refused(reason);
}

Test(run_cgroup, v2_refused_when_a_limit_does_not_read_back)
{
	_cleanup_free_ char *reason = NULL;

	fake_v2("cpu memory pids\n", "cpu memory pids\n");
	bases.v2 = dup_at("v2");
	link_pids_max = true;
	cr_assert_neq(asprintf(&reason, "v2: %s/oz0run.t/pids.max reads 50000 100000, not 32", bases.v2), -1);
	expect_refused(reason);
	cr_expect_eq(made, 1);
	cr_expect_eq(removed, 1);
}

/* ---- v1 ------------------------------------------------------------------- */

static void fake_v1(void)
{
	make_dir("v1");
	fake_v1_memory("v1/memory");
	fake_v1_pids_cpu("v1/pids", true, false);
	fake_v1_pids_cpu("v1/cpu", false, true);
	bases.v1_memory = dup_at("v1/memory");
	bases.v1_pids = dup_at("v1/pids");
	bases.v1_cpu = dup_at("v1/cpu");
}

static void expect_v1_limits(const char *memory, const char *pids, const char *cpu)
{
	char rel[64];

#define EXPECT(dir, file, text) (snprintf(rel, sizeof(rel), "%s/oz0run.t/%s", dir, file), expect_text(rel, text))
	EXPECT(memory, "memory.limit_in_bytes", "268435456");
	EXPECT(memory, "memory.memsw.limit_in_bytes", "268435456");
	EXPECT(memory, "cgroup.procs", "4242");
	EXPECT(pids, "pids.max", "32");
	EXPECT(pids, "cgroup.procs", "4242");
	EXPECT(cpu, "cpu.cfs_period_us", "100000");
	EXPECT(cpu, "cpu.cfs_quota_us", "50000");
	EXPECT(cpu, "cgroup.procs", "4242");
#undef EXPECT
}

Test(run_cgroup, v1_with_three_hierarchies)
{
	_cleanup_free_ char *before = NULL, *after = NULL, *why = NULL, *want = NULL, *event = NULL;
	struct run_cgroup *cg;
	short events;
	int efd, cfd;

	fake_v1();
	before = snapshot();
	cg = start(&why);
	cr_assert_eq(run_cgroup_mode(cg), RUN_CGROUP_V1, "%s", why);
	cr_assert_neq(asprintf(&want,
	                       "v1 (memory at %s, pids at %s, cpu at %s, limits read back); v2: this process is in no "
	                       "cgroup2 hierarchy; scope: not asked for",
	                       bases.v1_memory, bases.v1_pids, bases.v1_cpu),
	              -1);
	cr_expect_str_eq(why, want);
	expect_v1_limits("v1/memory", "v1/pids", "v1/cpu");
	expect_applied(cg, &limits);
	cr_expect(cg->swap_limited && strcmp(cg->swap_file, "memory.memsw.limit_in_bytes") == 0);

	/* The OOM eventfd, registered on memory.oom_control. */
	event = get("v1/memory/oz0run.t/cgroup.event_control");
	cr_expect_eq(sscanf(event, "%d %d", &efd, &cfd), 2, "%s", event);
	cr_expect_eq(efd, run_cgroup_oom_fd(cg, &events));
	expect_running(cg, POLLIN, "v1/memory/oz0run.t/memory.oom_control",
	               "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n", "v1/memory/oz0run.t/memory.max_usage_in_bytes");

	run_cgroup_remove(cg);
	after = snapshot();
	cr_expect_str_eq(after, before);
	cr_expect(made == 3 && removed == 3);
}

Test(run_cgroup, v1_without_memsw_keeps_no_swap_limit)
{
	_cleanup_free_ char *why = NULL;
	struct run_cgroup *cg;

	fake_v1();
	cr_assert_eq(unlink(at("v1/memory/memory.memsw.limit_in_bytes")), 0);
	cg = start(&why);
	cr_assert_eq(run_cgroup_mode(cg), RUN_CGROUP_V1, "%s", why);
	cr_expect(!cg->swap_limited);
	cr_expect(!exists("v1/memory/oz0run.t/memory.memsw.limit_in_bytes"));
	run_cgroup_remove(cg);
}

Test(run_cgroup, v1_with_two_controllers_in_one_hierarchy)
{
	_cleanup_free_ char *why = NULL, *want = NULL;
	struct run_cgroup *cg;

	/* pids and cpu mounted together (as cpu,cpuacct are): one folder. */
	make_dir("v1");
	fake_v1_memory("v1/memory");
	fake_v1_pids_cpu("v1/pids,cpu", true, true);
	bases.v1_memory = dup_at("v1/memory");
	bases.v1_pids = dup_at("v1/pids,cpu");
	bases.v1_cpu = dup_at("v1/pids,cpu");
	cg = start(&why);
	cr_assert_eq(run_cgroup_mode(cg), RUN_CGROUP_V1, "%s", why);
	cr_assert_neq(asprintf(&want, "v1 (memory at %s, pids and cpu at %s, limits read back)", bases.v1_memory,
	                       bases.v1_pids),
	              -1);
	cr_expect_eq(strncmp(why, want, strlen(want)), 0, "%s", why);
	expect_v1_limits("v1/memory", "v1/pids,cpu", "v1/pids,cpu");
	cr_expect_eq(made, 2);
	run_cgroup_remove(cg);
	cr_expect(removed == 2 && !exists("v1/pids,cpu/oz0run.t"));
}

Test(run_cgroup, v1_refused_without_a_pids_hierarchy)
{
	fake_v1();
	free(bases.v1_pids);
	bases.v1_pids = NULL;
	expect_refused("; v1: no pids hierarchy holds this process");
	cr_expect_eq(made, 0);
}

Test(run_cgroup, v1_refused_when_a_limit_does_not_read_back)
{
	_cleanup_free_ char *reason = NULL;

	fake_v1();
	/* A memory hierarchy whose pids.max is cpu.max's file: the memory
	 * folder is made, then removed again when pids is refused. */
	fake_v1_pids_cpu("v1/both", true, true);
	free(bases.v1_pids);
	free(bases.v1_cpu);
	bases.v1_pids = dup_at("v1/both");
	bases.v1_cpu = dup_at("v1/both");
	link_pids_max = true;
	cr_assert_neq(asprintf(&reason, "v1: %s/oz0run.t/pids.max reads 50000, not 32", bases.v1_pids), -1);
	expect_refused(reason);
	cr_expect(made == 2 && removed == 2);
}

/* ---- The order ---------------------------------------------------------- */

Test(run_cgroup, v1_after_a_refused_v2_says_why)
{
	_cleanup_free_ char *why = NULL, *reason = NULL;
	struct run_cgroup *cg;

	fake_v2("cpu memory\n", "");
	bases.v2 = dup_at("v2");
	fake_v1();
	cg = start(&why);
	cr_assert_eq(run_cgroup_mode(cg), RUN_CGROUP_V1, "%s", why);
	cr_assert_neq(asprintf(&reason,
	                       ", limits read back); v2: %s does not offer pids (its cgroup.controllers: cpu memory); "
	                       "scope: not asked for",
	                       bases.v2),
	              -1);
	cr_expect_not_null(strstr(why, reason), "%s", why);
	cr_expect_eq(strncmp(why, "v1 (memory at ", 14), 0, "%s", why);
	run_cgroup_remove(cg);
}

Test(run_cgroup, none_names_each_reason_in_order)
{
	_cleanup_free_ char *why = NULL, *want = NULL;
	struct run_cgroup *cg;

	fake_v2("cpu memory pids\n", "cpu memory\n");
	put("v2/cgroup.procs", "1\n");
	bases.v2 = dup_at("v2");
	fake_v1();
	free(bases.v1_cpu);
	bases.v1_cpu = NULL;
	cg = start(&why);
	cr_assert_eq(run_cgroup_mode(cg), RUN_CGROUP_NONE, "%s", why);
	cr_assert_neq(asprintf(&want,
	                       "none (no limits); v2: %s/cgroup.subtree_control does not enable pids, and other processes "
	                       "share %s with this one (1 in its cgroup.procs): the no-internal-processes rule keeps them "
	                       "from being enabled there; scope: not asked for; v1: no cpu hierarchy holds this process",
	                       bases.v2, bases.v2),
	              -1);
	cr_expect_str_eq(why, want);
	run_cgroup_remove(cg);
}

Test(run_cgroup, start_refuses_bad_arguments)
{
	struct run_cgroup *cg = NULL;
	char *why = NULL;

	cr_expect_eq(run_cgroup_start(&bases, "a/b", &limits, fake_pid, &cg, &why), -EINVAL);
	cr_expect_eq(run_cgroup_start(&bases, "..", &limits, fake_pid, &cg, &why), -EINVAL);
	cr_expect_eq(run_cgroup_start(&bases, "", &limits, fake_pid, &cg, &why), -EINVAL);
	cr_expect_eq(run_cgroup_start(&bases, "x", &(struct run_limits){.memory_mb = 1, .pids = 1}, fake_pid, &cg, &why),
	             -EINVAL);
	cr_expect_eq(run_cgroup_start(&bases, "x", &limits, 0, &cg, &why), -EINVAL);
	cr_expect(cg == NULL && why == NULL);
	run_cgroup_remove(NULL);
}

/* ---- A scope's folder --------------------------------------------------------- */

static void fake_scope(const char *memory_max, bool swap)
{
	make_dir("oz0run-x.scope");
	put("oz0run-x.scope/cgroup.procs", "4242\n");
	put("oz0run-x.scope/memory.max", memory_max);
	if (swap)
		put("oz0run-x.scope/memory.swap.max", "0\n");
	put("oz0run-x.scope/memory.oom.group", "0\n");
	put("oz0run-x.scope/memory.events", "oom_kill 0\n");
	put("oz0run-x.scope/pids.max", "32\n");
	put("oz0run-x.scope/cpu.max", "50000 100000\n");
}

Test(run_cgroup, scope_whose_limits_read_back_is_used)
{
	struct run_cgroup *cg = cg_new(NULL);
	_cleanup_free_ char *why = NULL;
	size_t n;
	short events;

	fake_scope("268435456\n", true);
	cr_assert_not_null(cg);
	cr_assert_eq(cg_scope_adopt(at("oz0run-x.scope"), &limits, cg, &why), 0, "%s", why);
	cr_expect_eq(run_cgroup_mode(cg), RUN_CGROUP_SCOPE);
	cr_expect_eq(strncmp(why, "scope (a scope at ", 18), 0, "%s", why);
	expect_applied(cg, &limits);
	cr_expect(cg->swap_limited);
	expect_text("oz0run-x.scope/memory.oom.group", "1");
	cr_expect_geq(run_cgroup_oom_fd(cg, &events), 0);
	cr_expect_eq(events, POLLPRI);
	cr_expect_eq(run_cgroup_count(cg, &n), 0);
	cr_expect_eq(n, 1);
	run_cgroup_remove(cg);
	/* The manager removes a scope's folder, not the runner. */
	cr_expect(exists("oz0run-x.scope/cgroup.procs"));
}

Test(run_cgroup, scope_without_swap_accounting_is_used)
{
	struct run_cgroup *cg = cg_new(NULL);
	_cleanup_free_ char *why = NULL;

	fake_scope("268435456\n", false);
	cr_assert_eq(cg_scope_adopt(at("oz0run-x.scope"), &limits, cg, &why), 0, "%s", why);
	cr_expect(!cg->swap_limited);
	run_cgroup_remove(cg);
}

Test(run_cgroup, scope_whose_limits_do_not_read_back_is_refused)
{
	struct run_cgroup *cg = cg_new(NULL);
	_cleanup_free_ char *why = NULL, *want = NULL;

	/* A manager that rounded the limit, or could not apply it. */
	fake_scope("max\n", true);
	cr_assert_eq(cg_scope_adopt(at("oz0run-x.scope"), &limits, cg, &why), 1);
	cr_assert_neq(asprintf(&want, "scope: %s/memory.max reads max, not 268435456", at("oz0run-x.scope")), -1);
	cr_expect_str_eq(why, want);
	cr_expect_eq(run_cgroup_mode(cg), RUN_CGROUP_NONE);
	run_cgroup_remove(cg);
}

Test(run_cgroup, v2_reader_refuses_a_swap_limit_that_is_not_zero)
{
	_cleanup_free_ char *why = NULL;
	_cleanup_close_ int fd = -1;
	bool swap;

	fake_scope("268435456\n", true);
	put("oz0run-x.scope/memory.swap.max", "max\n");
	fd = cg_open_dir(at("oz0run-x.scope"));
	cr_assert_geq(fd, 0);
	cr_expect_eq(cg_v2_read_back(fd, "scope", "S", &limits, &swap, &why), 1);
	cr_expect_str_eq(why, "scope: S/memory.swap.max reads max, not 0");
}

Test(run_cgroup, scope_not_asked_for_in_tests)
{
	struct run_cgroup *cg = cg_new(NULL);
	_cleanup_free_ char *why = NULL;

	cr_expect_eq(cg_scope_start(&bases, "x", &limits, fake_pid, cg, &why), 1);
	cr_expect_str_eq(why, "scope: not asked for");
	run_cgroup_remove(cg);
}

/* ---- Locating the hierarchies ------------------------------------------------ */

Test(run_cgroup, locate_from_mountinfo_and_cgroup)
{
	struct run_cgroup_bases b;
	char mountinfo[PATH_MAX * 2], *cgroup = NULL;
	_cleanup_free_ char *want = NULL;

	snprintf(mountinfo, sizeof(mountinfo),
	         "31 23 0:28 / %s/fs rw,relatime - tmpfs tmpfs rw,mode=755\n"
	         "32 31 0:29 / %s/fs/cpu,cpuacct rw,nosuid shared:9 - cgroup cgroup rw,cpu,cpuacct\n"
	         "35 31 0:32 /outer %s/fs/memory rw,relatime - cgroup cgroup rw,memory\n"
	         "36 31 0:33 /inner %s/fs/pids rw,relatime - cgroup cgroup rw,pids\n"
	         "40 31 0:37 / %s/fs/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
	         "41 31 0:38 / %s/fs/unified rw,relatime - cgroup2 cgroup2 rw\n",
	         root, root, root, root, root, root);
	put("mountinfo", mountinfo);
	/* memory's path lies below the mount's root; pids' does not. */
	put("cgroup", "12:name=systemd:/\n9:pids:/elsewhere\n4:memory:/outer/job/7\n2:cpu,cpuacct:/c\n0::/a/b\n");
	cr_assert_neq(asprintf(&cgroup, "%s", at("cgroup")), -1);
	cr_assert_eq(cg_locate_from(at("mountinfo"), cgroup, &b), 0);
	free(cgroup);
	cr_assert_neq(asprintf(&want, "%s/fs/unified/a/b", root), -1);
	cr_expect_str_eq(b.v2, want);
	free(want);
	cr_assert_neq(asprintf(&want, "%s/fs/memory/job/7", root), -1);
	cr_expect_str_eq(b.v1_memory, want);
	free(want);
	cr_assert_neq(asprintf(&want, "%s/fs/cpu,cpuacct/c", root), -1);
	cr_expect_str_eq(b.v1_cpu, want);
	cr_expect_null(b.v1_pids);
	cr_expect(!b.try_scope && !b.folders);
	run_cgroup_bases_free(&b);
}

Test(run_cgroup, locate_this_process)
{
	struct run_cgroup_bases b;
	_cleanup_free_ char *own = NULL;

	cr_assert_eq(run_cgroup_locate(&b), 0);
	cr_expect(b.try_scope);
	/* Wherever this machine placed us, the v2 folder is our pid's. */
	if (b.v2) {
		cr_expect_eq(cg_locate_v2_of(getpid(), &own), 0);
		cr_expect_str_eq(own, b.v2);
	}
	run_cgroup_bases_free(&b);
}

/* ---- The machine's v1 hierarchies ------------------------------------------ */

/* The names of the folders in DIR, sorted, one a line. */
static char *folders_in(const char *dir)
{
	struct dirent **names;
	char *s = strdup(""), *before;
	int n = scandir(dir, &names, NULL, alphasort);

	cr_assert_geq(n, 0, "%s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		if (names[i]->d_type == DT_DIR) {
			before = s;
			cr_assert_neq(asprintf(&s, "%s%s\n", before, names[i]->d_name), -1);
			free(before);
		}
		free(names[i]);
	}
	free(names);
	return s;
}

static void expect_real(const char *base, const char *name, const char *file, const char *want)
{
	_cleanup_free_ char *got = NULL;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s/%s", base, name, file);
	cr_assert_eq(cg_read(AT_FDCWD, path, &got), 0, "%s", path);
	got[strcspn(got, "\n")] = '\0';
	cr_expect_str_eq(got, want, "%s", path);
}

/* The machine's v1 hierarchies, as root (else a skip; a failure in CI):
 * v2 and the bus are the fake trees' business. */
static void real_v1_bases(struct run_cgroup_bases *b)
{
	if (geteuid() != 0) {
		if (getenv("CI") && strcmp(getenv("CI"), "true") == 0)
			cr_assert_fail("CI=true: this test needs root, to make cgroups in the machine's v1 hierarchies");
		cr_skip_test("making cgroups in the machine's v1 hierarchies needs root");
	}
	cr_assert_eq(run_cgroup_locate(b), 0);
	if (!b->v1_memory || !b->v1_pids || !b->v1_cpu)
		cr_assert_fail("this machine has no v1 hierarchy for %s",
		               !b->v1_memory ? "memory" : !b->v1_pids ? "pids" : "cpu");
	free(b->v2);
	b->v2 = NULL;
	b->try_scope = false;
}

/* A child that waits for a byte on GO, then allocates MB mebibytes (0:
 * none), touching each page, then pauses until killed. */
static pid_t fork_child(int go, size_t mb)
{
	pid_t pid = fork();
	char byte;

	cr_assert_geq(pid, 0);
	if (pid > 0)
		return pid;
	if (read(go, &byte, 1) != 1)
		_exit(1);
	for (size_t i = 0; i < mb; i++) {
		char *p = malloc(1 << 20);

		if (p)
			memset(p, 1, 1 << 20);
	}
	for (;;)
		pause();
}

Test(run_cgroup, real_v1_hierarchies)
{
	const struct run_limits small = {.memory_mb = 64, .pids = 16, .cpu_millis = 250};
	_cleanup_free_ char *why = NULL, *mem_before = NULL, *pids_before = NULL, *cpu_before = NULL, *after = NULL;
	struct run_cgroup_bases b;
	struct run_cgroup *cg = NULL;
	char name[48], child_text[24];
	int status, go[2];
	short events;
	size_t n;
	pid_t child;

	real_v1_bases(&b);
	mem_before = folders_in(b.v1_memory);
	pids_before = folders_in(b.v1_pids);
	cpu_before = folders_in(b.v1_cpu);
	cr_assert_eq(pipe(go), 0);
	child = fork_child(go[0], 0);
	snprintf(name, sizeof(name), "oz0run-test.%d", (int)getpid());
	cr_assert_eq(run_cgroup_start(&b, name, &small, child, &cg, &why), 0);
	cr_assert_eq(run_cgroup_mode(cg), RUN_CGROUP_V1, "%s", why);
	expect_real(b.v1_memory, name, "memory.limit_in_bytes", "67108864");
	expect_real(b.v1_pids, name, "pids.max", "16");
	expect_real(b.v1_cpu, name, "cpu.cfs_quota_us", "25000");
	snprintf(child_text, sizeof(child_text), "%d", (int)child);
	expect_real(b.v1_memory, name, "cgroup.procs", child_text);
	expect_real(b.v1_pids, name, "cgroup.procs", child_text);
	expect_real(b.v1_cpu, name, "cgroup.procs", child_text);
	cr_expect_geq(run_cgroup_oom_fd(cg, &events), 0, "the OOM eventfd was not registered");
	cr_expect_eq(run_cgroup_count(cg, &n), 0);
	cr_expect_eq(n, 1);

	cr_expect_eq(run_cgroup_kill(cg), 0);
	cr_assert_eq(waitpid(child, &status, 0), child);
	cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	cr_expect_eq(run_cgroup_count(cg, &n), 0);
	cr_expect_eq(n, 0);
	run_cgroup_remove(cg);

	after = folders_in(b.v1_memory);
	cr_expect_str_eq(after, mem_before);
	free(after);
	after = folders_in(b.v1_pids);
	cr_expect_str_eq(after, pids_before);
	free(after);
	after = folders_in(b.v1_cpu);
	cr_expect_str_eq(after, cpu_before);
	run_cgroup_bases_free(&b);
}

Test(run_cgroup, real_v1_oom_is_told_through_the_eventfd)
{
	const struct run_limits small = {.memory_mb = 32, .pids = 16, .cpu_millis = 1000};
	_cleanup_free_ char *why = NULL;
	struct run_cgroup_bases b;
	struct run_cgroup *cg = NULL;
	struct pollfd p;
	char name[48];
	int status, go[2];
	pid_t child;

	real_v1_bases(&b);
	cr_assert_eq(pipe(go), 0);
	child = fork_child(go[0], 256);
	snprintf(name, sizeof(name), "oz0run-oom.%d", (int)getpid());
	cr_assert_eq(run_cgroup_start(&b, name, &small, child, &cg, &why), 0);
	cr_assert_eq(run_cgroup_mode(cg), RUN_CGROUP_V1, "%s", why);
	p.fd = run_cgroup_oom_fd(cg, &p.events);
	cr_assert_geq(p.fd, 0);
	cr_expect(!run_cgroup_oom_killed(cg));
	cr_assert_eq(write(go[1], "g", 1), 1);
	cr_expect_eq(poll(&p, 1, 20000), 1, "no OOM event within 20 s");
	cr_assert_eq(waitpid(child, &status, 0), child);
	cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	cr_expect(run_cgroup_oom_killed(cg));
	cr_expect_geq(run_cgroup_peak_memory(cg), 30u << 20);
	run_cgroup_remove(cg);
	run_cgroup_bases_free(&b);
}

/* Makes the fake cgroup REL/NAME. */
static void fake_cgroup(const char *rel, const char *name)
{
	_cleanup_close_ int fd = open(at(rel), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert(fd >= 0);
	cr_assert_eq(fake_make(fd, name), 0);
}

/* A killed runner's empty folder goes; a live runner's, a busy one and
 * a folder of another name stay. */
Test(run_cgroup, sweep_removes_only_what_killed_runners_left)
{
	char dead[64], live[64], procs[96];
	pid_t gone = fork();

	cr_assert(gone >= 0);
	if (gone == 0)
		_exit(0);
	cr_assert_eq(waitpid(gone, NULL, 0), gone);
	fake_v1();
	snprintf(dead, sizeof(dead), "oz0run.%d", (int)gone);
	snprintf(live, sizeof(live), "oz0run.%d", (int)getppid());
	fake_cgroup("v1/memory", dead);
	fake_cgroup("v1/pids", dead);
	fake_cgroup("v1/cpu", dead);
	fake_cgroup("v1/memory", live);
	fake_cgroup("v1/memory", "oz0run.x1");
	snprintf(procs, sizeof(procs), "v1/cpu/%s/cgroup.procs", dead);
	put_pid(procs, fake_pid);
	cr_assert_eq(run_cgroup_sweep(&bases, "oz0run."), 2);
	snprintf(procs, sizeof(procs), "v1/memory/%s", dead);
	cr_expect_not(exists(procs));
	snprintf(procs, sizeof(procs), "v1/pids/%s", dead);
	cr_expect_not(exists(procs));
	snprintf(procs, sizeof(procs), "v1/cpu/%s", dead);
	cr_expect(exists(procs), "a cgroup with a process in it stays");
	snprintf(procs, sizeof(procs), "v1/memory/%s", live);
	cr_expect(exists(procs), "a live runner's cgroup stays");
	cr_expect(exists("v1/memory/oz0run.x1"));
}
