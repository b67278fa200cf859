#include "config.h"

/* The settler's STATE (git/settle/state.h): a rich state round trip, byte
 * for byte; every refusal of parse, each with its reason, an empty result
 * and nothing left allocated (counted in the sanitizer build); the bounds;
 * the names helpers; writing and reading a real file. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/settle/state.h"

#define WHY_WRONG_TYPE "a field is of the wrong JSON type"
#define WHY_NUMBER     "a number is not decimal digits from 0 to 18446744073709551615"
#define WHY_ENUM       "a kind or type is not one this version knows"
#define WHY_FORM       "the body is not in the form this version writes"
#define WHY_SHAPE                                                                                                      \
	"a path is not of the form its field asks for (tree-relative, one name or absolute, without an empty, '.' "    \
	"or '..' component)"
#define WHY_LIST  "a list holds more entries than a STATE may"
#define WHY_TWICE "a list holds the same path or name twice"

/* The bytes malloc'd and not freed, as ASan's allocator counts them, to the
 * byte: criterion's workers never run LeakSanitizer at their exit, so a
 * leak is looked for here. Without ASan nothing is counted. */
#ifdef __SANITIZE_ADDRESS__
size_t __sanitizer_get_current_allocated_bytes(void);

static size_t held_bytes(void)
{
	return __sanitizer_get_current_allocated_bytes();
}
#else
static size_t held_bytes(void)
{
	return 0;
}
#endif

/* ---- States to write ------------------------------------------------------ */

static void add_name(struct settle_names *n, const char *name)
{
	cr_assert_eq(settle_names_add(n, name, strlen(name)), 0);
}

static char *dup_bytes(const char *s, size_t len)
{
	char *p = malloc(len + 1);

	cr_assert_not_null(p);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* The bytes FIRST to LAST in order, NUL-terminated. */
static char *byte_run(unsigned first, unsigned last)
{
	char *p = malloc(last - first + 2);
	size_t n = 0;

	cr_assert_not_null(p);
	for (unsigned c = first; c <= last; c++)
		p[n++] = (char)c;
	p[n] = '\0';
	return p;
}

/* Every byte 1..255: "\001...." then '/' then "0...\377", a path of two
 * components neither "", "." nor "..". */
static char *every_byte_path(void)
{
	return byte_run(1, 255);
}

/* Every byte 1..255 but '/': one name. */
static char *every_byte_name(void)
{
	_cleanup_free_ char *low = byte_run(1, '/' - 1), *high = byte_run('/' + 1, 255);
	char *p;

	cr_assert_geq(asprintf(&p, "%s%s", low, high), 0);
	return p;
}

static char *prefixed(const char *prefix, const char *s)
{
	char *p;

	cr_assert_geq(asprintf(&p, "%s%s", prefix, s), 0);
	return p;
}

static void rich_gitdirs(struct settle_state *s)
{
	_cleanup_free_ char *path = every_byte_path(), *name = every_byte_name();

	s->n_gitdirs = 5;
	s->gitdirs = calloc(s->n_gitdirs, sizeof(*s->gitdirs));
	cr_assert_not_null(s->gitdirs);
	for (size_t i = 0; i < s->n_gitdirs; i++) {
		struct settle_gitdir *g = &s->gitdirs[i];

		g->kind = (enum settle_gitdir_kind)i;
		g->dev = UINT64_MAX - i;
		g->ino = (UINT64_C(1) << 63) | i;
		g->config_print = i ? UINT64_C(0x8000000000000001) * i : 0;
		g->todo_print = UINT64_MAX;
		g->sequencer_print = i;
		g->served = i % 2 == 0;
	}
	/* The first has every list full of odd names, the last none at all. */
	s->gitdirs[0].path = strdup(".git");
	s->gitdirs[1].path = prefixed("named/", path);
	s->gitdirs[2].path = strdup(".git/modules/a/b");
	s->gitdirs[3].path = strdup(".git/worktrees/w\nx");
	s->gitdirs[4].path = strdup("");
	add_name(&s->gitdirs[0].hooks, "pre-commit");
	add_name(&s->gitdirs[0].hooks, name);
	add_name(&s->gitdirs[0].hooks, "%41 50%");
	add_name(&s->gitdirs[0].modules, "a/b");
	add_name(&s->gitdirs[0].modules, path);
	add_name(&s->gitdirs[0].worktrees, "w\nx");
	add_name(&s->gitdirs[0].gitlinks, "sub");
	add_name(&s->gitdirs[0].gitlinks, "d\xff/\x80\x01");
}

static void rich_dotgits(struct settle_state *s)
{
	static const char file_text[] = "gitdir: .git/modules/sub\0after the NUL\n\xff";
	_cleanup_free_ char *path = every_byte_path();

	s->n_dotgits = 5;
	s->dotgits = calloc(s->n_dotgits, sizeof(*s->dotgits));
	cr_assert_not_null(s->dotgits);
	s->dotgits[0] =
	        (struct settle_dotgit){.path = strdup(".git"), .type = SETTLE_DOTGIT_DIR, .target = strdup(".git")};
	s->dotgits[1] = (struct settle_dotgit){
	        .path = strdup("sub/.git"),
	        .type = SETTLE_DOTGIT_FILE,
	        .text = dup_bytes(file_text, sizeof(file_text) - 1),
	        .len = sizeof(file_text) - 1,
	        .target = strdup(".git/modules/sub"),
	};
	s->dotgits[2] = (struct settle_dotgit){
	        .path = prefixed("", path), .type = SETTLE_DOTGIT_LINK, .text = strdup("/elsewhere/\n\x80"), .len = 13};
	s->dotgits[3] = (struct settle_dotgit){.path = strdup("fifo/.git"), .type = SETTLE_DOTGIT_OTHER};
	/* A .git file that could not be read: no text, no target. */
	s->dotgits[4] = (struct settle_dotgit){.path = strdup("empty/.git"), .type = SETTLE_DOTGIT_FILE};
}

static void rich_state(struct settle_state *s)
{
	_cleanup_free_ char *path = every_byte_path();

	*s = (struct settle_state){.version = SETTLE_STATE_VERSION, .dev = UINT64_MAX, .ino = UINT64_C(1) << 63};
	s->dir = prefixed("/", path);
	rich_gitdirs(s);
	rich_dotgits(s);
	add_name(&s->locked, "");
	add_name(&s->locked, "locked\n/x\xfe");
}

/* The smallest state with one of each: the refusals below edit its body. */
static void small_state(struct settle_state *s)
{
	static const char text[] = "gitdir: ../.git/modules/sub\n";

	*s = (struct settle_state){.version = SETTLE_STATE_VERSION, .dir = strdup("/t"), .dev = 1, .ino = 2};
	s->n_gitdirs = 1;
	s->gitdirs = calloc(1, sizeof(*s->gitdirs));
	cr_assert_not_null(s->gitdirs);
	s->gitdirs[0] = (struct settle_gitdir){.path = strdup(".git"),
	                                       .dev = 3,
	                                       .ino = 4,
	                                       .kind = SETTLE_GITDIR_DOTGIT,
	                                       .served = true,
	                                       .config_print = 5};
	add_name(&s->gitdirs[0].hooks, "pre-commit");
	s->n_dotgits = 1;
	s->dotgits = calloc(1, sizeof(*s->dotgits));
	cr_assert_not_null(s->dotgits);
	s->dotgits[0] = (struct settle_dotgit){.path = strdup("sub/.git"),
	                                       .type = SETTLE_DOTGIT_FILE,
	                                       .text = strdup(text),
	                                       .len = sizeof(text) - 1,
	                                       .target = strdup(".git/modules/sub")};
}

static const char small_body[] =
        "{\"dir\":\"/t\",\"dev\":\"1\",\"ino\":\"2\",\"gitdirs\":[{\"path\":\".git\",\"dev\":\"3\",\"ino\":\"4\","
        "\"kind\":\"dotgit\",\"served\":true,\"config_print\":\"5\",\"todo_print\":\"0\",\"sequencer_print\":\"0\","
        "\"hooks\":[\"pre-commit\"],\"modules\":[],\"worktrees\":[],\"gitlinks\":[]}],\"dotgits\":[{\"path\":"
        "\"sub/.git\",\"type\":\"file\",\"text\":\"gitdir: ../.git/modules/sub%0A\",\"target\":\".git/modules/sub\"}],"
        "\"locked\":[]}\n";

/* ---- Comparing ------------------------------------------------------------ */

static void assert_names_equal(const struct settle_names *a, const struct settle_names *b)
{
	cr_assert_eq(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		cr_assert_str_eq(a->v[i], b->v[i]);
}

static void assert_opt_str_equal(const char *a, const char *b)
{
	cr_assert_eq(!a, !b);
	if (a)
		cr_assert_str_eq(a, b);
}

static void assert_gitdirs_equal(const struct settle_gitdir *a, const struct settle_gitdir *b)
{
	cr_assert_str_eq(a->path, b->path);
	cr_assert_eq(a->dev, b->dev);
	cr_assert_eq(a->ino, b->ino);
	cr_assert_eq(a->kind, b->kind);
	cr_assert_eq(a->served, b->served);
	cr_assert_eq(a->config_print, b->config_print);
	cr_assert_eq(a->todo_print, b->todo_print);
	cr_assert_eq(a->sequencer_print, b->sequencer_print);
	assert_names_equal(&a->hooks, &b->hooks);
	assert_names_equal(&a->modules, &b->modules);
	assert_names_equal(&a->worktrees, &b->worktrees);
	assert_names_equal(&a->gitlinks, &b->gitlinks);
}

static void assert_dotgits_equal(const struct settle_dotgit *a, const struct settle_dotgit *b)
{
	cr_assert_str_eq(a->path, b->path);
	cr_assert_eq(a->type, b->type);
	cr_assert_eq(!a->text, !b->text);
	if (a->text) {
		cr_assert_eq(a->len, b->len);
		cr_assert_eq(memcmp(a->text, b->text, a->len), 0);
		cr_assert_eq(b->text[b->len], '\0', "text is NUL-terminated after its bytes");
	}
	assert_opt_str_equal(a->target, b->target);
}

static void assert_states_equal(const struct settle_state *a, const struct settle_state *b)
{
	cr_assert_eq(b->version, SETTLE_STATE_VERSION);
	cr_assert_str_eq(a->dir, b->dir);
	cr_assert_eq(a->dev, b->dev);
	cr_assert_eq(a->ino, b->ino);
	cr_assert_eq(a->n_gitdirs, b->n_gitdirs);
	for (size_t i = 0; i < a->n_gitdirs; i++)
		assert_gitdirs_equal(&a->gitdirs[i], &b->gitdirs[i]);
	cr_assert_eq(a->n_dotgits, b->n_dotgits);
	for (size_t i = 0; i < a->n_dotgits; i++)
		assert_dotgits_equal(&a->dotgits[i], &b->dotgits[i]);
	assert_names_equal(&a->locked, &b->locked);
}

static void assert_empty(const struct settle_state *s)
{
	cr_assert_eq(s->version, 0);
	cr_assert_null(s->dir);
	cr_assert_eq(s->dev, 0);
	cr_assert_eq(s->ino, 0);
	cr_assert_null(s->gitdirs);
	cr_assert_eq(s->n_gitdirs, 0);
	cr_assert_null(s->dotgits);
	cr_assert_eq(s->n_dotgits, 0);
	cr_assert_null(s->locked.v);
	cr_assert_eq(s->locked.n, 0);
}

/* ---- Files to parse ------------------------------------------------------- */

/* A STATE file of BODY (LEN bytes) under a header line whose checksum matches. */
static char *with_header(const char *body, size_t len, size_t *file_len)
{
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct sha256_ctx c;
	size_t n = 0, cap = 128 + len;
	char *file = malloc(cap);

	cr_assert_not_null(file);
	sha256_init(&c);
	sha256_update(&c, len, (const uint8_t *)body);
	sha256_digest(&c, sizeof(digest), digest);
	n += (size_t)snprintf(file, cap, "oz0settle-state %d sha256:", SETTLE_STATE_VERSION);
	for (size_t i = 0; i < sizeof(digest); i++)
		n += (size_t)snprintf(file + n, cap - n, "%02x", digest[i]);
	file[n++] = '\n';
	memcpy(file + n, body, len);
	*file_len = n + len;
	return file;
}

/* Parses LEN bytes at BUF, expecting ERR and WHY and an empty result. */
static void expect_refused(const char *buf, size_t len, int err, const char *why)
{
	struct settle_state out = {.dir = (char *)"left over", .n_gitdirs = 7};
	const char *got = NULL;
	size_t held = held_bytes();
	int r = settle_state_parse(buf, len, &out, &got);

	cr_assert_eq(held_bytes(), held, "a refusal leaves nothing allocated");
	cr_assert_eq(r, err, "refused with %d (%s)", r, got ? got : "");
	cr_assert_not_null(got);
	cr_assert_str_eq(got, why);
	assert_empty(&out);
}

static void expect_body_refused(const char *body, size_t len, int err, const char *why)
{
	size_t n;
	_cleanup_free_ char *file = with_header(body, len, &n);

	expect_refused(file, n, err, why);
}

/* small_body with the first FROM replaced by TO, under a matching header. */
static void expect_edit_refused(const char *from, const char *to, int err, const char *why)
{
	const char *at = strstr(small_body, from);
	_cleanup_free_ char *body = NULL;

	cr_assert_not_null(at, "small_body holds %s", from);
	cr_assert_geq(asprintf(&body, "%.*s%s%s", (int)(at - small_body), small_body, to, at + strlen(from)), 0);
	expect_body_refused(body, strlen(body), err, why);
}

static void format_ok(const struct settle_state *s, char **buf, size_t *len)
{
	cr_assert_eq(settle_state_format(s, buf, len), 0);
	cr_assert_eq(strlen(*buf), *len, "the file holds no NUL and is NUL-terminated");
}

/* ---- Round trips ------------------------------------------------------------ */

Test(settle_state, rich_state_round_trips_byte_for_byte)
{
	_cleanup_(settle_state_done) struct settle_state s, back = {0};
	_cleanup_free_ char *buf = NULL, *again = NULL;
	const char *why = "unset";
	size_t len, again_len;

	struct settle_state once;
	size_t held;

	rich_state(&s);
	format_ok(&s, &buf, &len);
	cr_assert_eq(settle_state_parse(buf, len, &back, &why), 0, "%s", why ? why : "");
	cr_assert_null(why);
	assert_states_equal(&s, &back);
	format_ok(&back, &again, &again_len);
	cr_assert_eq(again_len, len);
	cr_assert_eq(memcmp(again, buf, len), 0);
	held = held_bytes();
	cr_assert_eq(settle_state_parse(buf, len, &once, &why), 0);
	settle_state_done(&once);
	cr_assert_eq(held_bytes(), held, "settle_state_done() frees all parse took");
	assert_empty(&once);
}

Test(settle_state, every_byte_but_nul_is_written_as_printable_ascii)
{
	_cleanup_(settle_state_done) struct settle_state s;
	_cleanup_free_ char *buf = NULL;
	size_t len;

	rich_state(&s);
	format_ok(&s, &buf, &len);
	for (size_t i = 0; i < len - 1; i++)
		cr_assert(buf[i] == '\n' ? memchr(buf, '\n', len) == buf + i : buf[i] >= 0x20 && buf[i] <= 0x7e,
		          "byte %zu is 0x%02x", i, (unsigned char)buf[i]);
	cr_assert_eq(buf[len - 1], '\n');
	cr_assert_not_null(strstr(buf, "\"text\":\"gitdir: .git/modules/sub%00after the NUL%0A%FF\""));
	cr_assert_not_null(strstr(buf, "\"dev\":\"18446744073709551615\",\"ino\":\"9223372036854775808\""));
	cr_assert_not_null(strstr(buf, "\"%2541 50%25\""));
}

Test(settle_state, the_small_state_is_written_as_documented)
{
	_cleanup_(settle_state_done) struct settle_state s;
	_cleanup_free_ char *buf = NULL, *want = NULL;
	size_t len, want_len;

	small_state(&s);
	format_ok(&s, &buf, &len);
	want = with_header(small_body, strlen(small_body), &want_len);
	cr_assert_eq(len, want_len);
	cr_assert_eq(memcmp(buf, want, len), 0, "%s", buf);
}

Test(settle_state, empty_lists_round_trip)
{
	_cleanup_(settle_state_done) struct settle_state s = {.dir = strdup("/")}, back;
	_cleanup_free_ char *buf = NULL;
	const char *why;
	size_t len;

	format_ok(&s, &buf, &len);
	cr_assert_not_null(strstr(buf, "{\"dir\":\"/\",\"dev\":\"0\",\"ino\":\"0\",\"gitdirs\":[],\"dotgits\":[],"
	                               "\"locked\":[]}\n"));
	cr_assert_eq(settle_state_parse(buf, len, &back, &why), 0);
	assert_states_equal(&s, &back);
}

Test(settle_state, format_writes_this_version_whatever_the_state_says)
{
	_cleanup_(settle_state_done) struct settle_state s = {.version = 9, .dir = strdup("/")};
	_cleanup_free_ char *buf = NULL;
	size_t len;

	format_ok(&s, &buf, &len);
	cr_assert_eq(strncmp(buf, "oz0settle-state 1 sha256:", 25), 0);
}

/* ---- Refusals: the header and the checksum ---------------------------------- */

Test(settle_state, an_empty_file_is_refused)
{
	expect_refused("", 0, -EINVAL, "the file does not start with a STATE header line");
}

Test(settle_state, a_body_without_header_is_refused)
{
	expect_refused(small_body, strlen(small_body), -EINVAL, "the file does not start with a STATE header line");
}

static void expect_header_refused(const char *header, const char *why)
{
	_cleanup_free_ char *file = NULL;

	cr_assert_geq(asprintf(&file, "%s%s", header, small_body), 0);
	expect_refused(file, strlen(file), -EINVAL, why);
}

#define HEX64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

Test(settle_state, a_garbled_header_is_refused)
{
	static const char *const headers[] = {
	        "oz0settle-state one sha256:" HEX64 "\n",
	        "oz0settle-state 01 sha256:" HEX64 "\n",
	        "oz0settle-state  sha256:" HEX64 "\n",
	        "oz0settle-state 1 sha256:" HEX64 "0\n",
	        "oz0settle-state 1 sha256:" HEX64 " \n",
	        "oz0settle-state 1 sha1:" HEX64 "\n",
	        "oz0settle-state 1 sha256:0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef\n",
	        "oz0settle-state 1 sha256:g123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
	        "oz0settle-state 1\n",
	        "oz0settle-state 1 sha256:" HEX64,
	};

	for (size_t i = 0; i < ELEMENTSOF(headers); i++)
		expect_header_refused(headers[i], "the STATE header line is garbled");
	expect_refused("oz0settle-state 1", 17, -EINVAL, "the STATE header line is garbled");
}

Test(settle_state, another_version_is_refused)
{
	expect_header_refused("oz0settle-state 2 sha256:" HEX64 "\n",
	                      "the STATE is of a version this oz0settle does not read");
	expect_header_refused("oz0settle-state 0 sha512:whatever\n",
	                      "the STATE is of a version this oz0settle does not read");
	expect_header_refused("oz0settle-state 18446744073709551617 sha256:" HEX64 "\n",
	                      "the STATE header line is garbled");
}

Test(settle_state, a_changed_body_fails_the_checksum)
{
	size_t len;
	_cleanup_free_ char *file = with_header(small_body, strlen(small_body), &len);

	file[len - 5] ^= 1;
	expect_refused(file, len, -EINVAL, "the checksum does not match the body");
}

Test(settle_state, a_body_cut_short_fails_the_checksum)
{
	size_t len;
	_cleanup_free_ char *file = with_header(small_body, strlen(small_body), &len);

	expect_refused(file, len - 1, -EINVAL, "the checksum does not match the body");
	expect_refused(file, len - strlen(small_body), -EINVAL, "the checksum does not match the body");
}

Test(settle_state, a_file_past_the_bound_is_refused_before_it_is_read)
{
	_cleanup_free_ char *big = malloc(SETTLE_STATE_MAX_BYTES + 1);

	cr_assert_not_null(big);
	memset(big, ' ', SETTLE_STATE_MAX_BYTES + 1);
	memcpy(big, "oz0settle-state 1 sha256:", 25);
	expect_refused(big, SETTLE_STATE_MAX_BYTES + 1, -E2BIG, "the STATE is larger than a STATE may be");
}

/* ---- Refusals: the JSON ------------------------------------------------------- */

Test(settle_state, a_body_that_is_not_json_is_refused)
{
	expect_body_refused("hello\n", 6, -EINVAL, "the body is not JSON");
	expect_body_refused("", 0, -EINVAL, "the body is not JSON");
	expect_body_refused(small_body, strlen(small_body) - 3, -EINVAL, "the body is not JSON");
	expect_body_refused("{\"dir\":\0}\n", 10, -EINVAL, "the body is not JSON");
	expect_body_refused("[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]\n", 33, -EINVAL, "the body is not JSON");
}

Test(settle_state, trailing_garbage_is_refused)
{
	_cleanup_free_ char *body = NULL;

	cr_assert_geq(asprintf(&body, "%sx", small_body), 0);
	expect_body_refused(body, strlen(body), -EINVAL, "the body has bytes after its JSON document");
	free(body);
	cr_assert_geq(asprintf(&body, "%s{}", small_body), 0);
	expect_body_refused(body, strlen(body), -EINVAL, "the body has bytes after its JSON document");
	free(body);
	body = malloc(strlen(small_body) + 2);
	cr_assert_not_null(body);
	memcpy(body, small_body, strlen(small_body) + 1);
	expect_body_refused(body, strlen(small_body) + 1, -EINVAL, "the body has bytes after its JSON document");
}

Test(settle_state, a_body_that_is_not_an_object_is_refused)
{
	expect_body_refused("[]\n", 3, -EINVAL, "the body or an entry of a list is not a JSON object");
	expect_body_refused("null\n", 5, -EINVAL, "the body or an entry of a list is not a JSON object");
	expect_edit_refused("\"gitdirs\":[{", "\"gitdirs\":[\"x\",{", -EINVAL,
	                    "the body or an entry of a list is not a JSON object");
}

/* Each edit of small_body is refused with one reason. */
#define EXPECT_EDITS_REFUSED(edits, err, why)                                                                          \
	for (size_t i_ = 0; i_ < ELEMENTSOF(edits); i_++)                                                              \
	expect_edit_refused((edits)[i_].from, (edits)[i_].to, err, why)

struct edit {
	const char *from, *to;
};

Test(settle_state, spaces_escapes_and_orders_this_format_never_writes_are_refused)
{
	static const struct edit edits[] = {
	        {"{\"dir\"", "{ \"dir\""},
	        {"\"/t\"", "\"/\\u0074\""},
	        {"\"/t\"", "\"\\/t\""},
	        {"}\n", "}\n\n"},
	        {"pre-commit", "pre%2Dcommit"},
	        {"\"dev\":\"1\",\"ino\":\"2\"", "\"ino\":\"2\",\"dev\":\"1\""},
	        {"\"type\":\"file\"", "\"type\":\"file\\u0000\""},
	};

	EXPECT_EDITS_REFUSED(edits, -EINVAL, WHY_FORM);
}

/* ---- Refusals: the shape ---------------------------------------------------- */

Test(settle_state, a_missing_field_is_refused)
{
	static const struct edit edits[] = {
	        {"\"ino\":\"2\",", ""},
	        {"\"served\":true,", ""},
	        {",\"target\":\".git/modules/sub\"", ""},
	        {",\"locked\":[]", ""},
	        /* As many fields as asked, one of them unknown: the asked one is missing. */
	        {"\"ino\":\"2\"", "\"inode\":\"2\""},
	};

	EXPECT_EDITS_REFUSED(edits, -EINVAL, "a field is missing");
}

Test(settle_state, an_unknown_field_is_refused)
{
	static const struct edit edits[] = {
	        {"\"dir\"", "\"extra\":1,\"dir\""},
	        {"\"served\"", "\"bare\":true,\"served\""},
	        {"\"target\"", "\"Target\":null,\"target\""},
	};

	EXPECT_EDITS_REFUSED(edits, -EINVAL, "an object has a field this version does not know");
}

/* json-c keeps the last of a key given twice; the form check sees the first. */
Test(settle_state, a_key_twice_is_refused)
{
	static const struct edit edits[] = {
	        {"\"dir\":\"/t\",", "\"dir\":\"/u\",\"dir\":\"/t\","},
	        {"\"dir\":\"/t\",", "\"dir\":\"/t\",\"dir\":\"/t\","},
	        {"\"served\":true", "\"served\":false,\"served\":true"},
	};

	EXPECT_EDITS_REFUSED(edits, -EINVAL, WHY_FORM);
}

Test(settle_state, a_field_of_the_wrong_type_is_refused)
{
	static const struct edit edits[] = {
	        {"\"served\":true", "\"served\":\"true\""},
	        {"\"served\":true", "\"served\":1"},
	        {"\"dev\":\"1\"", "\"dev\":1"},
	        {"\"dev\":\"1\"", "\"dev\":18446744073709551615"},
	        {"\"dir\":\"/t\"", "\"dir\":null"},
	        {"\"path\":\".git\"", "\"path\":[\".git\"]"},
	        {"\"hooks\":[\"pre-commit\"]", "\"hooks\":\"pre-commit\""},
	        {"\"hooks\":[\"pre-commit\"]", "\"hooks\":[7]"},
	        {"\"hooks\":[\"pre-commit\"]", "\"hooks\":[null]"},
	        {"\"locked\":[]", "\"locked\":{}"},
	        {"\"locked\":[]", "\"locked\":\"\""},
	        {"\"target\":\".git/modules/sub\"", "\"target\":false"},
	        {"\"kind\":\"dotgit\"", "\"kind\":0"},
	};

	EXPECT_EDITS_REFUSED(edits, -EINVAL, WHY_WRONG_TYPE);
}

Test(settle_state, an_unknown_kind_or_type_is_refused)
{
	static const struct edit edits[] = {
	        {"\"kind\":\"dotgit\"", "\"kind\":\"submodule\""},
	        {"\"kind\":\"dotgit\"", "\"kind\":\"Dotgit\""},
	        {"\"type\":\"file\"", "\"type\":\"fifo\""},
	        {"\"type\":\"file\"", "\"type\":\"\""},
	};

	EXPECT_EDITS_REFUSED(edits, -EINVAL, WHY_ENUM);
}

Test(settle_state, numbers_negative_out_of_range_or_in_another_form_are_refused)
{
	static const struct edit edits[] = {
	        {"\"dev\":\"3\"", "\"dev\":\"-1\""},
	        {"\"dev\":\"3\"", "\"dev\":\"18446744073709551616\""},
	        {"\"dev\":\"3\"", "\"dev\":\"99999999999999999999\""},
	        {"\"dev\":\"3\"", "\"dev\":\"184467440737095516150\""},
	        {"\"dev\":\"3\"", "\"dev\":\"01\""},
	        {"\"dev\":\"3\"", "\"dev\":\"\""},
	        {"\"dev\":\"3\"", "\"dev\":\"1.0\""},
	        {"\"dev\":\"3\"", "\"dev\":\"+1\""},
	        {"\"dev\":\"3\"", "\"dev\":\"0x1\""},
	        {"\"dev\":\"3\"", "\"dev\":\" 1\""},
	        {"\"dev\":\"3\"", "\"dev\":\"1\\u0000\""},
	};

	EXPECT_EDITS_REFUSED(edits, -EINVAL, WHY_NUMBER);
}

Test(settle_state, the_largest_number_is_read)
{
	_cleanup_(settle_state_done) struct settle_state s;
	const char *at = strstr(small_body, "\"dev\":\"3\"");
	_cleanup_free_ char *body = NULL, *file = NULL;
	const char *why;
	size_t len;

	cr_assert_geq(
	        asprintf(&body, "%.*s\"dev\":\"18446744073709551615\"%s", (int)(at - small_body), small_body, at + 9),
	        0);
	file = with_header(body, strlen(body), &len);
	cr_assert_eq(settle_state_parse(file, len, &s, &why), 0, "%s", why);
	cr_assert_eq(s.gitdirs[0].dev, UINT64_MAX);
}

/* ---- Refusals: the bytes ----------------------------------------------------- */

Test(settle_state, a_nul_in_a_path_or_name_is_refused)
{
	static const struct edit edits[] = {
	        {"\"path\":\".git\"", "\"path\":\".git%00x\""},
	        {"\"pre-commit\"", "\"pre%00commit\""},
	        {"\"dir\":\"/t\"", "\"dir\":\"/t%00\""},
	        {"\"target\":\".git/modules/sub\"", "\"target\":\"%00\""},
	        /* A link's target holds no NUL; a .git file may. */
	        {"\"type\":\"file\",\"text\":\"gitdir: ../", "\"type\":\"link\",\"text\":\"%00../"},
	};

	EXPECT_EDITS_REFUSED(edits, -EINVAL, "a path or name holds a NUL byte");
}

Test(settle_state, a_byte_this_format_escapes_is_refused_raw)
{
	static const struct edit edits[] = {
	        {"\"/t\"", "\"/t\xc3\xa9\""}, {"\"/t\"", "\"/t\\u00e9\""}, {"\"/t\"", "\"/t\\n\""},
	        {"\"/t\"", "\"/t\t\""},       {"\"/t\"", "\"/t\\u0000\""},
	};

	EXPECT_EDITS_REFUSED(edits, -EINVAL, "a string holds a byte this version writes as %XX");
}

Test(settle_state, a_broken_escape_is_refused)
{
	static const struct edit edits[] = {
	        {"\"/t\"", "\"/t%\""},   {"\"/t\"", "\"/t%4\""},   {"\"/t\"", "\"/t%0a\""},
	        {"\"/t\"", "\"/t%G0\""}, {"\"/t\"", "\"/t%%41\""}, {"\"/t\"", "\"/%\""},
	};

	EXPECT_EDITS_REFUSED(edits, -EINVAL, "a string holds a '%' not followed by two upper-case hex digits");
}

Test(settle_state, a_path_of_another_form_is_refused)
{
	static const struct edit edits[] = {
	        {"\"path\":\".git\"", "\"path\":\"/abs\""},
	        {"\"path\":\".git\"", "\"path\":\"../x\""},
	        {"\"path\":\".git\"", "\"path\":\"a//b\""},
	        {"\"path\":\".git\"", "\"path\":\"a/\""},
	        {"\"path\":\".git\"", "\"path\":\".\""},
	        {"\"path\":\".git\"", "\"path\":\"a/./b\""},
	        {"\"path\":\".git\"", "\"path\":\"a/..\""},
	        {"\"path\":\".git\"", "\"path\":\"/\""},
	        {"\"path\":\"sub/.git\"", "\"path\":\"\""},
	        {"\"pre-commit\"", "\"hooks/pre-commit\""},
	        {"\"pre-commit\"", "\"..\""},
	        {"\"pre-commit\"", "\"\""},
	        {"\"modules\":[]", "\"modules\":[\"\"]"},
	        {"\"gitlinks\":[]", "\"gitlinks\":[\"../up\"]"},
	        {"\"locked\":[]", "\"locked\":[\"/etc\"]"},
	        {"\"target\":\".git/modules/sub\"", "\"target\":\"../x\""},
	        {"\"dir\":\"/t\"", "\"dir\":\"t\""},
	        {"\"dir\":\"/t\"", "\"dir\":\"/t/\""},
	        {"\"dir\":\"/t\"", "\"dir\":\"/t/../u\""},
	        {"\"dir\":\"/t\"", "\"dir\":\"\""},
	};

	EXPECT_EDITS_REFUSED(edits, -EINVAL, WHY_SHAPE);
}

Test(settle_state, a_text_on_a_folder_or_special_file_is_refused)
{
	static const struct edit edits[] = {
	        {"\"type\":\"file\"", "\"type\":\"dir\""},
	        {"\"type\":\"file\"", "\"type\":\"other\""},
	};

	EXPECT_EDITS_REFUSED(edits, -EINVAL, "a .git folder or special file has a text");
}

Test(settle_state, the_same_path_twice_in_a_list_is_refused)
{
	static const struct edit edits[] = {
	        {"[\"pre-commit\"]", "[\"pre-commit\",\"pre-commit\"]"},
	        {"\"locked\":[]", "\"locked\":[\"a\",\"b\",\"a\"]"},
	        {"\"dotgits\":[{\"path\":\"sub/.git\",\"type\":\"file\",",
	         "\"dotgits\":[{\"path\":\"sub/.git\",\"type\":\"dir\",\"text\":null,\"target\":null},"
	         "{\"path\":\"sub/.git\",\"type\":\"file\","},
	};

	EXPECT_EDITS_REFUSED(edits, -EINVAL, WHY_TWICE);
}

/* ---- Bounds ------------------------------------------------------------------ */

static char *repeated(const char *piece, size_t n, const char *sep)
{
	size_t plen = strlen(piece), slen = strlen(sep);
	char *p = malloc(n * (plen + slen) + 1), *q = p;

	cr_assert_not_null(p);
	for (size_t i = 0; i < n; i++) {
		memcpy(q, piece, plen);
		q += plen;
		if (i + 1 < n) {
			memcpy(q, sep, slen);
			q += slen;
		}
	}
	*q = '\0';
	return p;
}

static void expect_list_refused(const char *from, const char *before, const char *piece, size_t n, const char *after)
{
	_cleanup_free_ char *items = repeated(piece, n, ","), *to = NULL;

	cr_assert_geq(asprintf(&to, "%s%s%s", before, items, after), 0);
	expect_edit_refused(from, to, -E2BIG, WHY_LIST);
}

Test(settle_state, lists_past_the_bounds_are_refused, .timeout = 60)
{
	expect_list_refused("\"hooks\":[\"pre-commit\"]", "\"hooks\":[", "\"a\"", SETTLE_STATE_MAX_NAMES + 1, "]");
	expect_list_refused("\"locked\":[]", "\"locked\":[", "\"a\"", SETTLE_STATE_MAX_NAMES + 1, "]");
	expect_list_refused("\"dotgits\":[", "\"dotgits\":[", "0", SETTLE_STATE_MAX_DOTGITS, ",");
	expect_list_refused("\"gitdirs\":[", "\"gitdirs\":[", "0", SETTLE_STATE_MAX_GITDIRS, ",");
}

#define WHY_TEXT_LONG "a path, name or .git file is longer than a STATE may hold"

Test(settle_state, a_text_at_the_bound_is_read_and_one_past_it_refused)
{
	_cleanup_(settle_state_done) struct settle_state s, back;
	_cleanup_free_ char *buf = NULL, *past = repeated("a", SETTLE_STATE_MAX_TEXT + 1, ""), *to = NULL;
	_cleanup_free_ char *escaped = repeated("%0A", SETTLE_STATE_MAX_TEXT + 1, "");
	const char *why;
	size_t len;

	small_state(&s);
	s.dotgits[0].text = realloc(s.dotgits[0].text, SETTLE_STATE_MAX_TEXT);
	cr_assert_not_null(s.dotgits[0].text);
	memset(s.dotgits[0].text, '\n', SETTLE_STATE_MAX_TEXT);
	s.dotgits[0].len = SETTLE_STATE_MAX_TEXT;
	past[SETTLE_STATE_MAX_TEXT] = '\0';
	add_name(&s.gitdirs[0].hooks, past);
	format_ok(&s, &buf, &len);
	cr_assert_eq(settle_state_parse(buf, len, &back, &why), 0, "%s", why);
	assert_states_equal(&s, &back);

	past[SETTLE_STATE_MAX_TEXT] = 'a';
	cr_assert_geq(asprintf(&to, "\"%s\"", past), 0);
	expect_edit_refused("\"pre-commit\"", to, -E2BIG, WHY_TEXT_LONG);
	free(to);
	cr_assert_geq(asprintf(&to, "\"text\":\"%s\"", escaped), 0);
	expect_edit_refused("\"text\":\"gitdir: ../.git/modules/sub%0A\"", to, -E2BIG, WHY_TEXT_LONG);
}

Test(settle_state, format_keeps_the_bounds)
{
	_cleanup_(settle_state_done) struct settle_state s;
	_cleanup_free_ char *buf = NULL, *long_name = repeated("a", SETTLE_STATE_MAX_TEXT + 1, "");
	size_t len = 1;

	small_state(&s);
	for (size_t i = 0; i < SETTLE_STATE_MAX_NAMES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "%zu", i);
		add_name(&s.locked, name);
	}
	format_ok(&s, &buf, &len);
	free(TAKE_PTR(buf));
	add_name(&s.locked, "one more");
	cr_assert_eq(settle_state_format(&s, &buf, &len), -E2BIG);
	cr_assert_null(buf);
	cr_assert_eq(len, 0);
	settle_names_done(&s.locked);
	add_name(&s.gitdirs[0].worktrees, long_name);
	cr_assert_eq(settle_state_format(&s, &buf, &len), -E2BIG);
	cr_assert_null(buf);
}

Test(settle_state, format_refuses_what_parse_would)
{
	_cleanup_(settle_state_done) struct settle_state s;
	_cleanup_free_ char *buf = NULL;
	size_t len;
	char *saved;

	small_state(&s);
	s.gitdirs[0].kind = (enum settle_gitdir_kind)5;
	cr_assert_eq(settle_state_format(&s, &buf, &len), -EINVAL);
	s.gitdirs[0].kind = SETTLE_GITDIR_BARE;
	s.dotgits[0].type = SETTLE_DOTGIT_DIR;
	cr_assert_eq(settle_state_format(&s, &buf, &len), -EINVAL, "a folder has no text");
	s.dotgits[0].type = SETTLE_DOTGIT_LINK;
	s.dotgits[0].text[3] = '\0';
	cr_assert_eq(settle_state_format(&s, &buf, &len), -EINVAL, "a link's target has no NUL");
	s.dotgits[0].type = SETTLE_DOTGIT_FILE;
	format_ok(&s, &buf, &len);
	free(TAKE_PTR(buf));
	saved = TAKE_PTR(s.gitdirs[0].path);
	cr_assert_eq(settle_state_format(&s, &buf, &len), -EINVAL, "a path is missing");
	s.gitdirs[0].path = strdup("../up");
	free(saved);
	cr_assert_eq(settle_state_format(&s, &buf, &len), -EINVAL);
	free(s.gitdirs[0].path);
	s.gitdirs[0].path = strdup(".git");
	add_name(&s.gitdirs[0].hooks, "pre-commit");
	cr_assert_eq(settle_state_format(&s, &buf, &len), -EINVAL, "a hook twice");
	cr_assert_null(buf);
}

/* ---- The names helpers ------------------------------------------------------- */

Test(settle_names, add_has_and_done)
{
	struct settle_names n = {0};
	char name[16];

	cr_assert_not(settle_names_has(&n, "a"));
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		add_name(&n, name);
	}
	cr_assert_eq(n.n, 1000);
	cr_assert(settle_names_has(&n, "n0"));
	cr_assert(settle_names_has(&n, "n999"));
	cr_assert_not(settle_names_has(&n, "n1000"));
	cr_assert_not(settle_names_has(&n, "n"));
	cr_assert_eq(settle_names_add(&n, "abc", 2), 0, "LEN bytes of a longer string");
	cr_assert_str_eq(n.v[1000], "ab");
	cr_assert_eq(settle_names_add(&n, "", 0), 0);
	cr_assert(settle_names_has(&n, ""));
	settle_names_done(&n);
	cr_assert_null(n.v);
	cr_assert_eq(n.n, 0);
	settle_names_done(&n);
}

Test(settle_names, a_name_with_a_nul_is_refused)
{
	struct settle_names n = {0};

	cr_assert_eq(settle_names_add(&n, "a\0b", 3), -EINVAL);
	cr_assert_eq(n.n, 0);
	settle_names_done(&n);
}

Test(settle_state, done_takes_an_empty_state_twice)
{
	struct settle_state s = {0};

	settle_state_done(&s);
	settle_state_done(&s);
	assert_empty(&s);
}

/* ---- Files --------------------------------------------------------------------- */

static char top[] = P_tmpdir "/oz0-settle-state-XXXXXX";

static void make_top(void)
{
	cr_assert_not_null(mkdtemp(top));
}

static void remove_top(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(settle_state_file, .init = make_top, .fini = remove_top, .timeout = 10);

static char *in_top(const char *name)
{
	return prefixed(top, name);
}

static size_t entries_of_top(void)
{
	_cleanup_free_ char *cmd = NULL;
	FILE *p;
	size_t n = 0;
	char line[PATH_MAX];

	cr_assert_geq(asprintf(&cmd, "ls -A '%s'", top), 0);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p))
		n++;
	pclose(p);
	return n;
}

/* Reads FILE expecting ERR and WHY (NULL: none), an empty result, nothing held. */
static void expect_read_refused(const char *file, int err, const char *why)
{
	struct settle_state back = {.dir = (char *)"left over"};
	const char *got = "unset";
	size_t held = held_bytes();
	int r = settle_state_read(file, &back, &got);

	cr_assert_eq(held_bytes(), held, "a refusal leaves nothing allocated");
	cr_assert_eq(r, err, "read gave %d (%s)", r, got ? got : "");
	if (why)
		cr_assert_str_eq(got, why);
	else
		cr_assert_null(got);
	assert_empty(&back);
}

static void write_file(const char *file, const char *data, size_t len)
{
	int fd = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

Test(settle_state_file, written_then_read)
{
	_cleanup_(settle_state_done) struct settle_state s, back;
	_cleanup_free_ char *file = in_top("/STATE");
	const char *why;
	struct stat st;

	rich_state(&s);
	cr_assert_eq(settle_state_write(&s, file), 0);
	cr_assert_eq(stat(file, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	cr_assert_eq(entries_of_top(), 1, "no temporary file is left");
	cr_assert_eq(settle_state_read(file, &back, &why), 0, "%s", why ? why : "");
	assert_states_equal(&s, &back);
}

Test(settle_state_file, a_new_state_replaces_the_old_whole)
{
	_cleanup_(settle_state_done) struct settle_state small, rich, back;
	_cleanup_free_ char *file = in_top("/STATE");
	const char *why;

	rich_state(&rich);
	small_state(&small);
	cr_assert_eq(settle_state_write(&rich, file), 0);
	cr_assert_eq(settle_state_write(&small, file), 0);
	cr_assert_eq(settle_state_read(file, &back, &why), 0);
	assert_states_equal(&small, &back);
	cr_assert_eq(entries_of_top(), 1);
}

Test(settle_state_file, a_relative_name_is_written_in_the_current_folder)
{
	_cleanup_(settle_state_done) struct settle_state s, back;
	const char *why;
	char cwd[PATH_MAX];

	small_state(&s);
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(top), 0);
	cr_assert_eq(settle_state_write(&s, "STATE"), 0);
	cr_assert_eq(settle_state_read("STATE", &back, &why), 0);
	cr_assert_eq(chdir(cwd), 0);
	assert_states_equal(&s, &back);
}

Test(settle_state_file, a_state_format_refuses_is_not_written)
{
	_cleanup_(settle_state_done) struct settle_state s = {0};
	_cleanup_free_ char *file = in_top("/STATE");

	cr_assert_eq(settle_state_write(&s, file), -EINVAL, "a state without its dir");
	cr_assert_eq(entries_of_top(), 0);
}

Test(settle_state_file, a_link_at_file_is_replaced_not_followed)
{
	_cleanup_(settle_state_done) struct settle_state s;
	_cleanup_free_ char *file = in_top("/STATE"), *target = in_top("/target");
	struct stat st;

	small_state(&s);
	write_file(target, "", 0);
	cr_assert_eq(symlink("target", file), 0);
	cr_assert_eq(settle_state_write(&s, file), 0);
	cr_assert_eq(lstat(file, &st), 0);
	cr_assert(S_ISREG(st.st_mode), "the link was replaced by the file");
	cr_assert_eq(stat(target, &st), 0);
	cr_assert_eq(st.st_size, 0, "what the link named is untouched");
}

Test(settle_state_file, a_link_at_file_is_not_read)
{
	_cleanup_(settle_state_done) struct settle_state s;
	_cleanup_free_ char *file = in_top("/STATE"), *real = in_top("/real");

	small_state(&s);
	cr_assert_eq(settle_state_write(&s, real), 0);
	cr_assert_eq(symlink("real", file), 0);
	expect_read_refused(file, -ELOOP, NULL);
}

Test(settle_state_file, a_fifo_is_refused_without_waiting, .timeout = 5)
{
	_cleanup_free_ char *file = in_top("/STATE");

	cr_assert_eq(mkfifo(file, 0600), 0);
	expect_read_refused(file, -EINVAL, "the STATE is not a regular file");
}

Test(settle_state_file, a_folder_is_refused)
{
	expect_read_refused(top, -EINVAL, "the STATE is not a regular file");
}

Test(settle_state_file, a_missing_file_is_enoent)
{
	_cleanup_free_ char *file = in_top("/STATE"), *deep = in_top("/none/STATE");

	expect_read_refused(file, -ENOENT, NULL);
	cr_assert_eq(settle_state_write(&(struct settle_state){.dir = (char *)"/"}, deep), -ENOENT);
}

Test(settle_state_file, a_file_past_the_bound_is_refused_unread)
{
	_cleanup_free_ char *file = in_top("/STATE");

	write_file(file, "", 0);
	cr_assert_eq(truncate(file, (off_t)SETTLE_STATE_MAX_BYTES + 1), 0);
	expect_read_refused(file, -E2BIG, "the STATE is larger than a STATE may be");
}

Test(settle_state_file, a_broken_file_is_refused_with_its_reason)
{
	_cleanup_free_ char *file = in_top("/STATE");

	write_file(file, small_body, strlen(small_body));
	expect_read_refused(file, -EINVAL, "the file does not start with a STATE header line");
}

/* ---- The fuzzer's seeds --------------------------------------------------------- */

/* The valid seeds of tests/fuzz/corpus/settle-state/ are what format writes
 * today; OZ0_WRITE_SEEDS=1 writes them anew when the format changes. */
static void check_seed(const char *name, void (*make)(struct settle_state *))
{
	_cleanup_(settle_state_done) struct settle_state s;
	_cleanup_free_ char *buf = NULL, *path = NULL, *seed = NULL;
	const char *src = getenv("OZ0_SRCDIR");
	size_t len;
	FILE *f;

	cr_assert_not_null(src, "make check sets OZ0_SRCDIR");
	make(&s);
	format_ok(&s, &buf, &len);
	cr_assert_geq(asprintf(&path, "%s/tests/fuzz/corpus/settle-state/%s", src, name), 0);
	if (getenv("OZ0_WRITE_SEEDS")) {
		f = fopen(path, "w");
		cr_assert_not_null(f, "%s", path);
		cr_assert_eq(fwrite(buf, 1, len, f), len);
		cr_assert_eq(fclose(f), 0);
	}
	seed = malloc(len + 1);
	cr_assert_not_null(seed);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fread(seed, 1, len + 1, f), len, "%s is as long as format writes it", name);
	fclose(f);
	cr_assert_eq(memcmp(seed, buf, len), 0, "%s is what format writes (OZ0_WRITE_SEEDS=1 to renew)", name);
}

static void one_state(struct settle_state *s)
{
	*s = (struct settle_state){.dir = strdup("/")};
}

Test(settle_state, the_valid_seeds_are_what_format_writes)
{
	check_seed("valid-rich", rich_state);
	check_seed("valid-small", small_state);
	check_seed("valid-empty", one_state);
}
