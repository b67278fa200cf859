#include "config.h"

/* The index reader on indexes built here byte by byte: what each entry
 * carries, the split index's merge, every refusal and bound. That real
 * git's indexes read as git reads them is the oracle's job
 * (tests/git-index/). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "git/index.h"

#define GITLINK 0160000u
#define FILE_MODE 0100644u

/* ---- An index builder ---------------------------------------------------- */

struct builder {
	char *buf;
	size_t len, cap;
	unsigned version;
	enum gitindex_hash hash;
	char prev[GITINDEX_MAX_PATH + 1];
	size_t prev_len;
	bool restart; /* v4: the next path shares nothing with the previous */
	size_t entries_end;
};

static void put(struct builder *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = 2 * (b->len + n) + 64;
		b->buf = realloc(b->buf, b->cap);
		cr_assert_not_null(b->buf);
	}
	if (n)
		memcpy(b->buf + b->len, p, n);
	b->len += n;
}

static void put_be32(struct builder *b, uint32_t v)
{
	unsigned char p[4] = {v >> 24, v >> 16, v >> 8, v};
	put(b, p, 4);
}

static void put_be16(struct builder *b, unsigned v)
{
	unsigned char p[2] = {v >> 8, v};
	put(b, p, 2);
}

static void put_varint(struct builder *b, size_t v)
{
	unsigned char tmp[16];
	unsigned pos = sizeof(tmp) - 1;

	tmp[pos] = v & 127;
	while (v >>= 7)
		tmp[--pos] = 128 | (--v & 127);
	put(b, tmp + pos, sizeof(tmp) - pos);
}

static size_t hash_len(enum gitindex_hash h)
{
	return h == GITINDEX_SHA256 ? 32 : 20;
}

static void start(struct builder *b, unsigned version, uint32_t nr, enum gitindex_hash h)
{
	*b = (struct builder){.version = version, .hash = h};
	put(b, "DIRC", 4);
	put_be32(b, version);
	put_be32(b, nr);
}

/* An entry with extended flags flags2 (0 for none) and the oid byte fill. */
static void entry_ext(struct builder *b, uint32_t mode, unsigned stage, const char *path,
                      unsigned flags2, unsigned char fill)
{
	size_t n = strlen(path), start_off = b->len;
	unsigned char oid[32], zero[8] = {0};
	unsigned flags = (stage << 12) | (n < 0xfff ? (unsigned)n : 0xfff) | (flags2 ? 0x4000 : 0);

	for (int i = 0; i < 40 / 4; i++)
		put_be32(b, i == 6 ? mode : 0);
	memset(oid, fill, sizeof(oid));
	put(b, oid, hash_len(b->hash));
	put_be16(b, flags);
	if (flags2)
		put_be16(b, flags2);
	if (b->version == 4) {
		size_t common = 0;

		while (!b->restart && common < b->prev_len && common < n && path[common] == b->prev[common])
			common++;
		b->restart = false;
		put_varint(b, b->prev_len - common);
		put(b, path + common, n - common + 1);
	} else {
		put(b, path, n);
		put(b, zero, 8 - ((b->len - start_off) % 8));
	}
	memcpy(b->prev, path, n + 1);
	b->prev_len = n;
	b->entries_end = b->len;
}

static void entry(struct builder *b, uint32_t mode, unsigned stage, const char *path)
{
	entry_ext(b, mode, stage, path, 0, 0xab);
}

static void extension(struct builder *b, const char sig[4], const void *data, size_t n)
{
	put(b, sig, 4);
	put_be32(b, (uint32_t)n);
	put(b, data, n);
}

static void digest(enum gitindex_hash h, const void *data, size_t n, unsigned char *out)
{
	if (h == GITINDEX_SHA256) {
		struct sha256_ctx c;
		sha256_init(&c);
		sha256_update(&c, n, data);
		sha256_digest(&c, 32, out);
	} else {
		struct sha1_ctx c;
		sha1_init(&c);
		sha1_update(&c, n, data);
		sha1_digest(&c, 20, out);
	}
}

static void finish(struct builder *b)
{
	unsigned char sum[32];

	digest(b->hash, b->buf, b->len, sum);
	put(b, sum, hash_len(b->hash));
}

/* Rewrites the trailing checksum after the bytes were changed. */
static void rehash(struct builder *b)
{
	size_t n = hash_len(b->hash);

	digest(b->hash, b->buf, b->len - n, (unsigned char *)b->buf + b->len - n);
}

/* ---- Collecting what the parser reports ---------------------------------- */

struct seen {
	int n;
	char paths[16][64];
	uint32_t mode[16];
	unsigned stage[16], flags[16];
	unsigned char oid0[16];
};

static int record(const struct gitindex_entry *e, void *userdata)
{
	struct seen *s = userdata;

	if (s->n < 16) {
		snprintf(s->paths[s->n], sizeof(s->paths[0]), "%s", e->path);
		s->mode[s->n] = e->mode;
		s->stage[s->n] = e->stage;
		s->flags[s->n] = e->flags;
		s->oid0[s->n] = e->oid[0];
	}
	s->n++;
	return 0;
}

static int parse(const struct builder *b, struct seen *s, struct gitindex_error *err)
{
	*s = (struct seen){0};
	return gitindex_parse(b->buf, b->len, "index", b->hash, NULL, record, s, err);
}

static void expect_refusal(const struct builder *b, int want, const char *reason_part)
{
	struct gitindex_error err = {0};
	struct seen s;
	int r = parse(b, &s, &err);

	cr_assert_eq(r, want, "want %d, got %d (%s)", want, r, err.reason ? err.reason : "-");
	cr_assert_eq(s.n, 0, "entries of a refused index were reported");
	cr_assert_not_null(err.reason);
	cr_assert_str_eq(err.origin, "index");
	if (reason_part)
		cr_assert(strstr(err.reason, reason_part), "reason '%s' lacks '%s'", err.reason, reason_part);
}

/* ---- Entries -------------------------------------------------------------- */

Test(index, v2_entries_as_written)
{
	struct builder b;
	struct seen s;

	start(&b, 2, 3, GITINDEX_SHA1);
	entry(&b, FILE_MODE, 0, "a.c");
	entry(&b, GITLINK, 0, "lib/sub");
	entry(&b, 0100755, 0, "z");
	finish(&b);
	cr_assert_eq(parse(&b, &s, NULL), 3);
	cr_assert_str_eq(s.paths[1], "lib/sub");
	cr_assert_eq(s.mode[1], GITLINK);
	cr_assert_eq(s.mode[2], 0100755);
	cr_assert_eq(s.oid0[0], 0xab);
	free(b.buf);
}

Test(index, v3_extended_flags)
{
	struct builder b;
	struct seen s;

	start(&b, 3, 2, GITINDEX_SHA1);
	entry_ext(&b, FILE_MODE, 0, "ita", 0x2000, 1);
	entry_ext(&b, FILE_MODE, 0, "skip", 0x4000, 2);
	finish(&b);
	cr_assert_eq(parse(&b, &s, NULL), 2);
	cr_assert_eq(s.flags[0], GITINDEX_INTENT_TO_ADD);
	cr_assert_eq(s.flags[1], GITINDEX_SKIP_WORKTREE);
	free(b.buf);
}

Test(index, v3_unknown_extended_flag_refused)
{
	struct builder b;

	start(&b, 3, 1, GITINDEX_SHA1);
	entry_ext(&b, FILE_MODE, 0, "x", 0x1000, 1);
	finish(&b);
	expect_refusal(&b, -EINVAL, "flags");
	free(b.buf);
}

Test(index, v4_prefix_compression)
{
	struct builder b;
	struct seen s;

	start(&b, 4, 4, GITINDEX_SHA256);
	entry(&b, FILE_MODE, 0, "src/lib/a.c");
	entry(&b, FILE_MODE, 0, "src/lib/b.c");
	entry(&b, GITLINK, 0, "src/mod");
	entry(&b, FILE_MODE, 0, "top");
	finish(&b);
	cr_assert_eq(parse(&b, &s, NULL), 4);
	cr_assert_str_eq(s.paths[1], "src/lib/b.c");
	cr_assert_str_eq(s.paths[2], "src/mod");
	cr_assert_str_eq(s.paths[3], "top");
	free(b.buf);
}

Test(index, v4_strip_past_previous_path_refused)
{
	struct builder b;

	start(&b, 4, 2, GITINDEX_SHA1);
	entry(&b, FILE_MODE, 0, "ab");
	/* Strip 3 bytes of a 2-byte path: git dies on it. */
	for (int i = 0; i < 10; i++)
		put_be32(&b, i == 6 ? FILE_MODE : 0);
	put(&b, (char[20]){0}, 20);
	put_be16(&b, 1);
	put(&b, "\003c", 3);
	finish(&b);
	expect_refusal(&b, -EINVAL, "strips more");
	free(b.buf);
}

Test(index, conflict_stages_in_order)
{
	struct builder b;
	struct seen s;

	start(&b, 2, 3, GITINDEX_SHA1);
	entry(&b, FILE_MODE, 1, "c");
	entry(&b, FILE_MODE, 2, "c");
	entry(&b, FILE_MODE, 3, "c");
	finish(&b);
	cr_assert_eq(parse(&b, &s, NULL), 3);
	cr_assert_eq(s.stage[2], 3);
	free(b.buf);
}

Test(index, out_of_order_refused)
{
	struct builder b;

	start(&b, 2, 2, GITINDEX_SHA1);
	entry(&b, FILE_MODE, 0, "b");
	entry(&b, FILE_MODE, 0, "a");
	finish(&b);
	expect_refusal(&b, -EINVAL, "order");
	free(b.buf);

	/* A merged path next to a conflict stage of itself. */
	start(&b, 2, 2, GITINDEX_SHA1);
	entry(&b, FILE_MODE, 0, "a");
	entry(&b, FILE_MODE, 1, "a");
	finish(&b);
	expect_refusal(&b, -EINVAL, "order");
	free(b.buf);
}

Test(index, nul_in_path_refused)
{
	struct builder b;

	start(&b, 2, 1, GITINDEX_SHA1);
	entry(&b, FILE_MODE, 0, "abcd");
	memcpy(b.buf + b.entries_end - 8 + 1, "\0", 1); /* "a\0cd": still 4 bytes by the flags */
	finish(&b);
	expect_refusal(&b, -EINVAL, "NUL");
	free(b.buf);
}

/* ---- Header, checksum, truncation ---------------------------------------- */

Test(index, bad_signature_refused)
{
	struct builder b;

	start(&b, 2, 0, GITINDEX_SHA1);
	memcpy(b.buf, "DIRX", 4);
	finish(&b);
	expect_refusal(&b, -EINVAL, "signature");
	free(b.buf);
}

Test(index, versions_git_does_not_write_refused)
{
	static const unsigned bad[] = {0, 1, 5, 0x7fffffff};

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		struct builder b;

		start(&b, bad[i], 0, GITINDEX_SHA1);
		finish(&b);
		expect_refusal(&b, -EINVAL, "version");
		free(b.buf);
	}
}

Test(index, bad_checksum_refused)
{
	struct builder b;

	start(&b, 2, 1, GITINDEX_SHA1);
	entry(&b, GITLINK, 0, "sub");
	finish(&b);
	b.buf[b.len - 1] ^= 1;
	expect_refusal(&b, -EINVAL, "checksum mismatch");
	b.buf[b.len - 1] ^= 1;
	b.buf[b.entries_end - 8] = 'x'; /* the path, not the checksum */
	expect_refusal(&b, -EINVAL, "checksum mismatch");
	free(b.buf);
}

Test(index, zero_checksum_accepted_as_git_skiphash)
{
	struct builder b;
	struct seen s;

	start(&b, 2, 1, GITINDEX_SHA1);
	entry(&b, FILE_MODE, 0, "a");
	put(&b, (char[20]){0}, 20);
	cr_assert_eq(parse(&b, &s, NULL), 1);
	free(b.buf);
}

Test(index, truncated_at_every_entry_boundary_refused)
{
	for (unsigned version = 2; version <= 4; version++) {
		struct builder b;
		size_t starts[6];

		start(&b, version, 6, GITINDEX_SHA1);
		for (int i = 0; i < 6; i++) {
			char path[16];

			starts[i] = b.len;
			snprintf(path, sizeof(path), "dir/f%d", i);
			entry(&b, i % 2 ? GITLINK : FILE_MODE, 0, path);
		}
		/* Cut where each entry starts, and one byte into it. */
		for (int i = 0; i < 12; i++) {
			size_t at = starts[i / 2] + i % 2;
			struct builder cut = b;

			cut.buf = malloc(at + 20);
			cr_assert_not_null(cut.buf);
			cut.len = at;
			cut.cap = at + 20;
			memcpy(cut.buf, b.buf, at);
			finish(&cut); /* a checksum that matches what is left */
			expect_refusal(&cut, -EINVAL, "cut short");
			cut.len -= 20; /* and with no checksum at all */
			expect_refusal(&cut, -EINVAL, NULL);
			free(cut.buf);
		}
		free(b.buf);
	}
}

Test(index, too_short_and_too_many_entries_refused)
{
	struct builder b;

	start(&b, 2, 0, GITINDEX_SHA1);
	expect_refusal(&b, -EINVAL, "cut short");
	free(b.buf);

	start(&b, 2, GITINDEX_MAX_ENTRIES + 1, GITINDEX_SHA1);
	finish(&b);
	expect_refusal(&b, -E2BIG, "more entries");
	free(b.buf);

	/* A count the bytes cannot hold fails before any entry is read. */
	start(&b, 2, 1000, GITINDEX_SHA1);
	entry(&b, FILE_MODE, 0, "a");
	finish(&b);
	expect_refusal(&b, -EINVAL, "cut short");
	free(b.buf);
}

/* ---- Extensions ----------------------------------------------------------- */

static void with_extension(const char sig[4], size_t size, int want, const char *why)
{
	struct builder b;
	char data[64] = {0};

	start(&b, 2, 1, GITINDEX_SHA1);
	entry(&b, FILE_MODE, 0, "a");
	extension(&b, sig, data, size);
	finish(&b);
	if (want >= 0) {
		struct seen s;
		cr_assert_eq(parse(&b, &s, NULL), want, "%.4s", sig);
	} else {
		expect_refusal(&b, want, why);
	}
	free(b.buf);
}

Test(index, extensions_known_and_optional_skipped)
{
	static const char *const skipped[] = {"TREE", "REUC", "UNTR", "FSMN", "IEOT", "EOIE", "sdir", "ZZZZ", "Abcd"};

	for (size_t i = 0; i < ELEMENTSOF(skipped); i++)
		with_extension(skipped[i], 16, 1, NULL);
}

Test(index, unknown_mandatory_extension_refused)
{
	with_extension("abcd", 4, -EINVAL, "unknown mandatory extension");
	with_extension("1xyz", 4, -EINVAL, "unknown mandatory extension");
}

Test(index, extension_past_checksum_refused)
{
	struct builder b;

	start(&b, 2, 1, GITINDEX_SHA1);
	entry(&b, FILE_MODE, 0, "a");
	put(&b, "TREE", 4);
	put_be32(&b, 1000);
	finish(&b);
	expect_refusal(&b, -EINVAL, "past the checksum");
	free(b.buf);
}

/* EOIE and IEOT, as git writes them for its threaded reader: the table of
 * entry blocks, then the end-of-entries marker whose hash covers the
 * extension headers from `from` on. */
static void offset_table(struct builder *b, size_t from, const uint32_t (*blocks)[2], int n)
{
	struct builder t = {0};
	unsigned char sum[32];
	size_t eoie_at;

	put_be32(&t, 1);
	for (int i = 0; i < n; i++) {
		put_be32(&t, blocks[i][0]);
		put_be32(&t, blocks[i][1]);
	}
	extension(b, "IEOT", t.buf, t.len);
	free(t.buf);
	eoie_at = b->len;
	{
		struct sha1_ctx c;
		size_t off = from;

		sha1_init(&c);
		while (off < eoie_at) {
			sha1_update(&c, 8, (const uint8_t *)b->buf + off);
			off += 8 + ((unsigned char)b->buf[off + 4] << 24 | (unsigned char)b->buf[off + 5] << 16 |
			            (unsigned char)b->buf[off + 6] << 8 | (unsigned char)b->buf[off + 7]);
		}
		sha1_digest(&c, 20, sum);
	}
	t = (struct builder){0};
	put_be32(&t, (uint32_t)from);
	put(&t, sum, 20);
	extension(b, "EOIE", t.buf, t.len);
	free(t.buf);
}

static void threaded_index(struct builder *b, unsigned version, int shift_block, bool hide_first)
{
	size_t second;
	uint32_t blocks[2][2];

	start(b, version, 3, GITINDEX_SHA1);
	entry(b, FILE_MODE, 0, "dir/a");
	entry(b, FILE_MODE, 0, "dir/b");
	second = b->len;
	b->restart = true; /* as git's writer starts a block */
	entry(b, GITLINK, 0, "dir/c");
	blocks[0][0] = 12, blocks[0][1] = 2;
	blocks[1][0] = (uint32_t)second + (uint32_t)shift_block, blocks[1][1] = 1;
	if (hide_first)
		extension(b, "Aopt", "x", 1);
	offset_table(b, b->entries_end + (hide_first ? 9 : 0), (const uint32_t(*)[2])blocks, 2);
	finish(b);
}

Test(index, offset_table_agreeing_with_entries)
{
	for (unsigned version = 2; version <= 4; version++) {
		struct builder b;
		struct seen s;

		threaded_index(&b, version, 0, false);
		cr_assert_eq(parse(&b, &s, NULL), 3, "version %u", version);
		free(b.buf);
	}
}

Test(index, offset_table_disagreeing_refused)
{
	struct builder b;

	/* A block git's threads would start mid-entry. */
	threaded_index(&b, 2, 8, false);
	expect_refusal(&b, -EINVAL, "IEOT");
	free(b.buf);
	/* A v4 block whose first path needs the one before it. */
	{
		struct builder v4;
		size_t second;
		uint32_t blocks[2][2];

		start(&v4, 4, 3, GITINDEX_SHA1);
		entry(&v4, FILE_MODE, 0, "dir/a");
		entry(&v4, FILE_MODE, 0, "dir/b");
		second = v4.len;
		entry(&v4, GITLINK, 0, "dir/c"); /* strips 1 byte of "dir/b" */
		blocks[0][0] = 12, blocks[0][1] = 2;
		blocks[1][0] = (uint32_t)second, blocks[1][1] = 1;
		offset_table(&v4, v4.entries_end, (const uint32_t(*)[2])blocks, 2);
		finish(&v4);
		expect_refusal(&v4, -EINVAL, "IEOT");
		free(v4.buf);
	}
	/* An EOIE that sends git's extension reader past an extension. */
	threaded_index(&b, 2, 0, true);
	expect_refusal(&b, -EINVAL, "EOIE");
	free(b.buf);
}

/* ---- Submodules ----------------------------------------------------------- */

static int submodules(const struct builder *b, struct gitindex_submodules *out,
                      struct gitindex_error *err)
{
	return gitindex_parse_submodules(b->buf, b->len, "index", b->hash, NULL, out, err);
}

Test(index, submodules_distinct_in_order)
{
	struct builder b;
	struct gitindex_submodules subs;

	start(&b, 2, 5, GITINDEX_SHA1);
	entry(&b, GITLINK, 0, "a/sub");
	entry(&b, GITLINK, 1, "m");
	entry(&b, GITLINK, 2, "m");
	entry(&b, FILE_MODE, 0, "n");
	entry(&b, GITLINK, 0, "z/sub");
	finish(&b);
	cr_assert_eq(submodules(&b, &subs, NULL), 3);
	cr_assert_str_eq(subs.paths[0], "a/sub");
	cr_assert_str_eq(subs.paths[1], "m");
	cr_assert_str_eq(subs.paths[2], "z/sub");
	gitindex_submodules_free(&subs);
	free(b.buf);
}

Test(index, unsafe_submodule_paths_refused)
{
	static const char *const unsafe[] = {"../up", "a/../b", "a/./b", ".git", "x/.GIT", "x/.Git/y", "a//b", "/abs", "trail/"};

	for (size_t i = 0; i < ELEMENTSOF(unsafe); i++) {
		struct builder b;
		struct gitindex_submodules subs;
		struct gitindex_error err = {0};

		start(&b, 2, 1, GITINDEX_SHA1);
		entry(&b, GITLINK, 0, unsafe[i]);
		finish(&b);
		cr_assert_eq(submodules(&b, &subs, &err), -EINVAL, "%s", unsafe[i]);
		cr_assert(strstr(err.reason, "submodule path"), "%s: %s", unsafe[i], err.reason);
		cr_assert_eq(subs.n, 0);
		/* A file at such a path is git's business, not a submodule. */
		cr_assert_eq(gitindex_parse(b.buf, b.len, "index", b.hash, NULL, NULL, NULL, NULL), 1);
		free(b.buf);
	}
}

Test(index, path_safety)
{
	cr_assert(gitindex_path_is_safe("a", 1));
	cr_assert(gitindex_path_is_safe("a/.gitx/..b/...", 15));
	cr_assert(gitindex_path_is_safe(".gitmodules-not", 15));
	cr_assert_not(gitindex_path_is_safe("", 0));
	cr_assert_not(gitindex_path_is_safe("..", 2));
	cr_assert_not(gitindex_path_is_safe("a/.", 3));
	cr_assert_not(gitindex_path_is_safe("a\0b", 3));
}

static void gitlinks(unsigned n, struct builder *b)
{
	start(b, 4, n, GITINDEX_SHA1);
	for (unsigned i = 0; i < n; i++) {
		char path[16];

		snprintf(path, sizeof(path), "m/%05u", i);
		entry(b, GITLINK, 0, path);
	}
	finish(b);
}

Test(index, submodule_bound)
{
	struct builder b;
	struct gitindex_submodules subs;
	struct gitindex_error err = {0};

	gitlinks(GITINDEX_MAX_SUBMODULES, &b);
	cr_assert_eq(submodules(&b, &subs, &err), GITINDEX_MAX_SUBMODULES);
	gitindex_submodules_free(&subs);
	free(b.buf);

	gitlinks(GITINDEX_MAX_SUBMODULES + 1, &b);
	cr_assert_eq(submodules(&b, &subs, &err), -E2BIG);
	cr_assert_str_eq(err.reason, "more than 4,096 submodules");
	cr_assert_eq(subs.n, 0);
	free(b.buf);
}

Test(index, sparse_folder_entry_refused_for_submodules)
{
	struct builder b;
	struct gitindex_submodules subs;
	struct gitindex_error err = {0};

	start(&b, 3, 1, GITINDEX_SHA1);
	entry_ext(&b, GITINDEX_MODE_DIR, 0, "cold/", 0x4000, 7);
	extension(&b, "sdir", "", 0);
	finish(&b);
	cr_assert_eq(submodules(&b, &subs, &err), -EINVAL);
	cr_assert(strstr(err.reason, "sparse"));
	free(b.buf);
}

/* ---- The split index ------------------------------------------------------ */

/* An EWAH bitmap of the bits below 64 in `bits`: one marker word, then one
 * literal word. */
static void ewah(struct builder *b, uint64_t bits)
{
	unsigned char w[16];
	uint64_t words[2] = {(uint64_t)1 << 33, bits};

	put_be32(b, 64);
	put_be32(b, 2);
	for (int i = 0; i < 2; i++) {
		for (int k = 0; k < 8; k++)
			w[8 * i + k] = (unsigned char)(words[i] >> (56 - 8 * k));
	}
	put(b, w, 16);
	put_be32(b, 0);
}

struct split {
	struct builder shared, index;
};

/* The shared index: a, b (stages 1 and 2), c, d. The index: a replaced
 * (by a gitlink), c deleted, b resolved by a merged entry, e added. */
static void make_split(struct split *sp, enum gitindex_hash h)
{
	struct builder link;
	unsigned char sum[32];
	size_t n = hash_len(h);

	start(&sp->shared, 2, 5, h);
	entry(&sp->shared, FILE_MODE, 0, "a");
	entry(&sp->shared, FILE_MODE, 1, "b");
	entry(&sp->shared, FILE_MODE, 2, "b");
	entry(&sp->shared, FILE_MODE, 0, "c");
	entry(&sp->shared, FILE_MODE, 0, "d");
	finish(&sp->shared);
	memcpy(sum, sp->shared.buf + sp->shared.len - n, n);

	start(&sp->index, 2, 3, h);
	entry_ext(&sp->index, GITLINK, 0, "", 0, 0x11); /* replaces "a" */
	entry_ext(&sp->index, FILE_MODE, 0, "b", 0, 0x22);
	entry_ext(&sp->index, GITLINK, 0, "e", 0, 0x33);
	link = (struct builder){.hash = h};
	put(&link, sum, n);
	ewah(&link, 1u << 3); /* delete c */
	ewah(&link, 1u << 0); /* replace a */
	extension(&sp->index, "link", link.buf, link.len);
	free(link.buf);
	finish(&sp->index);
}

static void free_split(struct split *sp)
{
	free(sp->shared.buf);
	free(sp->index.buf);
}

static int parse_split(const struct split *sp, struct seen *s, struct gitindex_error *err)
{
	struct gitindex_shared sh = {.buf = sp->shared.buf, .len = sp->shared.len};

	*s = (struct seen){0};
	return gitindex_parse(sp->index.buf, sp->index.len, "index", sp->index.hash, &sh, record, s, err);
}

Test(index, split_merged_as_git_merges)
{
	for (int h = GITINDEX_SHA1; h <= GITINDEX_SHA256; h++) {
		struct split sp;
		struct seen s;
		char name[GITINDEX_SHARED_NAME_MAX];

		make_split(&sp, h);
		cr_assert_eq(gitindex_link(sp.index.buf, sp.index.len, "index", h, name, NULL), 1);
		cr_assert_eq(strlen(name), strlen("sharedindex.") + 2 * hash_len(h));
		cr_assert_eq(parse_split(&sp, &s, NULL), 4);
		cr_assert_str_eq(s.paths[0], "a");
		cr_assert_eq(s.mode[0], GITLINK, "the replacement's mode under the shared path");
		cr_assert_eq(s.oid0[0], 0x11);
		cr_assert_str_eq(s.paths[1], "b");
		cr_assert_eq(s.stage[1], 0, "a merged entry drops the conflict stages");
		cr_assert_str_eq(s.paths[2], "d");
		cr_assert_str_eq(s.paths[3], "e");
		free_split(&sp);
	}
}

Test(index, split_without_shared_index)
{
	struct split sp;
	struct gitindex_error err = {0};

	make_split(&sp, GITINDEX_SHA1);
	cr_assert_eq(gitindex_parse(sp.index.buf, sp.index.len, "index", GITINDEX_SHA1, NULL, NULL, NULL, &err), -ENOENT);
	cr_assert(err.shared);
	free_split(&sp);
}

Test(index, split_with_another_shared_index_refused)
{
	struct split sp;
	struct seen s;
	struct gitindex_error err = {0};

	make_split(&sp, GITINDEX_SHA1);
	sp.shared.buf[12 + 40] ^= 1; /* an oid byte of the first shared entry */
	rehash(&sp.shared);
	cr_assert_eq(parse_split(&sp, &s, &err), -EINVAL);
	cr_assert(strstr(err.reason, "not the shared index"), "%s", err.reason);
	cr_assert_eq(s.n, 0);
	free_split(&sp);
}

Test(index, split_bitmap_past_shared_index_refused)
{
	struct split sp;
	struct seen s;
	struct gitindex_error err = {0};
	size_t n = 20;
	char *lit;

	make_split(&sp, GITINDEX_SHA1);
	lit = memmem(sp.index.buf, sp.index.len, "link", 4);
	cr_assert_not_null(lit);
	lit += 8 + n + 8 + 8; /* to the delete bitmap's literal word */
	lit[0] = (char)0x80;   /* bit 63: past the 5 shared entries */
	rehash(&sp.index);
	cr_assert_eq(parse_split(&sp, &s, &err), -EINVAL);
	cr_assert(strstr(err.reason, "delete bitmap"), "%s", err.reason);
	free_split(&sp);
}

/* An index with one entry and a link extension of the given bytes. */
static void linked_index(struct builder *b, const void *link, size_t n)
{
	start(b, 2, 1, GITINDEX_SHA1);
	entry(b, GITLINK, 0, "sub");
	extension(b, "link", link, n);
	finish(b);
}

Test(index, link_shapes_as_git_reads_them)
{
	unsigned char link[20 + 2 * 28 + 1] = {0};
	struct builder b, bitmaps = {.hash = GITINDEX_SHA1};
	struct seen s;

	/* An all-zero shared index hash: git reads the index as it is. */
	linked_index(&b, link, 20);
	cr_assert_eq(parse(&b, &s, NULL), 1);
	free(b.buf);

	/* A shared index named, but no bitmaps: git would crash on it. */
	link[0] = 1;
	linked_index(&b, link, 20);
	{
		struct builder shared;
		struct gitindex_shared sh;
		struct gitindex_error err = {0};

		start(&shared, 2, 0, GITINDEX_SHA1);
		finish(&shared);
		memcpy(b.buf + b.len - 20 - 20, shared.buf + shared.len - 20, 20);
		rehash(&b);
		sh = (struct gitindex_shared){.buf = shared.buf, .len = shared.len};
		cr_assert_eq(gitindex_parse(b.buf, b.len, "index", GITINDEX_SHA1, &sh, NULL, NULL, &err), -EINVAL);
		cr_assert(strstr(err.reason, "without its bitmaps"), "%s", err.reason);
		free(shared.buf);
	}
	free(b.buf);

	/* Bytes after the two bitmaps, or a bitmap cut short. */
	ewah(&bitmaps, 0);
	ewah(&bitmaps, 0);
	memcpy(link + 20, bitmaps.buf, bitmaps.len);
	linked_index(&b, link, 20 + bitmaps.len + 1);
	expect_refusal(&b, -EINVAL, "bytes after its bitmaps");
	free(b.buf);
	linked_index(&b, link, 20 + bitmaps.len - 1);
	expect_refusal(&b, -EINVAL, "cut short");
	free(b.buf);
	free(bitmaps.buf);
}

/* ---- The reading wrapper -------------------------------------------------- */

static void write_file(int dirfd, const char *name, const void *p, size_t n)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, p, n), (ssize_t)n);
}

static int temp_gitdir(char *path, size_t size)
{
	snprintf(path, size, "%s/oz0-index-XXXXXX", P_tmpdir);
	cr_assert_not_null(mkdtemp(path));
	return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static void remove_dir(const char *path)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	cr_assert_eq(system(cmd), 0);
}

Test(index, read_split_index_and_its_shared_index)
{
	char dir[256], name[GITINDEX_SHARED_NAME_MAX];
	_cleanup_close_ int dirfd = temp_gitdir(dir, sizeof(dir));
	struct gitindex_submodules subs;
	struct gitindex_error err = {0};
	struct split sp;

	make_split(&sp, GITINDEX_SHA1);
	cr_assert_eq(gitindex_link(sp.index.buf, sp.index.len, "index", GITINDEX_SHA1, name, NULL), 1);
	write_file(dirfd, "index", sp.index.buf, sp.index.len);
	cr_assert_eq(gitindex_read_submodules(dirfd, "index", ".git/index", GITINDEX_SHA1, &subs, &err), -EINVAL);
	cr_assert(err.shared);
	cr_assert_str_eq(err.reason, "missing");
	cr_assert_str_eq(err.origin, ".git/index");

	write_file(dirfd, name, sp.shared.buf, sp.shared.len);
	cr_assert_eq(gitindex_read_submodules(dirfd, "index", ".git/index", GITINDEX_SHA1, &subs, &err), 2);
	cr_assert_str_eq(subs.paths[0], "a");
	cr_assert_str_eq(subs.paths[1], "e");
	gitindex_submodules_free(&subs);
	free_split(&sp);
	remove_dir(dir);
}

Test(index, read_refuses_links_fifos_and_reports_missing)
{
	char dir[256];
	_cleanup_close_ int dirfd = temp_gitdir(dir, sizeof(dir));
	_cleanup_close_ int dfd = open(dir, O_DIRECTORY | O_CLOEXEC);
	struct gitindex_submodules subs;
	struct gitindex_error err = {0};

	cr_assert_eq(gitindex_read_submodules(dirfd, "index", "index", GITINDEX_SHA1, &subs, &err), -ENOENT);
	cr_assert_eq(symlinkat("/etc/passwd", dfd, "index"), 0);
	cr_assert_eq(gitindex_read_submodules(dirfd, "index", "index", GITINDEX_SHA1, &subs, &err), -EINVAL);
	cr_assert(strstr(err.reason, "link"), "%s", err.reason);
	cr_assert_eq(unlinkat(dfd, "index", 0), 0);
	cr_assert_eq(mkfifoat(dfd, "index", 0600), 0);
	cr_assert_eq(gitindex_read_submodules(dirfd, "index", "index", GITINDEX_SHA1, &subs, &err), -EINVAL);
	cr_assert_str_eq(err.reason, "not a regular file");
	remove_dir(dir);
}
