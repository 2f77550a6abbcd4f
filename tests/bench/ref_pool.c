// SPDX-License-Identifier: GPL-2.0
/*
 * In-band reference pool (see ref_pool.h), the design of dma_pool since
 * Linux 6.4, reimplemented from its description:
 *
 * - the block size is the request rounded up to the alignment, at least
 *   the size of the in-band link; a page is max(block size, PAGE_SIZE)
 *   bytes; the boundary defaults to (and is capped at) the page size;
 * - a new page is carved at once into all the blocks it can hold without
 *   crossing a boundary, each free block holding { next, dma } at its
 *   start, linked in ascending address order, and the whole run is put at
 *   the head of the pool's free list;
 * - alloc pops the head of the list under the lock (allocating a page
 *   outside the lock when the list is empty), reads the block's dma from
 *   the block, zeroes it when want_init_on_alloc(gfp);
 * - free pushes the block at the head (LIFO), storing dma into it; with
 *   the kernel's debug checks off, nothing is validated;
 * - pages are kept until the pool is destroyed.
 */
#include "ref_pool.h"

#ifdef REF_POOL_SPIN
/*
 * ref_pool_spin.c: the ref_spin_pool_* build (see ref_pool.h);
 * ref_pool_bare.c, REF_POOL_BARE: ref_bare_pool_*, the spinlock alone.
 */
#include <pthread.h>
#ifdef REF_POOL_BARE
#define ref_pool		ref_bare_pool
#define REF_FN(fn)		ref_bare_pool_##fn
#else
#define ref_pool		ref_spin_pool
#define REF_FN(fn)		ref_spin_pool_##fn
#endif
typedef pthread_spinlock_t ref_lock_t;
#define ref_lock_init(l)	pthread_spin_init(l, PTHREAD_PROCESS_PRIVATE)
#define ref_lock_destroy(l)	pthread_spin_destroy(l)
#if defined(DG_USER_PCP_KERNEL_COST) && !defined(REF_POOL_BARE)
/*
 * What spin_lock_irqsave() adds: the flags saved (pushf) and restored
 * (popf, where the kernel has cli and sti; user mode has neither).
 */
#define ref_lock(l, flags)	((flags) = dg_user_irq_save(), pthread_spin_lock(l))
#define ref_unlock(l, flags)	(pthread_spin_unlock(l), dg_user_irq_restore(flags))
#else
#define ref_lock(l, flags)	((void)(flags), pthread_spin_lock(l))
#define ref_unlock(l, flags)	((void)(flags), pthread_spin_unlock(l))
#endif
#elif defined(spin_lock_init)
/* The platform's spinlock_t (tools/include: over a pthread mutex). */
#define REF_FN(fn)		ref_pool_##fn
typedef spinlock_t ref_lock_t;
#define ref_lock_init(l)	spin_lock_init(l)
#define ref_lock_destroy(l)	((void)(l))
#define ref_lock(l, flags)	spin_lock_irqsave(l, flags)
#define ref_unlock(l, flags)	spin_unlock_irqrestore(l, flags)
#else
/* Userspace platforms before pool v2 (BENCH_REV=): dg_lock_t. */
#define REF_FN(fn)		ref_pool_##fn
typedef dg_lock_t ref_lock_t;
#define ref_lock_init(l)	(dg_lock_init(l), 0)
#define ref_lock_destroy(l)	((void)(l))
#define ref_lock(l, flags)	dg_lock_irqsave(l, flags)
#define ref_unlock(l, flags)	dg_unlock_irqrestore(l, flags)
#endif

/* What a free block holds at its start: the pool trusts it blindly. */
struct ref_free {
	struct ref_free *next;
	dma_addr_t dma;
};

struct ref_page {
	struct ref_page *next;
	void *mem;
	dma_addr_t dma;
};

struct ref_pool {
	ref_lock_t lock;
	struct ref_free *free_head;
	struct ref_page *pages;
	size_t nr_blocks;
	size_t nr_active;
	size_t nr_pages;
	void *dev;
	size_t size;
	size_t alloc_size;
	size_t boundary;
	char name[32];
};

struct ref_pool *REF_FN(create)(const char *name, void *dev, size_t size,
				 size_t align, size_t boundary)
{
	struct ref_pool *pool;

	if (!align)
		align = 1;
	if (!size || !is_power_of_2(align))
		return NULL;
	if (size < sizeof(struct ref_free))
		size = sizeof(struct ref_free);
	size = ALIGN(size, align);
	if (boundary && (boundary < size || !is_power_of_2(boundary)))
		return NULL;
	pool = kzalloc_node(sizeof(*pool), GFP_KERNEL, DG_NO_NODE);
	if (!pool)
		return NULL;
	snprintf(pool->name, sizeof(pool->name), "%s", name);
	if (ref_lock_init(&pool->lock)) {
		kfree(pool);
		return NULL;
	}
	pool->dev = dev;
	pool->size = size;
	pool->alloc_size = max(size, (size_t)DG_PAGE_SIZE);
	if (!boundary || boundary > pool->alloc_size)
		boundary = pool->alloc_size;
	pool->boundary = boundary;
	return pool;
}

/* Thread every block of a fresh page, ascending; the lock is held. */
static void ref_carve_page(struct ref_pool *pool, struct ref_page *page)
{
	size_t off = 0, limit = pool->boundary, n = 0;
	struct ref_free *first = NULL, *last = NULL, *b;

	while (off + pool->size <= pool->alloc_size) {
		if (off + pool->size > limit) {
			off = limit;
			limit += pool->boundary;
			continue;
		}
		b = (struct ref_free *)((char *)page->mem + off);
		b->dma = page->dma + off;
		b->next = NULL;
		if (last)
			last->next = b;
		else
			first = b;
		last = b;
		n++;
		off += pool->size;
	}
	if (!first)
		return;
	last->next = pool->free_head;
	pool->free_head = first;
	pool->nr_blocks += n;
	page->next = pool->pages;
	pool->pages = page;
	pool->nr_pages++;
}

static struct ref_page *ref_page_alloc(struct ref_pool *pool, gfp_t gfp)
{
	struct ref_page *page;

	page = kzalloc_node(sizeof(*page), gfp, DG_NO_NODE);
	if (!page)
		return NULL;
	page->mem = (void __force *)dg_chunk_mem_alloc(pool->dev,
						       pool->alloc_size,
						       &page->dma, gfp);
	if (!page->mem) {
		kfree(page);
		return NULL;
	}
	return page;
}

void *REF_FN(alloc)(struct ref_pool *pool, gfp_t gfp, dma_addr_t *dma)
{
	struct ref_free *b;
	struct ref_page *page;
	unsigned long flags = 0;

	ref_lock(&pool->lock, flags);
	b = pool->free_head;
	if (b) {
		pool->free_head = b->next;
		pool->nr_active++;
	}
	ref_unlock(&pool->lock, flags);
	if (unlikely(!b)) {
		page = ref_page_alloc(pool, gfp);
		if (!page)
			return NULL;
		ref_lock(&pool->lock, flags);
		ref_carve_page(pool, page);
		b = pool->free_head;
		pool->free_head = b->next;
		pool->nr_active++;
		ref_unlock(&pool->lock, flags);
	}
	*dma = b->dma;
	if (want_init_on_alloc(gfp))
		memset(b, 0, pool->size);
	return b;
}

void REF_FN(free)(struct ref_pool *pool, void *vaddr, dma_addr_t dma)
{
	struct ref_free *b = vaddr;
	unsigned long flags = 0;

	ref_lock(&pool->lock, flags);
	b->dma = dma;
	b->next = pool->free_head;
	pool->free_head = b;
	pool->nr_active--;
	ref_unlock(&pool->lock, flags);
}

void REF_FN(destroy)(struct ref_pool *pool)
{
	struct ref_page *page;

	if (!pool)
		return;
	while ((page = pool->pages)) {
		pool->pages = page->next;
		dg_chunk_mem_free(pool->dev, pool->alloc_size,
				  (void __dma __force *)page->mem, page->dma);
		kfree(page);
	}
	ref_lock_destroy(&pool->lock);
	kfree(pool);
}

void REF_FN(meta)(struct ref_pool *pool, size_t *meta, size_t *blocks)
{
	*meta = ksize(pool) + pool->nr_pages * sizeof(struct ref_page);
	*blocks = pool->nr_blocks;
}
