/* The program finder's folders: where the line may stand after each cd (and
 * pushd, and a wrapper's -C), and the programs named with a folder, held
 * relative to each of them. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "policy/shell/find-internal.h"

/* Where a relative program may run from: the folders the line may stand in,
 * and inside loops, functions and traps every folder the line names. Past
 * the bound on paths after a cd, only where the line started. */
void finder_folders(struct finder *f, struct shell_folders *out)
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
void finder_learn_folder(struct finder *f, const char *dir)
{
	size_t n = f->named.n;

	shell_folders_add(&f->named, dir);
	if (f->named.n != n && f->named_read)
		f->named_stale = true;
}

char *finder_join(struct finder *f, const char *base, const char *rel)
{
	char *p = shell_path_join(&f->pool, base, rel);

	if (!p)
		f->error = -ENOMEM;
	return p;
}

/* A program or script named with a folder: relative to every folder it may run from. */
void finder_hold_relative(struct finder *f, const char *name, uint32_t pos)
{
	struct shell_folders dirs;

	if (name[0] == '/') {
		finder_hold(f, f->st.cwd.v[0], finder_join(f, "/", name), pos);
		return;
	}
	finder_folders(f, &dirs);
	for (size_t i = 0; i < dirs.n; i++)
		finder_hold(f, dirs.v[i], finder_join(f, dirs.v[i], name), pos);
}

/* A script named without a folder: in each folder it may run from where it exists. */
void finder_hold_where_exists(struct finder *f, const char *name, uint32_t pos)
{
	struct shell_folders dirs;

	finder_folders(f, &dirs);
	for (size_t i = 0; i < dirs.n; i++) {
		const char *p = finder_join(f, dirs.v[i], name);

		if (p && finder_exists(f, p))
			finder_hold(f, dirs.v[i], p, pos);
	}
}

void finder_apply_cd(struct finder *f, const char *dest, uint32_t pos)
{
	struct shell_folders next = {0};
	const struct shell_folders *cur = &f->st.cwd;
	bool full = false;

	/* first the destination of every cd, then where a failed cd leaves the line */
	shell_folders_add(&next, finder_join(f, cur->v[0], dest));
	for (size_t i = 0; i < cur->n; i++)
		full |= !shell_folders_add(&next, cur->v[i]);
	for (size_t i = 1; i < cur->n; i++)
		full |= !shell_folders_add(&next, finder_join(f, cur->v[i], dest));
	if (f->error)
		return;
	if (full)
		finder_note(f, SHELL_NOTE_BOUND_FOLDERS, pos,
			    "more than 64 combinations of folders: the others are not followed");
	f->st.cwd = next;
	for (size_t i = 0; i < next.n; i++)
		finder_learn_folder(f, next.v[i]);
}

/* cd and pushd, whose options are read as dash reads them (-L, -P, in one
 * word or several); the first operand is the folder. */
void finder_cd(struct finder *f, const char *const *argv, size_t argc, uint32_t pos)
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
		finder_note(f, SHELL_NOTE_CD_VARIABLE, pos, "a cd to the home folder is not followed");
		return;
	}
	dest = argv[i];
	if (!dest) {
		finder_note(f, SHELL_NOTE_CD_VARIABLE, pos,
			    "a cd to a folder named through a variable is not followed");
		return;
	}
	if (strcmp(dest, "-") == 0 || (pushd && (dest[0] == '+' || dest[0] == '-')))
		return; /* back to a folder the line already stood in */
	if (f->st.cdpath && dest[0] != '/' && strcmp(dest, ".") != 0 && strcmp(dest, "..") != 0 &&
	    strncmp(dest, "./", 2) != 0 && strncmp(dest, "../", 3) != 0) {
		finder_note(f, SHELL_NOTE_CDPATH, pos, "cd %s may be found through CDPATH: not followed", dest);
		return;
	}
	finder_apply_cd(f, dest, pos);
}
