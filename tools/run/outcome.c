#include "config.h"

/* How a run ended (outcome.h): the report's JSON and the same in words.
 *
 *   {"argv":[S,...],
 *    "limits":{"asked":L,"applied":L,"capped":["memory_mb"|"pids"|"cpus",...]},
 *    "cgroup":"v2"|"scope"|"v1"|"none",
 *    "ended":"exited"|"signaled"|"timeout"|"oom",
 *    "exit_status":N,"signal":N,"peak_memory_bytes":N|null,"daemon_pid":N|null,
 *    "settled":[{"action":S,"path":S,"to":S (a move only),"reason":S|null,"earlier":B},...],
 *    "status":N}
 *   L: {"memory_mb":N|null,"pids":N|null,"cpus":N|null}   (null: not limited)
 *
 * cpus is a JSON number spelt as run_format_cpus() spells it (0.5, never
 * 0.50000000000000001). S is the text as given, except that each byte that
 * is not part of well-formed UTF-8 reads as U+FFFD: an argv may hold any
 * bytes, and the report must stay JSON every reader takes. */
#include <errno.h>
#include <inttypes.h>
#include <json.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/replace-file.h"
#include "common/utf8.h"
#include "tools/run/outcome.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */
#define MIB (UINT64_C(1) << 20)

DEFINE_TRIVIAL_CLEANUP_FUNC(struct json_object *, json_object_put)

static const char *const ended_names[] = { "exited", "signaled", "timeout", "oom" };

static const char *name_of(const char *const *names, size_t n, unsigned v)
{
	return v < n ? names[v] : "unknown";
}

static void settled_free(struct run_settled *s)
{
	free(s->verb);
	free(s->path);
	free(s->to);
	free(s->reason);
}

/* strdup() that keeps NULL as NULL; false only when out of memory. */
static bool dup_or_null(const char *s, char **out)
{
	*out = s ? strdup(s) : NULL;
	return !s || *out;
}

int run_outcome_add_settled(struct run_outcome *o, const char *verb, const char *path, const char *to,
                            const char *reason, bool earlier)
{
	struct run_settled s = { .earlier = earlier }, *grown;

	if (!dup_or_null(verb, &s.verb) || !dup_or_null(path, &s.path) || !dup_or_null(to, &s.to) ||
	    !dup_or_null(reason, &s.reason)) {
		settled_free(&s);
		return -ENOMEM;
	}
	grown = reallocarray(o->settled, o->n_settled + 1, sizeof(*grown));
	if (!grown) {
		settled_free(&s);
		return -ENOMEM;
	}
	o->settled = grown;
	o->settled[o->n_settled++] = s;
	return 0;
}

void run_outcome_free(struct run_outcome *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n_settled; i++)
		settled_free(&o->settled[i]);
	free(o->settled);
	free(o->cgroup_why);
	o->settled = NULL;
	o->n_settled = 0;
	o->cgroup_why = NULL;
}

/* A JSON string of S with every byte outside well-formed UTF-8 as U+FFFD;
 * NULL when out of memory. */
static struct json_object *text(const char *s)
{
	size_t len = strlen(s), n = 0;
	_cleanup_free_ char *buf = malloc(3 * len + 1);

	if (!buf)
		return NULL;
	for (size_t i = 0; i < len;) {
		const unsigned char *c = (const unsigned char *)s + i;
		size_t k = *c < 0x80 ? 1 : utf8_sequence(c, len - i);

		if (k == 0) {
			memcpy(buf + n, REPLACEMENT, 3);
			n += 3;
			i++;
			continue;
		}
		memcpy(buf + n, c, k);
		n += k;
		i += k;
	}
	return json_object_new_string_len(buf, (int)n);
}

/* Adds V (taking it) under KEY; a NULL V is out of memory. */
static int put(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(o, key, v) == 0)
		return 0;
	json_object_put(v);
	return -ENOMEM;
}

/* json-c's null is a NULL object, so it has a call of its own. */
static int put_null(struct json_object *o, const char *key)
{
	return json_object_object_add(o, key, NULL) == 0 ? 0 : -ENOMEM;
}

/* S, or null for NULL. */
static int put_text(struct json_object *o, const char *key, const char *s)
{
	return s ? put(o, key, text(s)) : put_null(o, key);
}

/* V, or null for 0: "not set", "not known". */
static int put_count(struct json_object *o, const char *key, uint64_t v)
{
	return v ? put(o, key, json_object_new_uint64(v)) : put_null(o, key);
}

/* Appends V (taking it); a NULL V is out of memory. */
static int append(struct json_object *a, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(a, v) == 0)
		return 0;
	json_object_put(v);
	return -ENOMEM;
}

static int put_cpus(struct json_object *o, const char *key, uint32_t millis)
{
	char buf[16];

	if (!millis)
		return put_null(o, key);
	run_format_cpus(millis, buf);
	return put(o, key, json_object_new_double_s(millis / 1000.0, buf));
}

static struct json_object *limits(const struct run_limits *l)
{
	_cleanup_(json_object_putp) struct json_object *o = json_object_new_object();

	if (!o || put_count(o, "memory_mb", l->memory_mb) < 0 || put_count(o, "pids", l->pids) < 0 ||
	    put_cpus(o, "cpus", l->cpu_millis) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static struct json_object *capped(unsigned bits)
{
	static const struct {
		unsigned bit;
		const char *name;
	} fields[] = { { RUN_CAPPED_MEMORY, "memory_mb" }, { RUN_CAPPED_PIDS, "pids" }, { RUN_CAPPED_CPUS, "cpus" } };
	_cleanup_(json_object_putp) struct json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < ELEMENTSOF(fields); i++)
		if ((bits & fields[i].bit) && append(a, json_object_new_string(fields[i].name)) < 0)
			return NULL;
	return TAKE_PTR(a);
}

static struct json_object *all_limits(const struct run_outcome *o)
{
	_cleanup_(json_object_putp) struct json_object *l = json_object_new_object();

	if (!l || put(l, "asked", limits(&o->asked)) < 0 || put(l, "applied", limits(&o->applied)) < 0 ||
	    put(l, "capped", capped(o->capped)) < 0)
		return NULL;
	return TAKE_PTR(l);
}

static struct json_object *argv_array(char *const *argv)
{
	_cleanup_(json_object_putp) struct json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (size_t i = 0; argv && argv[i]; i++)
		if (append(a, text(argv[i])) < 0)
			return NULL;
	return TAKE_PTR(a);
}

static struct json_object *one_settled(const struct run_settled *s)
{
	_cleanup_(json_object_putp) struct json_object *e = json_object_new_object();

	if (!e || put_text(e, "action", s->verb) < 0 || put_text(e, "path", s->path) < 0 ||
	    (s->to && put_text(e, "to", s->to) < 0) || put_text(e, "reason", s->reason) < 0 ||
	    put(e, "earlier", json_object_new_boolean(s->earlier)) < 0)
		return NULL;
	return TAKE_PTR(e);
}

static struct json_object *all_settled(const struct run_outcome *o)
{
	_cleanup_(json_object_putp) struct json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < o->n_settled; i++)
		if (append(a, one_settled(&o->settled[i])) < 0)
			return NULL;
	return TAKE_PTR(a);
}

static struct json_object *report(const struct run_outcome *o)
{
	_cleanup_(json_object_putp) struct json_object *r = json_object_new_object();

	if (!r || put(r, "argv", argv_array(o->argv)) < 0 || put(r, "limits", all_limits(o)) < 0 ||
	    put(r, "cgroup", json_object_new_string(run_cgroup_mode_name(o->cgroup))) < 0 ||
	    put(r, "ended", json_object_new_string(name_of(ended_names, ELEMENTSOF(ended_names), o->ended))) < 0 ||
	    put(r, "exit_status", json_object_new_int(o->exit_status)) < 0 ||
	    put(r, "signal", json_object_new_int(o->signal)) < 0 ||
	    put_count(r, "peak_memory_bytes", o->peak_memory_bytes) < 0 ||
	    put_count(r, "daemon_pid", o->daemon_pid > 0 ? (uint64_t)o->daemon_pid : 0) < 0 ||
	    put(r, "settled", all_settled(o)) < 0 || put(r, "status", json_object_new_int(o->status)) < 0)
		return NULL;
	return TAKE_PTR(r);
}

int run_outcome_write_report(const struct run_outcome *o, const char *file)
{
	_cleanup_(json_object_putp) struct json_object *r = report(o);
	_cleanup_free_ char *line = NULL;
	const char *body;
	int n;

	if (!r)
		return -ENOMEM;
	body = json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!body || (n = asprintf(&line, "%s\n", body)) < 0) {
		line = NULL;
		return -ENOMEM;
	}
	return replace_file(file, line, (size_t)n, 0666);
}

/* "2048 MiB, 512 processes, 2 CPUs" (each field not limited said so);
 * NAMES false for the applied side, "1024 MiB, 512, 2": the asked side
 * gave the units. */
static void say_limits(FILE *out, const struct run_limits *l, unsigned capped, bool names)
{
	char cpu[16];

	if (l->memory_mb)
		fprintf(out, "%" PRIu64 " MiB", l->memory_mb);
	else
		fputs("no memory limit", out);
	if (capped & RUN_CAPPED_MEMORY)
		fputs(" (lowered by the ceiling)", out);
	if (l->pids)
		fprintf(out, ", %" PRIu64 "%s", l->pids, !names ? "" : l->pids == 1 ? " process" : " processes");
	else
		fputs(", no process limit", out);
	if (capped & RUN_CAPPED_PIDS)
		fputs(" (lowered by the ceiling)", out);
	run_format_cpus(l->cpu_millis, cpu);
	if (l->cpu_millis)
		fprintf(out, ", %s%s", cpu, !names ? "" : l->cpu_millis == 1000 ? " CPU" : " CPUs");
	else
		fputs(", no CPU limit", out);
	if (capped & RUN_CAPPED_CPUS)
		fputs(" (lowered by the ceiling)", out);
}

static void say_ended(FILE *out, const struct run_outcome *o)
{
	const char *abbrev = o->signal > 0 ? sigabbrev_np(o->signal) : NULL;

	switch (o->ended) {
	case RUN_ENDED_EXITED:
		fprintf(out, "oz0run: the command exited with status %d\n", o->exit_status);
		break;
	case RUN_ENDED_SIGNALED:
		fprintf(out, "oz0run: the command was killed by signal %d (SIG%s)\n", o->signal,
			abbrev ? abbrev : "?");
		break;
	case RUN_ENDED_TIMEOUT:
		fprintf(out, "oz0run: the command was stopped after the %u s timeout\n", o->timeout_s);
		break;
	case RUN_ENDED_OOM:
		if (o->applied.memory_mb)
			fprintf(out, "oz0run: the command ran out of memory (limit %" PRIu64 " MiB): ",
				o->applied.memory_mb);
		else
			fputs("oz0run: the command ran out of memory: ", out);
		fputs("the sandbox was stopped, all of it\n", out);
		break;
	}
}

void run_outcome_say(const struct run_outcome *o, FILE *out)
{
	fputs("oz0run: limits: asked ", out);
	say_limits(out, &o->asked, 0, true);
	if (o->cgroup == RUN_CGROUP_NONE) {
		fputs("; applied none: the sandbox runs without limits\n", out);
	} else {
		fputs("; applied ", out);
		say_limits(out, &o->applied, o->capped, false);
		fputc('\n', out);
	}
	/* the reason starts with the mode's name */
	fprintf(out, "oz0run: cgroup: %s\n", o->cgroup_why ? o->cgroup_why : run_cgroup_mode_name(o->cgroup));
	say_ended(out, o);
	if (o->peak_memory_bytes)
		fprintf(out, "oz0run: peak memory: %" PRIu64 " MiB\n", (o->peak_memory_bytes + MIB - 1) / MIB);
	if (o->daemon_pid > 0)
		fprintf(out, "oz0run: daemon pid %ld\n", (long)o->daemon_pid);
}
