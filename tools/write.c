#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/read-file.h"
#include "policy/audit.h"
#include "tools/check-path-setup.h"
#include "tools/tool-args.h"
#include "tools/write-args.h"
#include "tools/write-judge.h"
#include "tools/write-put.h"
#include "tools/write.h"

struct write_run {
	struct write_args a;
	char *data;
	size_t len;
	int input_error; /* reading standard input: 0 or -errno */
	struct path_setup setup;
	struct path_check check;
	struct audit *audit;
	char *rel; /* PATH in the tree, as given */
	const char *op;
	char tmpname[WRITE_PUT_NAME_SIZE];
	struct write_place place;
	struct write_refusal no;
};

static void run_free(struct write_run *w)
{
	write_refusal_clear(&w->no);
	write_place_free(&w->place);
	free(w->rel);
	audit_close(w->audit);
	path_setup_free(&w->setup);
	free(w->data);
}

/* ---- Refusals -------------------------------------------------------------- */

/* The path a refusal names: where the walk got, else PATH in the tree, else PATH. */
static const char *shown_path(const struct write_run *w)
{
	if (w->place.t.path)
		return w->place.t.path;
	return w->rel ? w->rel : w->a.path;
}

/* S on stderr with control bytes as \xNN: PATH is the agent's, and a
 * newline in it must not make the refusal two lines. */
static void say_escaped(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			fprintf(stderr, "\\x%02x", *p);
		else
			fputc(*p, stderr);
}

/* W->no, audited as the mount audits its refusals (the JSON line escapes
 * what it must) and said on stderr in one line. */
static int refused(struct write_run *w)
{
	const struct policy_verdict v = {
	        .rule = w->no.rule, .reason = w->no.reason, .path = shown_path(w), .name = w->place.t.name};
	int logged = audit_refusal(w->audit, w->op ? w->op : "write", &v, 0, getpid(), getuid());

	fputs("oz0fs --write: ", stderr);
	say_escaped(w->a.path);
	fprintf(stderr, ": refused (%s): ", w->no.rule);
	say_escaped(w->no.reason);
	if (logged < 0)
		fprintf(stderr, "; the audit log did not take this refusal either: %s", strerror(-logged));
	fputc('\n', stderr);
	return 1;
}

/* ---- Before the judgement: the input, the setup and the log ---------------- */

static void read_input(struct write_run *w)
{
	w->input_error = read_fd_bounded(STDIN_FILENO, 0, WRITE_MAX_SIZE, &w->data, &w->len);
}

/* Where refusals and writes are recorded: --audit, else [audit] file, both
 * outside the tree (as for the mount), else stderr. Returns 0 or 1 when
 * no log can be opened (said on stderr: nothing is written unrecorded). */
static int open_log(struct write_run *w)
{
	const char *file = w->a.audit ? w->a.audit : w->setup.cfg->audit_file;
	_cleanup_close_ int treefd = -1;
	_cleanup_free_ char *err = NULL;
	int r;

	if (!file)
		r = audit_open(AUDIT_STDERR, NULL, &w->audit);
	else if (w->setup.have_model)
		r = audit_open_outside(file, w->setup.tm.rootfd, &w->audit, &err);
	else if ((treefd = open(w->setup.n_tree ? w->setup.tree[0] : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
		r = audit_open_outside(file, treefd, &w->audit, &err);
	else
		r = -errno;
	if (r < 0) {
		fprintf(stderr, "oz0fs --write: %s: refused (%s): %s: nothing is written unrecorded\n", w->a.path,
		        WRITE_RULE_AUDIT, err ? err : strerror(-r));
		return 1;
	}
	if (w->setup.cfg->audit_syslog)
		audit_also_syslog(w->audit);
	return 0;
}

/* ---- The judgement ----------------------------------------------------------- */

static int check_input(struct write_run *w)
{
	if (w->input_error == -EFBIG)
		return write_refuse(&w->no, WRITE_RULE_TOO_LARGE, "standard input holds more than %u bytes",
		                    WRITE_MAX_SIZE);
	if (w->input_error < 0)
		return write_refuse(&w->no, WRITE_RULE_FAIL_CLOSED, "cannot read standard input: %s",
		                    strerror(-w->input_error));
	return 0;
}

/* PATH in the tree, and the tree's model. */
static int check_place(struct write_run *w)
{
	int r;

	if (!w->setup.n_tree)
		return write_refuse(&w->no, WRITE_RULE_FAIL_CLOSED, "the tree's folder is unknown");
	r = explain_tree_relative(w->setup.tree[0], w->a.path, &w->rel);
	if (r == -EXDEV)
		return write_refuse(&w->no, WRITE_RULE_OUTSIDE, "%s does not lie in the tree %s", w->a.path,
		                    w->setup.tree[0]);
	if (r < 0)
		return r;
	if (!w->setup.have_model)
		return write_refuse(&w->no, WRITE_RULE_FAIL_CLOSED, "every write is refused while the tree's model "
		                    "cannot be built: %s", w->setup.model_error);
	return 0;
}

/* What --check-path --write says of PATH, in the tree. */
static int check_path(struct write_run *w)
{
	_cleanup_free_ char *abs = NULL;
	struct path_verdict v;
	int r;

	if (asprintf(&abs, "%s/%s", w->setup.tree[0], w->rel) < 0)
		return -ENOMEM;
	r = path_check(&w->check, abs, &v);
	if (r == 0 && v.rule)
		r = write_refuse(&w->no, v.rule, "%s", v.reason);
	path_verdict_clear(&v);
	return r;
}

static int judge(struct write_run *w)
{
	int r = check_input(w);

	if (r == 0)
		r = check_place(w);
	if (r == 0)
		r = write_check_name(w->rel, &w->no);
	/* the walk before --check-path's judgement: what it refuses it names
	 * more exactly (a link, a missing folder), and the spellings it would
	 * otherwise judge (through a link) are not the write's */
	if (r == 0)
		r = write_walk(w->setup.tm.rootfd, w->rel, &w->place, &w->no);
	if (r == 0)
		r = check_path(w);
	if (r == 0)
		r = write_put_name(w->tmpname);
	if (r == 0)
		r = write_judge(&w->setup.tm, &w->place, w->tmpname, &w->op, &w->no);
	return r;
}

/* ---- The write --------------------------------------------------------------- */

/* An existing file keeps its mode, less any set-ID bit; a new one is
 * 0644 less the umask, as a new file of the caller's would be. */
static mode_t new_mode(const struct write_place *p)
{
	mode_t mask;

	if (p->exists)
		return p->t.st.st_mode & 0777;
	mask = umask(0);
	umask(mask);
	return 0644 & ~mask;
}

/* The walk and judgement again, once the bytes are in: the folder must be
 * the one they went into, and what the name holds now must still be
 * allowed. *REPLACE: whether a file is there now. */
static int check_again(struct write_run *w, bool *replace)
{
	struct write_place now = {0};
	const char *op;
	int r = write_walk(w->setup.tm.rootfd, w->rel, &now, &w->no);

	if (r == 0 && (now.parent.dev != w->place.parent.dev || now.parent.ino != w->place.parent.ino))
		r = write_refuse(&w->no, WRITE_RULE_CHANGED, "%s names another folder than it did a moment ago: the "
		                 "tree changed during the write", w->place.t.path);
	if (r == 0)
		r = write_judge(&w->setup.tm, &now, w->tmpname, &op, &w->no);
	*replace = now.exists;
	write_place_free(&now);
	return r;
}

static void sha256_hex(const char *data, size_t len, char out[static SHA256_DIGEST_SIZE * 2 + 1])
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_init(&ctx);
	sha256_update(&ctx, len, (const uint8_t *)data);
	sha256_digest(&ctx, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* Stages, checks again, audits, names. Returns 0 written, 1 refused, or
 * -ENOMEM. */
static int put(struct write_run *w)
{
	char hex[SHA256_DIGEST_SIZE * 2 + 1];
	struct write_put p;
	bool replace;
	int r = write_put_stage(&p, w->place.dirfd, w->tmpname, w->data, w->len, new_mode(&w->place));

	if (r < 0)
		return write_refuse(&w->no, WRITE_RULE_FAIL_CLOSED, "cannot make the new file in %s: %s",
		                    w->place.t.folders[w->place.t.n_folders - 1].path, strerror(-r));
	r = check_again(w, &replace);
	sha256_hex(w->data, w->len, hex);
	if (r == 0 && (r = audit_file_write(w->audit, w->len, hex, w->place.t.path)) < 0)
		r = write_refuse(&w->no, WRITE_RULE_AUDIT, "the audit log did not take the run.file_write line: %s",
		                 strerror(-r));
	if (r != 0) {
		write_put_discard(&p);
		return r;
	}
	r = write_put_commit(&p, w->place.t.name, replace);
	if (r < 0)
		return write_refuse(&w->no, WRITE_RULE_FAIL_CLOSED, "the write did not complete: %s%s", strerror(-r),
		                    r == -EEXIST ? " (the name was taken during the write)" : "");
	return 0;
}

int write_main(int argc, char **argv)
{
	_cleanup_free_ char *err = NULL;
	struct write_run w = {0};
	int r = write_args_parse(argc, argv, &w.a);

	w.place.dirfd = -1;
	if (r != 0)
		return r > 0 ? 0 : TOOL_EXIT_USAGE;
	read_input(&w);
	r = path_setup_prepare(&w.setup, w.a.tree, w.a.config, true, &w.check, &err);
	if (r < 0 && r != -ENOMEM) {
		fprintf(stderr, "oz0fs --write: %s\n", err ? err : strerror(-r));
		run_free(&w);
		return TOOL_EXIT_USAGE;
	}
	if (r == 0)
		r = open_log(&w);
	if (r == 0)
		r = judge(&w);
	if (r == 0)
		r = put(&w);
	if (r == -ENOMEM)
		r = write_refuse(&w.no, WRITE_RULE_FAIL_CLOSED, "out of memory");
	if (r == 1 && w.no.rule)
		refused(&w);
	else if (r < 0)
		fputs("oz0fs --write: out of memory: nothing written\n", stderr);
	run_free(&w);
	return r == 0 ? 0 : 1;
}
