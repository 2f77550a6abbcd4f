/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reference model of one dmaguard pool, for the fuzzer: what the pool must
 * do, written from the API's contract and not from the core's code.
 *
 *   - which create parameters are valid (dma_pool_create() semantics, no
 *     16-byte minimum, blocks up to INT_MAX, a block with its
 *     alignment in 2 GiB);
 *   - where blocks may start in a chunk (mainline's packing: at multiples
 *     of the stride, restarted at any boundary a block would cross);
 *   - the set of live blocks, and from it the verdict any free must get:
 *     foreign (not in a chunk of the pool), misaligned (in a chunk, not at
 *     a block start), wrong dma, double (a block start that is not live),
 *     or OK.
 */
#ifndef _DMAGUARD_POOL_MODEL_H
#define _DMAGUARD_POOL_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include "pool.h"

#ifndef NOCOV
#define NOCOV
#endif

#define MODEL_SIZE_MAX		0x7fffffffu	/* INT_MAX */
#define MODEL_STRIDE_MAX	(1ul << 31)
#define MODEL_MAX_LIVE		768
#define MODEL_MAX_FREED		16
#define MODEL_MAX_CHUNKS	1024

struct model_blk {
	unsigned char *v;
	dma_addr_t dma;
};

struct model_chunk {
	unsigned char *mem;
	size_t len;
	dma_addr_t dma;
};

struct model_pool {
	bool used;
	size_t size, align, boundary;	/* align 0 already turned into 1 */
	size_t stride;
	size_t chunk_size;		/* learnt from the pool's stats */
	struct model_blk live[MODEL_MAX_LIVE];
	unsigned int nlive;
	struct model_blk freed[MODEL_MAX_FREED];	/* recently freed */
	unsigned int nfreed;
	u64 bad[DG_BAD_NR];
	bool reported;			/* first bad free reported already */
	struct model_chunk chunks[MODEL_MAX_CHUNKS];	/* last snapshot */
	unsigned int nchunks;
};

static inline bool model_pow2(size_t x)
{
	return x && !(x & (x - 1));
}

/* Would dma_pool_create()-like semantics accept these parameters? */
static inline bool model_params_valid(const char *name, size_t size,
				      size_t align, size_t boundary)
{
	size_t a = align ? align : 1;

	if (!name || !size || size > MODEL_SIZE_MAX)
		return false;
	if (!model_pow2(a) || a > MODEL_STRIDE_MAX)
		return false;
	if (((size + a - 1) & ~(a - 1)) > MODEL_STRIDE_MAX)
		return false;
	if (boundary && (!model_pow2(boundary) || boundary < size))
		return false;
	return true;
}

static inline void model_init(struct model_pool *m, size_t size,
			      size_t align, size_t boundary, size_t chunk_size)
{
	memset(m, 0, sizeof(*m));
	m->used = true;
	m->size = size;
	m->align = align ? align : 1;
	m->boundary = boundary;
	m->stride = (size + m->align - 1) & ~(m->align - 1);
	m->chunk_size = chunk_size;
}

/* Is @off (in a chunk of @len bytes) a block start? */
static inline bool model_is_block(const struct model_pool *m, size_t off,
				  size_t len)
{
	size_t seg = len, in;

	if (m->boundary && m->boundary < len && m->stride < m->boundary)
		seg = m->boundary;
	in = off % seg;
	return off < len && in % m->stride == 0 && in + m->size <= seg;
}

/* Blocks a chunk of @len bytes must hold (as densely as mainline). */
static inline size_t model_blocks_per_chunk(const struct model_pool *m,
					    size_t len)
{
	size_t seg = len;

	if (m->boundary && m->boundary < len && m->stride < m->boundary)
		seg = m->boundary;
	return (len / seg) * ((seg - m->size) / m->stride + 1);
}

NOCOV static inline const struct model_chunk *
model_find_chunk(const struct model_pool *m, const void *v)
{
	const unsigned char *p = v;
	unsigned int i;

	for (i = 0; i < m->nchunks; i++)
		if (p >= m->chunks[i].mem &&
		    p < m->chunks[i].mem + m->chunks[i].len)
			return &m->chunks[i];
	return NULL;
}

NOCOV static inline int model_live_index(const struct model_pool *m, const void *v)
{
	unsigned int i;

	for (i = 0; i < m->nlive; i++)
		if (m->live[i].v == v)
			return (int)i;
	return -1;
}

/* The verdict a free of (@v, @dma) must get, from the last chunk snapshot. */
static inline enum dg_bad_free model_classify(const struct model_pool *m,
					      const void *v, dma_addr_t dma)
{
	const struct model_chunk *c = model_find_chunk(m, v);
	size_t off;

	if (!c)
		return DG_BAD_FOREIGN;
	off = (size_t)((const unsigned char *)v - c->mem);
	if (!model_is_block(m, off, c->len))
		return DG_BAD_MISALIGNED;
	if (dma != c->dma + off)
		return DG_BAD_DMA;
	if (model_live_index(m, v) < 0)
		return DG_BAD_DOUBLE;
	return DG_FREE_OK;
}

static inline void model_add_live(struct model_pool *m, void *v,
				  dma_addr_t dma)
{
	m->live[m->nlive].v = v;
	m->live[m->nlive].dma = dma;
	m->nlive++;
}

static inline void model_remove_live(struct model_pool *m, unsigned int i)
{
	struct model_blk b = m->live[i];

	m->live[i] = m->live[--m->nlive];
	m->freed[m->nfreed % MODEL_MAX_FREED] = b;
	m->nfreed++;
}

#endif /* _DMAGUARD_POOL_MODEL_H */
