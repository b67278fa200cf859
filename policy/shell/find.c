/* The program finder: walks the syntax tree of a configured command in the
 * order sh runs it, keeping the set of folders the line may stand in and the
 * PATH it may search, and holds every program and script a command can
 * start. The set of folders only grows (a cd may fail, sit behind a test or
 * in one case arm), except that a subshell's end undoes what it did.
 *
 * The line is read twice: the first reading only learns every folder the
 * line names, which the second uses for programs in functions, loops and
 * traps ("held in every folder the line names"), as how often and from
 * where those run is not in the line.
 *
 * This file is the entry and what a reading holds and notes; the parts that
 * follow folders, PATH, wrappers and the walk are listed in find-internal.h. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/shell/find-internal.h"
#include "policy/shell/parse.h"

#define MAX_NOTES 256

static const char *const note_names[] = {
	[SHELL_NOTE_UNREADABLE] = "unreadable",
	[SHELL_NOTE_PROGRAM_VARIABLE] = "program-variable",
	[SHELL_NOTE_SCRIPT_VARIABLE] = "script-variable",
	[SHELL_NOTE_LATER_ARGUMENT] = "later-argument",
	[SHELL_NOTE_CD_VARIABLE] = "cd-variable",
	[SHELL_NOTE_CDPATH] = "cdpath",
	[SHELL_NOTE_PATH_VARIABLE] = "path-variable",
	[SHELL_NOTE_PATH_HOME] = "path-home",
	[SHELL_NOTE_INLINE_CODE] = "inline-code",
	[SHELL_NOTE_UNKNOWN_OPTION] = "unknown-option",
	[SHELL_NOTE_BOUND_FOLDERS] = "bound-folders",
	[SHELL_NOTE_BOUND_CD_BYTES] = "bound-cd-bytes",
	[SHELL_NOTE_BOUND_NESTING] = "bound-nesting",
	[SHELL_NOTE_BOUND_STEPS] = "bound-steps",
	[SHELL_NOTE_BOUND_PATH] = "bound-path",
};

const char *shell_note_kind_name(enum shell_note_kind kind)
{
	return kind < ELEMENTSOF(note_names) && note_names[kind] ? note_names[kind] : "unknown";
}

/* ---- output ---- */

static uint32_t out_pos(const struct finder *f, uint32_t pos)
{
	return f->nesting ? f->outer_pos : pos;
}

void finder_note(struct finder *f, enum shell_note_kind kind, uint32_t pos, const char *fmt, ...)
{
	struct shell_finding *out = f->out;
	char *text = NULL;
	va_list ap;
	int r;

	pos = out_pos(f, pos);
	if (f->error || out->n_notes >= MAX_NOTES)
		return;
	for (size_t i = 0; i < out->n_notes; i++)
		if (out->notes[i].kind == kind && out->notes[i].pos == pos)
			return;
	if (out->n_notes == f->notes_cap) {
		size_t cap = f->notes_cap ? f->notes_cap * 2 : 8;
		struct shell_note *v = reallocarray(out->notes, cap, sizeof(*v));

		if (!v) {
			f->error = -ENOMEM;
			return;
		}
		out->notes = v;
		f->notes_cap = cap;
	}
	va_start(ap, fmt);
	r = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (r < 0) {
		f->error = -ENOMEM;
		return;
	}
	out->notes[out->n_notes++] = (struct shell_note){.kind = kind, .pos = pos, .text = text};
}

static uint64_t hash_pair(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ull;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ull;
	return h;
}

/* The slot of (FOLDER, PATH): where it is, or the empty one it would go to. */
static size_t *held_slot(struct finder *f, const char *folder, const char *path)
{
	size_t i = hash_pair(folder, path) & (f->n_slots - 1);

	for (;; i = (i + 1) & (f->n_slots - 1)) {
		size_t *s = &f->slots[i];
		const struct shell_held *h;

		if (*s == 0)
			return s;
		h = &f->out->held[*s - 1];
		if (strcmp(h->folder, folder) == 0 && strcmp(h->path, path) == 0)
			return s;
	}
}

static int held_grow(struct finder *f)
{
	size_t n = f->n_slots ? f->n_slots * 2 : 64;
	size_t *slots = calloc(n, sizeof(*slots)), *old = f->slots;
	struct shell_held *v = reallocarray(f->out->held, n / 2, sizeof(*v));

	if (!slots || !v) {
		free(slots);
		if (v)
			f->out->held = v;
		return -ENOMEM;
	}
	f->out->held = v;
	f->held_cap = n / 2;
	f->slots = slots;
	f->n_slots = n;
	for (size_t k = 0; k < f->out->n_held; k++)
		*held_slot(f, v[k].folder, v[k].path) = k + 1;
	free(old);
	return 0;
}

void finder_hold(struct finder *f, const char *folder, const char *path, uint32_t pos)
{
	struct shell_finding *out = f->out;
	size_t *slot;

	if (f->error || !folder || !path)
		return;
	if (strcmp(folder, ".") != 0) {
		/* held only while the paths found after a cd stay within their bound */
		if (f->cd_overflow)
			return;
		f->cd_bytes += strlen(folder) + strlen(path) + 2;
		if (f->cd_bytes > SHELL_FIND_MAX_CD_BYTES) {
			f->cd_overflow = true;
			finder_note(f, SHELL_NOTE_BOUND_CD_BYTES, pos,
				    "paths found after a cd pass 1 MiB: relative programs are held only where the line "
				    "starts");
			return;
		}
	}
	if (out->n_held >= f->held_cap && held_grow(f) < 0) {
		f->error = -ENOMEM;
		return;
	}
	slot = held_slot(f, folder, path);
	if (*slot)
		return;
	out->held[out->n_held] = (struct shell_held){.folder = strdup(folder), .path = strdup(path),
						     .pos = out_pos(f, pos)};
	if (!out->held[out->n_held].folder || !out->held[out->n_held].path) {
		free(out->held[out->n_held].folder);
		free(out->held[out->n_held].path);
		f->error = -ENOMEM;
		return;
	}
	*slot = ++out->n_held;
}

/* The caller's exists(); without one, every candidate is held. */
bool finder_exists(struct finder *f, const char *path)
{
	return !f->opts || !f->opts->exists || f->opts->exists(path, f->opts->userdata);
}

/* ---- entry ---- */

static void finder_reset(struct finder *f)
{
	f->st = (struct state){0};
	f->st.cwd.v[0] = ".";
	f->st.cwd.n = 1;
	f->funcs = NULL;
	f->steps = 0;
	f->repeat = 0;
	f->nesting = 0;
	f->named_read = f->named_stale = false;
	shell_folders_add(&f->named, ".");
}

/* Forgets what a reading held and noted, before the line is read again. */
static void finder_forget(struct finder *f)
{
	struct shell_finding *out = f->out;

	for (size_t i = 0; i < out->n_held; i++) {
		free(out->held[i].folder);
		free(out->held[i].path);
	}
	for (size_t i = 0; i < out->n_notes; i++)
		free(out->notes[i].text);
	out->n_held = out->n_notes = 0;
	if (f->n_slots)
		memset(f->slots, 0, f->n_slots * sizeof(*f->slots));
	f->cd_bytes = 0;
	f->cd_overflow = false;
}

static void finder_done(struct finder *f)
{
	for (size_t i = 0; i < f->n_asts; i++)
		shell_ast_free(f->asts[i]);
	free(f->asts);
	free(f->slots);
	shell_pool_clear(&f->pool);
}

int shell_find(const char *buf, size_t len, const char *origin, const struct shell_find_options *opts,
	       struct shell_finding **out)
{
	struct finder f = {.opts = opts};
	struct shell_ast *ast = NULL;
	struct shell_error err;
	int k;

	*out = NULL;
	f.out = calloc(1, sizeof(*f.out));
	f.asts = calloc(1, sizeof(*f.asts));
	if (!f.out || !f.asts) {
		free(f.out);
		free(f.asts);
		return -ENOMEM;
	}
	k = shell_parse_runs(buf, len, origin, &ast, &err);
	if (k == -ENOMEM) {
		finder_done(&f);
		free(f.out);
		return k;
	}
	if (ast) {
		f.asts[f.n_asts++] = ast;
		finder_reset(&f);
		finder_walk_list(&f, ast->body);
		if (f.named_stale && !f.error) { /* the second reading names no new folder */
			finder_forget(&f);
			finder_reset(&f);
			finder_walk_list(&f, ast->body);
		}
	}
	if (err.code)
		finder_note(&f, SHELL_NOTE_UNREADABLE, err.pos, "not read as sh: %s", err.what);
	k = f.error;
	finder_done(&f);
	if (k < 0) {
		shell_finding_free(f.out);
		return k;
	}
	*out = f.out;
	return 0;
}

struct shell_finding *shell_finding_free(struct shell_finding *fd)
{
	if (!fd)
		return NULL;
	for (size_t i = 0; i < fd->n_held; i++) {
		free(fd->held[i].folder);
		free(fd->held[i].path);
	}
	for (size_t i = 0; i < fd->n_notes; i++)
		free(fd->notes[i].text);
	free(fd->held);
	free(fd->notes);
	free(fd);
	return NULL;
}
