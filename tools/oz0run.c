/* oz0run: runs a command in limits, namespaces and an oz0fs mount of the
 * tree, and settles what it left in Git state (ARCHITECTURE.md, the
 * runner). See run-args.c for the command line and tools/run/ for the
 * parts; this file puts them in order:
 *
 *   the configuration, the ceiling and the command rules (refusals: 125);
 *   the tree's state file claimed, an earlier run's settled, the tree recorded;
 *   the daemon (its own mount namespace, outside the sandbox's cgroup);
 *   the sandbox forked, placed in its cgroup, started, watched to its end;
 *   the daemon stopped, the tree settled, the cgroup removed, the report. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "common/tree-place.h"
#include "policy/command-rules.h"
#include "policy/conf.h"
#include "tools/run-args.h"
#include "tools/check.h"
#include "tools/run-settle.h"
#include "tools/run/ceiling.h"
#include "tools/run/cgroup.h"
#include "tools/run/daemon.h"
#include "tools/run/gone-runner.h"
#include "tools/run/mounts.h"
#include "tools/run/outcome.h"
#include "tools/run/sandbox.h"
#include "tools/run/state-place.h"
#include "tools/run/supervise.h"

#define EXIT_ACTED 3
#define EXIT_TIMEOUT 124
#define EXIT_REFUSED 125
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127
#define EXIT_OOM 137

/* Everything one run holds, released by run_done(). */
struct run {
	struct run_args a;
	char *tree;      /* real path */
	char *workspace; /* the tree's path unless --workspace */
	char *home;      /* --home's real path */
	char *node_home;
	int rootfd;
	struct policy_config *cfg;
	char *state;
	char *state_dir;
	int lock_fd;
	int report_dir;    /* --report's folder, opened before the command could plant a link on the way */
	char *report_name; /* the report's name in it */
	char *run_dir; /* the run's own files: the daemon's log, the audit file */
	char *audit;
	int log_fd;
	struct run_ids ids; /* the command's: the tree owner's when the runner is root */
	bool recorded;      /* the tree's state was recorded: it is settled whatever happens */
	struct settle_state before; /* what was recorded, in memory */
	struct run_daemon daemon;
	struct run_view view;
	struct run_sandbox_spec spec;
	struct run_sandbox sandbox;
	struct run_cgroup *cgroup;
	struct run_outcome o;
};

static _Noreturn void refuse(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say_ap(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static void say_ap(const char *fmt, va_list ap)
{
	fputs("oz0run: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_ap(fmt, ap);
	va_end(ap);
}

/* ---- Before anything runs ------------------------------------------------- */

static char *real_dir(struct run *r, const char *opt, const char *path)
{
	char *real = realpath(path, NULL);
	struct stat st;

	if (!real || stat(real, &st) < 0)
		refuse(r, "%s '%s': %m", opt, path);
	if (!S_ISDIR(st.st_mode))
		refuse(r, "%s '%s': not a folder", opt, path);
	return real;
}

/* A --workspace must be a folder already, the sandbox's root being
 * read-only, unless it lies in the sandbox's own /tmp or /dev/shm. */
static void check_workspace(struct run *r, const char *path)
{
	struct stat st;

	if (mounts_path_within(path, "/tmp") || mounts_path_within(path, "/dev/shm"))
		return;
	if (lstat(path, &st) < 0)
		refuse(r, "--workspace '%s': %m; the sandbox's root is read-only, so make the folder first", path);
	if (!S_ISDIR(st.st_mode))
		refuse(r, "--workspace '%s': not a folder (a link is not followed)", path);
}

/* The node user's home: $HOME, else the password database's. */
static char *node_home(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (!home || home[0] != '/') {
		pw = getpwuid(geteuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home)
		return NULL;
	char *real = realpath(home, NULL);
	if (real && strcmp(real, "/") == 0) {
		free(real);
		return NULL;
	}
	return real;
}

/* The report's folder, held from now: a link the command plants on the
 * way later does not move where the report goes. */
static void open_report_dir(struct run *r)
{
	_cleanup_free_ char *copy = strdup(r->a.report);
	char *slash = copy ? strrchr(copy, '/') : NULL;
	const char *dir = slash ? (slash == copy ? "/" : copy) : ".";

	if (!copy)
		refuse(r, "out of memory");
	r->report_name = strdup(slash ? slash + 1 : copy);
	if (slash && slash != copy)
		*slash = '\0';
	if (!r->report_name || !*r->report_name || strcmp(r->report_name, ".") == 0 || strcmp(r->report_name, "..") == 0)
		refuse(r, "--report '%s': a file name is needed", r->a.report);
	r->report_dir = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->report_dir < 0)
		refuse(r, "--report '%s': its folder %s: %m", r->a.report, dir);
}

/* Writes the report into the folder held since the start. */
static void write_report(struct run *r)
{
	char path[64 + NAME_MAX];
	int k;

	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", r->report_dir, r->report_name);
	if ((k = run_outcome_write_report(&r->o, path)) < 0)
		say("cannot write the report %s: %s", r->a.report, strerror(-k));
}

/* Who the command runs as: the runner itself, or, when the runner is root,
 * the tree's owner (see tools/run/userns.h). */
static struct run_ids command_ids(int rootfd)
{
	struct stat st;

	if (geteuid() != 0)
		return (struct run_ids){geteuid(), getegid(), false};
	if (fstat(rootfd, &st) < 0)
		return (struct run_ids){0, 0, true};
	return (struct run_ids){st.st_uid, st.st_uid ? st.st_gid : 0, true};
}

static void open_tree(struct run *r)
{
	r->tree = real_dir(r, "--tree", r->a.tree);
	r->rootfd = open(r->tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->rootfd < 0)
		refuse(r, "--tree '%s': %m", r->a.tree);
	r->workspace = strdup(r->a.workspace ? r->a.workspace : r->tree);
	if (r->a.workspace)
		check_workspace(r, r->a.workspace);
	if (r->a.home)
		r->home = real_dir(r, "--home", r->a.home);
	r->node_home = node_home();
	if (!r->workspace)
		refuse(r, "out of memory");
	r->ids = command_ids(r->rootfd);
	if (r->a.report)
		open_report_dir(r);
}

static void load_config(struct run *r)
{
	_cleanup_free_ char *err = NULL;
	const char *file = r->a.config;
	int k;

	if (!file && access(POLICY_CONFIG_DEFAULT_FILE, F_OK) == 0)
		file = POLICY_CONFIG_DEFAULT_FILE;
	if (file && access(file, R_OK) < 0)
		refuse(r, "--config '%s': %m", file);
	k = policy_config_load_outside(file, r->rootfd, &r->cfg, &err);
	if (k < 0)
		refuse(r, "%s", err ? err : strerror(-k));
}

/* What the command could change through the mount (a ceiling file: the
 * next run's limits; the state folder: what a killed run left) is refused
 * in the tree, placed by identity as the configuration is. */
static void check_outside(struct run *r, const char *path, const char *what)
{
	_cleanup_close_ int fd = open(path, O_PATH | O_CLOEXEC);
	int place;

	if (fd < 0)
		return; /* its own reading says why */
	place = tree_place(fd, r->rootfd);
	if (place < 0)
		refuse(r, "cannot tell whether %s %s lies in the tree: %s", what, path, strerror(-place));
	if (place != TREE_PLACE_OUTSIDE)
		refuse(r, "%s %s: %s: keep it outside the tree", what, path, tree_place_problem(place));
}

/* The limits asked, capped by the ceiling in force. */
static void apply_ceiling(struct run *r)
{
	const struct run_ceiling_text text = {
	        .memory_mb = r->cfg->ceiling.memory_mb,
	        .pids = r->cfg->ceiling.pids,
	        .cpus = r->cfg->ceiling.cpus,
	        .file = r->cfg->ceiling.file,
	};
	_cleanup_free_ char *err = NULL;
	struct run_limits ceiling = {0};
	int k;

	if (text.file)
		check_outside(r, text.file, "the ceiling file");
	k = run_ceiling_load(&text, &ceiling, &err);

	if (k < 0)
		refuse(r, "%s", err ? err : strerror(-k));
	r->o.asked = r->a.asked;
	r->o.applied = run_limits_cap(r->a.asked, ceiling, &r->o.capped);
}

/* ARGV judged by the [commands] rules, when the configuration has them. */
static void judge_command(struct run *r)
{
	const struct policy_config *c = r->cfg;
	struct command_rules rules = {
	        .denied = (const char *const *)c->command_deny,
	        .n_denied = c->n_command_deny,
	        .allowed = (const char *const *)c->command_allow,
	        .n_allowed = c->n_command_allow,
	        .allow_rm = c->command_allow_rm,
	        .allow_sudo = c->command_allow_sudo,
	};
	struct command_verdict v = {0};
	size_t argc = 0;
	int k;

	if (!c->commands_configured)
		return;
	while (r->a.argv[argc])
		argc++;
	k = command_rules_check(&rules, (const char *const *)r->a.argv, argc, &v);
	if (k == -EACCES) {
		_cleanup_free_ char *node = v.node ? strdup(v.node) : NULL;
		const char *rule = v.rule, *reason = v.reason;
		command_verdict_clear(&v);
		refuse(r, "the command is refused by the [commands] rules (%s): %s%s%s", rule, reason,
		       node ? ": " : "", node ? node : "");
	}
	if (k < 0)
		refuse(r, "cannot judge the command: %s", strerror(-k));
}

/* ---- The settler's state ---------------------------------------------------- */

static void claim_and_record(struct run *r)
{
	_cleanup_free_ char *err = NULL;
	struct stat st;
	int k;

	if (!r->a.settle)
		return;
	if (run_state_claim(r->rootfd, &r->state, &r->lock_fd, &err) < 0)
		refuse(r, "%s", err ? err : "cannot claim the tree's state file");
	r->state_dir = strdup(r->state);
	if (!r->state_dir)
		refuse(r, "out of memory");
	*strrchr(r->state_dir, '/') = '\0';
	check_outside(r, r->state_dir, "the state folder");
	if (stat(r->state, &st) == 0) {
		say("settling an earlier run's state (%s): that run was interrupted", r->state);
		k = run_settle_earlier(r->rootfd, r->state, r->workspace, &r->o, &err);
		if (k < 0 || k == 2)
			refuse(r, "an earlier run's state could not be settled%s%s", err ? ": " : "", err ? err : "");
	}
	if (run_settle_record(r->rootfd, r->tree, r->workspace, r->state, &r->before, &err) < 0)
		refuse(r, "cannot record the tree before the run: %s", err ? err : "unknown");
	r->recorded = true;
}

/* ---- The daemon --------------------------------------------------------------- */

/* oz0fs beside this program: the build tree and an installation alike. */
static char *oz0fs_path(void)
{
	char self[PATH_MAX], *slash, *path;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return NULL;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return asprintf(&path, "%s/oz0fs", self) < 0 ? NULL : path;
}

/* The files a runner killed outright left in TMP (its folder is named
 * after its pid, which is gone): the daemon's log and the audit file, no
 * other; a folder holding anything else stays. */
static void sweep_run_dirs(const char *tmp)
{
	_cleanup_close_ int fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(dup(fd));
	struct dirent *e;

	while (d && (e = readdir(d))) {
		_cleanup_close_ int dir = -1;
		struct stat st;

		if (!run_gone_runner(e->d_name, "oz0run.", '.'))
			continue;
		dir = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dir < 0 || fstat(dir, &st) < 0 || st.st_uid != geteuid())
			continue;
		unlinkat(dir, "daemon.log", 0);
		unlinkat(dir, "audit", 0);
		unlinkat(fd, e->d_name, AT_REMOVEDIR);
	}
	if (d)
		closedir(d);
}

static void make_run_dir(struct run *r)
{
	const char *tmp = getenv("TMPDIR");
	_cleanup_free_ char *log = NULL;

	tmp = tmp && tmp[0] == '/' ? tmp : "/tmp";
	sweep_run_dirs(tmp);
	if (asprintf(&r->run_dir, "%s/oz0run.%d.XXXXXX", tmp, (int)getpid()) < 0 ||
	    !mkdtemp(r->run_dir)) {
		free(r->run_dir);
		r->run_dir = NULL;
		refuse(r, "cannot make a folder for the run's files: %m");
	}
	check_outside(r, r->run_dir, "the folder for the run's files ($TMPDIR)");
	if (asprintf(&log, "%s/daemon.log", r->run_dir) < 0)
		refuse(r, "out of memory");
	r->log_fd = open(log, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (r->log_fd < 0)
		refuse(r, "cannot make %s: %m", log);
	if (r->a.audit)
		r->audit = strdup(r->a.audit);
	else if (asprintf(&r->audit, "%s/audit", r->run_dir) < 0)
		r->audit = NULL;
	if (!r->audit)
		refuse(r, "out of memory");
	if (!r->a.audit)
		close(open(r->audit, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
}

static void start_daemon(struct run *r)
{
	_cleanup_free_ char *oz0fs = oz0fs_path(), *opts = NULL, *err = NULL;
	char *argv[12];
	size_t n = 0;

	if (!oz0fs || asprintf(&opts, "audit=%s,seen_as=%s", r->audit, r->workspace) < 0)
		refuse(r, "out of memory");
	argv[n++] = oz0fs;
	argv[n++] = "-f";
	argv[n++] = "--ready-fd";
	argv[n++] = "3";
	argv[n++] = "-o";
	argv[n++] = opts;
	if (r->cfg->file) {
		argv[n++] = "--config";
		argv[n++] = r->cfg->file;
	}
	argv[n++] = r->tree;
	argv[n++] = r->tree;
	argv[n] = NULL;
	if (run_daemon_start(argv, r->log_fd, &r->daemon, &err) < 0)
		refuse(r, "%s", err ? err : "the tree does not mount");
	r->o.daemon_pid = r->daemon.pid;
}

/* ---- The sandbox ---------------------------------------------------------------- */

/* The sandbox's setup process, placed in its cgroup, waiting. */
static void fork_sandbox(struct run *r)
{
	struct run_cgroup_bases bases = {0};
	_cleanup_free_ char *name = NULL;
	int k;

	r->view = (struct run_view){
	        .tree = r->tree,
	        .workspace = r->workspace,
	        .home = r->home,
	        .node_home = r->node_home,
	        .audit_file = r->audit,
	        .state_dir = r->state_dir,
	        /* not as root, what the view makes is the runner's already */
	        .uid = r->ids.root_runner ? r->ids.uid : (uid_t)-1,
	        .gid = r->ids.root_runner ? r->ids.gid : (gid_t)-1,
	};
	r->spec = (struct run_sandbox_spec){
	        .argv = r->a.argv,
	        .ids = r->ids,
	        .view = &r->view,
	        .network_none = r->a.network == RUN_NETWORK_NONE,
	};
	if (run_sandbox_fork(&r->spec, &r->sandbox) < 0)
		refuse(r, "cannot fork the sandbox: %m");
	if (run_cgroup_locate(&bases) < 0 || asprintf(&name, "oz0run.%d", (int)getpid()) < 0)
		refuse(r, "out of memory");
	bases.try_scope = true;
	run_cgroup_sweep(&bases, "oz0run.");
	k = run_cgroup_start(&bases, name, &r->o.applied, r->sandbox.setup, &r->cgroup, &r->o.cgroup_why);
	run_cgroup_bases_free(&bases);
	if (k < 0)
		refuse(r, "cannot make the sandbox's cgroup: %s", strerror(-k));
	r->o.cgroup = run_cgroup_mode(r->cgroup);
	/* what the kernel holds, as read back: none without a cgroup */
	r->o.applied = run_cgroup_applied(r->cgroup);
}

/* The sandbox's init reaps every process of its pid namespace before it
 * ends; one still in the cgroup got out of it some way, and is killed, so
 * that nothing of the run outlives the settle. */
static void kill_leftovers(struct run *r)
{
	size_t n = 0;

	if (run_cgroup_count(r->cgroup, &n) < 0 || n == 0)
		return;
	fprintf(stderr, "oz0run: %zu process%s outlived the sandbox; killed\n", n, n == 1 ? "" : "es");
	if (run_cgroup_kill(r->cgroup) < 0)
		fprintf(stderr, "oz0run: some of them could not be killed\n");
}

static void start_sandbox(struct run *r)
{
	_cleanup_free_ char *err = NULL;

	if (run_sandbox_start(&r->sandbox, r->daemon.pid, &err) < 0)
		refuse(r, "%s", err ? err : "cannot start the sandbox");
	/* said once the command runs: a refusal before stays one line */
	if (r->o.cgroup == RUN_CGROUP_NONE)
		say("no cgroup limits: the command runs without them (%s)", r->o.cgroup_why);
}

/* The command's own status: its exit code, or 128+N for signal N. */
static int command_status(int wait_status)
{
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return WEXITSTATUS(wait_status);
}

static void watch(struct run *r)
{
	struct run_watch w = {
	        .init = r->sandbox.init,
	        .chan = r->sandbox.chan,
	        .timeout_s = r->a.timeout_s,
	};
	struct run_end end;

	w.oom_fd = run_cgroup_oom_fd(r->cgroup, &w.oom_events);
	if (run_watch(&w, &end) < 0)
		say("lost watch over the sandbox: %m; it was stopped");
	r->sandbox.init = -1;
	if (run_cgroup_oom_killed(r->cgroup))
		end.ended = RUN_ENDED_OOM;
	r->o.ended = end.ended;
	r->o.exit_status = end.told ? command_status(end.wait_status) : 128 + SIGKILL;
	r->o.signal = end.told && WIFSIGNALED(end.wait_status) ? WTERMSIG(end.wait_status) : end.told ? 0 : SIGKILL;
	if (end.ended == RUN_ENDED_EXITED && r->o.signal)
		r->o.ended = RUN_ENDED_SIGNALED;
	r->o.peak_memory_bytes = run_cgroup_peak_memory(r->cgroup);
	r->o.timeout_s = r->a.timeout_s;
	if (end.error)
		refuse(r, "%s", end.error);
	if (end.not_run)
		r->o.status = end.not_run == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
	else if (end.ended == RUN_ENDED_OOM)
		r->o.status = EXIT_OOM;
	else if (end.ended == RUN_ENDED_TIMEOUT)
		r->o.status = EXIT_TIMEOUT;
	else if (end.runner_signal)
		r->o.status = 128 + end.runner_signal;
	else
		r->o.status = r->o.exit_status;
	if (end.not_run)
		say("%s: %s", r->a.argv[0], strerror(end.not_run));
	free(end.error);
}

/* ---- After the run --------------------------------------------------------------- */

static void settle_tree(struct run *r)
{
	_cleanup_free_ char *err = NULL;
	int k;

	if (!r->recorded)
		return;
	r->recorded = false;
	k = run_settle(r->rootfd, &r->before, r->state, r->workspace, &r->o, &err);
	settle_state_done(&r->before);
	if (k < 0)
		say("could not settle the tree: %s; its state stays in %s for the next run", err ? err : strerror(-k),
		    r->state);
	if (k == 2)
		say("some of it could not be settled (above); its state stays in %s", r->state);
	if (k != 0 && r->o.status == 0)
		r->o.status = EXIT_ACTED;
}

/* The daemon's words, if it had any, for the person: each line as the
 * runner's ("oz0run: daemon: ..."), up to the log's size now. */
static void pass_on_log(struct run *r)
{
	_cleanup_free_ char *text = NULL;
	struct stat st;
	ssize_t n;

	if (r->log_fd < 0 || fstat(r->log_fd, &st) < 0 || st.st_size <= 0 || st.st_size > (1 << 20) ||
	    !(text = malloc((size_t)st.st_size + 1)))
		return;
	n = pread(r->log_fd, text, (size_t)st.st_size, 0);
	if (n <= 0)
		return;
	text[n] = '\0';
	for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(line, "oz0fs: ", 7) == 0)
			line += 7;
		say("daemon: %s", line);
	}
}

static void remove_run_dir(struct run *r)
{
	char path[PATH_MAX];

	if (!r->run_dir)
		return;
	snprintf(path, sizeof(path), "%s/daemon.log", r->run_dir);
	unlink(path);
	if (!r->a.audit && r->audit)
		unlink(r->audit);
	rmdir(r->run_dir);
}

static void run_done(struct run *r)
{
	run_sandbox_abort(&r->sandbox);
	if (r->daemon.pid > 0)
		run_daemon_stop(&r->daemon);
	settle_tree(r);
	if (r->cgroup)
		run_cgroup_remove(r->cgroup);
	r->cgroup = NULL;
	remove_run_dir(r);
	if (r->log_fd >= 0)
		close(r->log_fd);
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	if (r->rootfd >= 0)
		close(r->rootfd);
	if (r->report_dir >= 0)
		close(r->report_dir);
	free(r->report_name);
	policy_config_free(r->cfg);
	run_outcome_free(&r->o);
	free(r->tree);
	free(r->workspace);
	free(r->home);
	free(r->node_home);
	free(r->state);
	free(r->state_dir);
	free(r->run_dir);
	free(r->audit);
}

static void refuse(struct run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_ap(fmt, ap);
	va_end(ap);
	/* one line: the daemon's own, if that was why, is in it already */
	if (r)
		run_done(r);
	exit(EXIT_REFUSED);
}

/* fds 0, 1 and 2 open, on /dev/null where the caller closed one: else the
 * run's own files would take those numbers, and the daemon's log, passed on
 * to stderr, would grow into itself. */
static void open_stdio(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			exit(EXIT_REFUSED);
}

int main(int argc, char **argv)
{
	struct run r = {.rootfd = -1, .lock_fd = -1, .log_fd = -1, .report_dir = -1, .daemon = {.pid = -1},
	                .sandbox = {.setup = -1, .init = -1, .chan = -1}};
	int k;

	open_stdio();
	log_init("oz0run");
	if (argc > 1 && strcmp(argv[1], "--check") == 0)
		return check_main(argc - 1, argv + 1);
	k = run_args_parse(argc, argv, &r.a);
	if (k != 0)
		return k > 0 ? 0 : EXIT_REFUSED;
	r.o.argv = r.a.argv;
	open_tree(&r);
	load_config(&r);
	apply_ceiling(&r);
	judge_command(&r);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		refuse(&r, "cannot become the sandbox's reaper: %m");
	run_watch_block_signals();
	claim_and_record(&r);
	make_run_dir(&r);
	/* the sandbox's cgroup before the daemon: on cgroup v2 the runner moves
	 * into a leaf of its own first, where the daemon then lands beside it */
	fork_sandbox(&r);
	start_daemon(&r);
	start_sandbox(&r);
	watch(&r);
	kill_leftovers(&r);
	run_daemon_stop(&r.daemon);
	settle_tree(&r);
	run_cgroup_remove(r.cgroup);
	r.cgroup = NULL;
	run_outcome_say(&r.o, stderr);
	pass_on_log(&r);
	if (r.a.report)
		write_report(&r);
	k = r.o.status;
	run_done(&r);
	return k;
}
