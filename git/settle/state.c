#include "config.h"

/* STATE's codec (state.h): settle_state_format() and settle_state_parse().
 *
 * The body is one JSON object as json-c writes it without spaces (slashes
 * not escaped), then a newline:
 *
 *   {"dir":S,"dev":U,"ino":U,"gitdirs":[G,...],"dotgits":[D,...],"locked":[S,...]}
 *   G: {"path":S,"dev":U,"ino":U,"kind":"dotgit"|"named"|"module"|"linked"|"bare",
 *       "served":true|false,"config_print":U,"todo_print":U,"sequencer_print":U,
 *       "hooks":[S,...],"modules":[S,...],"worktrees":[S,...],"gitlinks":[S,...]}
 *   D: {"path":S,"type":"dir"|"file"|"link"|"other","text":S|null,"target":S|null}
 *
 * S, a path, name or .git file of arbitrary bytes: a JSON string is text,
 * and json-c keeps only valid UTF-8 as it was, so every byte outside
 * printable ASCII (0x20 to 0x7e), and '%' itself, is written %XX with two
 * upper-case hex digits; every other byte stands for itself. "a\nb" is
 * "a%0Ab", "50%" is "50%25", a NUL in a .git file "%00".
 *
 * U, a uint64: a JSON string of its decimal digits ("0" to
 * "18446744073709551615"). json-c's integers are int64, and it saturates a
 * number out of range instead of refusing it.
 *
 * What each S may be: a tree-relative path ("" only where it names the
 * tree: a git directory's path, a target, a locked folder) has components
 * that are neither "", "." nor ".."; a hook or worktree entry is one such
 * component; dir is "/" and such components; a link's target is any bytes
 * but NUL; a .git file any bytes. No list holds a path or name twice.
 *
 * Only what format writes is read: after the checks that give a reason,
 * the state read is formatted again and must give the very bytes read.
 * That refuses what json-c would let through quietly (a key twice, the
 * last one winning; spaces, escapes or a key order this format never
 * writes), so format(parse(x)) is x. */
#include <errno.h>
#include <inttypes.h>
#include <json.h>
#include <nettle/sha2.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "git/settle/state.h"

#define HEADER_MAGIC "oz0settle-state "
#define HEADER_HASH  " sha256:"
#define HASH_HEX     (2 * SHA256_DIGEST_SIZE)
#define U64_DIGITS   20
/* The body nests four deep; the tokenizer refuses anything deeper. */
#define JSON_DEPTH  8
#define WRITE_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
#define ADD_FLAGS   (JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_ADD_CONSTANT_KEY)

/* The number of fields of each object, all of them required. */
#define STATE_FIELDS  6
#define GITDIR_FIELDS 12
#define DOTGIT_FIELDS 4

#define WHY_TOO_LONG  "a list holds more entries than a STATE may"
#define WHY_TOO_LARGE "the STATE is larger than a STATE may be"
#define WHY_TEXT_LONG "a path, name or .git file is longer than a STATE may hold"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct json_object *, json_object_put)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct json_tokener *, json_tokener_free)

static const char hex_digits[] = "0123456789ABCDEF";

static const char *const gitdir_kinds[] = {
        [SETTLE_GITDIR_DOTGIT] = "dotgit", [SETTLE_GITDIR_NAMED] = "named", [SETTLE_GITDIR_MODULE] = "module",
        [SETTLE_GITDIR_LINKED] = "linked", [SETTLE_GITDIR_BARE] = "bare",
};

static const char *const dotgit_types[] = {
        [SETTLE_DOTGIT_DIR] = "dir",
        [SETTLE_DOTGIT_FILE] = "file",
        [SETTLE_DOTGIT_LINK] = "link",
        [SETTLE_DOTGIT_OTHER] = "other",
};

enum text_kind {
	TEXT_TREE_PATH, /* tree-relative, "" the tree itself */
	TEXT_SUB_PATH,  /* tree-relative, never "" */
	TEXT_NAME,      /* one folder entry */
	TEXT_ABSOLUTE,  /* the tree's real path */
	TEXT_LINK,      /* a link's target: any byte but NUL */
	TEXT_BYTES,     /* a .git file's bytes */
};

static int refuse(const char **why, int err, const char *sentence)
{
	*why = sentence;
	return err;
}

/* ---- Bytes, numbers and names ---------------------------------------- */

/* Whether the LEN bytes at S are '/'-separated components, none of them
 * "", "." or "..". */
static bool plain_components(const char *s, size_t len)
{
	const char *end = s + len;

	for (;;) {
		const char *slash = memchr(s, '/', (size_t)(end - s));
		size_t n = (size_t)((slash ? slash : end) - s);

		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		if (!slash)
			return true;
		s = slash + 1;
	}
}

static bool text_has_form(enum text_kind kind, const char *s, size_t len)
{
	switch (kind) {
	case TEXT_TREE_PATH:
		return len == 0 || plain_components(s, len);
	case TEXT_SUB_PATH:
		return plain_components(s, len);
	case TEXT_NAME:
		return plain_components(s, len) && !memchr(s, '/', len);
	case TEXT_ABSOLUTE:
		return len > 0 && s[0] == '/' && (len == 1 || plain_components(s + 1, len - 1));
	case TEXT_LINK:
	case TEXT_BYTES:
		break;
	}
	return true;
}

/* What both directions ask of the LEN bytes at S, a value of KIND. */
static int check_text(enum text_kind kind, const char *s, size_t len, const char **why)
{
	if (len > SETTLE_STATE_MAX_TEXT)
		return refuse(why, -E2BIG, WHY_TEXT_LONG);
	if (kind != TEXT_BYTES && len > 0 && memchr(s, '\0', len))
		return refuse(why, -EINVAL, "a path or name holds a NUL byte");
	if (!text_has_form(kind, s, len))
		return refuse(why, -EINVAL,
		              "a path is not of the form its field asks for (tree-relative, one name or "
		              "absolute, without an empty, '.' or '..' component)");
	return 0;
}

static bool stands_for_itself(unsigned char c)
{
	return c >= 0x20 && c <= 0x7e && c != '%';
}

static int hex_value(char c)
{
	const char *p = c ? strchr(hex_digits, c) : NULL;

	return p ? (int)(p - hex_digits) : -1;
}

/* The JSON string for the LEN bytes at S (at most SETTLE_STATE_MAX_TEXT). */
static struct json_object *encode(const char *s, size_t len)
{
	_cleanup_free_ char *buf = malloc(3 * len + 1);
	size_t n = 0;

	if (!buf)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (stands_for_itself(c)) {
			buf[n++] = (char)c;
			continue;
		}
		buf[n++] = '%';
		buf[n++] = hex_digits[c >> 4];
		buf[n++] = hex_digits[c & 15];
	}
	return json_object_new_string_len(buf, (int)n);
}

/* The bytes the JSON string J stands for, malloc'd and NUL-terminated. */
static int decode(struct json_object *j, char **out, size_t *out_len, const char **why)
{
	const char *s = json_object_get_string(j);
	size_t len = (size_t)json_object_get_string_len(j), n = 0;
	_cleanup_free_ char *buf = NULL;

	/* Each byte is written in three characters at the most. */
	if (len > 3 * SETTLE_STATE_MAX_TEXT)
		return refuse(why, -E2BIG, WHY_TEXT_LONG);
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		int hi, lo;

		if (stands_for_itself((unsigned char)s[i])) {
			buf[n++] = s[i];
			continue;
		}
		if (s[i] != '%')
			return refuse(why, -EINVAL, "a string holds a byte this version writes as %XX");
		hi = i + 2 < len ? hex_value(s[i + 1]) : -1;
		lo = hi >= 0 ? hex_value(s[i + 2]) : -1;
		if (lo < 0)
			return refuse(why, -EINVAL, "a string holds a '%' not followed by two upper-case hex digits");
		buf[n++] = (char)(hi << 4 | lo);
		i += 2;
	}
	buf[n] = '\0';
	*out = TAKE_PTR(buf);
	*out_len = n;
	return 0;
}

/* Decimal digits without a leading zero, at most UINT64_MAX. */
static bool parse_u64(const char *s, size_t len, uint64_t *v)
{
	uint64_t x = 0;

	if (len == 0 || len > U64_DIGITS || (s[0] == '0' && len > 1))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (s[i] < '0' || s[i] > '9' || x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Refuses a string twice among the N char * at BASE + i * STRIDE + OFFSET. */
static int check_unique(const void *base, size_t n, size_t stride, size_t offset, const char **why)
{
	_cleanup_free_ const char **v = NULL;

	if (n < 2)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = *(const char *const *)((const char *)base + i * stride + offset);
	qsort(v, n, sizeof(*v), compare_strings);
	for (size_t i = 1; i < n; i++)
		if (strcmp(v[i - 1], v[i]) == 0)
			return refuse(why, -EINVAL, "a list holds the same path or name twice");
	return 0;
}

/* ---- Writing ------------------------------------------------------------ */

/* Adds V (NULL for null) to O under KEY, a literal; takes V. */
static int add(struct json_object *o, const char *key, struct json_object *v)
{
	if (json_object_object_add_ex(o, key, v, ADD_FLAGS) == 0)
		return 0;
	json_object_put(v);
	return -ENOMEM;
}

static int put(struct json_object *o, const char *key, struct json_object *v)
{
	return v ? add(o, key, v) : -ENOMEM;
}

/* S (LEN bytes, NULL for null when NULLABLE) as a string of KIND. */
static int text_value(enum text_kind kind, const char *s, size_t len, bool nullable, struct json_object **v,
                      const char **why)
{
	int r;

	*v = NULL;
	if (!s)
		return nullable ? 0 : refuse(why, -EINVAL, "a path the state needs is missing");
	r = check_text(kind, s, len, why);
	if (r < 0)
		return r;
	*v = encode(s, len);
	return *v ? 0 : -ENOMEM;
}

static int put_text(struct json_object *o, const char *key, enum text_kind kind, const char *s, size_t len,
                    bool nullable, const char **why)
{
	struct json_object *v;
	int r = text_value(kind, s, len, nullable, &v, why);

	return r < 0 ? r : add(o, key, v);
}

static int put_path(struct json_object *o, const char *key, enum text_kind kind, const char *s, bool nullable,
                    const char **why)
{
	return put_text(o, key, kind, s, s ? strlen(s) : 0, nullable, why);
}

static int put_u64(struct json_object *o, const char *key, uint64_t v)
{
	char buf[U64_DIGITS + 1];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return put(o, key, json_object_new_string(buf));
}

static int put_enum(struct json_object *o, const char *key, unsigned v, const char *const *names, size_t n,
                    const char **why)
{
	if (v >= n)
		return refuse(why, -EINVAL, "a kind or type is not one this version knows");
	return put(o, key, json_object_new_string(names[v]));
}

static int put_names(struct json_object *o, const char *key, enum text_kind kind, const struct settle_names *names,
                     const char **why)
{
	_cleanup_(json_object_putp) struct json_object *a = NULL;
	int r;

	if (names->n > SETTLE_STATE_MAX_NAMES)
		return refuse(why, -E2BIG, WHY_TOO_LONG);
	a = json_object_new_array_ext((int)names->n);
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < names->n; i++) {
		struct json_object *v;

		r = text_value(kind, names->v[i], names->v[i] ? strlen(names->v[i]) : 0, false, &v, why);
		if (r < 0)
			return r;
		if (json_object_array_add(a, v) < 0) {
			json_object_put(v);
			return -ENOMEM;
		}
	}
	r = check_unique(names->v, names->n, sizeof(*names->v), 0, why);
	return r < 0 ? r : put(o, key, TAKE_PTR(a));
}

static int gitdir_to_json(const void *entry, struct json_object *o, const char **why)
{
	const struct settle_gitdir *g = entry;
	int r;

	if ((r = put_path(o, "path", TEXT_TREE_PATH, g->path, false, why)) < 0 || (r = put_u64(o, "dev", g->dev)) < 0 ||
	    (r = put_u64(o, "ino", g->ino)) < 0 ||
	    (r = put_enum(o, "kind", g->kind, gitdir_kinds, ELEMENTSOF(gitdir_kinds), why)) < 0 ||
	    (r = put(o, "served", json_object_new_boolean(g->served))) < 0 ||
	    (r = put_u64(o, "config_print", g->config_print)) < 0 ||
	    (r = put_u64(o, "todo_print", g->todo_print)) < 0 ||
	    (r = put_u64(o, "sequencer_print", g->sequencer_print)) < 0 ||
	    (r = put_names(o, "hooks", TEXT_NAME, &g->hooks, why)) < 0 ||
	    (r = put_names(o, "modules", TEXT_SUB_PATH, &g->modules, why)) < 0 ||
	    (r = put_names(o, "worktrees", TEXT_NAME, &g->worktrees, why)) < 0)
		return r;
	return put_names(o, "gitlinks", TEXT_SUB_PATH, &g->gitlinks, why);
}

static int dotgit_to_json(const void *entry, struct json_object *o, const char **why)
{
	const struct settle_dotgit *d = entry;
	bool file = d->type == SETTLE_DOTGIT_FILE;
	int r;

	if (d->text && !file && d->type != SETTLE_DOTGIT_LINK)
		return refuse(why, -EINVAL, "a .git folder or special file has a text");
	if ((r = put_path(o, "path", TEXT_SUB_PATH, d->path, false, why)) < 0 ||
	    (r = put_enum(o, "type", d->type, dotgit_types, ELEMENTSOF(dotgit_types), why)) < 0 ||
	    (r = put_text(o, "text", file ? TEXT_BYTES : TEXT_LINK, d->text, d->len, true, why)) < 0)
		return r;
	return put_path(o, "target", TEXT_TREE_PATH, d->target, true, why);
}

/* What a list of gitdirs or dotgits is, for writing and reading it. */
struct list_shape {
	const char *key;
	size_t max;  /* entries at the most */
	size_t size; /* of one entry */
	int (*to_json)(const void *entry, struct json_object *o, const char **why);
	int (*from_json)(struct json_object *o, void *entry, const char **why);
};

/* The N entries at BASE as the array KEY of O; their paths (first member) are unique. */
static int put_list(struct json_object *o, const struct list_shape *shape, const void *base, size_t n, const char **why)
{
	_cleanup_(json_object_putp) struct json_object *a = NULL;
	int r;

	if (n > shape->max)
		return refuse(why, -E2BIG, WHY_TOO_LONG);
	a = json_object_new_array_ext((int)n);
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		_cleanup_(json_object_putp) struct json_object *e = json_object_new_object();

		if (!e)
			return -ENOMEM;
		r = shape->to_json((const char *)base + i * shape->size, e, why);
		if (r < 0)
			return r;
		if (json_object_array_add(a, e) < 0)
			return -ENOMEM;
		e = NULL;
	}
	r = check_unique(base, n, shape->size, 0, why);
	return r < 0 ? r : put(o, shape->key, TAKE_PTR(a));
}

/* ---- Reading ------------------------------------------------------------ */

/* O must be an object of N fields: with each read by name, no other is left. */
static int expect_object(struct json_object *o, int n, const char **why)
{
	if (!json_object_is_type(o, json_type_object))
		return refuse(why, -EINVAL, "the body or an entry of a list is not a JSON object");
	if (json_object_object_length(o) > n)
		return refuse(why, -EINVAL, "an object has a field this version does not know");
	return 0;
}

static int field(struct json_object *o, const char *key, enum json_type type, struct json_object **v, const char **why)
{
	if (!json_object_object_get_ex(o, key, v))
		return refuse(why, -EINVAL, "a field is missing");
	if (!json_object_is_type(*v, type))
		return refuse(why, -EINVAL, "a field is of the wrong JSON type");
	return 0;
}

/* The string J as bytes of KIND. */
static int text_from_json(struct json_object *j, enum text_kind kind, char **s, size_t *len, const char **why)
{
	int r;

	if (!json_object_is_type(j, json_type_string))
		return refuse(why, -EINVAL, "a field is of the wrong JSON type");
	r = decode(j, s, len, why);
	return r < 0 ? r : check_text(kind, *s, *len, why);
}

static int get_text(struct json_object *o, const char *key, enum text_kind kind, bool nullable, char **s, size_t *len,
                    const char **why)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return refuse(why, -EINVAL, "a field is missing");
	if (!v && nullable)
		return 0;
	return text_from_json(v, kind, s, len, why);
}

static int get_path(struct json_object *o, const char *key, enum text_kind kind, bool nullable, char **s,
                    const char **why)
{
	size_t len;

	return get_text(o, key, kind, nullable, s, &len, why);
}

static int get_u64(struct json_object *o, const char *key, uint64_t *v, const char **why)
{
	struct json_object *j;
	int r = field(o, key, json_type_string, &j, why);

	if (r < 0)
		return r;
	if (!parse_u64(json_object_get_string(j), (size_t)json_object_get_string_len(j), v))
		return refuse(why, -EINVAL, "a number is not decimal digits from 0 to 18446744073709551615");
	return 0;
}

static int get_bool(struct json_object *o, const char *key, bool *v, const char **why)
{
	struct json_object *j;
	int r = field(o, key, json_type_boolean, &j, why);

	if (r < 0)
		return r;
	*v = json_object_get_boolean(j);
	return 0;
}

static int get_enum(struct json_object *o, const char *key, const char *const *names, size_t n, unsigned *v,
                    const char **why)
{
	struct json_object *j;
	int r = field(o, key, json_type_string, &j, why);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (strcmp(json_object_get_string(j), names[i]) == 0) {
			*v = (unsigned)i;
			return 0;
		}
	return refuse(why, -EINVAL, "a kind or type is not one this version knows");
}

static int get_names(struct json_object *o, const char *key, enum text_kind kind, struct settle_names *names,
                     const char **why)
{
	struct json_object *a;
	size_t n;
	int r = field(o, key, json_type_array, &a, why);

	if (r < 0)
		return r;
	n = json_object_array_length(a);
	if (n > SETTLE_STATE_MAX_NAMES)
		return refuse(why, -E2BIG, WHY_TOO_LONG);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *s = NULL;
		size_t len;

		r = text_from_json(json_object_array_get_idx(a, i), kind, &s, &len, why);
		if (r < 0)
			return r;
		r = settle_names_add(names, s, len);
		if (r < 0)
			return r;
	}
	return 0;
}

static int gitdir_from_json(struct json_object *o, void *entry, const char **why)
{
	struct settle_gitdir *g = entry;
	unsigned kind;
	int r;

	if ((r = expect_object(o, GITDIR_FIELDS, why)) < 0 ||
	    (r = get_path(o, "path", TEXT_TREE_PATH, false, &g->path, why)) < 0 ||
	    (r = get_u64(o, "dev", &g->dev, why)) < 0 || (r = get_u64(o, "ino", &g->ino, why)) < 0 ||
	    (r = get_enum(o, "kind", gitdir_kinds, ELEMENTSOF(gitdir_kinds), &kind, why)) < 0 ||
	    (r = get_bool(o, "served", &g->served, why)) < 0 ||
	    (r = get_u64(o, "config_print", &g->config_print, why)) < 0 ||
	    (r = get_u64(o, "todo_print", &g->todo_print, why)) < 0 ||
	    (r = get_u64(o, "sequencer_print", &g->sequencer_print, why)) < 0 ||
	    (r = get_names(o, "hooks", TEXT_NAME, &g->hooks, why)) < 0 ||
	    (r = get_names(o, "modules", TEXT_SUB_PATH, &g->modules, why)) < 0 ||
	    (r = get_names(o, "worktrees", TEXT_NAME, &g->worktrees, why)) < 0 ||
	    (r = get_names(o, "gitlinks", TEXT_SUB_PATH, &g->gitlinks, why)) < 0)
		return r;
	g->kind = (enum settle_gitdir_kind)kind;
	return 0;
}

static int dotgit_from_json(struct json_object *o, void *entry, const char **why)
{
	struct settle_dotgit *d = entry;
	unsigned type;
	int r;

	if ((r = expect_object(o, DOTGIT_FIELDS, why)) < 0 ||
	    (r = get_path(o, "path", TEXT_SUB_PATH, false, &d->path, why)) < 0 ||
	    (r = get_enum(o, "type", dotgit_types, ELEMENTSOF(dotgit_types), &type, why)) < 0)
		return r;
	d->type = (enum settle_dotgit_type)type;
	r = get_text(o, "text", d->type == SETTLE_DOTGIT_FILE ? TEXT_BYTES : TEXT_LINK, true, &d->text, &d->len, why);
	return r < 0 ? r : get_path(o, "target", TEXT_TREE_PATH, true, &d->target, why);
}

/* The array KEY of O into *V (calloc'd; *N set first, so that what a
 * failure leaves is freed whole by settle_state_done()). */
static int get_list(struct json_object *o, const struct list_shape *shape, void **v, size_t *n, const char **why)
{
	struct json_object *a;
	size_t len;
	int r = field(o, shape->key, json_type_array, &a, why);

	if (r < 0)
		return r;
	len = json_object_array_length(a);
	if (len > shape->max)
		return refuse(why, -E2BIG, WHY_TOO_LONG);
	if (len == 0)
		return 0;
	*v = calloc(len, shape->size);
	if (!*v)
		return -ENOMEM;
	*n = len;
	for (size_t i = 0; i < len; i++) {
		r = shape->from_json(json_object_array_get_idx(a, i), (char *)*v + i * shape->size, why);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- The state and the file --------------------------------------------- */

static const struct list_shape gitdirs_shape = {
        "gitdirs", SETTLE_STATE_MAX_GITDIRS, sizeof(struct settle_gitdir), gitdir_to_json, gitdir_from_json,
};
static const struct list_shape dotgits_shape = {
        "dotgits", SETTLE_STATE_MAX_DOTGITS, sizeof(struct settle_dotgit), dotgit_to_json, dotgit_from_json,
};

/* check_unique() takes an entry's path at offset 0. */
_Static_assert(offsetof(struct settle_gitdir, path) == 0, "a gitdir starts with its path");
_Static_assert(offsetof(struct settle_dotgit, path) == 0, "a dotgit starts with its path");

static int state_to_json(const struct settle_state *s, struct json_object *o, const char **why)
{
	int r;

	if ((r = put_path(o, "dir", TEXT_ABSOLUTE, s->dir, false, why)) < 0 || (r = put_u64(o, "dev", s->dev)) < 0 ||
	    (r = put_u64(o, "ino", s->ino)) < 0 ||
	    (r = put_list(o, &gitdirs_shape, s->gitdirs, s->n_gitdirs, why)) < 0 ||
	    (r = put_list(o, &dotgits_shape, s->dotgits, s->n_dotgits, why)) < 0)
		return r;
	return put_names(o, "locked", TEXT_TREE_PATH, &s->locked, why);
}

static int state_from_json(struct json_object *o, struct settle_state *s, const char **why)
{
	int r;

	if ((r = expect_object(o, STATE_FIELDS, why)) < 0 ||
	    (r = get_path(o, "dir", TEXT_ABSOLUTE, false, &s->dir, why)) < 0 ||
	    (r = get_u64(o, "dev", &s->dev, why)) < 0 || (r = get_u64(o, "ino", &s->ino, why)) < 0 ||
	    (r = get_list(o, &gitdirs_shape, (void **)&s->gitdirs, &s->n_gitdirs, why)) < 0 ||
	    (r = get_list(o, &dotgits_shape, (void **)&s->dotgits, &s->n_dotgits, why)) < 0)
		return r;
	return get_names(o, "locked", TEXT_TREE_PATH, &s->locked, why);
}

/* The lower-case hex SHA-256 of the LEN bytes at BODY, then TAIL_LEN at TAIL. */
static void body_hash(const char *body, size_t len, const char *tail, size_t tail_len, char hex[HASH_HEX + 1])
{
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct sha256_ctx c;

	sha256_init(&c);
	sha256_update(&c, len, (const uint8_t *)body);
	sha256_update(&c, tail_len, (const uint8_t *)tail);
	sha256_digest(&c, sizeof(digest), digest);
	for (size_t i = 0; i < sizeof(digest); i++) {
		hex[2 * i] = "0123456789abcdef"[digest[i] >> 4];
		hex[2 * i + 1] = "0123456789abcdef"[digest[i] & 15];
	}
	hex[HASH_HEX] = '\0';
}

/* The header line, JSON and its newline, in one malloc'd buffer. */
static int assemble(const char *json, size_t json_len, char **out, size_t *len, const char **why)
{
	char hex[HASH_HEX + 1], header[sizeof(HEADER_MAGIC) + U64_DIGITS + sizeof(HEADER_HASH) + HASH_HEX + 1];
	size_t header_len, total;

	body_hash(json, json_len, "\n", 1, hex);
	header_len = (size_t)snprintf(header, sizeof(header), HEADER_MAGIC "%u" HEADER_HASH "%s\n",
	                              SETTLE_STATE_VERSION, hex);
	total = header_len + json_len + 1;
	if (total > SETTLE_STATE_MAX_BYTES)
		return refuse(why, -E2BIG, WHY_TOO_LARGE);
	*out = malloc(total + 1);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, header, header_len);
	memcpy(*out + header_len, json, json_len);
	(*out)[total - 1] = '\n';
	(*out)[total] = '\0';
	*len = total;
	return 0;
}

static int state_format(const struct settle_state *s, char **out, size_t *len, const char **why)
{
	_cleanup_(json_object_putp) struct json_object *o = json_object_new_object();
	const char *json;
	size_t json_len;
	int r;

	*out = NULL;
	*len = 0;
	if (!o)
		return -ENOMEM;
	r = state_to_json(s, o, why);
	if (r < 0)
		return r;
	json = json_object_to_json_string_length(o, WRITE_FLAGS, &json_len);
	if (!json)
		return -ENOMEM;
	return assemble(json, json_len, out, len, why);
}

int settle_state_format(const struct settle_state *s, char **out, size_t *len)
{
	const char *why;

	return state_format(s, out, len, &why);
}

/* The header line of BUF (LEN bytes); *BODY is where the body starts. */
static int read_header(const char *buf, size_t len, size_t *body, const char **why)
{
	const size_t magic = strlen(HEADER_MAGIC), hash = strlen(HEADER_HASH);
	const char *nl, *p, *space;
	uint64_t version;

	if (len < magic || memcmp(buf, HEADER_MAGIC, magic) != 0)
		return refuse(why, -EINVAL, "the file does not start with a STATE header line");
	nl = memchr(buf, '\n', len);
	p = buf + magic;
	space = nl ? memchr(p, ' ', (size_t)(nl - p)) : NULL;
	if (!space || !parse_u64(p, (size_t)(space - p), &version))
		return refuse(why, -EINVAL, "the STATE header line is garbled");
	if (version != SETTLE_STATE_VERSION)
		return refuse(why, -EINVAL, "the STATE is of a version this oz0settle does not read");
	if ((size_t)(nl - space) != hash + HASH_HEX || memcmp(space, HEADER_HASH, hash) != 0 ||
	    strspn(space + hash, "0123456789abcdef") < HASH_HEX)
		return refuse(why, -EINVAL, "the STATE header line is garbled");
	*body = (size_t)(nl + 1 - buf);
	return 0;
}

/* The JSON document that is the body (LEN bytes at BODY), whole. */
static int read_json(const char *body, size_t len, struct json_object **out, const char **why)
{
	_cleanup_(json_tokener_freep) struct json_tokener *tok = json_tokener_new_ex(JSON_DEPTH);

	if (!tok)
		return -ENOMEM;
	*out = json_tokener_parse_ex(tok, body, (int)len);
	if (!*out && json_tokener_get_error(tok) != json_tokener_success)
		return refuse(why, -EINVAL, "the body is not JSON");
	if (json_tokener_get_parse_end(tok) != len)
		return refuse(why, -EINVAL, "the body has bytes after its JSON document");
	return 0;
}

static int parse_into(const char *buf, size_t len, struct settle_state *s, const char **why)
{
	_cleanup_(json_object_putp) struct json_object *root = NULL;
	_cleanup_free_ char *again = NULL;
	char hex[HASH_HEX + 1];
	size_t body, again_len;
	int r;

	if (len > SETTLE_STATE_MAX_BYTES)
		return refuse(why, -E2BIG, WHY_TOO_LARGE);
	r = read_header(buf, len, &body, why);
	if (r < 0)
		return r;
	body_hash(buf + body, len - body, "", 0, hex);
	if (memcmp(buf + body - 1 - HASH_HEX, hex, HASH_HEX) != 0)
		return refuse(why, -EINVAL, "the checksum does not match the body");
	r = read_json(buf + body, len - body, &root, why);
	if (r < 0)
		return r;
	r = state_from_json(root, s, why);
	if (r < 0)
		return r;
	s->version = SETTLE_STATE_VERSION;
	r = state_format(s, &again, &again_len, why);
	if (r < 0)
		return r;
	if (again_len != len || memcmp(again, buf, len) != 0)
		return refuse(why, -EINVAL, "the body is not in the form this version writes");
	return 0;
}

int settle_state_parse(const char *buf, size_t len, struct settle_state *out, const char **why)
{
	struct settle_state s = {0};
	int r;

	*why = NULL;
	*out = (struct settle_state){0};
	r = parse_into(buf, len, &s, why);
	if (r < 0) {
		settle_state_done(&s);
		return r;
	}
	*out = s;
	return 0;
}
