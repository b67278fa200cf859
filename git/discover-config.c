/* What a repository's configuration names in the tree (seed 000, "Programs
 * and files named by Git configuration"): the files it includes, the hooks
 * folder of core.hooksPath, init.templateDir, core.attributesFile and
 * info/attributes, and every program a key git documents as running one can
 * start, found by the shell reader. Relative ones are held in the work tree
 * the configuration serves (the caller runs this once per work tree); what
 * lies outside the tree is left to the system. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cleanup.h"
#include "git/config-read.h"
#include "git/discover.h"
#include "git/model-internal.h"
#include "policy/shell-find.h"
#include "policy/shell.h"

enum value_kind {
	VALUE_COMMAND, /* a shell line git runs (a boolean value names none) */
	VALUE_BANG,    /* a shell line when it begins with '!' (alias, submodule update) */
	VALUE_HELPER,  /* a credential helper: "!line", an absolute line, else "git credential-VALUE" */
	VALUE_DASHED,  /* a name git runs as "git remote-VALUE" (argv, no shell) */
	VALUE_URL_BASE,/* url.<base>.insteadOf: the URL git substitutes, the subsection */
	VALUE_PATH,    /* a file or folder git reads or runs */
	VALUE_NAMED,   /* a name git looks up on the PATH, or a path when it holds a '/' */
	VALUE_URL,     /* a remote URL: ext::<line> runs a command */
};

enum { NO_SUB, ANY_SUB, EITHER };

/* Keys as git lists them: section and key lowercased; the subsection, when
 * there is one, matches anything. */
static const struct key_rule {
	const char *section;
	const char *key; /* NULL: any key */
	int sub;
	enum value_kind kind;
} key_rules[] = {
        {"core", "fsmonitor", NO_SUB, VALUE_COMMAND},
        {"core", "editor", NO_SUB, VALUE_COMMAND},
        {"core", "pager", NO_SUB, VALUE_COMMAND},
        {"core", "sshcommand", NO_SUB, VALUE_COMMAND},
        {"core", "askpass", NO_SUB, VALUE_COMMAND},
        {"core", "gitproxy", NO_SUB, VALUE_COMMAND},
        {"core", "alternaterefscommand", NO_SUB, VALUE_COMMAND},
        {"core", "hookspath", NO_SUB, VALUE_PATH},
        {"core", "attributesfile", NO_SUB, VALUE_PATH},
        {"init", "templatedir", NO_SUB, VALUE_PATH},
        {"sequence", "editor", NO_SUB, VALUE_COMMAND},
        {"diff", "external", NO_SUB, VALUE_COMMAND},
        {"diff", "textconv", ANY_SUB, VALUE_COMMAND},
        {"diff", "command", ANY_SUB, VALUE_COMMAND},
        {"diff", "tool", NO_SUB, VALUE_NAMED},
        {"merge", "driver", ANY_SUB, VALUE_COMMAND},
        {"merge", "tool", NO_SUB, VALUE_NAMED},
        {"filter", "clean", ANY_SUB, VALUE_COMMAND},
        {"filter", "smudge", ANY_SUB, VALUE_COMMAND},
        {"filter", "process", ANY_SUB, VALUE_COMMAND},
        {"gpg", "program", EITHER, VALUE_COMMAND},
        {"gpg", "defaultkeycommand", ANY_SUB, VALUE_COMMAND},
        {"tar", "command", ANY_SUB, VALUE_COMMAND},
        {"imap", "tunnel", NO_SUB, VALUE_COMMAND},
        {"gc", "recentobjectshook", NO_SUB, VALUE_COMMAND},
        {"hook", "command", ANY_SUB, VALUE_COMMAND},
        {"interactive", "difffilter", NO_SUB, VALUE_COMMAND},
        /* A command's name may hold dots: [alias "x"] y and the legacy
         * [alias.x] y both define the alias "x.y" (alias.c compares
         * whatever follows "alias." case-insensitively), and its pager is
         * pager.x.y. */
        {"pager", NULL, EITHER, VALUE_COMMAND},
        {"alias", NULL, EITHER, VALUE_BANG},
        {"submodule", "update", ANY_SUB, VALUE_BANG},
        {"credential", "helper", EITHER, VALUE_HELPER},
        {"difftool", "cmd", ANY_SUB, VALUE_COMMAND},
        {"difftool", "path", ANY_SUB, VALUE_PATH},
        {"mergetool", "cmd", ANY_SUB, VALUE_COMMAND},
        {"mergetool", "path", ANY_SUB, VALUE_PATH},
        {"browser", "cmd", ANY_SUB, VALUE_COMMAND},
        {"browser", "path", ANY_SUB, VALUE_PATH},
        {"help", "browser", NO_SUB, VALUE_NAMED},
        {"man", "viewer", NO_SUB, VALUE_NAMED},
        {"man", "cmd", ANY_SUB, VALUE_COMMAND},
        {"man", "path", ANY_SUB, VALUE_PATH},
        {"guitool", "cmd", ANY_SUB, VALUE_COMMAND},
        {"instaweb", "httpd", NO_SUB, VALUE_COMMAND},
        {"trailer", "command", ANY_SUB, VALUE_COMMAND},
        {"trailer", "cmd", ANY_SUB, VALUE_COMMAND},
        {"sendemail", "smtpserver", EITHER, VALUE_NAMED},
        {"sendemail", "sendmailcmd", EITHER, VALUE_COMMAND},
        {"sendemail", "tocmd", EITHER, VALUE_COMMAND},
        {"sendemail", "cccmd", EITHER, VALUE_COMMAND},
        {"sendemail", "headercmd", EITHER, VALUE_COMMAND},
        {"remote", "uploadpack", ANY_SUB, VALUE_COMMAND},
        {"remote", "receivepack", ANY_SUB, VALUE_COMMAND},
        {"remote", "vcs", ANY_SUB, VALUE_DASHED},
        {"remote", "url", ANY_SUB, VALUE_URL},
        {"remote", "pushurl", ANY_SUB, VALUE_URL},
        {"url", "insteadof", ANY_SUB, VALUE_URL_BASE},
        {"url", "pushinsteadof", ANY_SUB, VALUE_URL_BASE},
        {"lfs", "clean", ANY_SUB, VALUE_COMMAND}, /* lfs.extension.<name>.clean */
        {"lfs", "smudge", ANY_SUB, VALUE_COMMAND},
        {"lfs", "path", ANY_SUB, VALUE_PATH},
        {"lfs", "standalonetransferagent", NO_SUB, VALUE_NAMED},
};

static bool rule_matches(const struct key_rule *k, const char *name)
{
	size_t slen = strlen(k->section);
	const char *last = strrchr(name, '.');
	bool has_sub;

	if (strncmp(name, k->section, slen) != 0 || name[slen] != '.' || !last)
		return false;
	has_sub = last != name + slen;
	if ((k->sub == NO_SUB && has_sub) || (k->sub == ANY_SUB && !has_sub))
		return false;
	return !k->key || strcmp(last + 1, k->key) == 0;
}

static const struct key_rule *rule_of(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(key_rules); i++)
		if (rule_matches(&key_rules[i], name))
			return &key_rules[i];
	return NULL;
}

static bool is_boolean(const char *v)
{
	static const char *const words[] = {"true", "false", "yes", "no", "on", "off", "1", "0", ""};

	for (size_t i = 0; i < ELEMENTSOF(words); i++)
		if (strcasecmp(v, words[i]) == 0)
			return true;
	return false;
}

struct config_ctx {
	struct model_build *mb;
	const struct model_served *s;
	const struct gitcfg_config *cfg;
};

/* PATH as git or the shell would take it from the work tree: "./" parts
 * dropped, then resolved as the pointers are (git/discover.h). */
static int resolve_in_worktree(const struct config_ctx *c, const char *path, char **out, const char **why)
{
	_cleanup_free_ char *clean = malloc(strlen(path) + 1);
	const char *p = path;
	size_t n = 0;

	if (!clean)
		return -ENOMEM;
	if (*p == '~') /* a home: never the tree */
		return 0;
	while (*p) {
		size_t len = strcspn(p, "/");

		if (!(len == 1 && p[0] == '.') && len) {
			if (n && clean[n - 1] != '/')
				clean[n++] = '/';
			memcpy(clean + n, p, len);
			n += len;
		} else if (p == path && *p == '/') {
			clean[n++] = '/';
		}
		p += len + (p[len] == '/');
	}
	clean[n] = '\0';
	if (n == 0) {
		*out = strdup(c->s->worktree);
		return *out ? 1 : -ENOMEM;
	}
	return discover_resolve(c->mb->tree, c->mb->seen_as, c->s->worktree, clean, n, out, why);
}

/* Holds PATH, which SOURCE ("core.fsmonitor in .git/config") names, AS
 * what ("the path"). */
static int hold_path(const struct config_ctx *c, const char *source, const char *path, const char *as)
{
	_cleanup_free_ char *target = NULL, *reason = NULL;
	const char *why = NULL;
	int r = resolve_in_worktree(c, path, &target, &why);

	if (r < 0 && r != -ENOMEM)
		return model_fail(c->mb, r, "cannot tell where '%s' of %s leads: %s; fix it", path, source, why);
	if (r <= 0)
		return r;
	if (!*target)
		return model_fail(c->mb, -EINVAL,
		                  "'%s' of %s names the whole tree, which oz0fs cannot hold read-only; "
		                  "fix it",
		                  path, source);
	if (asprintf(&reason, "%s of %s, for the work tree %s", as, source, *c->s->worktree ? c->s->worktree : ".") < 0)
		return -ENOMEM;
	return model_protect_path(c->mb, target, reason);
}

static int hold_line(const struct config_ctx *c, const char *source, const char *line, size_t len)
{
	struct shell_finding *f = NULL;
	int r = shell_find(line, len, source, NULL, &f);

	for (size_t i = 0; r >= 0 && i < f->n_held; i++)
		r = hold_path(c, source, f->held[i].path, "a program of the command");
	shell_finding_free(f);
	return r;
}

int model_hold_command(struct model_build *mb, const struct model_served *s, const char *source, const char *line)
{
	const struct config_ctx c = {.mb = mb, .s = s};

	return hold_line(&c, source, line, strlen(line));
}

/* The first simple command the line's tree starts with. */
static const struct shell_cmd *first_simple(const struct shell_cmd *cmd)
{
	while (cmd && cmd->kind != SHELL_CMD_SIMPLE)
		cmd = cmd->kind == SHELL_CMD_AND || cmd->kind == SHELL_CMD_OR ? cmd->left
		      : cmd->kind == SHELL_CMD_PIPELINE                     ? cmd->body
		                                                           : NULL;
	return cmd;
}

/* git runs the dashed command "git credential-X" as the program git-credential-X,
 * which git execs from the PATH, or, when X holds a '/', as a path from the
 * top of the work tree, where git stands when it asks a helper. LINE is that
 * command line. Returns 1 and *PATH when it names such a path. */
static int dashed_path(const char *line, size_t len, const char *origin, char **path)
{
	struct shell_ast *ast = NULL;
	struct shell_error err;
	const struct shell_cmd *cmd;
	const char *word;
	int r = shell_parse(line, len, origin, &ast, &err);

	*path = NULL;
	if (r == -ENOMEM)
		return r;
	if (r < 0) /* sh runs nothing of a line it cannot read */
		return 0;
	cmd = first_simple(ast->body);
	word = cmd && cmd->words && cmd->words->next ? shell_word_static(ast, cmd->words->next) : NULL;
	r = 0;
	if (word && strchr(word, '/'))
		r = asprintf(path, "git-%s", word) < 0 ? -ENOMEM : 1;
	shell_ast_free(ast);
	return r;
}

/* credential.c: a helper neither absolute nor "!line" is the shell line
 * "git credential-VALUE <operation>". */
static int hold_credential_helper(const struct config_ctx *c, const char *source, const char *value, size_t len)
{
	_cleanup_free_ char *line = NULL, *path = NULL;
	int n = asprintf(&line, "git credential-%.*s", (int)len, value);
	int r;

	if (n < 0)
		return -ENOMEM;
	r = hold_line(c, source, line, (size_t)n);
	if (r >= 0)
		r = dashed_path(line, (size_t)n, source, &path);
	return r > 0 ? hold_path(c, source, path, "the credential helper git runs") : r;
}

/* transport-helper.c: remote.<name>.vcs = X runs git remote-X, the program
 * git-remote-X (a path from the work tree's top when X holds a '/'). */
static int hold_remote_helper(const struct config_ctx *c, const char *source, const char *value, size_t len)
{
	_cleanup_free_ char *path = NULL;

	if (!memchr(value, '/', len))
		return 0;
	if (asprintf(&path, "git-remote-%.*s", (int)len, value) < 0)
		return -ENOMEM;
	return hold_path(c, source, path, "the remote helper git runs");
}

static char *source_of(const struct config_ctx *c, const struct gitcfg_read_entry *e)
{
	char *source;

	if (asprintf(&source, "%s in %s:%d", e->name, c->cfg->files[e->file].origin, e->line) < 0)
		return NULL;
	return source;
}

/* The subsection of NAME ("url.<base>.insteadof"): BASE and its length. */
static const char *subsection_of(const char *name, size_t *len)
{
	const char *first = strchr(name, '.'), *last = strrchr(name, '.');

	*len = last > first ? (size_t)(last - first - 1) : 0;
	return first + 1;
}

static bool named_text(const char *text, size_t len, enum model_named kind, struct model_named_text *out)
{
	*out = (struct model_named_text){.kind = kind, .text = text, .len = len};
	return true;
}

bool model_config_names(const char *name, const char *value, struct model_named_text *out)
{
	const struct key_rule *k = rule_of(name);
	const char *v = value, *base;
	size_t n;

	if (!k)
		return false;
	if (k->kind == VALUE_URL_BASE) { /* the subsection is the URL git uses */
		base = subsection_of(name, &n);
		return n > 5 && !strncmp(base, "ext::", 5) && named_text(base + 5, n - 5, MODEL_NAMED_LINE, out);
	}
	if (!v)
		return false;
	n = strlen(v);
	switch (k->kind) {
	case VALUE_COMMAND:
		return !is_boolean(v) && named_text(v, n, MODEL_NAMED_LINE, out);
	case VALUE_BANG:
		return v[0] == '!' && named_text(v + 1, n - 1, MODEL_NAMED_LINE, out);
	case VALUE_HELPER:
		if (v[0] == '!')
			return named_text(v + 1, n - 1, MODEL_NAMED_LINE, out);
		if (v[0] == '/')
			return named_text(v, n, MODEL_NAMED_LINE, out);
		return n && named_text(v, n, MODEL_NAMED_CREDENTIAL_HELPER, out);
	case VALUE_DASHED:
		return n && named_text(v, n, MODEL_NAMED_REMOTE_HELPER, out);
	case VALUE_PATH:
		return named_text(v, n, MODEL_NAMED_PATH, out);
	case VALUE_NAMED:
		return strchr(v, '/') && named_text(v, n, MODEL_NAMED_PROGRAM, out);
	case VALUE_URL:
		return !strncmp(v, "ext::", 5) && named_text(v + 5, n - 5, MODEL_NAMED_LINE, out);
	case VALUE_URL_BASE:
		break;
	}
	return false;
}

bool model_config_sets_program(const char *name, const char *value)
{
	const struct key_rule *k = rule_of(name);
	struct model_named_text named;

	if (!k)
		return false;
	if (model_config_names(name, value, &named))
		return true;
	/* A bare name is looked up outside the tree, but the command chose it. */
	return k->kind == VALUE_NAMED && value && *value && !is_boolean(value);
}

static int hold_entry(const struct config_ctx *c, const struct gitcfg_read_entry *e)
{
	_cleanup_free_ char *source = NULL;
	_cleanup_free_ char *text = NULL;
	struct model_named_text named;

	if (!model_config_names(e->name, e->value, &named))
		return 0;
	source = source_of(c, e);
	text = strndup(named.text, named.len);
	if (!source || !text)
		return -ENOMEM;
	switch (named.kind) {
	case MODEL_NAMED_LINE:
		return hold_line(c, source, text, named.len);
	case MODEL_NAMED_CREDENTIAL_HELPER:
		return hold_credential_helper(c, source, text, named.len);
	case MODEL_NAMED_REMOTE_HELPER:
		return hold_remote_helper(c, source, text, named.len);
	case MODEL_NAMED_PATH:
		return hold_path(c, source, text, "the path");
	case MODEL_NAMED_PROGRAM:
		break;
	}
	return hold_path(c, source, text, "the program");
}

/* Included files in the tree, and the names of missing ones: a file made
 * there is one git would read. */
static int hold_includes(const struct config_ctx *c)
{
	for (size_t i = 0; i < c->cfg->n_files; i++) {
		const struct gitcfg_file *f = &c->cfg->files[i];
		_cleanup_free_ char *reason = NULL;
		int r;

		if (f->parent < 0 || !f->path || f->state == GITCFG_FILE_OUTSIDE)
			continue;
		if (asprintf(&reason, "configuration included by %s:%d: it can name programs git runs",
		             c->cfg->files[f->parent].origin, f->line) < 0)
			return -ENOMEM;
		r = model_protect_path(c->mb, f->path, reason);
		if (r < 0)
			return r;
	}
	return 0;
}

static int hold_info_attributes(const struct config_ctx *c)
{
	_cleanup_free_ char *path = NULL;

	if (asprintf(&path, "%s/info/attributes", c->s->commondir ? c->s->commondir : c->s->gitdir) < 0)
		return -ENOMEM;
	return model_protect_path(c->mb, path,
	                          "attributes of the repository: they choose the filters and diff "
	                          "drivers git runs");
}

int model_protect_configured(struct model_build *mb, const struct model_served *s, const struct gitcfg_config *cfg)
{
	const struct config_ctx c = {.mb = mb, .s = s, .cfg = cfg};
	int r = hold_includes(&c);

	if (r >= 0)
		r = hold_info_attributes(&c);
	for (size_t i = 0; r >= 0 && i < cfg->n_entries; i++)
		if (!cfg->files[cfg->entries[i].file].urls_only)
			r = hold_entry(&c, &cfg->entries[i]);
	return r;
}
