#include "config.h"

/* libFuzzer harness for the settler's STATE parser (git/settle/state.h).
 *
 * Each input is parsed as it is, then once more with its checksum mended
 * when its first line ends in "sha256:" and 64 characters: those become
 * the hex of the body's SHA-256, so that a mutated body gets past the
 * checksum to the JSON and the shape checks.
 *
 * Properties beyond "no crash, no leak": a refusal is -EINVAL or -E2BIG
 * with a reason (or -ENOMEM) and leaves the state empty; a state read has
 * every path and name within the bounds, NUL-free, every kind and type
 * known; and it formats to the very bytes parsed, which parse again to a
 * state that formats the same. */
#include <errno.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "git/settle/state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HASH_HEX (2 * SHA256_DIGEST_SIZE)

static void check_text(const char *s)
{
	if (!s || strlen(s) > SETTLE_STATE_MAX_TEXT)
		abort();
}

static void check_names(const struct settle_names *n)
{
	if (n->n > SETTLE_STATE_MAX_NAMES || (n->n && !n->v))
		abort();
	for (size_t i = 0; i < n->n; i++)
		check_text(n->v[i]);
}

static void check_gitdir(const struct settle_gitdir *g)
{
	check_text(g->path);
	if (g->kind > SETTLE_GITDIR_BARE)
		abort();
	check_names(&g->hooks);
	check_names(&g->modules);
	check_names(&g->worktrees);
	check_names(&g->gitlinks);
}

static void check_dotgit(const struct settle_dotgit *d)
{
	check_text(d->path);
	if (d->type > SETTLE_DOTGIT_OTHER || d->len > SETTLE_STATE_MAX_TEXT)
		abort();
	if (d->text && (d->text[d->len] != '\0' || (d->type != SETTLE_DOTGIT_FILE && strlen(d->text) != d->len)))
		abort();
	if (d->target)
		check_text(d->target);
}

static void check_state(const struct settle_state *s)
{
	check_text(s->dir);
	if (s->version != SETTLE_STATE_VERSION || s->n_gitdirs > SETTLE_STATE_MAX_GITDIRS ||
	    s->n_dotgits > SETTLE_STATE_MAX_DOTGITS)
		abort();
	for (size_t i = 0; i < s->n_gitdirs; i++)
		check_gitdir(&s->gitdirs[i]);
	for (size_t i = 0; i < s->n_dotgits; i++)
		check_dotgit(&s->dotgits[i]);
	check_names(&s->locked);
}

static bool is_empty(const struct settle_state *s)
{
	return !s->version && !s->dir && !s->dev && !s->ino && !s->gitdirs && !s->n_gitdirs && !s->dotgits &&
	       !s->n_dotgits && !s->locked.v && !s->locked.n;
}

/* format(S) is BUF (LEN bytes), and what that parses to formats the same. */
static void check_formats_back(const struct settle_state *s, const char *buf, size_t len)
{
	_cleanup_free_ char *out = NULL, *again = NULL;
	struct settle_state back;
	size_t out_len, again_len;
	const char *why;

	if (settle_state_format(s, &out, &out_len) < 0)
		abort();
	if (out_len != len || memcmp(out, buf, len) != 0)
		abort();
	if (settle_state_parse(out, out_len, &back, &why) < 0)
		abort();
	if (settle_state_format(&back, &again, &again_len) < 0 || again_len != len || memcmp(again, buf, len) != 0)
		abort();
	settle_state_done(&back);
}

static void check(const char *buf, size_t len)
{
	struct settle_state s;
	const char *why = NULL;
	int r = settle_state_parse(buf, len, &s, &why);

	if (r < 0) {
		if (!is_empty(&s) || (r != -ENOMEM && ((r != -EINVAL && r != -E2BIG) || !why)))
			abort();
		return;
	}
	if (r != 0 || why)
		abort();
	check_state(&s);
	check_formats_back(&s, buf, len);
	settle_state_done(&s);
}

/* Writes the body's checksum into a first line that ends in "sha256:" and
 * 64 characters; returns whether there was one. */
static bool mend(char *buf, size_t len)
{
	static const char tag[] = "sha256:";
	const size_t tag_len = sizeof(tag) - 1;
	char *nl = memchr(buf, '\n', len), *hex;
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct sha256_ctx c;

	if (!nl || (size_t)(nl - buf) < tag_len + HASH_HEX)
		return false;
	hex = nl - HASH_HEX;
	if (memcmp(hex - tag_len, tag, tag_len) != 0)
		return false;
	sha256_init(&c);
	sha256_update(&c, len - (size_t)(nl + 1 - buf), (const uint8_t *)nl + 1);
	sha256_digest(&c, sizeof(digest), digest);
	for (size_t i = 0; i < sizeof(digest); i++) {
		hex[2 * i] = "0123456789abcdef"[digest[i] >> 4];
		hex[2 * i + 1] = "0123456789abcdef"[digest[i] & 15];
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly the size parsed, so ASan sees any read past it. */
	_cleanup_free_ char *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	check(buf, size);
	if (mend(buf, size))
		check(buf, size);
	return 0;
}
