/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pool's private structures and the few functions its two files
 * share: pool.c (life cycle, chunks, reclaim, statistics) and
 * pool_alloc.c (the hot paths: allocation, free, per-CPU caches).
 */
#ifndef _DMAGUARD_CORE_POOL_INTERNAL_H
#define _DMAGUARD_CORE_POOL_INTERNAL_H

#include "pool.h"
#include "chunk.h"
#include "chunk_table.h"

/*
 * Chunk sizes: at least DG_CHUNK_MIN_BLOCKS blocks a chunk, so that the
 * chunk lists move rarely, within [DG_CHUNK_MIN, DG_CHUNK_MAX].
 */
#define DG_CHUNK_MIN		(2 * DG_PAGE_SIZE)
#define DG_CHUNK_MAX		(64 * 1024ul)
#define DG_CHUNK_MIN_BLOCKS	32
/*
 * Sizes are dma_pool_create()'s, up to INT_MAX, with the alignment within
 * 2 GiB; above DG_CHUNK_MAX a chunk is the stride rounded up to a power
 * of two.
 */
#define DG_STRIDE_MAX		BIT(31)

/*
 * Per-CPU caches of free blocks, in runs: a run is the free blocks of one
 * group of a bitmap word of one chunk (the aligned 2^run_shift bits that
 * hold DG_PCP_BYTES of blocks at most, inside one segment), taken out of
 * the chunk and owned by one CPU. A CPU has two: allocation hands out the
 * lowest block of its alloc run; a free goes to the alloc run when of its
 * group, else to the freed run, which goes back to its chunk when a free
 * of yet another group comes. An empty alloc run takes the freed run, or
 * a group of the first partial chunk. A CPU may keep two groups of a pool
 * free, as the page allocator's per-CPU lists keep pages.
 */
#define DG_PCP_BYTES		(64 * 1024ul)

/*
 * A run keeps what its fast paths need, so that they read no chunk
 * descriptor: its group's first block (CPU and bus address; its blocks sit
 * at stride steps) and the word of the chunk's live bits. @base, @dma and
 * @live may be used while @bits is not 0 (those blocks keep the chunk) or
 * while @gen is the pool's chunks_gen (a reclaim moves it on). @live is
 * NULL until the run is first set.
 */
struct dg_pcp_run {
	char __dma *base;	/* the group's first block */
	dma_addr_t dma;		/* its bus address */
	unsigned long *live;	/* the chunk's live-bit word of the group */
	unsigned long bits;	/* its blocks, in their word; read unlocked */
	unsigned long gen;
	u32 first;		/* bit number of the group's first block */
	u32 nr;			/* blocks in the group; 0: no free is cached */
};

struct dg_pcp {
	local_trylock_t lock;	/* see "Locking" in pool.c */
	struct dg_pcp_run alloc;
	struct dg_pcp_run freed;
};

struct dg_pool {
	spinlock_t lock;		/* see "Locking" in pool.c */
	struct list_head partial;
	struct list_head full;
	struct list_head deferred;	/* chunks to free in process context */
	struct dg_chunk_table table;
	/* Counters: statistics are read from these, never from a walk. */
	u64 in_use;			/* blocks out of their chunks */
	u32 nr_chunks;
	u32 nr_empty;			/* chunks with every block free */
	u32 nr_parked;			/* allocations on the deferred list */
	u64 chunks_allocated;
	u64 chunks_released;
	u64 meta_bytes;
	u64 bad[DG_BAD_NR];
	u64 cache_bypass;		/* operations past a cache in use */
	bool reported;			/* first bad free reported in full */
	/* The device's IOTLB is flushed lazily: chunks go at destroy only. */
	bool keep_chunks;

	/*
	 * Read without the lock by every allocation and free: geometry,
	 * fixed at creation, and the gen. Not on a line with the counters
	 * above, which the slow paths and bypasses write.
	 */
	struct dg_pcp __percpu *pcp ____cacheline_aligned_in_smp;
	u32 pcp_high;		/* blocks in a run's group; 0: no caches */
	u32 run_shift;		/* log2 of that; 0 without caches */
	unsigned long run_mask;	/* a group's bits, from bit 0 of a word */
	unsigned long chunks_gen; /* moves on when chunks are freed */
	/*
	 * A block's index in its run from its offset by a multiply and a
	 * rotate, which is also the divisibility test (run_index()): the
	 * inverse modulo 2^64 of the stride's odd factor, and its power of
	 * two.
	 */
	u32 stride_tz;
	u64 stride_inv;
	u32 size;
	u32 stride;
	u32 chunk_shift;
	u32 seg_shift;		/* log2 of the segment size */
	u32 seg_bits;		/* bit number = segment << seg_bits | slot */
	u32 slot_mask;		/* (1 << seg_bits) - 1 */
	/* >0: power-of-two stride, no segments; offset = index << this. */
	u32 stride_shift;
	unsigned long seg_mask;	/* segment size - 1 */
	unsigned long bus_align; /* bus alignment of a chunk's first block */
	u32 blocks_per_seg;
	u32 blocks_per_chunk;
	u32 map_bits;
	u32 map_words;
	/* offset -> index without a divide, for other strides */
	struct reciprocal_value recip;
	unsigned long *map_full;	/* bitmap of a fresh chunk */

	void *dev;
	int node;
	char name[DG_POOL_NAME_LEN];
	struct dg_pool_plat plat;	/* the platform's: reclaim, registry */
};

static inline unsigned long chunk_size(const struct dg_pool *pool)
{
	return 1ul << pool->chunk_shift;
}

static inline bool chunk_is_empty(const struct dg_pool *pool,
				  const struct dg_chunk *chunk)
{
	return chunk->nr_free == pool->blocks_per_chunk;
}

/* Whether the CPU address @addr falls in @chunk. */
static inline bool chunk_has(const struct dg_pool *pool,
			     const struct dg_chunk *chunk, unsigned long addr)
{
	return addr - dg_dma_addr(chunk->blocks) < chunk_size(pool);
}

static inline unsigned long *chunk_live(const struct dg_pool *pool,
					struct dg_chunk *chunk)
{
	return chunk->map + pool->map_words;
}

#ifdef DG_DEBUG
void dg_pool_check(struct dg_pool *pool);
#else
static inline void dg_pool_check(struct dg_pool *pool)
{
}
#endif

/*
 * A reclaim is due (called under the pool lock); a pool that keeps its
 * chunks never needs one.
 */
static inline void pool_reclaim_kick(struct dg_pool *pool,
				     unsigned int nr_empty)
{
	if (!pool->keep_chunks)
		dg_plat_reclaim_kick(&pool->plat, nr_empty);
}

/* pool.c, for pool_alloc.c (which pool.c never calls) */
struct dg_chunk *dg_chunk_create(struct dg_pool *pool, gfp_t gfp);
void dg_chunk_drop(struct dg_pool *pool, struct dg_chunk *chunk, gfp_t gfp);
void dg_chunk_destroy(struct dg_pool *pool, struct dg_chunk *chunk);
struct dg_chunk_slot *dg_pool_rehash(struct dg_pool *pool,
				     struct dg_chunk_slot *slots, u32 bits);
void dg_pool_shrink_table(struct dg_pool *pool);

#endif /* _DMAGUARD_CORE_POOL_INTERNAL_H */
