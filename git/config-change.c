#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cleanup.h"
#include "git/config-change.h"
#include "git/config-parse.h"

/* One entry as git's callers see it (see gitcfg_entry). */
struct kv {
	char *name;
	char *value; /* NULL for an implicit true */
	const struct rule *rule;
};

/* A config's entries in file order, and its allow-listed entries sorted by
 * name and value, for multiset walks and lookups by name. */
struct kv_list {
	struct kv *items;
	size_t n;
	size_t cap;
	struct kv **allowed;
	size_t n_allowed;
};

/* Whether an allow-listed entry has this name: a binary search, as a
 * hostile config may hold tens of thousands of names to look up. */
static bool kv_list_has_name(const struct kv_list *l, const char *name)
{
	size_t lo = 0, hi = l->n_allowed;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(l->allowed[mid]->name, name);

		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

struct rule;

/* A value check sees its rule (for a list of words) and the whole config the
 * value is judged in, since a branch's remote must name a remote that config
 * defines. */
typedef bool (*value_check)(const char *value, const struct rule *rule, const struct kv_list *config);

/* An allow-listed key: section and key lowercased (key NULL for any key),
 * whether it lives under a subsection, and what its value may be. */
struct rule {
	const char *section;
	bool subsection;
	const char *key;
	value_check check;
	const char *const *words; /* for check_word_list and check_bool_or_word */
};

static __thread char why_buf[320];

static const char *say_why(const char *name, const char *reason)
{
	snprintf(why_buf, sizeof(why_buf), "%.200s: %s", name, reason);
	return why_buf;
}

/* ---- Values ------------------------------------------------------------ */

static bool is_one_of(const char *value, const char *const *words)
{
	for (; *words; words++)
		if (strcasecmp(value, *words) == 0)
			return true;
	return false;
}

/* Control characters could forge lines where git passes a value on (the
 * credential protocol, commit headers), so no value we allow holds one
 * beyond those in allowed. */
static bool has_control_but(const char *s, const char *allowed)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 || *s == 0x7f) && !strchr(allowed, *s))
			return true;
	return false;
}

static bool has_control(const char *s)
{
	return has_control_but(s, "");
}

/* The words git_parse_maybe_bool() takes; an implicit true too. Git also
 * reads any integer as a boolean; we do not need to. */
static bool check_bool(const char *value, const struct rule *rule, const struct kv_list *config)
{
	static const char *const words[] = {"true", "false", "yes", "no", "on", "off", "1", "0", "", NULL};
	return !value || is_one_of(value, words);
}

/* One line of text that git only stores: a name, a mail address. */
static bool check_text(const char *value, const struct rule *rule, const struct kv_list *config)
{
	return value && !has_control(value);
}

/* A branch description, which git only shows (format-patch, request-pull):
 * lines of text, as `git branch --edit-description` writes them. */
static bool check_description(const char *value, const struct rule *rule, const struct kv_list *config)
{
	return value && !has_control_but(value, "\n\t");
}

/* A ref, refspec or branch name: one word that no command line can take for
 * an option. */
static bool check_word(const char *value, const struct rule *rule, const struct kv_list *config)
{
	if (!value || !*value || value[0] == '-' || has_control(value))
		return false;
	return !strchr(value, ' ');
}

/* One of the rule's words: modes and options that name no program. */
static bool check_word_list(const char *value, const struct rule *rule, const struct kv_list *config)
{
	return value && is_one_of(value, rule->words);
}

static bool check_bool_or_word(const char *value, const struct rule *rule, const struct kv_list *config)
{
	return check_bool(value, rule, config) || check_word_list(value, rule, config);
}

static bool is_scheme_char(const char *start, const char *p)
{
	bool alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z');

	if (p == start)
		return alpha;
	return alpha || (*p >= '0' && *p <= '9') || *p == '+' || *p == '-' || *p == '.';
}

/* The host of "[user@]host..." must not read as an option to ssh
 * (CVE-2017-1000117: ssh://-oProxyCommand=...). */
static bool host_is_plain(const char *s, size_t len)
{
	const char *at = memrchr(s, '@', len);
	const char *host = at ? at + 1 : s;

	return host < s + len && *host != '-';
}

/* Which URLs a remote or submodule may be given. Git runs a program for
 * some URLs and runs code of the repository a URL names for others, so:
 *  - "<transport>::<address>" runs git-remote-<transport>; ext:: runs any
 *    command line: never.
 *  - "scheme://" runs git-remote-<scheme> for a scheme git does not serve
 *    itself: only git's network transports (http, https, ssh, git).
 *  - A leading '-' or an ssh host starting with '-' is an option to ssh or
 *    upload-pack; control characters forge credential-protocol lines
 *    (CVE-2020-5260): never.
 *  - A local repository (a path, file://) may have been planted in the
 *    working tree with hooks; `git push` there runs its receive hooks as the
 *    person. A remote may not point at one. A submodule may, by absolute path
 *    or file:// (what `git submodule add <local repo>` writes): git only
 *    clones and fetches from it, upload-pack runs no hook of the repository
 *    it serves, and since 2.38.1 submodule commands refuse the file transport
 *    unless the person allows it. A relative path resolves against wherever
 *    a command happens to run: never.
 * Which host a network URL names is not judged: reaching it runs nothing
 * here. */
/* Whether url starts with scheme "://", spelt as git's transport.c spells it:
 * a scheme in other case is handed to a helper program. */
static bool has_scheme(const char *url, size_t len, const char *scheme)
{
	return strlen(scheme) == len && strncmp(url, scheme, len) == 0;
}

static bool url_is_safe(const char *url, bool local_ok)
{
	static const char *const network[] = {"https", "http", "ssh", "git", "git+ssh", "ssh+git"};
	const char *p = url;
	const char *colon, *slash;

	if (!url || !*url || url[0] == '-' || has_control(url))
		return false;
	while (*p && is_scheme_char(url, p))
		p++;
	if (p > url && strncmp(p, "::", 2) == 0)
		return false;
	if (p > url && strncmp(p, "://", 3) == 0) {
		size_t len = (size_t)(p - url);

		if (has_scheme(url, len, "file"))
			return local_ok;
		for (size_t i = 0; i < ELEMENTSOF(network); i++)
			if (has_scheme(url, len, network[i]))
				return host_is_plain(p + 3, strcspn(p + 3, "/"));
		return false;
	}
	/* git's url_is_local_not_ssh(): a colon before any slash is scp-like
	 * "[user@]host:path" over ssh. */
	colon = strchr(url, ':');
	slash = strchr(url, '/');
	if (colon && (!slash || colon < slash))
		return host_is_plain(url, (size_t)(colon - url));
	return local_ok && url[0] == '/';
}

static bool check_remote_url(const char *value, const struct rule *rule, const struct kv_list *config)
{
	return url_is_safe(value, false);
}

static bool check_submodule_url(const char *value, const struct rule *rule, const struct kv_list *config)
{
	return url_is_safe(value, true);
}

/* branch.<n>.remote and .pushRemote: "." (this repository) or a remote the
 * config gives a URL. A name git finds no URL for is read as a URL itself
 * (remote.c: add_url_alias), or from .git/remotes/, which this judge never
 * sees. */
static bool check_remote_name(const char *value, const struct rule *rule, const struct kv_list *config)
{
	_cleanup_free_ char *want = NULL;

	if (!value || has_control(value))
		return false;
	if (strcmp(value, ".") == 0)
		return true;
	if (asprintf(&want, "remote.%s.url", value) < 0)
		return false;
	return kv_list_has_name(config, want);
}

/* ---- The allow-list ----------------------------------------------------- */

/* Every key here runs no program and makes git read no file or repository the
 * agent could choose beyond what its check allows. Keys git writes with
 * derived values (core.worktree, core.bare, core.repositoryformatversion) are
 * absent on purpose: they must stay as they are. Not here because they can
 * run or redirect something: submodule.<n>.update as "!cmd" (only its modes
 * pass), remote.<n>.uploadpack/receivepack/vcs/proxy, branch.<n>.mergeOptions
 * (-s <strategy> runs git-merge-<strategy>), url.<base>.insteadOf, and every
 * section not listed (core, include, includeIf, alias, filter, diff, merge,
 * hook, credential, gpg, sequence, ...). */
static const char *const submodule_ignore[] = {"none", "untracked", "dirty", "all", NULL};
static const char *const on_demand[] = {"on-demand", NULL};
/* submodule.<n>.update may also be "!command", which git runs. */
static const char *const update_modes[] = {"checkout", "rebase", "merge", "none", NULL};
static const char *const rebase_modes[] = {"merges", "m", "interactive", "i", NULL};
static const char *const tag_options[] = {"--no-tags", "--tags", NULL};
static const char *const ff_only[] = {"only", NULL};
static const char *const push_modes[] = {"nothing", "current", "upstream", "tracking", "simple", "matching", NULL};

static const struct rule rules[] = {
        {"submodule", true, "url", check_submodule_url, NULL},
        {"submodule", true, "active", check_bool, NULL},
        {"submodule", true, "branch", check_word, NULL},
        {"submodule", true, "shallow", check_bool, NULL},
        {"submodule", true, "ignore", check_word_list, submodule_ignore},
        {"submodule", true, "fetchrecursesubmodules", check_bool_or_word, on_demand},
        {"submodule", true, "update", check_word_list, update_modes},
        {"branch", true, "remote", check_remote_name, NULL},
        {"branch", true, "pushremote", check_remote_name, NULL},
        {"branch", true, "merge", check_word, NULL},
        {"branch", true, "rebase", check_bool_or_word, rebase_modes},
        {"branch", true, "description", check_description, NULL},
        {"remote", true, "url", check_remote_url, NULL},
        {"remote", true, "pushurl", check_remote_url, NULL},
        {"remote", true, "fetch", check_word, NULL},
        {"remote", true, "push", check_word, NULL},
        {"remote", true, "tagopt", check_word_list, tag_options},
        {"remote", true, "prune", check_bool, NULL},
        {"remote", true, "prunetags", check_bool, NULL},
        {"remote", true, "mirror", check_bool, NULL},
        {"remote", true, "skipdefaultupdate", check_bool, NULL},
        {"remote", true, "skipfetchall", check_bool, NULL},
        {"user", false, "name", check_text, NULL},
        {"user", false, "email", check_text, NULL},
        {"pull", false, "rebase", check_bool_or_word, rebase_modes},
        {"pull", false, "ff", check_bool_or_word, ff_only},
        {"push", false, "default", check_word_list, push_modes},
        {"push", false, "autosetupremote", check_bool, NULL},
        {"fetch", false, "prune", check_bool, NULL},
        {"init", false, "defaultbranch", check_word, NULL},
        {"advice", false, NULL, check_bool, NULL},
};

/* A subsection the allow-list accepts names a submodule, remote or branch:
 * nothing that reads as a path out of its folder (a submodule's name becomes
 * .git/modules/<name>) or as an option. */
static bool subsection_is_plain(const char *sub)
{
	return *sub && sub[0] != '-' && !has_control(sub) && !strstr(sub, "..");
}

static const struct rule *rule_for(const struct gitcfg_entry *e)
{
	if (e->subsection && !subsection_is_plain(e->subsection))
		return NULL;
	for (size_t i = 0; i < ELEMENTSOF(rules); i++) {
		const struct rule *r = &rules[i];

		if (strcmp(e->section, r->section) == 0 && r->subsection == !!e->subsection &&
		    (!r->key || strcmp(e->key, r->key) == 0))
			return r;
	}
	return NULL;
}

/* ---- Entry lists ----------------------------------------------------------- */

static void kv_list_done(struct kv_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].name);
		free(l->items[i].value);
	}
	free(l->items);
	free(l->allowed);
}

static int kv_list_add(const struct gitcfg_entry *e, void *userdata)
{
	struct kv_list *l = userdata;
	struct kv *kv;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct kv *items = reallocarray(l->items, cap, sizeof(*items));

		if (!items)
			return -ENOMEM;
		l->items = items;
		l->cap = cap;
	}
	kv = &l->items[l->n];
	*kv = (struct kv){.name = strdup(e->name), .rule = rule_for(e)};
	if (e->value)
		kv->value = strdup(e->value);
	/* Counted before the check, so kv_list_done() frees what was made. */
	l->n++;
	if (!kv->name || (e->value && !kv->value))
		return -ENOMEM;
	return 0;
}

/* Orders by name, then value, an implicit true first. */
static int kv_compare(const struct kv *a, const struct kv *b)
{
	int r = strcmp(a->name, b->name);

	if (r != 0 || !a->value || !b->value)
		return r != 0 ? r : !!a->value - !!b->value;
	return strcmp(a->value, b->value);
}

static int kv_compare_ptrs(const void *x, const void *y)
{
	return kv_compare(*(const struct kv *const *)x, *(const struct kv *const *)y);
}

/* The next entry at or after *i that is not allow-listed, or NULL. */
static const struct kv *next_fixed(const struct kv_list *l, size_t *i)
{
	for (; *i < l->n; (*i)++)
		if (!l->items[*i].rule)
			return &l->items[(*i)++];
	return NULL;
}

/* Keys off the allow-list must read the same, in the same order: git takes
 * the last of a single-valued key and every include in turn, so a reordering
 * alone can change what runs. */
static bool fixed_keys_unchanged(const struct kv_list *old, const struct kv_list *new, const char **why)
{
	size_t i = 0, j = 0;

	for (;;) {
		const struct kv *a = next_fixed(old, &i);
		const struct kv *b = next_fixed(new, &j);

		if (!a && !b)
			return true;
		if (!a || !b || kv_compare(a, b) != 0) {
			*why = say_why(b ? b->name : a->name, "key not allowed to change");
			return false;
		}
	}
}

static int kv_list_index(struct kv_list *l)
{
	l->allowed = calloc(l->n + 1, sizeof(*l->allowed));
	if (!l->allowed)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].rule)
			l->allowed[l->n_allowed++] = &l->items[i];
	if (l->n_allowed > 0)
		qsort(l->allowed, l->n_allowed, sizeof(*l->allowed), kv_compare_ptrs);
	return 0;
}

/* Every allow-listed entry the new config adds (by multiset: one more copy
 * counts) must have a value its rule accepts. Removing one is safe, and an
 * entry that was already there is the person's, whatever its value. */
static bool added_values_allowed(const struct kv_list *old, const struct kv_list *new, const char **why)
{
	struct kv **a = old->allowed, **b = new->allowed;
	size_t na = old->n_allowed, nb = new->n_allowed, i = 0, j = 0;

	while (j < nb) {
		int c = i < na ? kv_compare(a[i], b[j]) : 1;

		if (c < 0) {
			i++;
			continue;
		}
		if (c > 0 && !b[j]->rule->check(b[j]->value, b[j]->rule, new)) {
			*why = say_why(b[j]->name, "value not allowed");
			return false;
		}
		i += c == 0;
		j++;
	}
	return true;
}

/* A branch's remote that named a defined remote must still name one:
 * removing remote.<n>.url, which is otherwise safe, would make git read <n>
 * as a path or from .git/remotes/<n>. (git remote remove and rename rewrite
 * the branches that name it.) */
static bool remotes_still_defined(const struct kv_list *old, const struct kv_list *new, const char **why)
{
	for (size_t i = 0; i < new->n_allowed; i++) {
		const struct kv *kv = new->allowed[i];

		if (kv->rule->check == check_remote_name && !check_remote_name(kv->value, kv->rule, new) &&
		    check_remote_name(kv->value, kv->rule, old)) {
			*why = say_why(kv->name, "names a remote the change removes");
			return false;
		}
	}
	return true;
}

int gitcfg_change_is_safe(const char *old, size_t oldlen, const char *new, size_t newlen, const char **why)
{
	_cleanup_(kv_list_done) struct kv_list before = {0};
	_cleanup_(kv_list_done) struct kv_list after = {0};
	struct gitcfg_error err;
	const char *ignored;
	int r;

	if (!why)
		why = &ignored;
	r = gitcfg_parse(old, oldlen, "old config", kv_list_add, &before, &err);
	if (r < 0) {
		*why = say_why(err.origin, err.reason);
		return r;
	}
	r = gitcfg_parse(new, newlen, "new config", kv_list_add, &after, &err);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		*why = say_why(err.origin, err.reason);
		return 0;
	}
	if (kv_list_index(&before) < 0 || kv_list_index(&after) < 0)
		return -ENOMEM;
	return fixed_keys_unchanged(&before, &after, why) && added_values_allowed(&before, &after, why) &&
	       remotes_still_defined(&before, &after, why);
}
