// SPDX-License-Identifier: GPL-2.0
/*
 * The hostile device of the pool fuzzer, and the checks of DMA memory.
 *
 * Between every two operations the device overwrites every byte of every
 * chunk (dg_pool_for_each_chunk) with input-derived data: random bytes,
 * all-ones, zeros, or forged pointers (into a decoy buffer, at live
 * blocks, into the chunks themselves). verify_untouched() then checks that
 * a pool call wrote nothing of DMA memory but the block it handed out or
 * took back; decoy_check() that the decoy buffer was never written.
 */
#include "fuzz_harness.h"

unsigned char decoy[DECOY_SIZE] __attribute__((aligned(4096)));
static unsigned char decoy_ref[DECOY_SIZE];
static uint64_t pattern[PATTERN_SIZE / 8];

NOCOV void decoy_fill(void)
{
	size_t i;

	for (i = 0; i < DECOY_SIZE; i++)
		decoy_ref[i] = decoy[i] = (unsigned char)(0xd0 ^ i);
}

NOCOV void decoy_check(void)
{
	CHECK(!memcmp(decoy, decoy_ref, DECOY_SIZE), "decoy written by the pool");
}

/* The hostile device: overwrite all of every chunk with the pattern. */
/* Chunks the device wrote last time (the pattern), for verify_untouched(). */
static unsigned char *scribbled[NPOOLS * MODEL_MAX_CHUNKS];
static unsigned int nscribbled;

NOCOV static void scribble_cb(void *arg, void __dma *mem, size_t len,
			dma_addr_t dma)
{
	unsigned char *p = (unsigned char *)mem;
	size_t off, n;

	(void)arg;
	(void)dma;
	if (nscribbled < NPOOLS * MODEL_MAX_CHUNKS)
		scribbled[nscribbled++] = p;
	for (off = 0; off < len; off += n) {
		n = len - off < PATTERN_SIZE ? len - off : PATTERN_SIZE;
		memcpy(p + off, pattern, n);
	}
}

NOCOV static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* A pointer-looking value a device could plant. */
NOCOV uint64_t forged_word(uint64_t r)
{
	const struct slot *s = &slots[r % NPOOLS];
	unsigned int k = (unsigned int)(r >> 8);

	switch ((r >> 4) % 8) {
	case 0:
		return (uintptr_t)decoy + (k % DECOY_SIZE & ~7u);
	case 1:
		return (uintptr_t)decoy + (k % DECOY_SIZE) + DG_USER_DMA_OFFSET;
	case 2:
		if (s->pool && s->m.nlive)
			return (uintptr_t)s->m.live[k % s->m.nlive].v;
		return (uintptr_t)decoy;
	case 3:
		if (s->pool && s->m.nchunks)
			return (uintptr_t)s->m.chunks[k % s->m.nchunks].mem +
			       (k >> 8) % s->m.chunks[k % s->m.nchunks].len;
		return 0;
	case 4:
		return (uintptr_t)&slots[0];	/* kernel-ish data */
	case 5:
		return ~0ull;
	case 6:
		return k % 4096;		/* small index */
	default:
		return r;
	}
}

NOCOV void scribble_mode(uint8_t mode)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ (op_nr * 0x100000001b3ull) ^
			mode;
	size_t i;
	int k;

	switch (mode % 4) {
	case 0:
		for (i = 0; i < PATTERN_SIZE / 8; i++)
			pattern[i] = xorshift(&seed);
		break;
	case 1:
		memset(pattern, 0xff, sizeof(pattern));
		break;
	case 2:
		for (i = 0; i < PATTERN_SIZE / 8; i++)
			pattern[i] = forged_word(xorshift(&seed));
		break;
	default:
		memset(pattern, (mode & 0x80) ? 0 : 0xa5, sizeof(pattern));
		break;
	}
	nscribbled = 0;
	for (k = 0; k < NPOOLS; k++)
		if (slots[k].pool)
			dg_pool_for_each_chunk(slots[k].pool, scribble_cb, NULL);
}

static struct model_chunk all_chunks[NPOOLS * MODEL_MAX_CHUNKS];
static unsigned int nall;
static const unsigned char zero_page[PATTERN_SIZE];

NOCOV static void collect_cb(void *arg, void __dma *mem, size_t len,
			     dma_addr_t dma)
{
	(void)arg;
	if (nall < NPOOLS * MODEL_MAX_CHUNKS) {
		all_chunks[nall].mem = (unsigned char *)mem;
		all_chunks[nall].len = len;
		all_chunks[nall].dma = dma;
		nall++;
	}
}

NOCOV static bool was_scribbled(const unsigned char *mem)
{
	unsigned int k;

	for (k = 0; k < nscribbled; k++)
		if (scribbled[k] == mem)
			return true;
	return false;
}

NOCOV static const struct model_chunk *chunk_of(const unsigned char *p)
{
	unsigned int i;

	for (i = 0; i < nall; i++)
		if (p >= all_chunks[i].mem &&
		    p < all_chunks[i].mem + all_chunks[i].len)
			return &all_chunks[i];
	return NULL;
}

/*
 * The core's only write to DMA memory is zeroing the block it hands out
 * or takes back. Everything else must still be what was there before the
 * call: what the device wrote last (zero in a chunk that arrived during
 * this operation), or the harness's 0x77 paint in @paint. In @zero (the
 * block's stride) a byte may also have become 0, and nothing else.
 */
NOCOV void verify_untouched(const struct allowed *paint,
				   const struct allowed *zero)
{
	static const struct allowed none;
	const struct allowed *r[2];
	const struct model_chunk *c;
	unsigned char *saved[2] = { NULL, NULL }, *p, exp;
	const unsigned char *want, *pat = (const unsigned char *)pattern;
	uintptr_t pa, pb, za, zb, x;
	size_t off, j, base;
	unsigned int i;
	bool fresh;
	int k;

	r[0] = paint ? paint : &none;
	r[1] = zero ? zero : &none;
	nall = 0;
	for (k = 0; k < NPOOLS; k++)
		if (slots[k].pool)
			dg_pool_for_each_chunk(slots[k].pool, collect_cb, NULL);
	/* the ranges, byte by byte; then the device's bytes put back there */
	pa = (uintptr_t)r[0]->p;
	pb = pa + r[0]->n;
	za = (uintptr_t)r[1]->p;
	zb = za + r[1]->n;
	for (k = 0; k < 2; k++) {
		p = (unsigned char *)r[k]->p;
		c = r[k]->n ? chunk_of(p) : NULL;
		if (!c)
			continue;
		CHECK(p + r[k]->n <= c->mem + c->len, "range runs past its chunk");
		saved[k] = malloc(r[k]->n);
		CHECK(saved[k], "out of memory");
		memcpy(saved[k], p, r[k]->n);
		fresh = !was_scribbled(c->mem);
		base = (size_t)(p - c->mem);
		for (j = 0; j < r[k]->n; j++) {
			x = (uintptr_t)(p + j);
			exp = x >= pa && x < pb ? 0x77 :
			      fresh ? 0 : pat[(base + j) % PATTERN_SIZE];
			CHECK(p[j] == exp || (!p[j] && x >= za && x < zb),
			      "the pool wrote DMA memory at %p (chunk %p + %zu): %#x, was %#x",
			      (void *)(p + j), (void *)c->mem, base + j, p[j],
			      exp);
		}
	}
	for (k = 0; k < 2; k++)
		if (saved[k]) {
			p = (unsigned char *)r[k]->p;
			c = chunk_of(p);
			fresh = !was_scribbled(c->mem);
			base = (size_t)(p - c->mem);
			for (j = 0; j < r[k]->n; j++)
				p[j] = fresh ? 0 : pat[(base + j) % PATTERN_SIZE];
		}
	/* everything else: as the device left it */
	for (i = 0; i < nall; i++) {
		c = &all_chunks[i];
		want = was_scribbled(c->mem) ? (const unsigned char *)pattern :
					       zero_page;
		for (off = 0; off < c->len; off += PATTERN_SIZE) {
			if (!memcmp(c->mem + off, want, PATTERN_SIZE))
				continue;
			for (j = 0; j < PATTERN_SIZE; j++)
				CHECK(c->mem[off + j] == want[j],
				      "the pool wrote DMA memory at %p (chunk %p + %zu): %#x, device left %#x",
				      (void *)(c->mem + off + j), (void *)c->mem,
				      off + j, c->mem[off + j], want[j]);
		}
	}
	/* in reverse: the ranges may overlap */
	for (k = 1; k >= 0; k--)
		if (saved[k]) {
			memcpy((unsigned char *)r[k]->p, saved[k], r[k]->n);
			free(saved[k]);
		}
}
