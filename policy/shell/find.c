/* The program finder: walks the syntax tree of a configured command in the
 * order sh runs it, keeping the set of folders the line may stand in and the
 * PATH it may search, and holds every program and script a command can
 * start. The set of folders only grows (a cd may fail, sit behind a test or
 * in one case arm), except that a subshell's end undoes what it did.
 *
 * The line is read twice: the first reading only learns every folder the
 * line names, which the second uses for programs in functions, loops and
 * traps ("held in every folder the line names"), as how often and from
 * where those run is not in the line. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/shell/find.h"
#include "policy/shell/folders.h"
#include "policy/shell/parse.h"
#include "policy/shell/programs.h"

#define MAX_NOTES 256

struct path_state {
	bool set;   /* the line set PATH: bare names are searched in its entries */
	bool unset; /* after unset PATH: bare names are looked for where the line stands */
	const char *entries[SHELL_FIND_MAX_PATH_ENTRIES]; /* every PATH set, oldest first */
	size_t n;
	const char **last; /* the PATH set last, held whole */
	size_t n_last;
};

/* What a subshell's end restores. */
struct state {
	struct shell_folders cwd;
	struct path_state path;
	bool cdpath; /* the line set CDPATH: a relative cd may go elsewhere */
};

struct func {
	const char *name;
	const struct shell_cmd *body;
	bool active; /* being read: a call from inside it is read once */
	struct func *next;
};

struct finder {
	const struct shell_find_options *opts;
	struct shell_pool pool;
	struct state st;
	struct shell_folders named; /* every folder the line stands in, learnt as the line is read */
	bool named_read;  /* a loop, function or trap was held in the named folders */
	bool named_stale; /* and a folder was named after that: the line is read again */
	unsigned nesting; /* lines read inside other lines, and function calls */
	unsigned repeat;  /* inside a loop, a function or a trap */
	uint32_t outer_pos;
	size_t steps;
	size_t cd_bytes;
	bool cd_overflow;
	const struct shell_cmd *stdin_from; /* the pipeline element before the command read */
	struct func *funcs;
	struct shell_ast **asts; /* nested lines, alive while functions point into them */
	size_t n_asts;
	struct shell_finding *out;
	size_t held_cap, notes_cap;
	size_t *slots; /* open addressing over out->held, for de-duplication */
	size_t n_slots;
	int error;
};

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

static void walk_list(struct finder *f, const struct shell_cmd *c);
static void walk_cmd(struct finder *f, const struct shell_cmd *c);
static int run_argv(struct finder *f, const char *const *argv, const struct shell_word *const *words, size_t argc,
		    uint32_t pos);

/* ---- output ---- */

static uint32_t out_pos(const struct finder *f, uint32_t pos)
{
	return f->nesting ? f->outer_pos : pos;
}

static void note(struct finder *f, enum shell_note_kind kind, uint32_t pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void note(struct finder *f, enum shell_note_kind kind, uint32_t pos, const char *fmt, ...)
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

static void hold(struct finder *f, const char *folder, const char *path, uint32_t pos)
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
			note(f, SHELL_NOTE_BOUND_CD_BYTES, pos,
			     "paths found after a cd pass 1 MiB: relative programs are held only where the line starts");
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

static bool exists(struct finder *f, const char *path)
{
	return !f->opts || !f->opts->exists || f->opts->exists(path, f->opts->userdata);
}

/* ---- folders and PATH ---- */

/* Where a relative program may run from: the folders the line may stand in,
 * and inside loops, functions and traps every folder the line names. Past
 * the bound on paths after a cd, only where the line started. */
static void effective_folders(struct finder *f, struct shell_folders *out)
{
	*out = (struct shell_folders){0};
	if (f->cd_overflow) {
		shell_folders_add(out, ".");
		return;
	}
	*out = f->st.cwd;
	if (f->repeat) {
		f->named_read = true;
		for (size_t i = 0; i < f->named.n; i++)
			shell_folders_add(out, f->named.v[i]);
	}
}

/* Records DIR among the folders the line names. A loop, function or trap
 * read before it was held in too few: the line is then read once more, with
 * every folder known (most lines name none, and are read once). */
static void learn_folder(struct finder *f, const char *dir)
{
	size_t n = f->named.n;

	shell_folders_add(&f->named, dir);
	if (f->named.n != n && f->named_read)
		f->named_stale = true;
}

static char *join(struct finder *f, const char *base, const char *rel)
{
	char *p = shell_path_join(&f->pool, base, rel);

	if (!p)
		f->error = -ENOMEM;
	return p;
}

/* A program or script named with a folder: relative to every folder it may run from. */
static void hold_relative(struct finder *f, const char *name, uint32_t pos)
{
	struct shell_folders dirs;

	if (name[0] == '/') {
		hold(f, f->st.cwd.v[0], join(f, "/", name), pos);
		return;
	}
	effective_folders(f, &dirs);
	for (size_t i = 0; i < dirs.n; i++)
		hold(f, dirs.v[i], join(f, dirs.v[i], name), pos);
}

/* A script named without a folder: in each folder it may run from where it exists. */
static void hold_where_exists(struct finder *f, const char *name, uint32_t pos)
{
	struct shell_folders dirs;

	effective_folders(f, &dirs);
	for (size_t i = 0; i < dirs.n; i++) {
		const char *p = join(f, dirs.v[i], name);

		if (p && exists(f, p))
			hold(f, dirs.v[i], p, pos);
	}
}

static void hold_in_path_entry(struct finder *f, const char *entry, const char *name, uint32_t pos)
{
	struct shell_folders dirs;

	effective_folders(f, &dirs);
	for (size_t i = 0; i < dirs.n; i++) {
		/* an empty entry is the current folder */
		const char *dir = entry[0] ? join(f, dirs.v[i], entry) : dirs.v[i];
		const char *p = dir ? join(f, dir, name) : NULL;

		if (p && exists(f, p))
			hold(f, dirs.v[i], p, pos);
	}
}

/* A bare name: on the PATH outside the tree, unless the line set or unset it. */
static void hold_bare(struct finder *f, const char *name, uint32_t pos)
{
	const struct path_state *ps = &f->st.path;

	if (ps->unset) {
		struct shell_folders dirs;

		effective_folders(f, &dirs);
		for (size_t i = 0; i < dirs.n; i++)
			hold(f, dirs.v[i], join(f, dirs.v[i], name), pos);
	}
	if (!ps->set)
		return;
	for (size_t i = 0; i < ps->n; i++)
		hold_in_path_entry(f, ps->entries[i], name, pos);
	for (size_t i = 0; i < ps->n_last; i++)
		hold_in_path_entry(f, ps->last[i], name, pos);
}

static void hold_program(struct finder *f, const char *name, uint32_t pos)
{
	if (strchr(name, '/'))
		hold_relative(f, name, pos);
	else
		hold_bare(f, name, pos);
}

static void path_add_entry(struct finder *f, const char *entry, uint32_t pos)
{
	struct path_state *ps = &f->st.path;

	for (size_t i = 0; i < ps->n; i++)
		if (strcmp(ps->entries[i], entry) == 0)
			return;
	if (ps->n == SHELL_FIND_MAX_PATH_ENTRIES) {
		/* past the bound, in place of the oldest; the last PATH is held whole anyway */
		memmove(ps->entries, ps->entries + 1, (ps->n - 1) * sizeof(ps->entries[0]));
		ps->n--;
		note(f, SHELL_NOTE_BOUND_PATH, pos, "the PATHs the line sets pass 64 entries: the oldest are dropped");
	}
	ps->entries[ps->n++] = entry;
}

/* One PATH entry being gathered from a word's parts. */
struct entry_builder {
	char *text;
	size_t len, cap;
	bool home, variable, inherited;
};

static int entry_append(struct finder *f, struct entry_builder *e, const char *s, size_t n)
{
	if (e->len + n + 1 > e->cap) {
		size_t cap = (e->len + n + 1) * 2;
		char *p = realloc(e->text, cap);

		if (!p)
			return f->error = -ENOMEM;
		e->text = p;
		e->cap = cap;
	}
	memcpy(e->text + e->len, s, n);
	e->len += n;
	e->text[e->len] = '\0';
	return 0;
}

struct path_value {
	const char **entries;
	size_t n, cap;
};

static void entry_finish(struct finder *f, struct entry_builder *e, struct path_value *v, uint32_t pos)
{
	if (e->home)
		note(f, SHELL_NOTE_PATH_HOME, pos, "a PATH entry in a home folder is not followed");
	else if (e->variable)
		note(f, SHELL_NOTE_PATH_VARIABLE, pos, "a PATH entry set through a variable is not followed");
	else if (!e->inherited) {
		const char *copy = shell_pool_strdup(&f->pool, e->text ? e->text : "");

		if (copy && v->n == v->cap) {
			size_t cap = v->cap * 2 + 8;
			const char **grown = reallocarray(v->entries, cap, sizeof(*grown));

			if (grown) {
				v->entries = grown;
				v->cap = cap;
			}
		}
		if (!copy || v->n == v->cap) {
			f->error = -ENOMEM;
			return;
		}
		v->entries[v->n++] = copy;
	}
	e->len = 0;
	if (e->text)
		e->text[0] = '\0';
	e->home = e->variable = e->inherited = false;
}

/* Literal text of a PATH value: ':' separates entries. */
static void entries_from_text(struct finder *f, struct entry_builder *e, struct path_value *v, const char *s, size_t n,
			      uint32_t pos)
{
	while (n > 0 && !f->error) {
		const char *colon = memchr(s, ':', n);
		size_t len = colon ? (size_t)(colon - s) : n;

		entry_append(f, e, s, len);
		if (!colon)
			return;
		entry_finish(f, e, v, pos);
		s += len + 1;
		n -= len + 1;
	}
}

static void entries_from_parts(struct finder *f, struct entry_builder *e, struct path_value *v,
			       const struct shell_part *p, size_t skip, uint32_t pos)
{
	for (; p; p = p->next) {
		switch (p->kind) {
		case SHELL_PART_LIT:
		case SHELL_PART_SQUOTE:
		case SHELL_PART_ANSI:
			entries_from_text(f, e, v, p->text + skip, p->len - skip, pos);
			break;
		case SHELL_PART_DQUOTE:
			entries_from_parts(f, e, v, p->parts, 0, pos);
			break;
		case SHELL_PART_TILDE:
			e->home = true;
			break;
		case SHELL_PART_PARAM:
			if (strcmp(p->text, "PATH") == 0 && !p->parts)
				e->inherited = true; /* the PATH from outside: outside the tree */
			else if (strcmp(p->text, "HOME") == 0)
				e->home = true;
			else
				e->variable = true;
			break;
		default:
			e->variable = true;
		}
		skip = 0;
	}
}

/* PATH=WORD (SKIP bytes of the word's first part are 'PATH='). */
static void path_assign(struct finder *f, const struct shell_word *w, size_t skip, uint32_t pos)
{
	struct entry_builder e = {0};
	struct path_value v = {0};
	struct path_state *ps = &f->st.path;

	entries_from_parts(f, &e, &v, w->parts, skip, pos);
	entry_finish(f, &e, &v, pos);
	free(e.text);
	if (f->error) {
		free(v.entries);
		return;
	}
	ps->last = shell_pool_alloc(&f->pool, (v.n ? v.n : 1) * sizeof(*ps->last));
	if (!ps->last) {
		free(v.entries);
		f->error = -ENOMEM;
		return;
	}
	if (v.n > 0) /* v.entries is NULL for an empty PATH */
		memcpy(ps->last, v.entries, v.n * sizeof(*ps->last));
	ps->n_last = v.n;
	for (size_t i = 0; i < v.n; i++)
		path_add_entry(f, v.entries[i], pos);
	free(v.entries);
	ps->set = true;
}

/* PATH=value and CDPATH=value, wherever the line assigns them. */
static void assignment(struct finder *f, const char *name, const struct shell_word *value, size_t skip, uint32_t pos)
{
	if (strcmp(name, "PATH") == 0)
		path_assign(f, value, skip, pos);
	else if (strcmp(name, "CDPATH") == 0)
		f->st.cdpath = true;
}

/* A 'NAME=value' word (export, env, sudo): its name and where its value starts. */
static bool word_assignment(const struct shell_word *w, char *name, size_t size, size_t *skip)
{
	const struct shell_part *p = w ? w->parts : NULL;
	const char *eq;

	if (!p || p->kind != SHELL_PART_LIT || !(eq = strchr(p->text, '=')) || (size_t)(eq - p->text) >= size)
		return false;
	memcpy(name, p->text, (size_t)(eq - p->text));
	name[eq - p->text] = '\0';
	*skip = (size_t)(eq - p->text) + 1;
	return true;
}

static void word_assign(struct finder *f, const struct shell_word *w, uint32_t pos)
{
	char name[16];
	size_t skip;

	if (word_assignment(w, name, sizeof(name), &skip))
		assignment(f, name, w, skip, pos);
}

static void apply_cd(struct finder *f, const char *dest, uint32_t pos)
{
	struct shell_folders next = {0};
	const struct shell_folders *cur = &f->st.cwd;
	bool full = false;

	/* first the destination of every cd, then where a failed cd leaves the line */
	shell_folders_add(&next, join(f, cur->v[0], dest));
	for (size_t i = 0; i < cur->n; i++)
		full |= !shell_folders_add(&next, cur->v[i]);
	for (size_t i = 1; i < cur->n; i++)
		full |= !shell_folders_add(&next, join(f, cur->v[i], dest));
	if (f->error)
		return;
	if (full)
		note(f, SHELL_NOTE_BOUND_FOLDERS, pos, "more than 64 combinations of folders: the others are not followed");
	f->st.cwd = next;
	for (size_t i = 0; i < next.n; i++)
		learn_folder(f, next.v[i]);
}

/* ---- commands ---- */

/* cd and pushd, whose options are read as dash reads them (-L, -P, in one
 * word or several); the first operand is the folder. */
static void cmd_cd(struct finder *f, const char *const *argv, size_t argc, uint32_t pos)
{
	bool pushd = strcmp(argv[0], "pushd") == 0;
	const char *dest;
	size_t i = 1;

	for (; i < argc && argv[i] && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (pushd && strcmp(argv[i], "-n") == 0)
			return; /* pushd -n changes no folder */
		if (strspn(argv[i] + 1, "LP") != strlen(argv[i] + 1))
			return; /* sh refuses the option: no cd */
	}
	if (i >= argc) {
		note(f, SHELL_NOTE_CD_VARIABLE, pos, "a cd to the home folder is not followed");
		return;
	}
	dest = argv[i];
	if (!dest) {
		note(f, SHELL_NOTE_CD_VARIABLE, pos, "a cd to a folder named through a variable is not followed");
		return;
	}
	if (strcmp(dest, "-") == 0 || (pushd && (dest[0] == '+' || dest[0] == '-')))
		return; /* back to a folder the line already stood in */
	if (f->st.cdpath && dest[0] != '/' && strcmp(dest, ".") != 0 && strcmp(dest, "..") != 0 &&
	    strncmp(dest, "./", 2) != 0 && strncmp(dest, "../", 3) != 0) {
		note(f, SHELL_NOTE_CDPATH, pos, "cd %s may be found through CDPATH: not followed", dest);
		return;
	}
	apply_cd(f, dest, pos);
}

/* Reads TEXT as a line of its own, in the current state. */
static void read_line(struct finder *f, const char *text, uint32_t pos)
{
	struct shell_ast *ast = NULL, **v;
	struct shell_error err;
	int k;

	if (f->nesting >= SHELL_FIND_MAX_NESTING) {
		note(f, SHELL_NOTE_BOUND_NESTING, pos, "lines nested too deeply are not read");
		return;
	}
	k = shell_parse(text, strlen(text), "nested", &ast, &err);
	if (k == -ENOMEM) {
		f->error = k;
		return;
	}
	if (k < 0) {
		note(f, SHELL_NOTE_UNREADABLE, pos, "a nested line cannot be read: %s", err.what);
		return;
	}
	v = reallocarray(f->asts, f->n_asts + 1, sizeof(*v));
	if (!v) {
		shell_ast_free(ast);
		f->error = -ENOMEM;
		return;
	}
	f->asts = v;
	f->asts[f->n_asts++] = ast;
	if (f->nesting++ == 0)
		f->outer_pos = pos;
	walk_list(f, ast->body);
	f->nesting--;
}

/* Reads TEXT as a line run by another process (sh -c, a trap, find -exec):
 * what it changes does not outlive it. */
static void read_line_apart(struct finder *f, const char *text, uint32_t pos)
{
	struct state saved = f->st;

	read_line(f, text, pos);
	f->st = saved;
}

/* ARGV[FROM..] joined by spaces, or NULL when a word is dynamic. */
static char *join_words(struct finder *f, const char *const *argv, size_t from, size_t argc)
{
	size_t len = 1;
	char *s, *o;

	for (size_t i = from; i < argc; i++) {
		if (!argv[i])
			return NULL;
		len += strlen(argv[i]) + 1;
	}
	s = o = shell_pool_alloc(&f->pool, len);
	if (!s) {
		f->error = -ENOMEM;
		return NULL;
	}
	for (size_t i = from; i < argc; i++)
		o += snprintf(o, len - (size_t)(o - s), "%s%s", i > from ? " " : "", argv[i]);
	return s;
}

static void cmd_eval(struct finder *f, const char *const *argv, size_t argc, uint32_t pos)
{
	char *line = join_words(f, argv, 1, argc);

	if (!line) {
		note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos, "an eval line built from a variable is not read");
		return;
	}
	read_line(f, line, pos);
}

static void cmd_source(struct finder *f, const char *const *argv, size_t argc, uint32_t pos)
{
	size_t i = argc > 1 && argv[1] && strcmp(argv[1], "--") == 0 ? 2 : 1;

	if (i >= argc)
		return;
	if (!argv[i]) {
		note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos, "a script named through a variable is not followed");
		return;
	}
	if (strchr(argv[i], '/')) {
		hold_relative(f, argv[i], pos);
		return;
	}
	/* sh searches the PATH for it, bash the current folder too */
	hold_where_exists(f, argv[i], pos);
	hold_bare(f, argv[i], pos);
}

static void cmd_trap(struct finder *f, const char *const *argv, size_t argc, uint32_t pos)
{
	size_t i = argc > 1 && argv[1] && strcmp(argv[1], "--") == 0 ? 2 : 1;

	if (i >= argc || i + 1 >= argc)
		return; /* trap, trap -p, trap SIG: nothing set */
	if (!argv[i]) {
		note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos, "a trap's line built from a variable is not read");
		return;
	}
	if (strcmp(argv[i], "-") == 0 || argv[i][0] == '\0' || argv[i][0] == '-')
		return;
	f->repeat++;
	read_line_apart(f, argv[i], pos);
	f->repeat--;
}

static void cmd_export(struct finder *f, const struct shell_word *const *words, size_t argc, uint32_t pos)
{
	for (size_t i = 1; i < argc; i++)
		word_assign(f, words[i], pos);
}

static void cmd_unset(struct finder *f, const char *const *argv, size_t argc)
{
	for (size_t i = 1; i < argc; i++)
		if (argv[i] && strcmp(argv[i], "PATH") == 0)
			f->st.path.unset = true;
}

/* find's -exec, -execdir, -ok and -okdir run their words as a command:
 * -exec where find stands, -execdir in the folders of what it finds, which
 * start at the folders find is given. */
static void cmd_find(struct finder *f, const char *const *argv, const struct shell_word *const *words, size_t argc,
		     uint32_t pos)
{
	size_t starts = 1;

	while (starts < argc && !(argv[starts] && strchr("-(!", argv[starts][0])))
		starts++;
	for (size_t i = starts; i < argc; i++) {
		bool in_found = argv[i] && (strcmp(argv[i], "-execdir") == 0 || strcmp(argv[i], "-okdir") == 0);
		struct state saved = f->st;
		size_t end = i + 1;

		if (!argv[i] || (!in_found && strcmp(argv[i], "-exec") != 0 && strcmp(argv[i], "-ok") != 0))
			continue;
		while (end < argc && !(argv[end] && (strcmp(argv[end], ";") == 0 || strcmp(argv[end], "+") == 0)))
			end++;
		for (size_t s = 1; in_found && s < starts; s++)
			if (argv[s])
				for (size_t k = 0, n = saved.cwd.n; k < n; k++)
					shell_folders_add(&f->st.cwd, join(f, saved.cwd.v[k], argv[s]));
		if (i + 1 < end && argv[i + 1] && strcmp(argv[i + 1], "{}") == 0)
			note(f, SHELL_NOTE_PROGRAM_VARIABLE, pos, "find runs what it finds: not followed");
		else if (i + 1 < end)
			run_argv(f, argv + i + 1, words + i + 1, end - i - 1, pos);
		f->st = saved;
		i = end;
	}
}

static void cmd_make(struct finder *f, const char *const *argv, size_t argc, uint32_t pos)
{
	for (size_t i = 1; i < argc; i++)
		if (argv[i] && (strncmp(argv[i], "-f", 2) == 0 || strncmp(argv[i], "--file", 6) == 0 ||
				strncmp(argv[i], "--makefile", 10) == 0)) {
			note(f, SHELL_NOTE_LATER_ARGUMENT, pos, "a file make reads (-f) is not followed");
			return;
		}
}

/* Wrappers that are shell builtins: what they run changes the shell itself
 * (command cd tools), so their state is not undone. */
static bool wrapper_in_shell(const char *name)
{
	return strcmp(name, "command") == 0 || strcmp(name, "builtin") == 0 || strcmp(name, "exec") == 0 ||
	       strcmp(name, "time") == 0;
}

/* env -S STRING: the string split as words, then the rest, read again as env's arguments. */
static int run_env_split(struct finder *f, const struct wrapper_result *res, const char *const *argv,
			 const struct shell_word *const *words, size_t argc, uint32_t pos)
{
	_cleanup_free_ const char **nargv = NULL;
	_cleanup_free_ const struct shell_word **nwords = NULL;
	struct shell_ast *ast = NULL;
	struct shell_error err;
	size_t n = 1, i;
	int k;

	k = shell_parse(res->split, strlen(res->split), "env -S", &ast, &err);
	if (k < 0 || !ast->body || ast->body->kind != SHELL_CMD_SIMPLE) {
		shell_ast_free(ast);
		note(f, SHELL_NOTE_UNREADABLE, pos, "env -S's string cannot be read");
		return 0;
	}
	for (const struct shell_word *w = ast->body->words; w; w = w->next)
		n++;
	nargv = calloc(n + argc, sizeof(*nargv));
	nwords = calloc(n + argc, sizeof(*nwords));
	if (!nargv || !nwords) {
		shell_ast_free(ast);
		return f->error = -ENOMEM;
	}
	nargv[0] = argv[0];
	i = 1;
	for (const struct shell_word *w = ast->body->words; w; w = w->next, i++) {
		nargv[i] = shell_word_static(ast, w);
		nwords[i] = w;
	}
	for (size_t j = res->command; j < argc; j++, i++) {
		nargv[i] = argv[j];
		nwords[i] = words[j];
	}
	k = run_argv(f, nargv, nwords, i, pos);
	shell_ast_free(ast);
	return k;
}

static int run_wrapper(struct finder *f, const char *name, const struct wrapper_result *res, const char *const *argv,
		       const struct shell_word *const *words, size_t argc, uint32_t pos)
{
	struct state saved = f->st;
	int k = 0;

	if (res->runs_nothing)
		return 0;
	if (res->unknown)
		note(f, SHELL_NOTE_UNKNOWN_OPTION, pos, "%s: option %s is not known", name, res->unknown);
	if (res->chdir_dynamic)
		note(f, SHELL_NOTE_CD_VARIABLE, pos, "a folder named through a variable is not followed");
	if (res->chdir) { /* the command runs there only: env -C fails otherwise */
		struct shell_folders next = {0};

		for (size_t i = 0; i < f->st.cwd.n; i++)
			shell_folders_add(&next, join(f, f->st.cwd.v[i], res->chdir));
		if (!f->error) {
			f->st.cwd = next;
			for (size_t i = 0; i < next.n; i++)
				learn_folder(f, next.v[i]);
		}
	}
	for (size_t i = res->assigns_from; i < res->assigns_to; i++)
		word_assign(f, words[i], pos);
	if (res->altpath) {
		struct shell_word w = {0};
		struct shell_part p = {.kind = SHELL_PART_LIT, .text = res->altpath, .len = strlen(res->altpath)};

		w.parts = &p;
		path_assign(f, &w, 0, pos);
	}
	if (res->split)
		k = run_env_split(f, res, argv, words, argc, pos);
	else if (res->shell_c)
		read_line_apart(f, res->shell_c, pos);
	else if (res->shell_c_dynamic)
		note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos, "%s -c's line built from a variable is not read", name);
	else if (res->command < argc) {
		if (res->default_path)
			f->st.path.set = f->st.path.unset = false;
		k = run_argv(f, argv + res->command, words + res->command, argc - res->command, pos);
		if (res->default_path) {
			f->st.path.set = saved.path.set;
			f->st.path.unset = saved.path.unset;
		}
	}
	if (!wrapper_in_shell(name))
		f->st = saved;
	return k;
}

/* What run_argv tells its caller. */
#define RAN_SHELL_FROM_STDIN 1

static int run_interpreter(struct finder *f, enum interp_family family, const char *const *argv, size_t argc,
			   uint32_t pos)
{
	struct interp_result res;
	struct state saved = f->st;

	shell_interp_parse(family, argv, argc, &res);
	if (res.chdir)
		apply_cd(f, res.chdir, pos);
	if (res.inline_code < argc) {
		if (family != INTERP_SHELL)
			note(f, SHELL_NOTE_INLINE_CODE, pos, "%s runs code given on its command line", argv[0]);
		else if (!argv[res.inline_code])
			note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos, "a sh -c line built from a variable is not read");
		else
			read_line_apart(f, argv[res.inline_code], pos);
	}
	if (res.module && res.module[0]) {
		char *mod = shell_pool_strdup(&f->pool, res.module);

		for (char *c = mod; c && *c; c++)
			if (*c == '.')
				*c = '/';
		if (mod) {
			char *file = NULL, *main_file = NULL;

			if (asprintf(&file, "%s.py", mod) >= 0) {
				hold_where_exists(f, file, pos);
				free(file);
			}
			if (asprintf(&main_file, "%s/__main__.py", mod) >= 0) {
				hold_where_exists(f, main_file, pos);
				free(main_file);
			}
		}
	}
	if (res.require)
		hold_relative(f, res.require, pos);
	if (res.script < argc) {
		const char *s = argv[res.script];

		if (!s)
			note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos, "a script named through a variable is not followed");
		else if (strchr(s, '/'))
			hold_relative(f, s, pos);
		else
			hold_where_exists(f, s, pos);
	}
	f->st.cwd = saved.cwd;
	return family == INTERP_SHELL && res.reads_stdin ? RAN_SHELL_FROM_STDIN : 0;
}

static struct func *func_find(struct finder *f, const char *name)
{
	for (struct func *fn = f->funcs; fn; fn = fn->next)
		if (strcmp(fn->name, name) == 0)
			return fn;
	return NULL;
}

/* A function is read at each call, from where the call stands; a call from
 * inside itself is read once. */
static void call_function(struct finder *f, struct func *fn, uint32_t pos)
{
	if (fn->active)
		return;
	if (f->nesting >= SHELL_FIND_MAX_NESTING) {
		note(f, SHELL_NOTE_BOUND_NESTING, pos, "function calls nested too deeply are not read");
		return;
	}
	fn->active = true;
	if (f->nesting++ == 0)
		f->outer_pos = pos;
	f->repeat++;
	walk_cmd(f, fn->body);
	f->repeat--;
	f->nesting--;
	fn->active = false;
}

/* Builtins that run no program of their own. */
static bool is_plain_builtin(const char *name)
{
	static const char *const builtins[] = {
		":", "true", "false", "echo", "printf", "test", "[", "pwd", "read", "set", "shift", "exit",
		"return", "break", "continue", "wait", "type", "hash", "alias", "unalias", "umask", "ulimit",
		"getopts", "jobs", "fg", "bg", "kill", "let", "times", "shopt", "popd", "dirs", "local",
		"readonly", "declare", "typeset", "export", "unset",
	};

	for (size_t i = 0; i < ELEMENTSOF(builtins); i++)
		if (strcmp(builtins[i], name) == 0)
			return true;
	return false;
}

/* Builtins the line's own functions cannot replace (POSIX special builtins
 * among them), and cd, which changes where the line stands. */
static bool run_builtin(struct finder *f, const char *const *argv, const struct shell_word *const *words, size_t argc,
			uint32_t pos)
{
	const char *name = argv[0];

	if (strcmp(name, "cd") == 0 || strcmp(name, "pushd") == 0)
		cmd_cd(f, argv, argc, pos);
	else if (strcmp(name, "eval") == 0)
		cmd_eval(f, argv, argc, pos);
	else if (strcmp(name, ".") == 0 || strcmp(name, "source") == 0)
		cmd_source(f, argv, argc, pos);
	else if (strcmp(name, "trap") == 0)
		cmd_trap(f, argv, argc, pos);
	else if (strcmp(name, "export") == 0 || strcmp(name, "readonly") == 0 || strcmp(name, "local") == 0 ||
		 strcmp(name, "declare") == 0 || strcmp(name, "typeset") == 0)
		cmd_export(f, words, argc, pos);
	else if (strcmp(name, "unset") == 0)
		cmd_unset(f, argv, argc);
	else
		return false;
	return true;
}

static int run_argv(struct finder *f, const char *const *argv, const struct shell_word *const *words, size_t argc,
		    uint32_t pos)
{
	struct wrapper_result wres;
	enum interp_family family;
	const char *name, *base;
	struct func *fn;

	if (argc == 0 || f->error)
		return 0;
	if (++f->steps > SHELL_FIND_MAX_STEPS) {
		note(f, SHELL_NOTE_BOUND_STEPS, pos, "too many commands to read: the rest is not followed");
		return 0;
	}
	name = argv[0];
	if (!name) {
		note(f, SHELL_NOTE_PROGRAM_VARIABLE, pos, "a program named through a variable is not followed");
		return 0;
	}
	base = shell_basename(name);
	if (!strchr(name, '/')) {
		if (run_builtin(f, argv, words, argc, pos))
			return 0;
		if ((fn = func_find(f, name))) {
			call_function(f, fn, pos);
			return 0;
		}
		if (is_plain_builtin(name))
			return 0;
	}
	/* command, exec and their kin are builtins: not looked up on the PATH */
	if (strchr(name, '/') || !wrapper_in_shell(name))
		hold_program(f, name, pos);
	if (shell_wrapper_parse(base, argv, argc, &wres))
		return run_wrapper(f, base, &wres, argv, words, argc, pos);
	family = shell_interp_family(base);
	if (family != INTERP_NONE)
		return run_interpreter(f, family, argv, argc, pos);
	if (strcmp(base, "find") == 0)
		cmd_find(f, argv, words, argc, pos);
	else if (strcmp(base, "make") == 0 || strcmp(base, "gmake") == 0)
		cmd_make(f, argv, argc, pos);
	return 0;
}

/* ---- the tree ---- */

static void walk_parts(struct finder *f, const struct shell_part *p);

/* A command substitution runs in a subshell. */
static void walk_subst(struct finder *f, const struct shell_cmd *body)
{
	struct state saved = f->st;

	walk_list(f, body);
	f->st = saved;
}

static void walk_parts(struct finder *f, const struct shell_part *p)
{
	for (; p; p = p->next) {
		walk_parts(f, p->parts);
		if (p->body)
			walk_subst(f, p->body);
	}
}

static void walk_words(struct finder *f, const struct shell_word *w)
{
	for (; w; w = w->next)
		walk_parts(f, w->parts);
}

static void walk_redirs(struct finder *f, const struct shell_redir *r)
{
	for (; r; r = r->next) {
		walk_parts(f, r->word->parts);
		if (r->body)
			walk_parts(f, r->body->parts);
	}
}

/* The last redirection of standard input: a shell reading its program
 * there runs that file, a here-document or a here-string. */
static const struct shell_redir *stdin_redir(const struct shell_redir *r)
{
	const struct shell_redir *last = NULL;

	for (; r; r = r->next)
		if ((r->fd == -1 || r->fd == 0) && (r->op == SHELL_REDIR_IN || r->op == SHELL_REDIR_INOUT ||
						    r->op == SHELL_REDIR_HEREDOC || r->op == SHELL_REDIR_HERESTRING))
			last = r;
	return last;
}

/* sh < tools/x.sh runs the file as sh tools/x.sh would: it is opened
 * from the folder the command stands in, named with a folder or not. */
static void stdin_script(struct finder *f, struct shell_ast *ast, const struct shell_redir *r, uint32_t pos)
{
	const char *file = shell_word_static(ast, r->word);

	if (!file)
		note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos, "a script named through a variable is not followed");
	else
		hold_relative(f, file, pos);
}

static const char *literal_written(struct finder *f, const struct shell_cmd *c);

/* cat FILE... | sh runs the files as scripts: true when FROM is such a cat
 * (every word static), with its files held. */
static bool cat_files(struct finder *f, struct shell_ast *ast, const struct shell_cmd *from, uint32_t pos)
{
	const char *name;

	if (from->kind != SHELL_CMD_SIMPLE || !from->words)
		return false;
	name = shell_word_static(ast, from->words);
	if (!name || strcmp(name, "cat") != 0)
		return false;
	for (const struct shell_word *w = from->words->next; w; w = w->next)
		if (!shell_word_static(ast, w))
			return false;
	for (const struct shell_word *w = from->words->next; w; w = w->next) {
		const char *file = shell_word_static(ast, w);

		if (file[0] != '-') /* an option, or '-' for cat's own input */
			hold_relative(f, file, pos);
	}
	return true;
}

/* What a shell reads from standard input: the file it is redirected from, a
 * here-document or here-string as a line of its own, or what the pipeline
 * element FROM writes (NULL when the shell is not in a pipeline). */
static void stdin_program(struct finder *f, struct shell_ast *ast, const struct shell_redir *r,
			  const struct shell_cmd *from, uint32_t pos)
{
	const char *text;

	if (r && (r->op == SHELL_REDIR_IN || r->op == SHELL_REDIR_INOUT)) {
		stdin_script(f, ast, r, pos);
		return;
	}
	if (r && r->op == SHELL_REDIR_HEREDOC)
		text = !r->body ? NULL : r->body->parts ? shell_word_static(ast, r->body) : "";
	else if (r)
		text = shell_word_static(ast, r->word);
	else if (from)
		text = literal_written(f, from);
	else
		return; /* what the line's caller gives it */
	if (text)
		read_line_apart(f, text, pos);
	else if (r || !cat_files(f, ast, from, pos))
		note(f, SHELL_NOTE_SCRIPT_VARIABLE, pos, "what the shell reads is not a literal line: not read");
}

/* The tree whose arena holds the static values of words: the line's own,
 * which lives as long as the finder (any tree's arena would do). */
static struct shell_ast *tree_of(struct finder *f)
{
	return f->asts[0];
}

static void walk_simple(struct finder *f, const struct shell_cmd *c)
{
	_cleanup_free_ const char **argv = NULL;
	_cleanup_free_ const struct shell_word **words = NULL;
	struct shell_ast *ast = tree_of(f);
	const struct shell_cmd *from = f->stdin_from;
	size_t argc = 0, i = 0;

	f->stdin_from = NULL;
	for (const struct shell_assign *a = c->assigns; a; a = a->next)
		walk_parts(f, a->value->parts);
	walk_words(f, c->words);
	walk_redirs(f, c->redirs);
	for (const struct shell_assign *a = c->assigns; a; a = a->next)
		assignment(f, a->name, a->value, 0, a->pos);
	for (const struct shell_word *w = c->words; w; w = w->next)
		argc++;
	if (argc == 0)
		return;
	argv = calloc(argc, sizeof(*argv));
	words = calloc(argc, sizeof(*words));
	if (!argv || !words) {
		f->error = -ENOMEM;
		return;
	}
	for (const struct shell_word *w = c->words; w; w = w->next, i++) {
		argv[i] = shell_word_static(ast, w);
		words[i] = w;
	}
	if (run_argv(f, argv, words, argc, c->pos) & RAN_SHELL_FROM_STDIN)
		stdin_program(f, ast, stdin_redir(c->redirs), from, c->pos);
}

/* The text 'echo WORDS' or 'printf FORMAT [ARGS]' writes, when static. */
static const char *literal_written(struct finder *f, const struct shell_cmd *c)
{
	_cleanup_free_ const char **argv = NULL;
	struct shell_ast *ast = tree_of(f);
	size_t argc = 0, i = 0, from = 1;
	char *text;

	if (!c || c->kind != SHELL_CMD_SIMPLE || !c->words)
		return NULL;
	for (const struct shell_word *w = c->words; w; w = w->next)
		argc++;
	argv = calloc(argc, sizeof(*argv));
	if (!argv)
		return NULL;
	for (const struct shell_word *w = c->words; w; w = w->next)
		if (!(argv[i++] = shell_word_static(ast, w)))
			return NULL;
	if (strcmp(argv[0], "echo") == 0) {
		while (from < argc && (strcmp(argv[from], "-n") == 0 || strcmp(argv[from], "-e") == 0))
			from++;
	} else if (strcmp(argv[0], "printf") == 0 && argc > 1) {
		/* printf '%s\n' LINE...: the arguments; a format alone: itself */
		from = argc > 2 ? 2 : 1;
	} else
		return NULL;
	text = join_words(f, argv, from, argc);
	for (char *p = text; p && *p; p++)
		if (p[0] == '\\' && p[1] == 'n')
			p[0] = ' ', p[1] = '\n';
	return text;
}

static void walk_pipeline(struct finder *f, const struct shell_cmd *c)
{
	const struct shell_cmd *prev = NULL;

	for (const struct shell_cmd *e = c->body; e; prev = e, e = e->next) {
		/* a literal piped into a shell is read as a line of its own */
		f->stdin_from = prev;
		walk_cmd(f, e);
		f->stdin_from = NULL;
	}
}

static void walk_loop(struct finder *f, const struct shell_cmd *c)
{
	f->repeat++;
	walk_list(f, c->cond);
	walk_list(f, c->body);
	f->repeat--;
}

static void walk_cmd(struct finder *f, const struct shell_cmd *c)
{
	struct state saved;

	if (f->error)
		return;
	switch (c->kind) {
	case SHELL_CMD_SIMPLE:
		walk_simple(f, c);
		return;
	case SHELL_CMD_PIPELINE:
		walk_pipeline(f, c);
		break;
	case SHELL_CMD_AND:
	case SHELL_CMD_OR:
		walk_cmd(f, c->left);
		walk_cmd(f, c->right);
		break;
	case SHELL_CMD_SUBSHELL:
		saved = f->st;
		walk_list(f, c->body);
		f->st = saved;
		break;
	case SHELL_CMD_GROUP:
		walk_list(f, c->body);
		break;
	case SHELL_CMD_IF:
		walk_list(f, c->cond);
		walk_list(f, c->body);
		if (c->alt)
			walk_list(f, c->alt);
		break;
	case SHELL_CMD_WHILE:
	case SHELL_CMD_UNTIL:
		walk_loop(f, c);
		break;
	case SHELL_CMD_FOR:
		walk_words(f, c->subject);
		walk_loop(f, c);
		break;
	case SHELL_CMD_CASE:
		walk_words(f, c->subject);
		for (const struct shell_case_item *i = c->items; i; i = i->next) {
			walk_words(f, i->patterns);
			walk_list(f, i->body);
		}
		break;
	case SHELL_CMD_FUNCDEF: {
		struct func *fn = shell_pool_alloc(&f->pool, sizeof(*fn));

		if (!fn) {
			f->error = -ENOMEM;
			return;
		}
		*fn = (struct func){.name = c->name, .body = c->body, .next = f->funcs};
		f->funcs = fn;
		return;
	}
	}
	walk_redirs(f, c->redirs);
}

static void walk_list(struct finder *f, const struct shell_cmd *c)
{
	for (; c && !f->error; c = c->next)
		walk_cmd(f, c);
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
	k = shell_parse(buf, len, origin, &ast, &err);
	if (k == -ENOMEM) {
		finder_done(&f);
		free(f.out);
		return k;
	}
	if (k < 0)
		note(&f, SHELL_NOTE_UNREADABLE, err.pos, "not read as sh: %s", err.what);
	else {
		f.asts[f.n_asts++] = ast;
		finder_reset(&f);
		walk_list(&f, ast->body);
		if (f.named_stale && !f.error) { /* the second reading names no new folder */
			finder_forget(&f);
			finder_reset(&f);
			walk_list(&f, ast->body);
		}
	}
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
