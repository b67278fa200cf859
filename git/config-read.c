#include "config.h"

/* A repository's configuration with its includes, as git 2.39 reads it
 * (config.c: do_git_config_sequence, git_config_include, handle_path_include,
 * include_by_gitdir, include_by_branch, include_by_remote_url). See
 * git/config-read.h for what is read and why. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/physical-path.h"
#include "git/config-parse.h"
#include "git/config-read.h"
#include "git/wildmatch.h"
#include "git/read.h"

/* Debian's git is built with prefix /usr: "%(prefix)/x" is /usr/x to it. */
#define GIT_SYSTEM_PREFIX "/usr"
/* refs.c SYMREF_MAXDEPTH: symbolic refs followed from HEAD. */
#define SYMREF_MAX_DEPTH 5

struct reader {
	int rootfd;
	const struct gitcfg_read_opts *opts;
	const char *commondir;
	char *gitdir_real; /* what gitdir: patterns match */
	struct gitcfg_config *cfg;
	struct gitcfg_read_error *err;
	bool failed;        /* err is filled: keep the deepest reason */
	char **urls;        /* remote URLs for hasconfig:, gathered once */
	size_t n_urls;
	bool urls_ready;
	char *branch;       /* HEAD's branch below refs/heads/, or NULL */
	bool branch_ready;
	size_t files_seen;
};

/* One walk over the configuration files: the listing, or the hasconfig
 * pass that gathers remote URLs with every hasconfig include taken. */
struct pass {
	struct reader *r;
	bool urls_pass;
	bool forbid_urls; /* within an includeIf file of the URL pass */
	bool dormant;     /* within a file an includeIf that does not hold brings in */
	int depth;
};

/* The file whose entries are being parsed. */
struct frame {
	struct pass *pass;
	int file;
};

/* ---- errors and the result -------------------------------------------- */

static int fail(struct reader *r, int error, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct reader *r, int error, const char *file, const char *fmt, ...)
{
	va_list ap;

	if (r->failed || !r->err)
		return error;
	r->failed = true;
	snprintf(r->err->file, sizeof(r->err->file), "%s", file);
	va_start(ap, fmt);
	vsnprintf(r->err->reason, sizeof(r->err->reason), fmt, ap);
	va_end(ap);
	return error;
}

struct gitcfg_config *gitcfg_config_free(struct gitcfg_config *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n_entries; i++) {
		free(c->entries[i].name);
		free(c->entries[i].value);
	}
	for (size_t i = 0; i < c->n_files; i++) {
		free(c->files[i].origin);
		free(c->files[i].path);
	}
	free(c->entries);
	free(c->files);
	free(c);
	return NULL;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(struct gitcfg_config *, gitcfg_config_free);

/* Grows *array (of n elements of size sz) by one when n is a power of two. */
static int grow(void *array, size_t n, size_t sz)
{
	void **p = array;
	void *q;

	if (n & (n - 1))
		return 0;
	q = reallocarray(*p, n ? n * 2 : 4, sz);
	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

static char *strdup_or_null(const char *s, bool *oom)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

static int add_entry(struct reader *r, const struct gitcfg_entry *e, int file)
{
	struct gitcfg_config *c = r->cfg;
	struct gitcfg_read_entry *n;
	bool oom = false;

	if (c->n_entries >= GITCFG_READ_MAX_ENTRIES)
		return fail(r, -E2BIG, e->origin, "more than %d entries in all", GITCFG_READ_MAX_ENTRIES);
	if (grow(&c->entries, c->n_entries, sizeof(*c->entries)) < 0)
		return -ENOMEM;
	n = &c->entries[c->n_entries];
	*n = (struct gitcfg_read_entry){
		.name = strdup_or_null(e->name, &oom),
		.value = strdup_or_null(e->value, &oom),
		.file = file,
		.line = e->line,
	};
	c->n_entries++;
	return oom ? -ENOMEM : 0;
}

static int add_file(struct pass *p, const char *origin, const char *path, enum gitcfg_file_state state,
                    int parent, int line)
{
	struct gitcfg_config *c = p->r->cfg;
	struct gitcfg_file *f;
	bool oom = false;

	if (++p->r->files_seen > GITCFG_READ_MAX_FILES)
		return fail(p->r, -E2BIG, origin, "more than %d configuration files", GITCFG_READ_MAX_FILES);
	if (grow(&c->files, c->n_files, sizeof(*c->files)) < 0)
		return -ENOMEM;
	f = &c->files[c->n_files];
	*f = (struct gitcfg_file){
		.origin = strdup_or_null(origin, &oom),
		.path = strdup_or_null(path, &oom),
		.state = state,
		.parent = parent,
		.line = line,
		.urls_only = p->urls_pass,
		.dormant = p->dormant,
	};
	c->n_files++;
	return oom ? -ENOMEM : (int)c->n_files - 1;
}

/* ---- paths --------------------------------------------------------------- */

static const char *read_reason(int error)
{
	switch (error) {
	case -ELOOP:
		return "a symbolic link on the way or at the end";
	case -EFBIG:
		return "larger than 1 MiB";
	case -EINVAL:
		return "not a regular file";
	case -EXDEV:
		return "leaves the tree";
	default: {
		/* strerror() is not thread-safe */
		const char *d = strerrordesc_np(-error);

		return d ? d : "unknown error";
	}
	}
}

static bool inside_root(const struct reader *r, const char *abs)
{
	size_t n = strlen(r->opts->root_path);

	return !strncmp(abs, r->opts->root_path, n) && (abs[n] == '\0' || abs[n] == '/');
}

/* The tree-relative name of ABS, which inside_root() accepted. */
static const char *tree_relative(const struct reader *r, const char *abs)
{
	const char *rest = abs + strlen(r->opts->root_path);

	return *rest ? rest + 1 : ".";
}

/* Steps through one component inside the tree: it must exist and be no
 * link. Returns 1 when it is a folder, 0 when not, -ENOENT when it does not
 * exist (or a non-folder stands on the way), or a failure. */
static int step_in_tree(struct reader *r, const char *origin, const char *rel)
{
	struct stat st;

	if (fstatat(r->rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return -ENOENT;
		return fail(r, negative_errno(), origin, "cannot look at '%s': %m", rel);
	}
	if (S_ISLNK(st.st_mode))
		return fail(r, -ELOOP, origin, "'%s' is a symbolic link", rel);
	return S_ISDIR(st.st_mode);
}

/* One component S (N bytes) of a lexical walk into NORM, an absolute path
 * of LEN bytes with room for CAP: "." stays, ".." climbs, a name is added.
 * Returns true when a name was added. */
static bool walk_component(char *norm, size_t *len, size_t cap, const char *s, size_t n)
{
	if (n == 1 && s[0] == '.')
		return false;
	if (n == 2 && s[0] == '.' && s[1] == '.') {
		char *slash = strrchr(norm, '/');

		*len = slash ? (size_t)(slash - norm) : 0;
		norm[*len] = '\0';
		return false;
	}
	*len += (size_t)snprintf(norm + *len, cap - *len, "/%.*s", (int)n, s);
	return true;
}

/* ABS, absolute, with the prefix SEEN_AS (where git sees the tree) put back
 * to the tree's own path. */
static int as_tree_path(const struct reader *r, const char *abs, char **out)
{
	const char *seen = r->opts->seen_as;
	size_t n = seen ? strlen(seen) : 0;

	if (n && !strncmp(abs, seen, n) && (abs[n] == '\0' || abs[n] == '/'))
		return asprintf(out, "%s%s", r->opts->root_path, abs + n) < 0 ? -ENOMEM : 0;
	*out = strdup(abs);
	return *out ? 0 : -ENOMEM;
}

/* The lexical walk of locate(): ABS's components as the kernel would take
 * them, checking each one inside the tree; links outside the tree are
 * assumed absent. Returns 1 when it ends inside the tree (*path set as in
 * struct gitcfg_file), 0 when outside. */
static int walk_lexically(struct reader *r, const char *origin, const char *abs, enum gitcfg_file_state *state,
                          char **path)
{
	_cleanup_free_ char *norm = malloc(strlen(abs) + 2);
	bool is_dir = true;
	size_t len = 0;
	const char *s;

	if (!norm)
		return -ENOMEM;
	norm[0] = '\0';
	for (s = abs;; s = strchrnul(s, '/')) {
		size_t n;

		while (*s == '/')
			s++;
		/* Anything after a non-folder, a trailing '/' too, is ENOTDIR. */
		if (!is_dir && (*s || s[-1] == '/') && inside_root(r, norm))
			goto missing;
		if (!*s)
			break;
		n = strcspn(s, "/");
		if (!walk_component(norm, &len, strlen(abs) + 2, s, n)) {
			is_dir = true; /* ".": the same folder; "..": a folder's parent */
			continue;
		}
		if (inside_root(r, norm)) {
			int d = norm[strlen(r->opts->root_path)] ? step_in_tree(r, origin, tree_relative(r, norm)) : 1;

			if (d == -ENOENT)
				goto missing;
			if (d < 0)
				return d;
			is_dir = d;
		}
	}
	if (!inside_root(r, norm))
		return 0;
	*state = GITCFG_FILE_READ;
	*path = strdup(tree_relative(r, norm));
	return *path ? 1 : -ENOMEM;
missing:
	*state = GITCFG_FILE_MISSING;
	*path = strdup(tree_relative(r, norm));
	return *path ? 1 : -ENOMEM;
}

/* Where ORIGIN (a path as git opens it, relative to the tree's root or
 * absolute) lies. Inside the tree lexically, or physically (a link outside
 * that leads back in, which git follows): *state and *path as in struct
 * gitcfg_file. Outside: GITCFG_FILE_OUTSIDE and *outside, the physical path
 * to read it by. */
static int locate(struct reader *r, const char *origin, enum gitcfg_file_state *state, char **path, char **outside)
{
	_cleanup_free_ char *joined = NULL, *abs = NULL, *physical = NULL;
	int e;

	*path = *outside = NULL;
	if ((origin[0] == '/' ? asprintf(&joined, "%s", origin)
	                      : asprintf(&joined, "%s/%s", r->opts->root_path, origin)) < 0)
		return -ENOMEM;
	if (strlen(joined) >= PATH_MAX)
		return fail(r, -ENAMETOOLONG, origin, "path too long");
	e = as_tree_path(r, joined, &abs);
	if (e >= 0)
		e = walk_lexically(r, origin, abs, state, path);
	if (e)
		return e;
	e = physical_path(abs, &physical);
	if (e < 0)
		return e == -ENOMEM ? e : fail(r, e, origin, "cannot tell where it leads");
	if (inside_root(r, physical)) {
		e = walk_lexically(r, origin, physical, state, path);
		return e < 0 ? e : 0;
	}
	*state = GITCFG_FILE_OUTSIDE;
	*outside = TAKE_PTR(physical);
	return 0;
}

/* A user's home from the password database, as git's getpw_str. */
static int user_home(const char *name, size_t len, char **home)
{
	_cleanup_free_ char *user = strndup(name, len), *buf = NULL;
	struct passwd pw, *found = NULL;
	size_t size = 16384;

	if (!user || !(buf = malloc(size)))
		return -ENOMEM;
	if (getpwnam_r(user, &pw, buf, size, &found) != 0 || !found)
		return -EINVAL;
	*home = strdup(pw.pw_dir);
	return *home ? 0 : -ENOMEM;
}

/* Git's interpolate_path(): "~/", "~user/" and "%(prefix)/". Returns 1 and
 * *out, 0 when PATH needs nothing, -EINVAL when git cannot expand it. */
static int expand_path(const struct reader *r, const char *path, char **out)
{
	_cleanup_free_ char *home = NULL;
	const char *rest;

	*out = NULL;
	if (!strncmp(path, "%(prefix)/", 10))
		return asprintf(out, "%s/%s", GIT_SYSTEM_PREFIX, path + 10) < 0 ? -ENOMEM : 1;
	if (path[0] != '~')
		return 0;
	rest = strchrnul(path, '/');
	if (rest == path + 1) {
		if (!r->opts->home)
			return -EINVAL;
		home = strdup(r->opts->home);
		if (!home)
			return -ENOMEM;
	} else {
		int e = user_home(path + 1, (size_t)(rest - path - 1), &home);

		if (e < 0)
			return e;
	}
	return asprintf(out, "%s%s", home, rest) < 0 ? -ENOMEM : 1;
}

/* ---- HEAD's branch, for onbranch: ----------------------------------------- */

/* Git's check_refname_format() with REFNAME_ALLOW_ONELEVEL: a name that
 * fails it ends the resolution, and nothing else is ever read as a path. */
static bool refname_is_valid(const char *name)
{
	const char *c = name;

	if (!*name || !strcmp(name, "@") || strstr(name, "..") || strstr(name, "@{"))
		return false;
	for (;;) {
		size_t n = strcspn(c, "/");

		if (n == 0 || c[0] == '.' || (n >= 5 && !strncmp(c + n - 5, ".lock", 5)))
			return false;
		for (size_t i = 0; i < n; i++) {
			unsigned char b = (unsigned char)c[i];

			if (b < 0x20 || b == 0x7f || strchr(" ~^:?*[\\", b))
				return false;
		}
		if (!c[n])
			return c[n - 1] != '.';
		c += n + 1;
	}
}

/* The folder a ref lives in: HEAD, pseudorefs and the per-worktree refs in
 * the git dir, the others in the common dir (refs/files-backend.c). */
static const char *ref_folder(const struct reader *r, const char *ref)
{
	static const char *const per_worktree[] = {"refs/bisect/", "refs/worktree/", "refs/rewritten/"};

	if (strncmp(ref, "refs/", 5))
		return r->opts->gitdir;
	for (size_t i = 0; i < ELEMENTSOF(per_worktree); i++)
		if (!strncmp(ref, per_worktree[i], strlen(per_worktree[i])))
			return r->opts->gitdir;
	return r->commondir;
}

/* The target of a "ref: X" file, trimmed as parse_loose_ref_contents does;
 * NULL in *target for an object name. -EINVAL for neither (git's resolve
 * then fails). */
static int symref_target(const char *data, char **target)
{
	size_t n;

	*target = NULL;
	if (strncmp(data, "ref:", 4)) {
		n = strspn(data, "0123456789abcdef");
		return (n == 40 || n == 64) && (!data[n] || isspace((unsigned char)data[n])) ? 0 : -EINVAL;
	}
	data += 4;
	while (isspace((unsigned char)*data))
		data++;
	n = strlen(data);
	while (n && isspace((unsigned char)data[n - 1]))
		n--;
	*target = strndup(data, n);
	return *target ? 0 : -ENOMEM;
}

/* Git's resolve_ref_unsafe("HEAD"): follows symbolic refs up to 5 deep; an
 * unborn branch keeps its name. Sets r->branch to the branch HEAD names
 * through symbolic refs, or leaves it NULL (detached, broken, elsewhere). */
static int resolve_head(struct reader *r)
{
	_cleanup_free_ char *ref = strdup("HEAD");

	if (!ref)
		return -ENOMEM;
	for (int depth = 0; depth < SYMREF_MAX_DEPTH; depth++) {
		_cleanup_free_ char *name = NULL, *target = NULL;
		struct git_blob b;
		int e;

		if (asprintf(&name, "%s/%s", ref_folder(r, ref), ref) < 0)
			return -ENOMEM;
		e = gitread_file(r->rootfd, name, GITREAD_SMALL_MAX, &b);
		if (e == -ENOENT)
			break;
		if (e < 0)
			return fail(r, e, name, "cannot read it: %s", read_reason(e));
		e = symref_target(b.data, &target);
		git_blob_free(&b);
		if (e == -EINVAL)
			return 0;
		if (e < 0)
			return e;
		if (!target)
			break;
		if (!refname_is_valid(target))
			return 0;
		free(ref);
		ref = TAKE_PTR(target);
		if (depth == SYMREF_MAX_DEPTH - 1)
			return 0;
	}
	if (strncmp(ref, "refs/heads/", 11))
		return 0;
	r->branch = strdup(ref + 11);
	return r->branch ? 0 : -ENOMEM;
}

/* ---- includeIf conditions -------------------------------------------------- */

/* Appends "**" to a pattern that ends in '/', as git's
 * add_trailing_starstar_for_dir. */
static int with_starstar_for_dir(const char *prefix, const char *pattern, char **out)
{
	size_t n;

	if (asprintf(out, "%s%s", prefix, pattern) < 0)
		return -ENOMEM;
	n = strlen(*out);
	if (!n || (*out)[n - 1] != '/')
		return 0;
	free(*out);
	return asprintf(out, "%s%s**", prefix, pattern) < 0 ? -ENOMEM : 0;
}

/* include_by_gitdir(): PATTERN after git's preparation against the git
 * dir's real path; "./" stands for the including file's real folder, which
 * is matched literally. */
static int match_gitdir(struct frame *f, const char *cond, bool icase)
{
	struct reader *r = f->pass->r;
	_cleanup_free_ char *expanded = NULL, *folder = NULL, *pattern = NULL;
	const char *pat, *text = r->gitdir_real;
	size_t prefix = 0;
	int e = expand_path(r, cond, &expanded);

	if (e == -ENOMEM)
		return e;
	pat = expanded ? expanded : cond; /* git keeps what it cannot expand */
	if (pat[0] == '.' && pat[1] == '/') {
		if (asprintf(&folder, "%s/%s", r->opts->root_path, r->cfg->files[f->file].path) < 0)
			return -ENOMEM;
		*strrchr(folder, '/') = '\0';
		prefix = strlen(folder) + 1;
		e = with_starstar_for_dir(folder, pat + 1, &pattern);
	} else {
		e = with_starstar_for_dir(pat[0] == '/' ? "" : "**/", pat, &pattern);
	}
	if (e < 0)
		return e;
	if (strlen(text) < prefix || (icase ? strncasecmp : strncmp)(pattern, text, prefix))
		return 0;
	return git_wildmatch(pattern + prefix, text + prefix, icase);
}

static int match_branch(struct reader *r, const char *cond)
{
	_cleanup_free_ char *pattern = NULL;

	if (!r->branch_ready) {
		int e = resolve_head(r);

		if (e < 0)
			return e;
		r->branch_ready = true;
	}
	if (!r->branch)
		return 0;
	if (with_starstar_for_dir("", cond, &pattern) < 0)
		return -ENOMEM;
	return git_wildmatch(pattern, r->branch, false);
}

static int read_top_files(struct pass *p);

/* include_by_remote_url(): any remote URL of the whole configuration,
 * gathered once by a pass that takes every hasconfig include. */
static int match_remote_url(struct pass *p, const char *cond)
{
	struct reader *r = p->r;

	if (p->urls_pass)
		return 1;
	if (!r->urls_ready) {
		struct pass urls = {.r = r, .urls_pass = true};
		int e = read_top_files(&urls);

		if (e < 0)
			return e;
		r->urls_ready = true;
	}
	for (size_t i = 0; i < r->n_urls; i++) {
		int m = git_wildmatch(cond, r->urls[i], false);

		if (m != 0)
			return m;
	}
	return 0;
}

/* Returns 1 when the includeIf condition holds, 0 when not (an unknown
 * kind never holds), or a failure. */
static int condition_holds(struct frame *f, const char *cond)
{
	static const char hasconfig[] = "hasconfig:remote.*.url:";

	if (!strncmp(cond, "gitdir:", 7))
		return match_gitdir(f, cond + 7, false);
	if (!strncmp(cond, "gitdir/i:", 9))
		return match_gitdir(f, cond + 9, true);
	if (!strncmp(cond, "onbranch:", 9))
		return match_branch(f->pass->r, cond + 9);
	if (!strncmp(cond, hasconfig, sizeof(hasconfig) - 1))
		return match_remote_url(f->pass, cond + sizeof(hasconfig) - 1);
	return 0;
}

/* ---- files and entries ------------------------------------------------------ */

static int read_file(struct pass *p, const char *origin, int parent, int line);

static bool is_remote_url(const struct gitcfg_entry *e)
{
	return !strcmp(e->section, "remote") && e->subsection && !strcmp(e->key, "url");
}

/* The URL pass keeps remote URLs (add_remote_url), and dies as git does on
 * one in a file an includeIf brought in (forbid_remote_url). */
static int note_remote_url(struct pass *p, const struct gitcfg_entry *e)
{
	struct reader *r = p->r;

	if (!is_remote_url(e))
		return 0;
	if (p->forbid_urls)
		return fail(r, -EINVAL, e->origin,
		            "line %d: remote URLs cannot be configured in a file includeIf.hasconfig:remote.*.url: reads",
		            e->line);
	/* git 2.39 crashes on a remote URL without a value here */
	if (!e->value)
		return fail(r, -EINVAL, e->origin, "line %d: remote URL without a value", e->line);
	if (r->n_urls >= GITCFG_READ_MAX_URLS)
		return fail(r, -E2BIG, e->origin, "more than %d remote URLs", GITCFG_READ_MAX_URLS);
	if (grow(&r->urls, r->n_urls, sizeof(*r->urls)) < 0)
		return -ENOMEM;
	r->urls[r->n_urls] = strdup(e->value);
	return r->urls[r->n_urls++] ? 0 : -ENOMEM;
}

/* handle_path_include(): VALUE joined to the including file's folder
 * unless absolute, after git's expansion. */
static int follow_include(struct frame *f, const struct gitcfg_entry *e)
{
	struct reader *r = f->pass->r;
	_cleanup_free_ char *expanded = NULL, *origin = NULL;
	const char *path, *slash;
	int x;

	if (!e->value && f->pass->dormant)
		return 0;
	if (!e->value)
		return fail(r, -EINVAL, e->origin, "line %d: %s without a value", e->line, e->name);
	x = expand_path(r, e->value, &expanded);
	if (x == -EINVAL && f->pass->dormant) /* git dies there only once it holds */
		return 0;
	if (x == -EINVAL)
		return fail(r, x, e->origin, "line %d: cannot expand include path '%s'", e->line, e->value);
	if (x < 0)
		return x;
	path = expanded ? expanded : e->value;
	slash = strrchr(e->origin, '/');
	if (path[0] == '/' || !slash)
		origin = strdup(path);
	else if (asprintf(&origin, "%.*s%s", (int)(slash - e->origin + 1), e->origin, path) < 0)
		origin = NULL;
	if (!origin)
		return -ENOMEM;
	return read_file(f->pass, origin, f->file, e->line);
}

/* An includeIf whose condition does not hold now: git reads the file once
 * it holds (a checkout, a move), so the listing takes it too, dormant. */
static int follow_dormant(struct frame *f, const struct gitcfg_entry *e)
{
	struct pass *p = f->pass;
	bool dormant = p->dormant;
	int r;

	p->dormant = true;
	r = follow_include(f, e);
	p->dormant = dormant;
	return r;
}

/* git_config_include(): the entry first, then what it includes. */
static int on_entry(const struct gitcfg_entry *e, void *userdata)
{
	struct frame *f = userdata;
	struct pass *p = f->pass;
	bool forbid = p->forbid_urls;
	int r;

	r = p->urls_pass ? note_remote_url(p, e) : add_entry(p->r, e, f->file);
	if (r < 0)
		return r;
	if (!strcmp(e->name, "include.path")) {
		r = follow_include(f, e);
		if (r < 0)
			return r;
	}
	if (strcmp(e->section, "includeif") || !e->subsection)
		return 0;
	/* git weighs the condition whatever the key; in a dormant file nothing
	 * holds now, and everything may once */
	r = p->dormant ? 0 : condition_holds(f, e->subsection);
	if (r < 0 || strcmp(e->key, "path"))
		return r < 0 ? r : 0;
	if (r == 0)
		return p->urls_pass ? 0 : follow_dormant(f, e);
	p->forbid_urls = forbid || p->urls_pass;
	r = follow_include(f, e);
	p->forbid_urls = forbid;
	return r;
}

static int parse_blob(struct pass *p, int file, const char *origin, struct git_blob *b)
{
	struct frame frame = {.pass = p, .file = file};
	struct gitcfg_error perr = {0};
	int n = gitcfg_parse(b->data, b->len, origin, on_entry, &frame, &perr);

	git_blob_free(b);
	if (n == -ENOMEM)
		return n;
	if (n < 0)
		return fail(p->r, n, origin, "bad config line %d: %s", perr.line, perr.reason ? perr.reason : "refused");
	return 0;
}

static int parse_file(struct pass *p, int file, const char *origin, const char *path)
{
	struct git_blob b;
	int n = gitread_file(p->r->rootfd, path, GITREAD_SMALL_MAX, &b);

	if (n < 0)
		return fail(p->r, n, origin, "cannot read it: %s", read_reason(n));
	return parse_blob(p, file, origin, &b);
}

/* A file outside the tree is the person's: it is read for the includes it
 * may make back into the tree, and what it cannot give (missing, unreadable,
 * not a regular file) is left to the system, as the sandbox never makes it
 * writable. */
static int parse_outside(struct pass *p, int file, const char *origin, const char *physical)
{
	struct git_blob b;
	int n = gitread_outside(physical, GITREAD_SMALL_MAX, &b);

	if (n == -ENOMEM)
		return n;
	return n < 0 ? 0 : parse_blob(p, file, origin, &b);
}

/* A top file (PARENT -1) or an include: reported whatever it is, read when
 * inside the tree or outside it, skipped when missing as git's
 * access_or_die() skips it. Past git's depth a dormant include is not
 * followed (git would die there once it holds, and reads nothing). */
static int read_file(struct pass *p, const char *origin, int parent, int line)
{
	_cleanup_free_ char *path = NULL, *outside = NULL;
	enum gitcfg_file_state state = GITCFG_FILE_OUTSIDE;
	int file, r;

	r = locate(p->r, origin, &state, &path, &outside);
	if (r < 0)
		return r;
	file = add_file(p, origin, path, state, parent, line);
	if (file < 0 || state == GITCFG_FILE_MISSING)
		return file < 0 ? file : 0;
	if (parent >= 0 && p->depth + 1 > GITCFG_READ_MAX_DEPTH) {
		if (p->dormant)
			return 0;
		return fail(p->r, -EINVAL, origin, "included more than %d levels deep (an include cycle?)",
		            GITCFG_READ_MAX_DEPTH);
	}
	p->depth += parent >= 0;
	r = state == GITCFG_FILE_READ ? parse_file(p, file, origin, path) : parse_outside(p, file, origin, outside);
	p->depth -= parent >= 0;
	return r;
}

/* ---- the repository format and the sequence ---------------------------------- */

struct repo_format {
	long version;
	bool worktree_config;
	bool bad;
};

/* git_parse_int(): decimal with an optional k, m or g. */
static bool parse_git_int(const char *v, long *out)
{
	char *end;
	long n, unit = 1;

	if (!v || !*v)
		return false;
	errno = 0;
	n = strtol(v, &end, 0);
	if (errno || end == v)
		return false;
	if (*end && !end[1] && strchr("kKmMgG", *end))
		unit = strchr("kK", *end) ? 1L << 10 : strchr("mM", *end) ? 1L << 20 : 1L << 30;
	else if (*end)
		return false;
	if (n > LONG_MAX / unit || n < LONG_MIN / unit)
		return false;
	*out = n * unit;
	return true;
}

/* git_parse_maybe_bool() then git_config_int(), as git_config_bool(). */
static bool parse_git_bool(const char *v, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off", ""};
	long n;

	*out = true;
	if (!v)
		return true;
	for (size_t i = 0; i < ELEMENTSOF(yes); i++)
		if (!strcasecmp(v, yes[i]))
			return true;
	*out = false;
	for (size_t i = 0; i < ELEMENTSOF(no); i++)
		if (!strcasecmp(v, no[i]))
			return true;
	if (!parse_git_int(v, &n))
		return false;
	*out = n != 0;
	return true;
}

static int format_entry(const struct gitcfg_entry *e, void *userdata)
{
	struct repo_format *f = userdata;

	if (!strcmp(e->name, "core.repositoryformatversion"))
		f->bad |= !parse_git_int(e->value, &f->version);
	else if (!strcmp(e->name, "extensions.worktreeconfig"))
		f->bad |= !parse_git_bool(e->value, &f->worktree_config);
	return 0;
}

/* read_repository_format(): the common config alone, without includes,
 * decides whether config.worktree is read at all. A version past 1 makes
 * git ignore the git dir: we refuse rather than guess what it holds. */
static int read_format(struct reader *r, const char *origin, bool *worktree_config)
{
	struct repo_format f = {0};
	struct git_blob b;
	int n;

	*worktree_config = false;
	n = gitread_file(r->rootfd, origin, GITREAD_SMALL_MAX, &b);
	if (n == -ENOENT)
		return 0;
	if (n < 0)
		return fail(r, n, origin, "cannot read it: %s", read_reason(n));
	n = gitcfg_parse(b.data, b.len, origin, format_entry, &f, NULL);
	git_blob_free(&b);
	if (n == -ENOMEM)
		return n;
	if (n >= 0 && f.bad)
		return fail(r, -EINVAL, origin, "bad core.repositoryformatversion or extensions.worktreeConfig");
	if (n >= 0 && (f.version < 0 || f.version > 1))
		return fail(r, -EINVAL, origin, "repository format version %ld, which git refuses", f.version);
	/* a parse error is reported, with its line, by the read that follows */
	*worktree_config = n >= 0 && f.worktree_config;
	return 0;
}

/* do_git_config_sequence() for the local scopes: config, config.worktree. */
static int read_top_files(struct pass *p)
{
	struct reader *r = p->r;
	_cleanup_free_ char *config = NULL, *worktree = NULL;
	bool worktree_config;
	int e;

	if (asprintf(&config, "%s/config", r->commondir) < 0)
		return -ENOMEM;
	e = read_format(r, config, &worktree_config);
	if (e < 0)
		return e;
	e = read_file(p, config, -1, 0);
	if (e < 0 || !worktree_config)
		return e;
	if (asprintf(&worktree, "%s/config.worktree", r->opts->gitdir) < 0)
		return -ENOMEM;
	return read_file(p, worktree, -1, 0);
}

/* gitdir: patterns match the git dir's real path as git sees it: the
 * tree's (or where git sees it), joined and normalised (the tree holds no
 * link on the way: locate() refuses one). */
static int real_gitdir(struct reader *r, char **out)
{
	_cleanup_free_ char *joined = NULL;
	int e;

	if (asprintf(&joined, "%s/%s", r->opts->seen_as ? r->opts->seen_as : r->opts->root_path, r->opts->gitdir) < 0)
		return -ENOMEM;
	e = lexical_path(joined, out);
	return e == -EINVAL ? fail(r, e, r->opts->gitdir, "not an absolute path git can open") : e;
}

static bool opts_are_valid(const struct gitcfg_read_opts *o)
{
	const char *root = o->root_path;

	return root && root[0] == '/' && root[1] && root[strlen(root) - 1] != '/' && !strstr(root, "//") &&
	       !strstr(root, "/./") && !strstr(root, "/../") && o->gitdir && o->gitdir[0] && o->gitdir[0] != '/' &&
	       (!o->commondir || (o->commondir[0] && o->commondir[0] != '/'));
}

int gitcfg_read(int rootfd, const struct gitcfg_read_opts *opts, struct gitcfg_config **out,
                struct gitcfg_read_error *err)
{
	_cleanup_(gitcfg_config_freep) struct gitcfg_config *cfg = NULL;
	struct reader r = {.rootfd = rootfd, .opts = opts, .err = err};
	struct pass listing = {.r = &r};
	int e;

	*out = NULL;
	if (err)
		*err = (struct gitcfg_read_error){0};
	if (!opts_are_valid(opts))
		return fail(&r, -EINVAL, "", "invalid options: root_path must be real and absolute, "
		                             "gitdir and commondir relative");
	r.commondir = opts->commondir ? opts->commondir : opts->gitdir;
	cfg = r.cfg = calloc(1, sizeof(*cfg));
	if (!cfg)
		return -ENOMEM;
	e = real_gitdir(&r, &r.gitdir_real);
	if (e >= 0)
		e = read_top_files(&listing);
	for (size_t i = 0; i < r.n_urls; i++)
		free(r.urls[i]);
	free(r.urls);
	free(r.branch);
	free(r.gitdir_real);
	if (e < 0)
		return e == -ENOMEM ? fail(&r, e, "", "out of memory") : e;
	*out = TAKE_PTR(cfg);
	return 0;
}
