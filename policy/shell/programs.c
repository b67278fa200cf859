/* Wrappers and interpreters: each described by a table of its options, read
 * with one getopt_long-like reader (combined short options, an argument
 * attached or in the next word, long options shortened to any unique
 * prefix, '--'), since a command's meaning hangs on which word is the
 * program. A dynamic word (NULL) is an operand: its text is unknown. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/shell/programs.h"

enum arg_need { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL };

struct long_opt {
	const char *name;
	enum arg_need need;
	char same_as; /* the short option it spells, or 0 */
};

struct opt_spec {
	const char *shorts; /* getopt syntax: "C:" required, "h::" optional */
	const struct long_opt *longs;
};

/* One option met while reading: its short letter (or the long option's
 * same_as), its long name, and its argument. */
struct opt_hit {
	char letter;
	const char *name;
	const char *value;
	bool value_dynamic;
};

/* The need of short option C, or -1 when SHORTS does not have it. */
static int short_need(const char *shorts, char c)
{
	const char *p = c != ':' ? strchr(shorts, c) : NULL;

	if (!p)
		return -1;
	if (p[1] != ':')
		return ARG_NONE;
	return p[2] == ':' ? ARG_OPTIONAL : ARG_REQUIRED;
}

/* An exact name, or the one long option NAME (LEN bytes) abbreviates. */
static const struct long_opt *long_find(const struct long_opt *longs, const char *name, size_t len)
{
	const struct long_opt *hit = NULL;

	for (const struct long_opt *l = longs; l && l->name; l++) {
		if (strncmp(l->name, name, len) != 0)
			continue;
		if (strlen(l->name) == len)
			return l;
		if (hit)
			return NULL; /* ambiguous, as getopt_long says */
		hit = l;
	}
	return hit;
}

typedef void (*opt_handler)(const struct opt_hit *hit, void *ctx);

/* Reads options from ARGV[1..] as getopt_long with a leading '+' does (stops
 * at the first operand). Returns the index of the first operand; *UNKNOWN is
 * the first option it does not know. */
static size_t opts_read(const struct opt_spec *spec, const char *const *argv, size_t argc, opt_handler on_opt,
			void *ctx, const char **unknown)
{
	size_t i = 1;

	for (; i < argc; i++) {
		const char *a = argv[i];

		if (!a || a[0] != '-' || a[1] == '\0')
			return i;
		if (strcmp(a, "--") == 0)
			return i + 1;
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			const struct long_opt *l = long_find(spec->longs, a + 2, len);
			struct opt_hit hit = {0};

			if (!l) {
				if (!*unknown)
					*unknown = a;
				continue;
			}
			hit.letter = l->same_as;
			hit.name = l->name;
			if (eq)
				hit.value = eq + 1;
			else if (l->need == ARG_REQUIRED && i + 1 < argc) {
				hit.value = argv[++i];
				hit.value_dynamic = !hit.value;
			}
			on_opt(&hit, ctx);
			continue;
		}
		for (const char *c = a + 1; *c; c++) {
			int need = short_need(spec->shorts, *c);
			struct opt_hit hit = {.letter = *c};

			if (need < 0) {
				if (!*unknown)
					*unknown = a;
				continue;
			}
			if (need != ARG_NONE && c[1])
				hit.value = c + 1;
			else if (need == ARG_REQUIRED && i + 1 < argc) {
				hit.value = argv[++i];
				hit.value_dynamic = !hit.value;
			}
			on_opt(&hit, ctx);
			if (need != ARG_NONE)
				break;
		}
	}
	return i;
}

/* ---- wrappers ---- */

struct wrapper {
	const char *name;
	struct opt_spec spec;
	unsigned operands;     /* operands before the command: timeout's duration, flock's file */
	bool assignments;      /* NAME=VALUE operands before the command (env, sudo) */
	const char *default_command; /* xargs runs echo by default */
};

static const struct long_opt env_longs[] = {
	{"ignore-environment", ARG_NONE, 'i'}, {"null", ARG_NONE, '0'}, {"unset", ARG_REQUIRED, 'u'},
	{"chdir", ARG_REQUIRED, 'C'}, {"split-string", ARG_REQUIRED, 'S'}, {"debug", ARG_NONE, 'v'},
	{"block-signal", ARG_OPTIONAL, 0}, {"default-signal", ARG_OPTIONAL, 0}, {"ignore-signal", ARG_OPTIONAL, 0},
	{"list-signal-handling", ARG_NONE, 0}, {"help", ARG_NONE, 'h'}, {"version", ARG_NONE, 'V'}, {0},
};
static const struct long_opt sudo_longs[] = {
	{"askpass", ARG_NONE, 'A'}, {"auth-type", ARG_REQUIRED, 'a'}, {"background", ARG_NONE, 'b'},
	{"bell", ARG_NONE, 'B'}, {"close-from", ARG_REQUIRED, 'C'}, {"login-class", ARG_REQUIRED, 'c'},
	{"chdir", ARG_REQUIRED, 'D'}, {"preserve-env", ARG_OPTIONAL, 'E'}, {"edit", ARG_NONE, 'e'},
	{"group", ARG_REQUIRED, 'g'}, {"set-home", ARG_NONE, 'H'}, {"help", ARG_NONE, 0},
	{"host", ARG_REQUIRED, 'h'}, {"login", ARG_NONE, 'i'}, {"remove-timestamp", ARG_NONE, 'K'},
	{"reset-timestamp", ARG_NONE, 'k'}, {"list", ARG_NONE, 'l'}, {"non-interactive", ARG_NONE, 'n'},
	{"preserve-groups", ARG_NONE, 'P'}, {"prompt", ARG_REQUIRED, 'p'}, {"chroot", ARG_REQUIRED, 'R'},
	{"role", ARG_REQUIRED, 'r'}, {"stdin", ARG_NONE, 'S'}, {"shell", ARG_NONE, 's'},
	{"type", ARG_REQUIRED, 't'}, {"command-timeout", ARG_REQUIRED, 'T'}, {"other-user", ARG_REQUIRED, 'U'},
	{"user", ARG_REQUIRED, 'u'}, {"version", ARG_NONE, 'V'}, {"validate", ARG_NONE, 'v'}, {0},
};
static const struct long_opt timeout_longs[] = {
	{"kill-after", ARG_REQUIRED, 'k'}, {"signal", ARG_REQUIRED, 's'}, {"foreground", ARG_NONE, 0},
	{"preserve-status", ARG_NONE, 0}, {"verbose", ARG_NONE, 'v'}, {0},
};
static const struct long_opt nice_longs[] = {{"adjustment", ARG_REQUIRED, 'n'}, {0}};
static const struct long_opt xargs_longs[] = {
	{"null", ARG_NONE, '0'}, {"arg-file", ARG_REQUIRED, 'a'}, {"delimiter", ARG_REQUIRED, 'd'},
	{"eof", ARG_OPTIONAL, 'e'}, {"replace", ARG_OPTIONAL, 'i'}, {"max-lines", ARG_OPTIONAL, 'l'},
	{"max-args", ARG_REQUIRED, 'n'}, {"max-procs", ARG_REQUIRED, 'P'}, {"interactive", ARG_NONE, 'p'},
	{"no-run-if-empty", ARG_NONE, 'r'}, {"max-chars", ARG_REQUIRED, 's'}, {"verbose", ARG_NONE, 't'},
	{"exit", ARG_NONE, 'x'}, {"open-tty", ARG_NONE, 'o'}, {"process-slot-var", ARG_REQUIRED, 0},
	{"show-limits", ARG_NONE, 0}, {0},
};
static const struct long_opt stdbuf_longs[] = {
	{"input", ARG_REQUIRED, 'i'}, {"output", ARG_REQUIRED, 'o'}, {"error", ARG_REQUIRED, 'e'}, {0},
};
static const struct long_opt setsid_longs[] = {
	{"ctty", ARG_NONE, 'c'}, {"fork", ARG_NONE, 'f'}, {"wait", ARG_NONE, 'w'}, {0},
};
static const struct long_opt flock_longs[] = {
	{"shared", ARG_NONE, 's'}, {"exclusive", ARG_NONE, 'x'}, {"unlock", ARG_NONE, 'u'},
	{"nonblock", ARG_NONE, 'n'}, {"nb", ARG_NONE, 'n'}, {"wait", ARG_REQUIRED, 'w'},
	{"timeout", ARG_REQUIRED, 'w'}, {"conflict-exit-code", ARG_REQUIRED, 'E'}, {"close", ARG_NONE, 'o'},
	{"command", ARG_REQUIRED, 'c'}, {"no-fork", ARG_NONE, 'F'}, {"verbose", ARG_NONE, 0}, {0},
};
/* GNU time, which sh (dash) runs where bash reads its keyword. */
static const struct long_opt time_longs[] = {
	{"format", ARG_REQUIRED, 'f'}, {"output", ARG_REQUIRED, 'o'}, {"append", ARG_NONE, 'a'},
	{"verbose", ARG_NONE, 'v'}, {"quiet", ARG_NONE, 'q'}, {"portability", ARG_NONE, 'p'}, {0},
};

static const struct wrapper wrappers[] = {
	{"env", {"+iu:C:S:v0P:hV", env_longs}, 0, true, NULL},
	{"sudo", {"+Aa:BbC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv", sudo_longs}, 0, true, NULL},
	{"doas", {"+a:C:Lnsu:", NULL}, 0, false, NULL},
	{"timeout", {"+k:s:v", timeout_longs}, 1, false, NULL},
	{"nice", {"+n:0123456789", nice_longs}, 0, false, NULL},
	{"nohup", {"+", NULL}, 0, false, NULL},
	{"command", {"+pvV", NULL}, 0, false, NULL},
	{"builtin", {"+", NULL}, 0, false, NULL},
	{"exec", {"+a:cl", NULL}, 0, false, NULL},
	{"xargs", {"+0a:d:E:e::I:i::L:l::n:oP:prs:tx", xargs_longs}, 0, false, "echo"},
	{"stdbuf", {"+i:o:e:", stdbuf_longs}, 0, false, NULL},
	{"setsid", {"+cfw", setsid_longs}, 0, false, NULL},
	{"flock", {"+sexunw:E:oF", flock_longs}, 1, false, NULL},
	{"time", {"+pf:o:avq", time_longs}, 0, false, NULL},
};

struct wrapper_ctx {
	const struct wrapper *w;
	struct wrapper_result *res;
};

static void wrapper_on_opt(const struct opt_hit *hit, void *data)
{
	struct wrapper_ctx *ctx = data;
	const char *name = ctx->w->name;
	struct wrapper_result *res = ctx->res;

	if ((strcmp(name, "env") == 0 && hit->letter == 'C') || (strcmp(name, "sudo") == 0 && hit->letter == 'D')) {
		res->chdir = hit->value;
		res->chdir_dynamic = hit->value_dynamic;
	} else if (strcmp(name, "env") == 0 && hit->letter == 'S')
		res->split = hit->value;
	else if (strcmp(name, "env") == 0 && hit->letter == 'P')
		res->altpath = hit->value;
	else if (strcmp(name, "command") == 0 && hit->letter == 'p')
		res->default_path = true;
	else if ((strcmp(name, "command") == 0 && (hit->letter == 'v' || hit->letter == 'V')) ||
		 (strcmp(name, "sudo") == 0 && strchr("elVvKk", hit->letter) && hit->letter))
		res->runs_nothing = true;
}

static bool is_assignment(const char *s)
{
	size_t n;

	if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	return s[n] == '=';
}

bool shell_wrapper_parse(const char *name, const char *const *argv, size_t argc, struct wrapper_result *res)
{
	const struct wrapper *w = NULL;
	struct wrapper_ctx ctx = {.res = res};
	size_t i;

	for (size_t k = 0; k < ELEMENTSOF(wrappers); k++)
		if (strcmp(wrappers[k].name, name) == 0)
			w = &wrappers[k];
	if (!w)
		return false;
	*res = (struct wrapper_result){0};
	ctx.w = w;
	i = opts_read(&w->spec, argv, argc, wrapper_on_opt, &ctx, &res->unknown);
	/* flock FILE -c LINE (or --command LINE): sh -c LINE, read after the file */
	if (strcmp(name, "flock") == 0 && i + 2 < argc && argv[i + 1] &&
	    (strcmp(argv[i + 1], "-c") == 0 || strcmp(argv[i + 1], "--command") == 0)) {
		res->shell_c = argv[i + 2];
		res->shell_c_dynamic = !argv[i + 2];
		res->command = argc;
		return true;
	}
	i += w->operands;
	res->assigns_from = res->assigns_to = i;
	while (w->assignments && i < argc && is_assignment(argv[i]))
		res->assigns_to = ++i;
	res->command = i < argc ? i : argc;
	return true;
}

/* ---- interpreters ---- */

struct family_name {
	const char *root;
	enum interp_family family;
};

static const struct family_name family_names[] = {
	{"python", INTERP_PYTHON}, {"pypy", INTERP_PYTHON}, {"py", INTERP_PYTHON},
	{"nodejs", INTERP_NODE}, {"node", INTERP_NODE},
	{"ruby", INTERP_RUBY},
	{"perl", INTERP_PERL},
	{"bash", INTERP_SHELL}, {"dash", INTERP_SHELL}, {"zsh", INTERP_SHELL}, {"ksh", INTERP_SHELL},
	{"mksh", INTERP_SHELL}, {"ash", INTERP_SHELL}, {"sh", INTERP_SHELL},
};

/* A version (digits and dots) and a build suffix: python3.12, pythonw,
 * python3.12-dbg, python3m. */
static bool is_version_suffix(const char *s)
{
	static const char *const builds[] = {"", "w", "m", "d", "u", "-dbg", "d-dbg", "-debug"};

	s += strspn(s, "0123456789.");
	for (size_t i = 0; i < ELEMENTSOF(builds); i++)
		if (strcmp(s, builds[i]) == 0)
			return true;
	return false;
}

enum interp_family shell_interp_family(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(family_names); i++) {
		size_t n = strlen(family_names[i].root);

		if (strncmp(name, family_names[i].root, n) == 0 && is_version_suffix(name + n))
			return family_names[i].family;
	}
	return INTERP_NONE;
}

static const struct long_opt python_longs[] = {{"check-hash-based-pycs", ARG_REQUIRED, 0}, {"help", ARG_NONE, 0},
					       {"version", ARG_NONE, 0}, {0}};
static const struct long_opt node_longs[] = {
	{"eval", ARG_REQUIRED, 'e'}, {"print", ARG_REQUIRED, 'p'}, {"require", ARG_REQUIRED, 'r'},
	{"import", ARG_REQUIRED, 'r'}, {"loader", ARG_REQUIRED, 'r'}, {"experimental-loader", ARG_REQUIRED, 'r'},
	{"conditions", ARG_REQUIRED, 'C'}, {"input-type", ARG_REQUIRED, 0}, {"title", ARG_REQUIRED, 0},
	{"env-file", ARG_REQUIRED, 0}, {"redirect-warnings", ARG_REQUIRED, 0}, {0},
};
static const struct long_opt ruby_longs[] = {
	{"encoding", ARG_REQUIRED, 0}, {"external-encoding", ARG_REQUIRED, 0}, {"internal-encoding", ARG_REQUIRED, 0},
	{"enable", ARG_REQUIRED, 0}, {"disable", ARG_REQUIRED, 0}, {0},
};
static const struct long_opt shell_longs[] = {
	{"rcfile", ARG_REQUIRED, 0}, {"init-file", ARG_REQUIRED, 0}, {"norc", ARG_NONE, 0},
	{"noprofile", ARG_NONE, 0}, {"login", ARG_NONE, 'l'}, {"posix", ARG_NONE, 0}, {"noediting", ARG_NONE, 0},
	{"restricted", ARG_NONE, 'r'}, {"verbose", ARG_NONE, 'v'}, {"version", ARG_NONE, 0}, {"help", ARG_NONE, 0},
	{"debugger", ARG_NONE, 0}, {"dump-strings", ARG_NONE, 0}, {"pretty-print", ARG_NONE, 0}, {0},
};

/* The code options (-c, -e, -p) take the program text; perl's clustered
 * options (-l, -0, -i, -x) swallow the rest of their word. */
static const struct opt_spec interp_specs[] = {
	[INTERP_PYTHON] = {"+bBc:dEhiIm:OPqsSuvVW:xX:R", python_longs},
	[INTERP_NODE] = {"+e:p:r:C:ichv", node_longs},
	[INTERP_RUBY] = {"+0::aC:cdE:e:F:hI:ilnpr:sSvwW::x::y", ruby_longs},
	[INTERP_PERL] = {"+0::aC::cd::D::e:E:F::hi::I:l::m:M:nptTuUvVwWx::X", NULL},
	[INTERP_SHELL] = {"+abcCefhiklmnprsStuvxo:O:", shell_longs},
};

struct interp_ctx {
	enum interp_family family;
	struct interp_result *res;
	bool code_option; /* -c (shells: the first operand is the line), -e/-p */
	bool stdin_option;
};

/* node and ruby look a required name up in their library folders unless it
 * starts with '/', './' or '../': only such a name is a file of the tree. */
static bool is_file_path(const char *name)
{
	return name[0] == '/' || strncmp(name, "./", 2) == 0 || strncmp(name, "../", 3) == 0;
}

static void interp_on_opt(const struct opt_hit *hit, void *data)
{
	struct interp_ctx *ctx = data;
	struct interp_result *res = ctx->res;

	switch (ctx->family) {
	case INTERP_PYTHON:
		if (hit->letter == 'c')
			ctx->code_option = true;
		else if (hit->letter == 'm')
			res->module = hit->value ? hit->value : "";
		break;
	case INTERP_NODE:
	case INTERP_RUBY:
	case INTERP_PERL:
		if (hit->letter == 'e' || hit->letter == 'E' || (ctx->family == INTERP_NODE && hit->letter == 'p'))
			ctx->code_option = true;
		else if (hit->letter == 'r' && hit->value && is_file_path(hit->value))
			res->require = hit->value;
		else if (ctx->family == INTERP_RUBY && hit->letter == 'C')
			res->chdir = hit->value;
		break;
	case INTERP_SHELL:
		if (hit->letter == 'c')
			ctx->code_option = true;
		else if (hit->letter == 's')
			ctx->stdin_option = true;
		break;
	case INTERP_NONE:
		break;
	}
}

/* The py launcher's own first options: -3.12, -3, -V:tag. */
static size_t py_launcher_skip(const char *const *argv, size_t argc)
{
	size_t i = 1;

	while (i < argc && argv[i] && argv[i][0] == '-' &&
	       ((argv[i][1] >= '0' && argv[i][1] <= '9') || strncmp(argv[i], "-V:", 3) == 0))
		i++;
	return i - 1;
}

void shell_interp_parse(enum interp_family family, const char *const *argv, size_t argc, struct interp_result *res)
{
	struct interp_ctx ctx = {.family = family, .res = res};
	size_t skip = 0, i;

	*res = (struct interp_result){.script = argc, .inline_code = argc};
	if (family == INTERP_NONE)
		return;
	if (family == INTERP_PYTHON && strcmp(shell_basename(argv[0]), "py") == 0)
		skip = py_launcher_skip(argv, argc);
	i = skip + opts_read(&interp_specs[family], argv + skip, argc - skip, interp_on_opt, &ctx, &res->unknown);
	if (ctx.code_option && family == INTERP_SHELL) {
		/* sh -c LINE [NAME [ARG...]]: the first operand is the line */
		res->inline_code = i < argc ? i : argc;
		return;
	}
	if (ctx.code_option) {
		res->inline_code = i - 1 < argc ? i - 1 : argc;
		return;
	}
	if (res->module)
		return;
	if (i < argc && !ctx.stdin_option && !(argv[i] && strcmp(argv[i], "-") == 0))
		res->script = i;
	else
		res->reads_stdin = true;
}

const char *shell_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}
