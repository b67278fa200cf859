#include "config.h"

/* The index's checksums, with nettle's SHA-1 and SHA-256: git's index
 * checksum is a plain hash (git's SHA-1 collision detection changes nothing
 * for an honest file, and an agent who writes the index can compute any
 * checksum it likes: this is an integrity check, not a signature). */
#include <nettle/nettle-meta.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>

#include "git/index-internal.h"

union hash_ctx {
	struct sha1_ctx sha1;
	struct sha256_ctx sha256;
};

static const struct nettle_hash *algorithm(enum gitindex_hash hash)
{
	return hash == GITINDEX_SHA256 ? &nettle_sha256 : &nettle_sha1;
}

size_t gitindex_hash_len(enum gitindex_hash hash)
{
	return algorithm(hash)->digest_size;
}

void index_hash(enum gitindex_hash hash, const void *data, size_t len, unsigned char *out)
{
	const struct nettle_hash *h = algorithm(hash);
	union hash_ctx ctx;

	h->init(&ctx);
	h->update(&ctx, len, data);
	h->digest(&ctx, h->digest_size, out);
}

size_t index_hash_ext_headers(enum gitindex_hash hash, const char *buf, size_t start, size_t end,
                              unsigned char *out)
{
	const struct nettle_hash *h = algorithm(hash);
	union hash_ctx ctx;
	size_t off = start;

	h->init(&ctx);
	while (off < end) {
		h->update(&ctx, 8, (const uint8_t *)buf + off);
		off += 8 + (size_t)get_be32(buf + off + 4);
	}
	h->digest(&ctx, h->digest_size, out);
	return off;
}
