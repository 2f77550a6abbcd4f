// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation and free through the per-CPU caches, and what empties them:
 * drain, a CPU going offline, reclaim, destroy. Calls down into pool.c,
 * never the other way; pool.c has the design and the locking rules.
 */
#include "pool_fast.h"

static const char * const dg_bad_names[DG_BAD_NR] = {
	[DG_BAD_FOREIGN] = "pointer not from this pool",
	[DG_BAD_MISALIGNED] = "pointer not at a block start",
	[DG_BAD_DMA] = "dma handle does not match the block",
	[DG_BAD_DOUBLE] = "block already free (double free)",
};

/* Offset of block @idx from the chunk's first block. */
static __always_inline unsigned long block_offset(const struct dg_pool *pool,
						  u32 idx)
{
	if (likely(pool->stride_shift))
		return (unsigned long)idx << pool->stride_shift;
	return ((unsigned long)(idx >> pool->seg_bits) << pool->seg_shift) +
	       (unsigned long)(idx & pool->slot_mask) * pool->stride;
}

/* The chunk of a run that has been set: its live word is in it. */
static inline struct dg_chunk *run_chunk(const struct dg_pool *pool,
					 const struct dg_pcp_run *run)
{
	return container_of(run->live - pool->map_words -
			    run->first / BITS_PER_LONG, struct dg_chunk, map[0]);
}

/* Point @run at the group of @chunk that begins at bit @first. */
static void run_set(struct dg_pool *pool, struct dg_pcp_run *run,
		    struct dg_chunk *chunk, u32 first, unsigned long bits)
{
	unsigned long off = block_offset(pool, first);

	run->base = chunk->blocks + off;
	run->dma = chunk->blocks_dma + off;
	run->live = chunk_live(pool, chunk) + first / BITS_PER_LONG;
	run->first = first;
	/* A group may end in a segment's unused tail. */
	run->nr = min(pool->pcp_high,
		      pool->blocks_per_seg - (first & pool->slot_mask));
	run->gen = READ_ONCE(pool->chunks_gen);
	/* bits: read without the locks by pcp_has_blocks() and the stats */
	WRITE_ONCE(run->bits, bits);
}

/*
 * Take the free blocks of @chunk's first group (of 2^@shift bits, @mask
 * from bit 0) that has any. Return: their bits, in their word; *@first:
 * the group's first bit number, *@nr: how many.
 */
static unsigned long chunk_take(struct dg_pool *pool, struct dg_chunk *chunk,
				u32 shift, unsigned long mask, u32 *first,
				u32 *nr)
	__must_hold(&pool->lock)
{
	u32 w = chunk->hint, lo, n;
	unsigned long left = chunk->map[w], take;

	VM_WARN_ON_ONCE(!left);
	lo = (u32)__ffs(left) >> shift << shift;
	take = left & (mask << lo);
	left &= ~take;
	n = hweight_long(take);
	chunk->map[w] = left;
	if (unlikely(chunk_is_empty(pool, chunk)))
		pool->nr_empty--;
	pool->in_use += n;
	chunk->nr_free -= n;
	if (!chunk->nr_free) {
		list_move(&chunk->node, &pool->full);
		chunk->hint = 0;
	} else if (!left) {
		chunk->hint = find_next_bit(chunk->map, pool->map_bits,
					    (w + 1) * BITS_PER_LONG) /
			      BITS_PER_LONG;
	}
	*first = w * BITS_PER_LONG + lo;
	*nr = n;
	return take;
}

/*
 * Give @nr free blocks (@bits of word @w) back to @chunk: a chunk that
 * was full rejoins the partial list at the head, one that empties moves
 * to the tail, where reclaim finds it.
 */
static void chunk_give(struct dg_pool *pool, struct dg_chunk *chunk, u32 w,
		       unsigned long bits, u32 nr)
	__must_hold(&pool->lock)
{
	chunk->map[w] |= bits;
	if (w < chunk->hint || !chunk->nr_free)
		chunk->hint = w;
	pool->in_use -= nr;
	if (!chunk->nr_free)
		list_move(&chunk->node, &pool->partial);
	chunk->nr_free += nr;
	if (unlikely(chunk_is_empty(pool, chunk))) {
		chunk->empty_since = jiffies;
		list_move_tail(&chunk->node, &pool->partial);
		pool->nr_empty++;
		pool_reclaim_kick(pool, pool->nr_empty);
	}
}

/* Give a run's blocks back to their chunk. */
static void run_flush(struct dg_pool *pool, struct dg_pcp_run *run)
	__must_hold(&pool->lock)
{
	if (!run->bits)
		return;
	chunk_give(pool, run_chunk(pool, run), run->first / BITS_PER_LONG,
		   run->bits, hweight_long(run->bits));
	WRITE_ONCE(run->bits, 0);
}

/* Give every block of @pcp back to its chunk. */
static void pcp_flush(struct dg_pool *pool, struct dg_pcp *pcp)
	__must_hold(&pool->lock)
{
	run_flush(pool, &pcp->alloc);
	run_flush(pool, &pcp->freed);
}

/*
 * The alloc run of @pcp is empty: give it the blocks freed on this CPU,
 * or else a group of free blocks of the first partial chunk. Return:
 * false when no chunk has a free block.
 */
static noinline bool pcp_refill(struct dg_pool *pool, struct dg_pcp *pcp)
{
	struct dg_pcp_run *run = &pcp->alloc;
	struct dg_chunk *chunk;
	unsigned long bits, flags;
	u32 first, nr;

	bits = pcp->freed.bits;
	if (bits) {
		run->base = pcp->freed.base;
		run->dma = pcp->freed.dma;
		run->live = pcp->freed.live;
		run->first = pcp->freed.first;
		run->nr = pcp->freed.nr;
		run->gen = pcp->freed.gen;
		/*
		 * Out of one run before into the other: a statistics reader
		 * may miss these blocks for a moment rather than count them
		 * twice (dg_pool_get_stats() clamps what it cannot order).
		 */
		WRITE_ONCE(pcp->freed.bits, 0);
		WRITE_ONCE(run->bits, bits);
		return true;
	}
	spin_lock_irqsave(&pool->lock, flags);
	if (unlikely(list_empty(&pool->partial))) {
		spin_unlock_irqrestore(&pool->lock, flags);
		return false;
	}
	chunk = list_first_entry(&pool->partial, struct dg_chunk, node);
	bits = chunk_take(pool, chunk, pool->run_shift, pool->run_mask, &first,
			  &nr);
	spin_unlock_irqrestore(&pool->lock, flags);
	run_set(pool, run, chunk, first, bits);
	return true;
}

/* Room for one more chunk in the table, growing it outside the lock. */
static bool pool_table_room(struct dg_pool *pool, gfp_t gfp)
{
	struct dg_chunk_slot *slots, *unused = NULL;
	unsigned long flags;
	bool ok = true;
	u32 bits;

	spin_lock_irqsave(&pool->lock, flags);
	while (!dg_table_has_room(&pool->table)) {
		bits = pool->table.bits + 1;
		spin_unlock_irqrestore(&pool->lock, flags);
		kfree(unused);
		slots = kzalloc_node(sizeof(*slots) << bits, gfp, pool->node);
		spin_lock_irqsave(&pool->lock, flags);
		if (!slots) {
			/*
			 * Over half full is slower, not wrong: go on while a
			 * slot stays empty to end every probe.
			 */
			unused = NULL;
			ok = dg_table_can_insert(&pool->table);
			break;
		}
		/* Another CPU may have grown it meanwhile. */
		unused = bits > pool->table.bits ?
			 dg_pool_rehash(pool, slots, bits) : slots;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	kfree(unused);
	return ok;
}

/* One block of @chunk for the caller, live now; drops the pool lock. */
static void __dma *chunk_hand_out(struct dg_pool *pool, struct dg_chunk *chunk,
				  unsigned long flags, gfp_t gfp,
				  dma_addr_t *dma)
	__releases(&pool->lock)
{
	unsigned long off;
	char __dma *mem;
	u32 idx, nr;

	chunk_take(pool, chunk, 0, 1, &idx, &nr);
	set_bit(idx, chunk_live(pool, chunk));
	dg_pool_check(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	off = block_offset(pool, idx);
	mem = chunk->blocks + off;
	*dma = chunk->blocks_dma + off;
	if (want_init_on_alloc(gfp))
		dg_dma_zero(mem, pool->size);
	return mem;
}

/* One block of the first partial chunk, or NULL; drops the pool lock. */
static void __dma *partial_hand_out(struct dg_pool *pool, unsigned long flags,
				    gfp_t gfp, dma_addr_t *dma)
	__releases(&pool->lock)
{
	if (unlikely(list_empty(&pool->partial))) {
		spin_unlock_irqrestore(&pool->lock, flags);
		return NULL;
	}
	return chunk_hand_out(pool, list_first_entry(&pool->partial,
						     struct dg_chunk, node),
			      flags, gfp, dma);
}

static void pcp_drain_irq(void *arg);
static bool pcp_has_blocks(int cpu, void *arg);

/*
 * No new chunk: take back what the CPUs cache and try the chunks again.
 * A caller that may sleep drains them; an atomic one with interrupts on
 * sends IPIs (not on PREEMPT_RT, where the cache lock sleeps). In an
 * interrupt or with interrupts off no other cache can be reached without
 * an atomic on every fast path: that caller fails, as the page
 * allocator's atomic allocations do with pages on other CPUs' lists.
 */
static noinline void __dma *pool_steal(struct dg_pool *pool, gfp_t gfp,
				       dma_addr_t *dma)
{
	unsigned long flags;

	if (!pool->pcp_high)
		return NULL;
	if (gfpflags_allow_blocking(gfp))
		dg_pool_drain(pool);
	else if (!IS_ENABLED(CONFIG_PREEMPT_RT) && !in_interrupt() &&
		 !irqs_disabled())
		on_each_cpu_cond(pcp_has_blocks, pcp_drain_irq, pool, true);
	else
		return NULL;
	spin_lock_irqsave(&pool->lock, flags);
	return partial_hand_out(pool, flags, gfp, dma);
}

/*
 * No chunk has a free block: add one and take the caller's block from it
 * at once, so that other CPUs cannot take them all. Called without locks.
 */
static noinline void __dma *pool_grow(struct dg_pool *pool, gfp_t gfp,
				      dma_addr_t *dma)
{
	struct dg_chunk *chunk;
	unsigned long flags;

	chunk = dg_chunk_create(pool, gfp);
	if (!chunk)
		return pool_steal(pool, gfp, dma);
	for (;;) {
		if (!pool_table_room(pool, gfp)) {
			dg_chunk_drop(pool, chunk, gfp);
			return pool_steal(pool, gfp, dma);
		}
		spin_lock_irqsave(&pool->lock, flags);
		if (dg_table_can_insert(&pool->table))
			break;
		spin_unlock_irqrestore(&pool->lock, flags);	/* taken meanwhile */
	}
	dg_table_insert(&pool->table, chunk);
	list_add(&chunk->node, &pool->partial);
	pool->nr_chunks++;
	pool->nr_empty++;
	pool->chunks_allocated++;
	pool->meta_bytes += ksize(chunk);
	return chunk_hand_out(pool, chunk, flags, gfp, dma);
}

/* __dg_pool_alloc() with an empty alloc run; gives @pcp back. */
noinline void __dma *dg_pool_alloc_slow(struct dg_pool *pool,
					struct dg_pcp *pcp, gfp_t gfp,
					dma_addr_t *dma)
{
	if (!pcp_refill(pool, pcp)) {
		local_unlock(&pool->pcp->lock);
		return pool_grow(pool, gfp, dma);
	}
	return run_hand_out(pool, pcp, gfp, dma);
}

/*
 * An allocation from an interrupt inside this CPU's cache section: a block
 * straight from the chunks.
 */
noinline void __dma *dg_pool_alloc_bypass(struct dg_pool *pool, gfp_t gfp,
					  dma_addr_t *dma)
{
	unsigned long flags;
	void __dma *mem;

	spin_lock_irqsave(&pool->lock, flags);
	pool->cache_bypass++;
	mem = partial_hand_out(pool, flags, gfp, dma);
	return mem ?: pool_grow(pool, gfp, dma);
}

/**
 * dg_pool_alloc() - allocate one block
 * @pool: the pool
 * @gfp: allocation flags for a new chunk; __GFP_ZERO zeroes the block
 * @dma: where the block's bus address goes
 *
 * Return: the block, or NULL when no chunk could be had.
 */
void __dma *dg_pool_alloc(struct dg_pool *pool, gfp_t gfp, dma_addr_t *dma)
{
	return __dg_pool_alloc(pool, gfp, dma);
}

/*
 * Where a free lands in @chunk: sets *@idx to the block's bit number, or
 * says why @off/@dma is not a block of it. Arithmetic only.
 */
static __always_inline enum dg_bad_free free_decode(struct dg_pool *pool,
						    struct dg_chunk *chunk,
						    unsigned long off,
						    dma_addr_t dma, u32 *idx)
{
	unsigned long in;
	u32 slot;

	if (likely(pool->stride_shift)) {
		/* Power-of-two stride, no segments: every slot is a block. */
		if (unlikely(off & (pool->stride - 1)))
			return DG_BAD_MISALIGNED;
		*idx = off >> pool->stride_shift;
	} else {
		in = off & pool->seg_mask;
		slot = reciprocal_divide(in, pool->recip);
		if (unlikely((unsigned long)slot * pool->stride != in ||
			     slot >= pool->blocks_per_seg))
			return DG_BAD_MISALIGNED;
		*idx = (u32)(off >> pool->seg_shift) << pool->seg_bits | slot;
	}
	if (unlikely(chunk->blocks_dma + off != dma))
		return DG_BAD_DMA;
	return DG_FREE_OK;
}

/*
 * Count and report a free that is not applied; gives @pcp (or NULL) back.
 * Return: @bad.
 */
noinline __cold enum dg_bad_free dg_pool_bad_free(struct dg_pool *pool,
						  struct dg_pcp *pcp,
						  enum dg_bad_free bad,
						  void __dma *vaddr,
						  dma_addr_t dma)
{
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&pool->lock, flags);
	pool->bad[bad]++;
	first = !pool->reported;
	pool->reported = true;
	spin_unlock_irqrestore(&pool->lock, flags);
	if (pcp)
		local_unlock(&pool->pcp->lock);
	/* Never a WARN, which a device could turn into a panic. */
	if (first)
		dev_err(pool->dev, "pool %s: bad free of %p (dma %pad): %s; not applied\n",
			pool->name, (void __force *)vaddr, &dma,
			dg_bad_names[bad]);
	else
		dev_err_ratelimited(pool->dev, "pool %s: bad free of %p (dma %pad): %s; not applied\n",
				    pool->name, (void __force *)vaddr, &dma,
				    dg_bad_names[bad]);
	return bad;
}

/* Whether @run has been set, may be looked at, and its chunk holds @addr. */
static bool run_holds(struct dg_pool *pool, const struct dg_pcp_run *run,
		      unsigned long addr)
{
	return run->live && run_usable(pool, run) &&
	       chunk_has(pool, run_chunk(pool, run), addr);
}

/* A free in a chunk that no run of this CPU knows: find it in the table. */
static noinline struct dg_chunk *pool_find_chunk(struct dg_pool *pool,
						 unsigned long addr)
{
	struct dg_chunk *chunk;
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	chunk = dg_table_find(&pool->table, addr);
	spin_unlock_irqrestore(&pool->lock, flags);
	return chunk;
}

/* The chunk of a freed block: most frees land in one a run knows. */
static struct dg_chunk *pcp_find_chunk(struct dg_pool *pool,
				       struct dg_pcp *pcp, unsigned long addr)
{
	if (run_holds(pool, &pcp->alloc, addr))
		return run_chunk(pool, &pcp->alloc);
	if (run_holds(pool, &pcp->freed, addr))
		return run_chunk(pool, &pcp->freed);
	return pool_find_chunk(pool, addr);
}

/* Whether @run may take the free block @idx of @chunk. */
static bool run_takes(const struct dg_pool *pool,
		      const struct dg_pcp_run *run, struct dg_chunk *chunk,
		      u32 idx)
{
	return !run->bits || (run_chunk(pool, run) == chunk &&
			      !((idx ^ run->first) >> pool->run_shift));
}

/* Add the free block @idx of @chunk to @run, which may take it. */
static void run_add(struct dg_pool *pool, struct dg_pcp_run *run,
		    struct dg_chunk *chunk, u32 idx)
{
	if (!run->bits)
		run_set(pool, run, chunk,
			idx >> pool->run_shift << pool->run_shift, 0);
	WRITE_ONCE(run->bits, run->bits | BIT(idx % BITS_PER_LONG));
}

/*
 * Cache a freed block in a run of this CPU: the alloc run if it is of
 * the block's group, else the freed run, given back to its chunk first
 * when it is of another group.
 */
static void pcp_put(struct dg_pool *pool, struct dg_pcp *pcp,
		    struct dg_chunk *chunk, u32 idx)
{
	struct dg_pcp_run *run = &pcp->alloc;
	unsigned long flags;

	if (unlikely(!pool->pcp_high)) {	/* no caches: to the chunk */
		spin_lock_irqsave(&pool->lock, flags);
		chunk_give(pool, chunk, idx / BITS_PER_LONG,
			   BIT(idx % BITS_PER_LONG), 1);
		spin_unlock_irqrestore(&pool->lock, flags);
		return;
	}
	if (!run_takes(pool, run, chunk, idx)) {
		run = &pcp->freed;
		if (!run_takes(pool, run, chunk, idx)) {
			spin_lock_irqsave(&pool->lock, flags);
			run_flush(pool, run);
			spin_unlock_irqrestore(&pool->lock, flags);
		}
	}
	run_add(pool, run, chunk, idx);
}

/*
 * A free __dg_pool_free() cannot apply alone (a chunk no run knows, a
 * group neither run takes, init_on_free, no caches, a bad free): decided
 * afresh, as nothing has changed yet; gives @pcp back.
 */
noinline enum dg_bad_free dg_pool_free_slow(struct dg_pool *pool,
					    struct dg_pcp *pcp,
					    void __dma *vaddr, dma_addr_t dma)
{
	unsigned long addr = dg_dma_addr(vaddr), off;
	struct dg_chunk *chunk;
	enum dg_bad_free bad;
	u32 idx = 0;

	chunk = pcp_find_chunk(pool, pcp, addr);
	if (unlikely(!chunk))
		return dg_pool_bad_free(pool, pcp, DG_BAD_FOREIGN, vaddr, dma);
	off = addr - dg_dma_addr(chunk->blocks);
	bad = free_decode(pool, chunk, off, dma, &idx);
	/* The one decision a racing double free cannot slip past. */
	if (likely(!bad) &&
	    unlikely(!test_and_clear_bit(idx, chunk_live(pool, chunk))))
		bad = DG_BAD_DOUBLE;
	if (unlikely(bad))
		return dg_pool_bad_free(pool, pcp, bad, vaddr, dma);
	/* init_on_free: zeroed before it can be handed out again. */
	if (want_init_on_free())
		dg_dma_zero(vaddr, pool->size);
	pcp_put(pool, pcp, chunk, idx);
	local_unlock(&pool->pcp->lock);
	return DG_FREE_OK;
}

/*
 * A free from an interrupt inside this CPU's cache section: the block goes
 * back to its chunk, found, checked and freed under the pool lock (which
 * keeps a reclaim from freeing the chunk meanwhile).
 */
noinline enum dg_bad_free dg_pool_free_bypass(struct dg_pool *pool,
					      void __dma *vaddr, dma_addr_t dma)
{
	unsigned long addr = dg_dma_addr(vaddr), flags;
	enum dg_bad_free bad = DG_BAD_FOREIGN;
	struct dg_chunk *chunk;
	u32 idx = 0;

	spin_lock_irqsave(&pool->lock, flags);
	chunk = dg_table_find(&pool->table, addr);
	if (chunk)
		bad = free_decode(pool, chunk, addr - dg_dma_addr(chunk->blocks),
				  dma, &idx);
	if (likely(!bad) &&
	    unlikely(!test_and_clear_bit(idx, chunk_live(pool, chunk))))
		bad = DG_BAD_DOUBLE;
	if (likely(!bad)) {
		if (want_init_on_free())
			dg_dma_zero(vaddr, pool->size);
		chunk_give(pool, chunk, idx / BITS_PER_LONG,
			   BIT(idx % BITS_PER_LONG), 1);
		pool->cache_bypass++;
		dg_pool_check(pool);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (unlikely(bad))
		return dg_pool_bad_free(pool, NULL, bad, vaddr, dma);
	return DG_FREE_OK;
}

/**
 * dg_pool_free() - give a block back, after checking it is one
 * @pool: the pool
 * @vaddr: the block
 * @dma: its bus address
 *
 * Only arithmetic on out-of-line state decides; a free that is not of a
 * live block of this pool is counted, reported and not applied.
 *
 * Return: DG_FREE_OK, or what was wrong with the free.
 */
enum dg_bad_free dg_pool_free(struct dg_pool *pool, void __dma *vaddr,
			      dma_addr_t dma)
{
	return __dg_pool_free(pool, vaddr, dma);
}

/* Whether @cpu caches blocks of the pool @arg: a racy look. */
static bool pcp_has_blocks(int cpu, void *arg)
{
	struct dg_pool *pool = arg;
	struct dg_pcp *pcp = per_cpu_ptr(pool->pcp, cpu);

	return READ_ONCE(pcp->alloc.bits) || READ_ONCE(pcp->freed.bits);
}

/* Give this CPU's cached blocks back to their chunks; @pcp is taken. */
static void pcp_drain_taken(struct dg_pool *pool, struct dg_pcp *pcp)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	pcp_flush(pool, pcp);
	spin_unlock_irqrestore(&pool->lock, flags);
	local_unlock(&pool->pcp->lock);
}

/* From work_on_cpu(). */
static long pcp_drain(void *arg)
{
	struct dg_pool *pool = arg;

	local_lock(&pool->pcp->lock);
	pcp_drain_taken(pool, this_cpu_ptr(pool->pcp));
	return 0;
}

/* From an IPI, which may land inside this CPU's section: then nothing. */
static void pcp_drain_irq(void *arg)
{
	struct dg_pool *pool = arg;
	struct dg_pcp *pcp = pcp_trylock(pool);

	if (pcp)
		pcp_drain_taken(pool, pcp);
}

/**
 * dg_pool_drain() - return the CPUs' cached free blocks to their chunks
 * @pool: the pool
 *
 * Visits each online CPU that caches blocks of @pool, in process context.
 * Not work_on_cpu_safe(): a drain called from a CPU hotplug callback must
 * not take the hotplug lock. Work for a CPU going down runs elsewhere and
 * drains that CPU's cache; the dead one's goes in dg_pool_cpu_dead().
 *
 * Context: process context; may sleep.
 */
void dg_pool_drain(struct dg_pool *pool)
{
	int cpu;

	might_sleep();
	if (!pool->pcp_high)
		return;
	for_each_online_cpu(cpu)
		if (pcp_has_blocks(cpu, pool))
			work_on_cpu(cpu, pcp_drain, pool);
}

/**
 * dg_pool_cpu_dead() - return the whole cache of a CPU that nothing uses
 * @pool: the pool
 * @cpu: a CPU gone offline (the CPU hotplug dead callback), or any CPU of
 *	a pool being destroyed
 *
 * Offline, its blocks would keep their chunks until it came back. Nothing
 * runs in its section: the pool lock, which every drain holds, suffices.
 *
 * Context: process context.
 */
void dg_pool_cpu_dead(struct dg_pool *pool, int cpu)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	pcp_flush(pool, per_cpu_ptr(pool->pcp, cpu));
	spin_unlock_irqrestore(&pool->lock, flags);
}

/**
 * dg_pool_reclaim_empty() - give chunks that stayed empty back to the system
 * @pool: the pool
 * @min_age: ticks a chunk must have been empty
 * @keep: empty chunks to keep whatever their age
 *
 * Releases from the oldest empty chunk on (the tail of the partial list),
 * keeping the @keep most recently emptied, and the chunks atomic callers
 * parked. No CPU is visited: cached blocks keep their chunks, so the
 * background reclaim never disturbs a CPU. A pool whose IOMMU invalidates
 * lazily (DMA-FQ) releases nothing before its destroy, as the kernel's
 * dma_pool: the device could reach a freed chunk through stale IOTLB
 * entries until the flush queue drains.
 *
 * Context: process context; may sleep.
 * Return: the number of chunks released (parked ones not counted).
 */
unsigned int dg_pool_reclaim_empty(struct dg_pool *pool,
				   unsigned long min_age, unsigned int keep)
{
	struct dg_chunk *chunk, *next;
	unsigned int n, released = 0;
	unsigned long flags, now;
	LIST_HEAD(victims);

	if (pool->keep_chunks)
		return 0;
	spin_lock_irqsave(&pool->lock, flags);
	list_splice_init(&pool->deferred, &victims);
	pool->nr_parked = 0;
	now = jiffies;
	/* Step back from the tail to the oldest empty chunk... */
	chunk = list_last_entry(&pool->partial, struct dg_chunk, node);
	for (n = pool->nr_empty; n > 1; n--)
		chunk = list_prev_entry(chunk, node);
	/* ...and release forward, oldest first. */
	for (n = pool->nr_empty; n > keep; n--, chunk = next) {
		next = list_next_entry(chunk, node);
		VM_WARN_ON_ONCE(!chunk_is_empty(pool, chunk));
		if (now - chunk->empty_since < min_age)
			break;
		list_move(&chunk->node, &victims);
		dg_table_remove(&pool->table, chunk);
		pool->nr_chunks--;
		pool->nr_empty--;
		pool->chunks_released++;
		pool->meta_bytes -= ksize(chunk);
		released++;
	}
	/* 0 is the gen of runs never set, which nothing may look at. */
	if (released)
		WRITE_ONCE(pool->chunks_gen, pool->chunks_gen + 1 ?: 1);
	dg_pool_check(pool);
	spin_unlock_irqrestore(&pool->lock, flags);

	/*
	 * The new gen hides the victims from empty runs; synchronize_rcu()
	 * waits out the sections already past that check.
	 */
	if (released)
		synchronize_rcu();
	list_for_each_entry_safe(chunk, next, &victims, node)
		dg_chunk_destroy(pool, chunk);
	if (released)
		dg_pool_shrink_table(pool);
	return released;
}

/**
 * dg_pool_reclaim() - drain every CPU's cache, then reclaim empty chunks
 * @pool: the pool
 * @min_age: as for dg_pool_reclaim_empty()
 * @keep: as for dg_pool_reclaim_empty()
 *
 * For a caller that wants the pool as small as it can be now (tests, a
 * CPU hotplug callback): cached blocks go back first.
 *
 * Context: process context; may sleep.
 * Return: as dg_pool_reclaim_empty().
 */
unsigned int dg_pool_reclaim(struct dg_pool *pool, unsigned long min_age,
			     unsigned int keep)
{
	if (pool->keep_chunks)
		return 0;
	dg_pool_drain(pool);
	return dg_pool_reclaim_empty(pool, min_age, keep);
}

static void chunks_destroy(struct dg_pool *pool, struct list_head *list,
			   unsigned int *live, unsigned int *kept)
{
	struct dg_chunk *chunk, *next;

	list_for_each_entry_safe(chunk, next, list, node) {
		if (chunk_is_empty(pool, chunk)) {
			dg_chunk_destroy(pool, chunk);
			continue;
		}
		/* A late access must hit memory that never went back. */
		*live += pool->blocks_per_chunk - chunk->nr_free;
		(*kept)++;
		kfree(chunk);
	}
}

/**
 * dg_pool_destroy() - free a pool and its chunks
 * @pool: the pool; nobody may use it concurrently
 *
 * Chunks with live blocks are reported and deliberately not freed, so a
 * late access hits memory that never went back to the system.
 *
 * Context: process context; may sleep.
 * Return: the number of blocks that were still allocated.
 */
unsigned int dg_pool_destroy(struct dg_pool *pool)
{
	unsigned int live = 0, kept = 0;
	struct dg_chunk *chunk, *next;
	int cpu;

	/*
	 * A reclaim queued by the last frees may be draining: the caches go
	 * back under the pool lock, and that reclaim is cancelled after.
	 */
	for_each_possible_cpu(cpu)
		dg_pool_cpu_dead(pool, cpu);
	dg_plat_fini(&pool->plat);
	free_percpu(pool->pcp);
	dg_pool_check(pool);
	chunks_destroy(pool, &pool->partial, &live, &kept);
	chunks_destroy(pool, &pool->full, &live, &kept);
	list_for_each_entry_safe(chunk, next, &pool->deferred, node)
		dg_chunk_destroy(pool, chunk);
	if (live)
		dev_err(pool->dev, "pool %s: destroyed with %u blocks in use, %u chunks kept\n",
			pool->name, live, kept);
	kfree(pool->table.slots);
	kfree(pool->map_full);
	kfree(pool);
	return live;
}
