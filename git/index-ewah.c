#include "config.h"

/* The split index's bitmaps, in git's EWAH format (ewah/ewah_io.c,
 * ewah/ewah_bitmap.c): a 32-bit bit count git ignores when reading, a 32-bit
 * count of 64-bit words, the words, and a 32-bit position of the last
 * running-length word git uses only to append.
 *
 * Each running-length word (RLW) says: bit 0, the value of a run; bits 1-32,
 * the run's length in 64-bit words; bits 33-63, how many literal words
 * follow it. We decode straight into plain bits, one per entry of the shared
 * index, so a bitmap costs at most GITINDEX_MAX_ENTRIES / 8 bytes whatever
 * its encoding claims. */
#include <errno.h>
#include <stdlib.h>

#include "git/index-internal.h"

#define EWAH_RUN_LEN(w)  (((w) >> 1) & 0xffffffffu)
#define EWAH_LITERALS(w) ((w) >> 33)

void index_bitmap_free(struct index_bitmap *b)
{
	free(b->words);
	*b = (struct index_bitmap){0};
}

struct ewah_decoder {
	struct index_bitmap *out;
	uint32_t nr;
	uint64_t pos; /* never above nr: past it, any set bit is refused anyway */
};

static void advance(struct ewah_decoder *d, uint64_t bits)
{
	d->pos = bits >= d->nr - d->pos ? d->nr : d->pos + bits;
}

/* Git dies when a position reaches past the shared index ("position for
 * replacement exceeds base index size"). */
static int set_bit(struct ewah_decoder *d, uint64_t pos)
{
	if (pos >= d->nr)
		return -EINVAL;
	d->out->words[pos / 64] |= (uint64_t)1 << (pos % 64);
	d->out->set++;
	return 0;
}

static int decode_run(struct ewah_decoder *d, uint64_t rlw)
{
	uint64_t bits = EWAH_RUN_LEN(rlw) * 64;

	if (!(rlw & 1) || bits == 0) {
		advance(d, bits);
		return 0;
	}
	if (bits > d->nr - d->pos)
		return -EINVAL;
	for (uint64_t i = 0; i < bits; i++)
		(void)set_bit(d, d->pos + i);
	advance(d, bits);
	return 0;
}

static int decode_literal(struct ewah_decoder *d, uint64_t word)
{
	for (unsigned c = 0; c < 64; c++)
		if ((word >> c) & 1 && set_bit(d, d->pos + c) < 0)
			return -EINVAL;
	advance(d, 64);
	return 0;
}

static int decode_words(struct ewah_decoder *d, const unsigned char *words, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint64_t rlw = get_be64(words + 8 * i++);
		uint64_t literals = EWAH_LITERALS(rlw);

		if (decode_run(d, rlw) < 0)
			return -EINVAL;
		/* Git reads the literal words without looking where the
		 * buffer ends; past it there is nothing we could agree on. */
		if (literals > n - i)
			return -EINVAL;
		for (; literals > 0; literals--)
			if (decode_literal(d, get_be64(words + 8 * i++)) < 0)
				return -EINVAL;
	}
	return 0;
}

int index_ewah_size(const unsigned char *p, size_t len, size_t *used)
{
	size_t words;

	if (len < 8)
		return -EINVAL;
	words = get_be32(p + 4);
	if (words > (len - 8) / 8 || len - 8 - 8 * words < 4)
		return -EINVAL;
	*used = 8 + 8 * words + 4;
	return 0;
}

int index_ewah_decode(const unsigned char *p, uint32_t nr, struct index_bitmap *out)
{
	struct ewah_decoder d = {.out = out, .nr = nr};

	*out = (struct index_bitmap){0};
	if (nr > 0) {
		out->words = calloc((nr + 63) / 64, sizeof(uint64_t));
		if (!out->words)
			return -ENOMEM;
	}
	if (decode_words(&d, p + 8, get_be32(p + 4)) < 0) {
		index_bitmap_free(out);
		return -EINVAL;
	}
	return 0;
}
