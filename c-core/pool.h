/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmaguard core: hardened pool of fixed-size DMA blocks.
 *
 * Plain C over dg_platform.h, built both into dmaguard.ko and into the
 * userspace library that the unit tests, fuzzer and benchmarks link.
 */
#ifndef _DMAGUARD_CORE_POOL_H
#define _DMAGUARD_CORE_POOL_H

#include "dg_platform.h"

#define DG_POOL_NAME_LEN	32

struct dg_pool;

/* What a rejected free was; index into dg_pool_stats.bad_frees. */
enum dg_bad_free {
	DG_FREE_OK = 0,
	DG_BAD_FOREIGN,		/* not inside any chunk of this pool */
	DG_BAD_MISALIGNED,	/* inside a chunk, not at a block start */
	DG_BAD_DMA,		/* dma handle does not match vaddr */
	DG_BAD_DOUBLE,		/* block is already free */
	DG_BAD_NR,
};

struct dg_pool_stats {
	char name[DG_POOL_NAME_LEN];
	u32 size;		/* block size asked for */
	u32 stride;		/* distance between blocks */
	u32 chunk_size;		/* bytes of DMA memory per chunk */
	u32 blocks_per_chunk;
	u64 blocks_in_use;
	u64 blocks_total;	/* blocks in all chunks held */
	u32 chunks;		/* chunks held */
	u32 chunks_empty;	/* of which fully free */
	u32 chunks_parked;	/* not in service, to be freed by reclaim */
	u64 chunks_allocated;	/* since creation */
	u64 chunks_released;	/* since creation */
	u64 meta_bytes;		/* out-of-line bookkeeping, allocator sizes */
	u64 pcp_bytes;		/* the per-CPU caches, a fixed cost per pool */
	u64 bad_frees[DG_BAD_NR];
	/* allocations and frees an interrupt made past its CPU's cache */
	u64 cache_bypass;
};

/**
 * struct dg_pool_params - what a pool is made of
 * @name: for reports
 * @dev: opaque backend context handed to dg_chunk_mem_alloc()
 * @size: block size
 * @align: block alignment, power of two, 0 means 1: of the bus address
 *	always, of the CPU address up to a page (beyond, only where the
 *	backend maps chunks at congruent addresses, as without an IOMMU;
 *	mainline's dma_pool promises no more under an IOMMU either)
 * @boundary: power of two no block crosses in bus address space, 0 means
 *	none
 * @node: NUMA node for bookkeeping, or DG_NO_NODE
 */
struct dg_pool_params {
	const char *name;
	void *dev;
	size_t size;
	size_t align;
	size_t boundary;
	int node;
};

int dg_pool_check_params(const struct dg_pool_params *p, const char **why);
struct dg_pool *dg_pool_create(const struct dg_pool_params *p);
void __dma *dg_pool_alloc(struct dg_pool *pool, gfp_t gfp, dma_addr_t *dma);
enum dg_bad_free dg_pool_free(struct dg_pool *pool, void __dma *vaddr,
			      dma_addr_t dma);
unsigned int dg_pool_destroy(struct dg_pool *pool);
/*
 * Chunks that stayed empty go back to the system, except behind an IOMMU
 * that invalidates its IOTLB lazily (DMA-FQ): there, as the kernel's own
 * dma_pool does everywhere, a pool keeps its chunks until its destroy.
 */
unsigned int dg_pool_reclaim(struct dg_pool *pool, unsigned long min_age,
			     unsigned int keep);
unsigned int dg_pool_reclaim_empty(struct dg_pool *pool,
				   unsigned long min_age, unsigned int keep);
void dg_pool_get_stats(struct dg_pool *pool, struct dg_pool_stats *st);
const char *dg_pool_name(const struct dg_pool *pool);
unsigned int dg_pool_empty_chunks(struct dg_pool *pool);
void dg_pool_drain(struct dg_pool *pool);
void dg_pool_cpu_dead(struct dg_pool *pool, int cpu);
struct dg_pool_plat *dg_pool_plat(struct dg_pool *pool);
struct dg_pool *dg_pool_from_plat(struct dg_pool_plat *plat);

/*
 * Walk the block memory of every chunk (for tests that play a hostile
 * device). The callback runs under the pool lock and must not call back
 * into the pool.
 */
void dg_pool_for_each_chunk(struct dg_pool *pool,
			    void (*fn)(void *arg, void __dma *mem, size_t len,
				       dma_addr_t dma),
			    void *arg);

#endif /* _DMAGUARD_CORE_POOL_H */
