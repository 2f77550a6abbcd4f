/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fast paths, inline in dg_pool_alloc(), dg_pool_free() and the
 * exported calls (abi/shim/pool_abi.c): out of line only for the pool
 * lock or a report.
 */
#ifndef _DMAGUARD_CORE_POOL_FAST_H
#define _DMAGUARD_CORE_POOL_FAST_H

#include "pool_internal.h"

/* pool_alloc.c */
void __dma *dg_pool_alloc_slow(struct dg_pool *pool, struct dg_pcp *pcp,
			       gfp_t gfp, dma_addr_t *dma);
void __dma *dg_pool_alloc_bypass(struct dg_pool *pool, gfp_t gfp,
				 dma_addr_t *dma);
enum dg_bad_free dg_pool_free_slow(struct dg_pool *pool, struct dg_pcp *pcp,
				   void __dma *vaddr, dma_addr_t dma);
enum dg_bad_free dg_pool_free_bypass(struct dg_pool *pool, void __dma *vaddr,
				     dma_addr_t dma);
enum dg_bad_free dg_pool_bad_free(struct dg_pool *pool, struct dg_pcp *pcp,
				  enum dg_bad_free bad, void __dma *vaddr,
				  dma_addr_t dma);

/*
 * This CPU's cache, taken, or NULL when an interrupt landed inside this
 * CPU's section (the page allocator's pcp_spin_trylock() is the model).
 */
static __always_inline struct dg_pcp *pcp_trylock(struct dg_pool *pool)
{
	if (unlikely(!local_trylock(&pool->pcp->lock)))
		return NULL;
	return this_cpu_ptr(pool->pcp);
}

/* Hand out the lowest block of @pcp's (non-empty) alloc run; give it back. */
static __always_inline void __dma *run_hand_out(struct dg_pool *pool,
						struct dg_pcp *pcp, gfp_t gfp,
						dma_addr_t *dma)
{
	struct dg_pcp_run *run = &pcp->alloc;
	unsigned long bits = run->bits, off;
	char __dma *mem;
	u32 bit = __ffs(bits);

	WRITE_ONCE(run->bits, bits & (bits - 1));
	set_bit(bit, run->live);
	/* A run is inside one segment: its blocks at stride steps. */
	off = (unsigned long)(bit - run->first % BITS_PER_LONG) * pool->stride;
	mem = run->base + off;
	*dma = run->dma + off;
	local_unlock(&pool->pcp->lock);
	if (want_init_on_alloc(gfp))
		dg_dma_zero(mem, pool->size);
	return mem;
}

/* Whether the chunk of @run may be looked at. */
static __always_inline bool run_usable(struct dg_pool *pool,
				       const struct dg_pcp_run *run)
{
	return run->bits || run->gen == READ_ONCE(pool->chunks_gen);
}

/* dg_pool_alloc(), which documents it. */
static __always_inline void __dma *__dg_pool_alloc(struct dg_pool *pool,
						   gfp_t gfp, dma_addr_t *dma)
{
	struct dg_pcp *pcp;

	might_alloc(gfp);
	pcp = pcp_trylock(pool);
	if (unlikely(!pcp))	/* an interrupt inside this CPU's section */
		return dg_pool_alloc_bypass(pool, gfp, dma);
	if (unlikely(!pcp->alloc.bits))
		return dg_pool_alloc_slow(pool, pcp, gfp, dma);
	return run_hand_out(pool, pcp, gfp, dma);
}

/*
 * Which block of @run's group @addr is: its index, or @run->nr or more
 * when @addr is not a block of the group. Arithmetic only, and exact: the
 * product is the quotient when the stride's odd factor divides the
 * offset, and past every quotient when it does not; the rotate brings a
 * remainder modulo the power of two into the top bits. 64 bits wide on
 * every architecture: on a 32-bit one, those top bits are what tells an
 * interior pointer from a block.
 */
static __always_inline u64 run_index(const struct dg_pool *pool,
				     const struct dg_pcp_run *run,
				     unsigned long addr)
{
	return ror64((addr - dg_dma_addr(run->base)) * pool->stride_inv,
		     pool->stride_tz);
}

/* dg_pool_free(), which documents it. */
static __always_inline enum dg_bad_free __dg_pool_free(struct dg_pool *pool,
						       void __dma *vaddr,
						       dma_addr_t dma)
{
	unsigned long addr = dg_dma_addr(vaddr);
	struct dg_pcp_run *run;
	struct dg_pcp *pcp;
	u32 bit;
	u64 i;

	pcp = pcp_trylock(pool);
	if (unlikely(!pcp))	/* an interrupt inside this CPU's section */
		return dg_pool_free_bypass(pool, vaddr, dma);
	/*
	 * Fast path: a good free of a block in the group of one of this
	 * CPU's runs (nr is 0 without caches and in a run never set).
	 * Anything else (a run that may not be looked at, an address
	 * between blocks, a mismatched bus address), the slow path, which
	 * decides afresh (nothing has changed yet).
	 */
	if (unlikely(want_init_on_free()))
		goto slow;
	run = &pcp->alloc;
	i = run_index(pool, run, addr);
	if (i >= run->nr) {
		run = &pcp->freed;
		i = run_index(pool, run, addr);
		if (i >= run->nr)
			goto slow;
	}
	if (unlikely(!run_usable(pool, run) ||
		     run->dma + (addr - dg_dma_addr(run->base)) != dma))
		goto slow;
	bit = run->first % BITS_PER_LONG + (u32)i;
	/* The one decision a racing double free cannot slip past. */
	if (unlikely(!test_and_clear_bit(bit, run->live)))
		return dg_pool_bad_free(pool, pcp, DG_BAD_DOUBLE, vaddr, dma);
	WRITE_ONCE(run->bits, run->bits | BIT(bit));
	local_unlock(&pool->pcp->lock);
	return DG_FREE_OK;
slow:
	return dg_pool_free_slow(pool, pcp, vaddr, dma);
}

#endif /* _DMAGUARD_CORE_POOL_FAST_H */
