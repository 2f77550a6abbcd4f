// SPDX-License-Identifier: GPL-2.0
/*
 * Hardened pool of fixed-size DMA blocks.
 *
 * The device may read and write every byte of every chunk at any time, so
 * the pool keeps all of its state out of line and never reads chunk
 * memory. Everything below "mem" in a chunk belongs to the device.
 *
 * chunk          2^chunk_shift bytes of coherent memory. The DMA API aligns
 *                both its CPU and bus address to the allocation's page
 *                order, which lets a block's chunk be found from the
 *                address alone (checked when a chunk arrives).
 * struct dg_chunk  its descriptor: addresses, free count and a bitmap
 *                (bit set = block free), in ordinary kernel memory.
 * table          (vaddr >> chunk_shift) -> chunk (chunk_table.c), so that
 *                free() finds the chunk in O(1) without trusting vaddr.
 * partial        chunks with at least one free block. Allocation takes the
 *                head; a chunk that fills leaves the list, one that gets a
 *                block back rejoins at the head, one that empties moves to
 *                the tail, where reclaim finds it.
 *
 * Block layout: blocks sit at index * stride. When a boundary is smaller
 * than a chunk, the chunk is cut into boundary-sized segments of
 * blocks_per_seg blocks each, and a block's bit number is
 * (segment << seg_bits) | slot, so that index -> offset is two shifts and
 * a multiply. offset -> index uses a reciprocal instead of a division;
 * the pool's hot paths have no divide.
 */
#include "pool.h"
#include "chunk_table.h"
#include "dg_ring.h"

/*
 * Chunk sizes: at least DG_CHUNK_MIN_BLOCKS blocks a chunk, so that the
 * chunk lists move rarely, within [DG_CHUNK_MIN, DG_CHUNK_MAX].
 */
#define DG_CHUNK_MIN		(2 * DG_PAGE_SIZE)
#define DG_CHUNK_MAX		(64 * 1024ul)
#define DG_CHUNK_MIN_BLOCKS	32
#define DG_BLOCK_MAX		(1024 * 1024ul)

/*
 * offset / stride == (offset * recip) >> DG_RECIP_SHIFT exactly whenever
 * offset * stride < 2^DG_RECIP_SHIFT; offsets and strides stay below
 * 2^21 (DG_BLOCK_MAX, chunk at most twice that), so 42 bits suffice and
 * offset * recip stays below 2^64.
 */
#define DG_RECIP_SHIFT		42

#define DG_NO_KEY		(~0ul)

#define ring_chunk(r)	container_of(r, struct dg_chunk, link)

struct dg_chunk {
	struct dg_ring link;	/* on pool->partial unless full */
	char __dma *mem;
	dma_addr_t dma;
	unsigned long empty_since;
	u32 nr_free;
	u32 hint;		/* no free bit in the words below this one */
	unsigned long map[];	/* bit set = block free */
};

struct dg_pool {
	dg_lock_t lock;
	struct dg_ring partial;
	struct dg_ring deferred;	/* chunks to free in process context */
	/* free() fast path: the chunk of the previous free */
	unsigned long last_key;
	struct dg_chunk *last;
	struct dg_chunk_table table;

	/* Geometry, fixed at creation. */
	u32 size;
	u32 stride;
	u32 chunk_shift;
	u32 seg_shift;		/* log2 of the segment size */
	u32 seg_bits;		/* bit number = segment << seg_bits | slot */
	u32 slot_mask;		/* (1 << seg_bits) - 1 */
	/* >0: power-of-two stride, no segments; offset = index << this. */
	u32 stride_shift;
	unsigned long seg_mask;	/* segment size - 1 */
	u32 blocks_per_seg;
	u32 blocks_per_chunk;
	u32 map_words;
	u64 recip;
	unsigned long *map_full;	/* bitmap of a fresh chunk */

	u32 zero_words;		/* >0: zero blocks with this many u64 stores */

	/* Counters, under lock; blocks in use are derived, not counted. */
	u32 nr_chunks;
	u64 chunks_allocated;
	u64 chunks_released;
	u64 meta_bytes;
	u64 bad[DG_BAD_NR];
	bool reported;

	void *dev;
	int node;
	char name[DG_POOL_NAME_LEN];
	/* For the platform's registry of pools; the core never touches it. */
	struct list_head owner_link;
};

static const char * const dg_bad_names[DG_BAD_NR] = {
	[DG_BAD_FOREIGN] = "pointer not from this pool",
	[DG_BAD_MISALIGNED] = "pointer not at a block start",
	[DG_BAD_DMA] = "dma handle does not match the block",
	[DG_BAD_DOUBLE] = "block already free (double free)",
};

static unsigned long chunk_key(const struct dg_pool *pool,
			       const struct dg_chunk *chunk)
{
	return dg_dma_addr(chunk->mem) >> pool->chunk_shift;
}

/* Called with the lock held; frees the old array (kfree is fine there). */
static void pool_rehash(struct dg_pool *pool, struct dg_chunk_slot *slots,
			u32 n)
{
	struct dg_chunk_slot *old = dg_table_rehash(&pool->table, slots, n);

	pool->meta_bytes -= dg_ksize(old);
	pool->meta_bytes += dg_ksize(slots);
	dg_kfree(old);
}

/**
 * dg_pool_check_params() - validate what a pool is asked to be
 * @p: the parameters
 * @why: set to a human-readable reason on failure
 *
 * Return: 0, or -EINVAL.
 */
int dg_pool_check_params(const struct dg_pool_params *p, const char **why)
{
	size_t align = p->align ? p->align : 1;

	if (!p->name)
		*why = "name is NULL";
	else if (!p->size)
		*why = "size is 0";
	else if (p->size > DG_BLOCK_MAX)
		*why = "size larger than 1 MiB";
	else if (!is_power_of_2(align))
		*why = "align is not a power of two";
	else if (align > DG_BLOCK_MAX)
		*why = "align larger than 1 MiB";
	else if (ALIGN(p->size, align) > DG_BLOCK_MAX)
		*why = "size rounded up to align is larger than 1 MiB";
	else if (p->boundary && !is_power_of_2(p->boundary))
		*why = "boundary is not a power of two";
	else if (p->boundary && p->boundary < p->size)
		*why = "boundary smaller than size";
	else
		return 0;
	return -EINVAL;
}

/* Geometry: chunk size, segments, bitmap shape. */
static void pool_set_geometry(struct dg_pool *pool, size_t boundary)
{
	unsigned long chunk, seg;
	u32 nseg, bits;

	chunk = roundup_pow_of_two((unsigned long)pool->stride *
				   DG_CHUNK_MIN_BLOCKS);
	chunk = max(chunk, DG_CHUNK_MIN);
	chunk = min(chunk, DG_CHUNK_MAX);
	chunk = max(chunk, roundup_pow_of_two(pool->stride));
	pool->chunk_shift = ilog2(chunk);

	/*
	 * Segments are needed only when a boundary inside the chunk could be
	 * crossed: not when blocks start on boundaries anyway (stride a
	 * multiple of it) or end exactly on them (stride divides it).
	 */
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
	bits = ((nseg - 1) << pool->seg_bits) + pool->blocks_per_seg;
	pool->map_words = (bits + BITS_PER_LONG - 1) / BITS_PER_LONG;
	pool->recip = (1ull << DG_RECIP_SHIFT) / pool->stride + 1;
	if (seg == chunk && is_power_of_2(pool->stride) && pool->stride > 1)
		pool->stride_shift = ilog2(pool->stride);
}

static void pool_fill_map_full(struct dg_pool *pool)
{
	u32 seg, slot, bit;
	u32 nseg = 1u << (pool->chunk_shift - pool->seg_shift);

	for (seg = 0; seg < nseg; seg++)
		for (slot = 0; slot < pool->blocks_per_seg; slot++) {
			bit = (seg << pool->seg_bits) | slot;
			pool->map_full[bit / BITS_PER_LONG] |=
				1ul << (bit % BITS_PER_LONG);
		}
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
	struct dg_pool *pool;
	const char *why;
	size_t align = p->align ? p->align : 1;

	if (dg_pool_check_params(p, &why)) {
		dg_err("pool %s: cannot create: %s (size %zu align %zu boundary %zu)",
		       p->name ? p->name : "(null)", why, p->size, p->align,
		       p->boundary);
		return NULL;
	}

	pool = dg_kzalloc_node(sizeof(*pool), GFP_KERNEL, p->node);
	if (!pool)
		return NULL;
	snprintf(pool->name, sizeof(pool->name), "%s", p->name);
	dg_lock_init(&pool->lock);
	ring_init(&pool->partial);
	ring_init(&pool->deferred);
	INIT_LIST_HEAD(&pool->owner_link);
	pool->last_key = DG_NO_KEY;
	pool->dev = p->dev;
	pool->node = p->node;
	pool->size = p->size;
	pool->stride = ALIGN(p->size, align);
	pool_set_geometry(pool, p->boundary);
	/*
	 * Small 8-byte aligned blocks are zeroed with a few stores rather than
	 * a memset() call, up to the platform's DG_ZERO_INLINE_MAX; the stores
	 * may cover the stride's padding, which belongs to the block.
	 */
	if (align >= 8 && ALIGN(pool->size, 8) <= min(pool->stride, DG_ZERO_INLINE_MAX))
		pool->zero_words = ALIGN(pool->size, 8) / 8;

	pool->map_full = dg_kzalloc_node(pool->map_words * sizeof(long),
					 GFP_KERNEL, p->node);
	pool->table.slots = dg_kzalloc_node(DG_TABLE_MIN_SLOTS *
					    sizeof(*pool->table.slots),
					    GFP_KERNEL, p->node);
	if (!pool->map_full || !pool->table.slots) {
		dg_kfree(pool->map_full);
		dg_kfree(pool->table.slots);
		dg_kfree(pool);
		return NULL;
	}
	pool->table.mask = DG_TABLE_MIN_SLOTS - 1;
	pool_fill_map_full(pool);
	pool->meta_bytes = dg_ksize(pool) + dg_ksize(pool->map_full) +
			   dg_ksize(pool->table.slots);
	return pool;
}

static size_t chunk_desc_size(const struct dg_pool *pool)
{
	return sizeof(struct dg_chunk) + pool->map_words * sizeof(long);
}

static void chunk_destroy(struct dg_pool *pool, struct dg_chunk *chunk)
{
	dg_chunk_mem_free(pool->dev, 1ul << pool->chunk_shift, chunk->mem,
			  chunk->dma);
	dg_kfree(chunk);
}

/*
 * Give back a chunk that never went into service. Its DMA memory cannot be
 * freed with interrupts off (dma_free_coherent() forbids it), and an
 * atomic caller may have them off: then it waits on pool->deferred for
 * the next reclaim or the destroy. Called without the lock.
 */
static void pool_drop_chunk(struct dg_pool *pool, struct dg_chunk *chunk,
			    gfp_t gfp)
{
	unsigned long flags = 0;

	if (dg_gfp_may_sleep(gfp)) {
		chunk_destroy(pool, chunk);
		return;
	}
	dg_lock_irqsave(&pool->lock, flags);
	ring_push_head(&chunk->link, &pool->deferred);
	dg_unlock_irqrestore(&pool->lock, flags);
}

/* A fresh chunk, not yet visible to anyone; called without the lock. */
static struct dg_chunk *chunk_create(struct dg_pool *pool, gfp_t gfp)
{
	unsigned long size = 1ul << pool->chunk_shift;
	struct dg_chunk *chunk;
	dma_addr_t dma;
	char __dma *mem;

	chunk = dg_kzalloc_node(chunk_desc_size(pool), gfp, pool->node);
	if (!chunk)
		return NULL;
	mem = dg_chunk_mem_alloc(pool->dev, size, &dma, gfp & ~__GFP_ZERO);
	if (!mem) {
		dg_kfree(chunk);
		return NULL;
	}
	chunk->mem = mem;
	chunk->dma = dma;
	if ((dg_dma_addr(mem) | (unsigned long)dma) & (size - 1)) {
		/* The DMA API promised this alignment; do not guess. */
		dg_err("pool %s: chunk of %lu bytes not aligned to its size, refused",
		       pool->name, size);
		pool_drop_chunk(pool, chunk, gfp);
		return NULL;
	}
	chunk->nr_free = pool->blocks_per_chunk;
	memcpy(chunk->map, pool->map_full, pool->map_words * sizeof(long));
	return chunk;
}

/*
 * Slow path of dg_pool_alloc(): no chunk has a free block. Called and
 * returns with the lock held, drops it to allocate (as mainline does), so
 * other CPUs may have added chunks meanwhile; ours joins them anyway.
 */
static struct dg_chunk *pool_grow(struct dg_pool *pool, gfp_t gfp,
				  unsigned long *flags)
	__must_hold(&pool->lock)
{
	struct dg_chunk_slot *slots;
	struct dg_chunk *chunk;
	u32 n;

	dg_unlock_irqrestore(&pool->lock, *flags);
	chunk = chunk_create(pool, gfp);
	dg_lock_irqsave(&pool->lock, *flags);
	if (!chunk)
		return NULL;

	while (!dg_table_has_room(&pool->table)) {
		n = (pool->table.mask + 1) * 2;
		dg_unlock_irqrestore(&pool->lock, *flags);
		slots = dg_kzalloc_node(n * sizeof(*slots), gfp, pool->node);
		dg_lock_irqsave(&pool->lock, *flags);
		if (!slots) {
			/*
			 * Over half full is slower, not wrong: go on while a
			 * slot stays empty to end every probe.
			 */
			if (dg_table_can_insert(&pool->table))
				break;
			dg_unlock_irqrestore(&pool->lock, *flags);
			pool_drop_chunk(pool, chunk, gfp);
			dg_lock_irqsave(&pool->lock, *flags);
			return NULL;
		}
		if (n > pool->table.mask + 1)
			pool_rehash(pool, slots, n);
		else
			dg_kfree(slots);
	}

	dg_table_insert(&pool->table, chunk_key(pool, chunk), chunk);
	ring_push_head(&chunk->link, &pool->partial);
	pool->nr_chunks++;
	pool->chunks_allocated++;
	pool->meta_bytes += dg_ksize(chunk);
	return chunk;
}

/* Take the lowest free block of @chunk; returns its offset. */
static __always_inline unsigned long chunk_take(struct dg_pool *pool,
						struct dg_chunk *chunk)
{
	u32 w = chunk->hint, idx;
	unsigned long word = chunk->map[w];

	idx = w * BITS_PER_LONG + __ffs(word);
	word &= word - 1;
	chunk->map[w] = word;
	if (!--chunk->nr_free) {
		ring_unlink(&chunk->link);
		chunk->hint = pool->map_words;
	} else if (!word) {
		while (!chunk->map[++w])
			;
		chunk->hint = w;
	}
	if (likely(pool->stride_shift))
		return (unsigned long)idx << pool->stride_shift;
	return ((unsigned long)(idx >> pool->seg_bits) << pool->seg_shift) +
	       (unsigned long)(idx & pool->slot_mask) * pool->stride;
}

static __always_inline void pool_zero_block(struct dg_pool *pool,
					    char __dma *mem)
{
	if (pool->zero_words)
		dg_dma_zero_words(mem, pool->zero_words);
	else
		dg_dma_zero(mem, pool->size);
}

/* Common tail of both allocation paths; drops the lock. */
static __always_inline void __dma *pool_hand_out(struct dg_pool *pool,
						 struct dg_chunk *chunk,
						 gfp_t gfp, dma_addr_t *dma,
						 unsigned long flags)
	__releases(&pool->lock)
{
	unsigned long off = chunk_take(pool, chunk);
	char __dma *mem = chunk->mem + off;
	dma_addr_t bus = chunk->dma + off;

	dg_unlock_irqrestore(&pool->lock, flags);
	*dma = bus;
	if (dg_want_zero(gfp))
		pool_zero_block(pool, mem);
	return mem;
}

/* Out of line so that the fast path keeps few registers live. */
static noinline void __dma *pool_alloc_slow(struct dg_pool *pool, gfp_t gfp,
					    dma_addr_t *dma,
					    unsigned long flags)
	__releases(&pool->lock)
{
	struct dg_chunk *chunk = pool_grow(pool, gfp, &flags);

	if (!chunk) {
		dg_unlock_irqrestore(&pool->lock, flags);
		return NULL;
	}
	return pool_hand_out(pool, chunk, gfp, dma, flags);
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
	unsigned long flags = 0;

	dg_lock_irqsave(&pool->lock, flags);
	if (unlikely(ring_empty(&pool->partial)))
		return pool_alloc_slow(pool, gfp, dma, flags);
	return pool_hand_out(pool, ring_chunk(pool->partial.next), gfp, dma,
			     flags);
}

static noinline __cold void pool_report_bad_free(struct dg_pool *pool,
						 enum dg_bad_free bad,
						 bool first,
						 void __dma *vaddr,
						 dma_addr_t dma)
{
	if (first)
		dg_report_first("pool %s: bad free of %p (dma 0x%llx): %s; not applied",
				pool->name, (void __force *)vaddr,
				(unsigned long long)dma, dg_bad_names[bad]);
	else
		dg_report_again("pool %s: bad free of %p (dma 0x%llx): %s; not applied",
				pool->name, (void __force *)vaddr,
				(unsigned long long)dma, dg_bad_names[bad]);
}

/* Hash lookup on a miss of the free() cache; refills the cache. */
static noinline struct dg_chunk *pool_find_chunk(struct dg_pool *pool,
						 unsigned long key)
{
	struct dg_chunk *chunk = dg_table_find(&pool->table, key);

	if (chunk) {
		pool->last_key = key;
		pool->last = chunk;
	}
	return chunk;
}

/* Mark a block free: a chunk that was full rejoins the partial ring at
 * the head, one that empties moves to the tail, where reclaim finds it.
 */
static __always_inline void chunk_put(struct dg_pool *pool,
				      struct dg_chunk *chunk, u32 w,
				      unsigned long bit)
{
	chunk->map[w] |= bit;
	if (w < chunk->hint)
		chunk->hint = w;
	if (++chunk->nr_free == 1)
		ring_push_head(&chunk->link, &pool->partial);
	if (unlikely(chunk->nr_free == pool->blocks_per_chunk)) {
		chunk->empty_since = dg_now();
		ring_unlink(&chunk->link);
		ring_push_tail(&chunk->link, &pool->partial);
	}
}

/*
 * Where a free lands in @chunk: sets *@idx to the block's bit number, or
 * says why @vaddr/@dma is not a block of it. Arithmetic only.
 */
static __always_inline enum dg_bad_free free_decode(struct dg_pool *pool,
						    struct dg_chunk *chunk,
						    void __dma *vaddr,
						    dma_addr_t dma, u32 *idx)
{
	unsigned long off = (char __dma *)vaddr - chunk->mem, in;
	u32 slot;

	if (likely(pool->stride_shift)) {
		/* Power-of-two stride, no segments: every slot is a block. */
		if (unlikely(off & (pool->stride - 1)))
			return DG_BAD_MISALIGNED;
		*idx = off >> pool->stride_shift;
	} else {
		in = off & pool->seg_mask;
		slot = (u32)((in * pool->recip) >> DG_RECIP_SHIFT);
		if (unlikely((unsigned long)slot * pool->stride != in ||
			     slot >= pool->blocks_per_seg))
			return DG_BAD_MISALIGNED;
		*idx = (u32)(off >> pool->seg_shift) << pool->seg_bits | slot;
	}
	if (unlikely(chunk->dma + off != dma))
		return DG_BAD_DMA;
	return DG_FREE_OK;
}

/*
 * dg_pool_free() in full: a miss of the chunk cache, a bad free, zeroing
 * on free. Entered with the lock held,
 * in tail position, so that the fast path calls nothing and saves no
 * registers. Decides from scratch with the same helpers.
 */
static noinline enum dg_bad_free pool_free_slow(struct dg_pool *pool,
						void __dma *vaddr,
						dma_addr_t dma,
						unsigned long flags)
	__releases(&pool->lock)
{
	unsigned long key = dg_dma_addr(vaddr) >> pool->chunk_shift, bit;
	struct dg_chunk *chunk;
	enum dg_bad_free bad;
	u32 idx = 0, w;
	bool first;

	chunk = key == pool->last_key ? pool->last :
		pool_find_chunk(pool, key);
	if (!chunk) {
		bad = DG_BAD_FOREIGN;
		goto bad;
	}
	bad = free_decode(pool, chunk, vaddr, dma, &idx);
	if (bad)
		goto bad;
	w = idx / BITS_PER_LONG;
	bit = 1ul << (idx % BITS_PER_LONG);
	if (chunk->map[w] & bit) {
		bad = DG_BAD_DOUBLE;
		goto bad;
	}

	/*
	 * init_on_free: zero before the block is marked free, so it is never
	 * handed out dirty. Under the lock; this is a debug-style option.
	 */
	if (dg_want_zero_on_free())
		pool_zero_block(pool, (char __dma *)vaddr);
	chunk_put(pool, chunk, w, bit);
	dg_unlock_irqrestore(&pool->lock, flags);
	return DG_FREE_OK;

bad:
	pool->bad[bad]++;
	first = !pool->reported;
	pool->reported = true;
	dg_unlock_irqrestore(&pool->lock, flags);
	pool_report_bad_free(pool, bad, first, vaddr, dma);
	return bad;
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
	unsigned long key = dg_dma_addr(vaddr) >> pool->chunk_shift;
	unsigned long flags = 0, bit;
	struct dg_chunk *chunk;
	u32 idx = 0, w;
	bool slow;

	dg_lock_irqsave(&pool->lock, flags);
	if (unlikely(key != pool->last_key))
		return pool_free_slow(pool, vaddr, dma, flags);
	chunk = pool->last;
	slow = free_decode(pool, chunk, vaddr, dma, &idx) != DG_FREE_OK;
	w = idx / BITS_PER_LONG;
	bit = 1ul << (idx % BITS_PER_LONG);
	/*
	 * Bad free, double free or zeroing: one branch to the slow path
	 * (under TCG every branch ends a translation block).
	 */
	slow |= ((chunk->map[w] & bit) != 0) | dg_want_zero_on_free();
	if (unlikely(slow))
		return pool_free_slow(pool, vaddr, dma, flags);
	chunk_put(pool, chunk, w, bit);
	dg_unlock_irqrestore(&pool->lock, flags);
	return DG_FREE_OK;
}

/* After a reclaim: halve the chunk table while it is at most 1/8 full. */
static void pool_shrink_table(struct dg_pool *pool)
{
	struct dg_chunk_slot *slots;
	unsigned long flags = 0;
	u32 n;

	dg_lock_irqsave(&pool->lock, flags);
	n = pool->table.mask + 1;
	while (n > DG_TABLE_MIN_SLOTS && pool->table.used * 8 <= n / 2)
		n /= 2;
	dg_unlock_irqrestore(&pool->lock, flags);
	if (n == pool->table.mask + 1)
		return;

	slots = dg_kzalloc_node(n * sizeof(*slots), GFP_KERNEL, pool->node);
	if (!slots)
		return;
	dg_lock_irqsave(&pool->lock, flags);
	/* Chunks may have been added meanwhile: still at most half full? */
	if (n < pool->table.mask + 1 && (pool->table.used + 1) * 2 <= n) {
		pool_rehash(pool, slots, n);
		slots = NULL;
	}
	dg_unlock_irqrestore(&pool->lock, flags);
	dg_kfree(slots);
}

/**
 * dg_pool_reclaim() - give chunks that stayed empty back to the system
 * @pool: the pool
 * @min_age: ticks a chunk must have been empty
 * @keep: empty chunks to keep whatever their age
 *
 * Chunks that empty move to the tail of the partial list, so the empty ones
 * form its tail, oldest first; the walk releases from the oldest on and
 * keeps the @keep most recently emptied. Context: may not be called with interrupts
 * disabled (chunk memory is freed after the lock is dropped).
 *
 * Return: the number of chunks released.
 */
unsigned int dg_pool_reclaim(struct dg_pool *pool, unsigned long min_age,
			     unsigned int keep)
{
	struct dg_ring victims, *pos, *next, *first;
	struct dg_chunk *chunk;
	unsigned long flags = 0, now;
	unsigned int n = 0, empty = 0;

	ring_init(&victims);
	dg_lock_irqsave(&pool->lock, flags);
	/* The empty chunks form the tail, oldest first: find where it starts. */
	first = &pool->partial;
	for (pos = pool->partial.prev; pos != &pool->partial; pos = pos->prev) {
		chunk = ring_chunk(pos);
		if (chunk->nr_free != pool->blocks_per_chunk)
			break;
		first = pos;
		empty++;
	}
	while (!ring_empty(&pool->deferred)) {
		pos = pool->deferred.next;
		ring_unlink(pos);
		ring_push_head(pos, &victims);
	}
	now = dg_now();
	for (pos = first; pos != &pool->partial && empty > keep; pos = next) {
		next = pos->next;
		chunk = ring_chunk(pos);
		if (now - chunk->empty_since < min_age)
			break;
		ring_unlink(&chunk->link);
		ring_push_head(&chunk->link, &victims);
		dg_table_remove(&pool->table, chunk_key(pool, chunk));
		if (pool->last == chunk)
			pool->last_key = DG_NO_KEY;
		pool->nr_chunks--;
		pool->chunks_released++;
		pool->meta_bytes -= dg_ksize(chunk);
		empty--;
	}
	dg_unlock_irqrestore(&pool->lock, flags);

	while (!ring_empty(&victims)) {
		chunk = ring_chunk(victims.next);
		ring_unlink(&chunk->link);
		chunk_destroy(pool, chunk);
		n++;
	}
	if (n)
		pool_shrink_table(pool);
	return n;
}

/**
 * dg_pool_destroy() - free a pool and its chunks
 * @pool: the pool; nobody may use it concurrently
 *
 * Chunks with live blocks are reported and deliberately not freed, so a
 * late access hits memory that never went back to the system.
 *
 * Return: the number of blocks that were still allocated.
 */
unsigned int dg_pool_destroy(struct dg_pool *pool)
{
	unsigned int live = 0, leaked = 0;
	struct dg_chunk *chunk;
	u32 i;

	i = 0;
	while ((chunk = dg_table_next(&pool->table, &i))) {
		if (chunk->nr_free != pool->blocks_per_chunk) {
			live += pool->blocks_per_chunk - chunk->nr_free;
			leaked++;
			dg_kfree(chunk);
		} else {
			chunk_destroy(pool, chunk);
		}
	}
	while (!ring_empty(&pool->deferred)) {
		chunk = ring_chunk(pool->deferred.next);
		ring_unlink(&chunk->link);
		chunk_destroy(pool, chunk);
	}
	if (live)
		dg_report_first("pool %s: destroyed with %u blocks in use, %u chunks kept",
				pool->name, live, leaked);
	dg_kfree(pool->table.slots);
	dg_kfree(pool->map_full);
	dg_kfree(pool);
	return live;
}

/**
 * dg_pool_get_stats() - snapshot of a pool's counters
 * @pool: the pool
 * @st: filled in
 */
void dg_pool_get_stats(struct dg_pool *pool, struct dg_pool_stats *st)
{
	struct dg_chunk *chunk;
	unsigned long flags = 0;
	u32 i;

	memset(st, 0, sizeof(*st));
	dg_lock_irqsave(&pool->lock, flags);
	memcpy(st->name, pool->name, sizeof(st->name));
	st->size = pool->size;
	st->stride = pool->stride;
	st->chunk_size = 1u << pool->chunk_shift;
	st->blocks_per_chunk = pool->blocks_per_chunk;
	st->blocks_total = (u64)pool->nr_chunks * pool->blocks_per_chunk;
	st->blocks_in_use = st->blocks_total;
	i = 0;
	while ((chunk = dg_table_next(&pool->table, &i))) {
		st->blocks_in_use -= chunk->nr_free;
		if (chunk->nr_free == pool->blocks_per_chunk)
			st->chunks_empty++;
	}
	st->chunks = pool->nr_chunks;
	st->chunks_allocated = pool->chunks_allocated;
	st->chunks_released = pool->chunks_released;
	st->meta_bytes = pool->meta_bytes;
	for (i = 0; i < DG_BAD_NR; i++)
		st->bad_frees[i] = pool->bad[i];
	dg_unlock_irqrestore(&pool->lock, flags);
}

/**
 * dg_pool_name() - the pool's name
 * @pool: the pool
 *
 * Return: its name, as stored (possibly truncated).
 */
const char *dg_pool_name(const struct dg_pool *pool)
{
	return pool->name;
}

/**
 * dg_pool_owner_link() - list node for the platform's pool registry
 * @pool: the pool
 *
 * Return: a list node the core never touches.
 */
struct list_head *dg_pool_owner_link(struct dg_pool *pool)
{
	return &pool->owner_link;
}

/**
 * dg_pool_from_owner_link() - the pool a registry node belongs to
 * @link: what dg_pool_owner_link() returned
 *
 * Return: the pool.
 */
struct dg_pool *dg_pool_from_owner_link(struct list_head *link)
{
	return container_of(link, struct dg_pool, owner_link);
}

/**
 * dg_pool_for_each_chunk() - visit the DMA memory of every chunk
 * @pool: the pool
 * @fn: called under the pool lock for each chunk
 * @arg: passed to @fn
 */
void dg_pool_for_each_chunk(struct dg_pool *pool,
			    void (*fn)(void *arg, void __dma *mem, size_t len,
				       dma_addr_t dma),
			    void *arg)
{
	unsigned long flags = 0;
	struct dg_chunk *chunk;
	u32 i;

	dg_lock_irqsave(&pool->lock, flags);
	i = 0;
	while ((chunk = dg_table_next(&pool->table, &i)))
		fn(arg, chunk->mem, 1ul << pool->chunk_shift, chunk->dma);
	dg_unlock_irqrestore(&pool->lock, flags);
}
