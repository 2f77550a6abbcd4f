// SPDX-License-Identifier: GPL-2.0
/*
 * Hardened pool of fixed-size DMA blocks.
 *
 * The device may read and write every byte of every chunk at any time, so
 * all of the pool's state is out of line and chunk memory is never read.
 *
 * chunk          chunk_size bytes of blocks (a power of two) in one coherent
 *                allocation, assumed only page aligned in CPU and in bus
 *                address, with no relation between the two (an IOMMU
 *                remaps it; atomic allocations come from page-aligned pools).
 * struct dg_chunk  its descriptor: addresses, free count, free bitmap.
 * table          block address -> chunk (chunk_table.c): free() finds the
 *                chunk in O(1) without trusting the pointer.
 * partial, full  chunks with a free block, and the others. Allocation takes
 *                the head of partial; a chunk that empties moves to its
 *                tail, so empty chunks form the tail, oldest first.
 *
 * Block layout: blocks sit at index * stride from the chunk's first block.
 * A boundary smaller than the chunk cuts it into segments of
 * blocks_per_seg blocks, and a block's bit number is (segment << seg_bits)
 * | slot. offset -> index is a shift for power-of-two strides and
 * reciprocal_divide() otherwise: no divide on the hot paths.
 *
 * Alignment and boundaries are promises about bus addresses (and CPU
 * addresses up to a page), kept by offsets from a first block whose bus
 * address is aligned to bus_align; when that exceeds a page, a chunk that
 * is not aligned enough is replaced by a larger allocation holding an
 * aligned window (dg_chunk_create()).
 *
 * Per-CPU caches: frees go to the CPU's cache and allocations take from
 * it without the pool lock; a cache moves a group of a bitmap word at a
 * time to and from the chunks under the pool lock (struct dg_pcp_run). A
 * block's "live" bit, flipped atomically, tells a free of a live block
 * from a double free wherever the block was cached. Cached blocks keep
 * their chunks: reclaim frees only empty chunks and visits no CPU.
 *
 * Locking: a CPU's cache is a local_trylock_t, tried on the fast paths;
 * pools are used from hard interrupts, and an interrupt that finds its
 * CPU's cache in use goes past it, to the chunks (the _bypass() calls). A
 * cache section is an RCU read-side section, which reclaim waits out.
 * pool->lock nests inside it, is taken with interrupts saved, and guards
 * the lists, the table, the counters and the descriptors but the live
 * bits. No memory is allocated or freed under either lock.
 */
#include "pool_internal.h"

#ifdef DG_DEBUG
/* The invariants every operation keeps; O(chunks), debug builds only. */
void dg_pool_check(struct dg_pool *pool)
{
	u32 chunks = 0, empty = 0, entries = 0, free, w;
	bool seen_empty = false;
	struct dg_chunk *chunk;
	u64 in_use = 0;

	list_for_each_entry(chunk, &pool->partial, node) {
		VM_WARN_ON_ONCE(!chunk->nr_free);
		/* The empty chunks form the tail of the partial list. */
		VM_WARN_ON_ONCE(seen_empty && !chunk_is_empty(pool, chunk));
		seen_empty |= chunk_is_empty(pool, chunk);
		empty += chunk_is_empty(pool, chunk);
		chunks++;
		free = 0;
		for (w = 0; w < pool->map_words; w++) {
			free += __builtin_popcountl(chunk->map[w]);
			VM_WARN_ON_ONCE(w < chunk->hint && chunk->map[w]);
		}
		VM_WARN_ON_ONCE(free != chunk->nr_free);
		VM_WARN_ON_ONCE(!chunk->map[chunk->hint]);
		in_use += pool->blocks_per_chunk - chunk->nr_free;
		entries += dg_table_entries(&pool->table,
					    dg_dma_addr(chunk->blocks));
		VM_WARN_ON_ONCE(dg_table_find(&pool->table,
					      dg_dma_addr(chunk->blocks)) != chunk);
	}
	list_for_each_entry(chunk, &pool->full, node) {
		VM_WARN_ON_ONCE(chunk->nr_free != 0);
		chunks++;
		in_use += pool->blocks_per_chunk;
		entries += dg_table_entries(&pool->table,
					    dg_dma_addr(chunk->blocks));
		VM_WARN_ON_ONCE(dg_table_find(&pool->table,
					      dg_dma_addr(chunk->blocks) +
					      chunk_size(pool) - 1) != chunk);
	}
	VM_WARN_ON_ONCE(empty != pool->nr_empty);
	VM_WARN_ON_ONCE(chunks != pool->nr_chunks);
	VM_WARN_ON_ONCE(in_use != pool->in_use);
	VM_WARN_ON_ONCE(entries != pool->table.used);
}
#endif

/* 0 if @p is a valid pool, else -EINVAL and *@why says why. */
int dg_pool_check_params(const struct dg_pool_params *p, const char **why)
{
	size_t align = p->align ? p->align : 1;

	if (!p->name)
		*why = "name is NULL";
	else if (!p->size)
		*why = "size is 0";
	else if (p->size > INT_MAX)
		*why = "size larger than INT_MAX";
	else if (!is_power_of_2(align))
		*why = "align is not a power of two";
	else if (align > DG_STRIDE_MAX || ALIGN(p->size, align) > DG_STRIDE_MAX)
		*why = "size rounded up to align is larger than 2 GiB";
	else if (p->boundary && !is_power_of_2(p->boundary))
		*why = "boundary is not a power of two";
	else if (p->boundary && p->boundary < p->size)
		*why = "boundary smaller than size";
	else
		return 0;
	return -EINVAL;
}

/*
 * The inverse of the odd @d modulo 2^64, by Newton's iteration: d * d is 1
 * modulo 8, and each step doubles the bits that are right.
 */
static u64 pool_inverse(u64 d)
{
	u64 x = d;
	int i;

	for (i = 0; i < 5; i++)
		x *= 2 - d * x;
	return x;
}

/* Geometry: chunk size, segments, bitmap shape, bus alignment. */
static void pool_set_geometry(struct dg_pool *pool, size_t align,
			      size_t boundary)
{
	unsigned long chunk, seg;
	u32 nseg;

	chunk = roundup_pow_of_two((unsigned long)pool->stride *
				   DG_CHUNK_MIN_BLOCKS);
	chunk = max(chunk, DG_CHUNK_MIN);
	chunk = min(chunk, DG_CHUNK_MAX);
	chunk = max(chunk, roundup_pow_of_two(pool->stride));
	pool->chunk_shift = ilog2(chunk);

	/* Segments only where a block could cross a boundary. */
	seg = chunk;
	if (boundary && boundary < chunk && boundary % pool->stride &&
	    pool->stride % boundary)
		seg = boundary;
	pool->seg_shift = ilog2(seg);
	nseg = chunk >> pool->seg_shift;
	pool->blocks_per_seg = (seg - pool->size) / pool->stride + 1;
	pool->seg_bits = order_base_2(pool->blocks_per_seg);
	pool->slot_mask = (1u << pool->seg_bits) - 1;
	pool->seg_mask = seg - 1;
	pool->blocks_per_chunk = nseg * pool->blocks_per_seg;
	pool->map_bits = ((nseg - 1) << pool->seg_bits) + pool->blocks_per_seg;
	pool->map_words = BITS_TO_LONGS(pool->map_bits);
	pool->recip = reciprocal_value(pool->stride);
	if (seg == chunk && is_power_of_2(pool->stride) && pool->stride > 1)
		pool->stride_shift = ilog2(pool->stride);

	/* Offsets keep both promises from a chunk start aligned to this. */
	pool->bus_align = max(align, boundary ? min(boundary, chunk) : 1ul);
}

static void pool_fill_map_full(struct dg_pool *pool)
{
	u32 seg, slot, nseg = 1u << (pool->chunk_shift - pool->seg_shift);

	for (seg = 0; seg < nseg; seg++)
		for (slot = 0; slot < pool->blocks_per_seg; slot++)
			__set_bit(seg << pool->seg_bits | slot, pool->map_full);
}

/**
 * dg_pool_create() - create a pool
 * @p: parameters, see struct dg_pool_params
 *
 * Return: the pool, or NULL on invalid parameters (reported) or when no
 * memory could be had for the bookkeeping.
 */
struct dg_pool *dg_pool_create(const struct dg_pool_params *p)
{
	size_t align = p->align ? p->align : 1;
	struct dg_pool *pool;
	const char *why;
	u32 shift;
	int cpu;

	if (dg_pool_check_params(p, &why)) {
		dev_err(p->dev, "pool %s: cannot create: %s (size %zu align %zu boundary %zu)\n",
			p->name ? p->name : "(null)", why, p->size, p->align,
			p->boundary);
		return NULL;
	}

	pool = kzalloc_node(sizeof(*pool), GFP_KERNEL, p->node);
	if (!pool)
		return NULL;
	snprintf(pool->name, sizeof(pool->name), "%s", p->name);
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->partial);
	INIT_LIST_HEAD(&pool->full);
	INIT_LIST_HEAD(&pool->deferred);
	pool->dev = p->dev;
	pool->node = p->node;
	pool->keep_chunks = dg_chunk_mem_lazy_unmap(p->dev);
	pool->size = p->size;
	pool->stride = ALIGN(p->size, align);
	pool_set_geometry(pool, align, p->boundary);

	pool->map_full = kzalloc_node(pool->map_words * sizeof(long),
				      GFP_KERNEL, p->node);
	pool->table.slots = kzalloc_node(DG_TABLE_MIN_SLOTS *
					 sizeof(*pool->table.slots),
					 GFP_KERNEL, p->node);
	pool->pcp = alloc_percpu(struct dg_pcp);
	if (!pool->map_full || !pool->table.slots || !pool->pcp) {
		free_percpu(pool->pcp);
		kfree(pool->map_full);
		kfree(pool->table.slots);
		kfree(pool);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		local_trylock_init(&per_cpu_ptr(pool->pcp, cpu)->lock);
	/*
	 * Caches where a run of 4 blocks or more fits in DG_PCP_BYTES and in
	 * one segment; without, a "run" is the one block asked for.
	 */
	shift = DG_PCP_BYTES / pool->stride ?
		ilog2(DG_PCP_BYTES / pool->stride) : 0;
	shift = min_t(u32, shift, ilog2(BITS_PER_LONG));
	shift = min_t(u32, shift, pool->seg_bits);
	if (shift >= 2) {
		pool->run_shift = shift;
		pool->pcp_high = 1u << shift;
	}
	pool->stride_tz = __ffs(pool->stride);
	pool->stride_inv = pool_inverse(pool->stride >> pool->stride_tz);
	pool->run_mask = pool->pcp_high == BITS_PER_LONG ? ~0ul :
			 (1ul << max(pool->pcp_high, 1u)) - 1;
	pool->chunks_gen = 1;	/* runs never set have gen 0 */
	pool->table.bits = ilog2(DG_TABLE_MIN_SLOTS);
	pool->table.shift = pool->chunk_shift;
	pool_fill_map_full(pool);
	pool->meta_bytes = ksize(pool) + ksize(pool->map_full) +
			   ksize(pool->table.slots);
	dg_plat_init(&pool->plat);
	return pool;
}

static size_t chunk_desc_size(const struct dg_pool *pool)
{
	return sizeof(struct dg_chunk) + 2 * pool->map_words * sizeof(long);
}

/* Free a chunk out of service: its DMA memory, then its descriptor. */
void dg_chunk_destroy(struct dg_pool *pool, struct dg_chunk *chunk)
{
	dg_chunk_mem_free(pool->dev, chunk_size(pool) + chunk->slack,
			  chunk->blocks - chunk->phase,
			  chunk->blocks_dma - chunk->phase);
	kfree(chunk);
}

/*
 * Give back a chunk that never went into service, without the lock. DMA
 * memory cannot be freed in atomic context: for an atomic caller it waits
 * on pool->deferred for the next reclaim or the destroy.
 */
void dg_chunk_drop(struct dg_pool *pool, struct dg_chunk *chunk, gfp_t gfp)
{
	unsigned long flags;

	if (gfpflags_allow_blocking(gfp)) {
		dg_chunk_destroy(pool, chunk);
		return;
	}
	spin_lock_irqsave(&pool->lock, flags);
	list_add(&chunk->node, &pool->deferred);
	pool->nr_parked++;
	pool_reclaim_kick(pool, ~0u);
	spin_unlock_irqrestore(&pool->lock, flags);
}

/* Offset of the first block: what aligns the bus address to bus_align. */
static unsigned long chunk_phase(const struct dg_pool *pool, dma_addr_t dma)
{
	return (unsigned long)-dma & (pool->bus_align - 1);
}

/* The allocation; blocks start at its beginning until dg_chunk_create() says. */
static bool chunk_get_mem(struct dg_pool *pool, struct dg_chunk *chunk,
			  u32 slack, gfp_t gfp)
{
	chunk->blocks = dg_chunk_mem_alloc(pool->dev, chunk_size(pool) + slack,
					   &chunk->blocks_dma, gfp);
	chunk->slack = slack;
	return !!chunk->blocks;
}

/* A fresh chunk, not yet visible to anyone; called without the lock. */
struct dg_chunk *dg_chunk_create(struct dg_pool *pool, gfp_t gfp)
{
	struct dg_chunk *chunk, *spare;
	unsigned long off;

	gfp &= ~__GFP_ZERO;
	chunk = kzalloc_node(chunk_desc_size(pool), gfp, pool->node);
	if (!chunk)
		return NULL;
	if (!chunk_get_mem(pool, chunk, 0, gfp))
		goto fail;
	off = chunk_phase(pool, chunk->blocks_dma);
	if (off) {
		/* bus_align over a page: a larger allocation, a window. */
		spare = kzalloc_node(chunk_desc_size(pool), gfp, pool->node);
		dg_chunk_drop(pool, chunk, gfp);
		chunk = spare;
		if (!chunk || !chunk_get_mem(pool, chunk,
					     pool->bus_align - DG_PAGE_SIZE, gfp))
			goto fail;
		off = chunk_phase(pool, chunk->blocks_dma);
	}
	chunk->blocks += off;
	chunk->blocks_dma += off;
	chunk->phase = off;
	chunk->nr_free = pool->blocks_per_chunk;
	memcpy(chunk->map, pool->map_full, pool->map_words * sizeof(long));
	return chunk;

fail:
	kfree(chunk);
	return NULL;
}

/* Called with the lock held; returns the old array for the caller to free. */
struct dg_chunk_slot *dg_pool_rehash(struct dg_pool *pool,
				     struct dg_chunk_slot *slots, u32 bits)
{
	struct dg_chunk_slot *old = dg_table_rehash(&pool->table, slots, bits);

	pool->meta_bytes -= ksize(old);
	pool->meta_bytes += ksize(slots);
	return old;
}

/* After a reclaim: halve the chunk table while it is at most 1/8 full. */
void dg_pool_shrink_table(struct dg_pool *pool)
{
	struct dg_chunk_slot *slots;
	unsigned long flags;
	u32 bits;

	spin_lock_irqsave(&pool->lock, flags);
	bits = pool->table.bits;
	while ((1u << bits) > DG_TABLE_MIN_SLOTS &&
	       pool->table.used * 8 <= (1u << bits) / 2)
		bits--;
	spin_unlock_irqrestore(&pool->lock, flags);
	if (bits == pool->table.bits)
		return;

	slots = kzalloc_node(sizeof(*slots) << bits, GFP_KERNEL, pool->node);
	if (!slots)
		return;
	spin_lock_irqsave(&pool->lock, flags);
	/* Chunks may have been added meanwhile: still at most half full? */
	if (bits < pool->table.bits && (pool->table.used + 2) * 2 <= (1u << bits))
		slots = dg_pool_rehash(pool, slots, bits);
	spin_unlock_irqrestore(&pool->lock, flags);
	kfree(slots);
}

/* A racy count of the empty chunks, to decide on a reclaim. */
unsigned int dg_pool_empty_chunks(struct dg_pool *pool)
{
	return READ_ONCE(pool->nr_empty);
}

/**
 * dg_pool_get_stats() - snapshot of a pool's counters
 * @pool: the pool
 * @st: filled in
 *
 * Context: any context; O(1) under the pool lock, after a sum over the
 * CPUs' caches taken without it.
 */
void dg_pool_get_stats(struct dg_pool *pool, struct dg_pool_stats *st)
{
	struct dg_pcp *pcp;
	unsigned long flags;
	u64 cached = 0;
	int cpu;
	u32 i;

	memset(st, 0, sizeof(*st));
	memcpy(st->name, pool->name, sizeof(st->name));
	st->size = pool->size;
	st->stride = pool->stride;
	st->chunk_size = chunk_size(pool);
	st->blocks_per_chunk = pool->blocks_per_chunk;
	/*
	 * Cached blocks are free; summed without the pool lock, so a block
	 * moving between caches meanwhile counts twice: clamped at zero, as
	 * percpu_counter_sum_positive().
	 */
	for_each_possible_cpu(cpu) {
		pcp = per_cpu_ptr(pool->pcp, cpu);
		cached += hweight_long(READ_ONCE(pcp->alloc.bits)) +
			  hweight_long(READ_ONCE(pcp->freed.bits));
	}
	spin_lock_irqsave(&pool->lock, flags);
	st->blocks_total = (u64)pool->nr_chunks * pool->blocks_per_chunk;
	st->blocks_in_use = pool->in_use > cached ? pool->in_use - cached : 0;
	st->chunks = pool->nr_chunks;
	st->chunks_empty = pool->nr_empty;
	st->chunks_parked = pool->nr_parked;
	st->chunks_allocated = pool->chunks_allocated;
	st->chunks_released = pool->chunks_released;
	st->meta_bytes = pool->meta_bytes;
	st->pcp_bytes = (u64)num_possible_cpus() * sizeof(struct dg_pcp);
	for (i = 0; i < DG_BAD_NR; i++)
		st->bad_frees[i] = pool->bad[i];
	st->cache_bypass = pool->cache_bypass;
	spin_unlock_irqrestore(&pool->lock, flags);
}

/* The pool's name, as stored (possibly truncated). */
const char *dg_pool_name(const struct dg_pool *pool)
{
	return pool->name;
}

/* The platform's per-pool state, which the core only initialises. */
struct dg_pool_plat *dg_pool_plat(struct dg_pool *pool)
{
	return &pool->plat;
}

/* The pool of a platform state. */
struct dg_pool *dg_pool_from_plat(struct dg_pool_plat *plat)
{
	return container_of(plat, struct dg_pool, plat);
}

static void chunks_visit(struct dg_pool *pool, struct list_head *list,
			 void (*fn)(void *arg, void __dma *mem, size_t len,
				    dma_addr_t dma),
			 void *arg)
{
	struct dg_chunk *chunk;

	list_for_each_entry(chunk, list, node)
		fn(arg, chunk->blocks, chunk_size(pool), chunk->blocks_dma);
}

/**
 * dg_pool_for_each_chunk() - visit the blocks' memory of every chunk
 * @pool: the pool
 * @fn: called under the pool lock for each chunk with its first block,
 *	the chunk size and the first block's bus address
 * @arg: passed to @fn
 */
void dg_pool_for_each_chunk(struct dg_pool *pool,
			    void (*fn)(void *arg, void __dma *mem, size_t len,
				       dma_addr_t dma),
			    void *arg)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	chunks_visit(pool, &pool->partial, fn, arg);
	chunks_visit(pool, &pool->full, fn, arg);
	spin_unlock_irqrestore(&pool->lock, flags);
}
