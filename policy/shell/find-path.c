/* The program finder's PATH: the entries a line sets (PATH=, export,
 * env), searched for the bare names it runs after, and CDPATH, which makes a
 * relative cd go where the line cannot tell. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/shell/find-internal.h"

static void hold_in_path_entry(struct finder *f, const char *entry, const char *name, uint32_t pos)
{
	struct shell_folders dirs;

	finder_folders(f, &dirs);
	for (size_t i = 0; i < dirs.n; i++) {
		/* an empty entry is the current folder */
		const char *dir = entry[0] ? finder_join(f, dirs.v[i], entry) : dirs.v[i];
		const char *p = dir ? finder_join(f, dir, name) : NULL;

		if (p && finder_exists(f, p))
			finder_hold(f, dirs.v[i], p, pos);
	}
}

/* A bare name: on the PATH outside the tree, unless the line set or unset it. */
void finder_hold_bare(struct finder *f, const char *name, uint32_t pos)
{
	const struct path_state *ps = &f->st.path;

	if (ps->unset) {
		struct shell_folders dirs;

		finder_folders(f, &dirs);
		for (size_t i = 0; i < dirs.n; i++)
			finder_hold(f, dirs.v[i], finder_join(f, dirs.v[i], name), pos);
	}
	if (!ps->set)
		return;
	for (size_t i = 0; i < ps->n; i++)
		hold_in_path_entry(f, ps->entries[i], name, pos);
	for (size_t i = 0; i < ps->n_last; i++)
		hold_in_path_entry(f, ps->last[i], name, pos);
}

void finder_hold_program(struct finder *f, const char *name, uint32_t pos)
{
	if (strchr(name, '/'))
		finder_hold_relative(f, name, pos);
	else
		finder_hold_bare(f, name, pos);
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
		finder_note(f, SHELL_NOTE_BOUND_PATH, pos,
			    "the PATHs the line sets pass 64 entries: the oldest are dropped");
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
		finder_note(f, SHELL_NOTE_PATH_HOME, pos, "a PATH entry in a home folder is not followed");
	else if (e->variable)
		finder_note(f, SHELL_NOTE_PATH_VARIABLE, pos, "a PATH entry set through a variable is not followed");
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
void finder_path_assign(struct finder *f, const struct shell_word *w, size_t skip, uint32_t pos)
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
void finder_assign(struct finder *f, const char *name, const struct shell_word *value, size_t skip, uint32_t pos)
{
	if (strcmp(name, "PATH") == 0)
		finder_path_assign(f, value, skip, pos);
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

void finder_word_assign(struct finder *f, const struct shell_word *w, uint32_t pos)
{
	char name[16];
	size_t skip;

	if (word_assignment(w, name, sizeof(name), &skip))
		finder_assign(f, name, w, skip, pos);
}

void finder_export(struct finder *f, const struct shell_word *const *words, size_t argc, uint32_t pos)
{
	for (size_t i = 1; i < argc; i++)
		finder_word_assign(f, words[i], pos);
}

void finder_unset(struct finder *f, const char *const *argv, size_t argc)
{
	for (size_t i = 1; i < argc; i++)
		if (argv[i] && strcmp(argv[i], "PATH") == 0)
			f->st.path.unset = true;
}
