/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-band reference pool for the native benchmark: the algorithm of the
 * kernel's dma_pool since 6.4 (free list threaded through the free blocks
 * themselves), written here from its description, over the same
 * userspace platform (chunk memory, zeroing rule; the lock, see below) as
 * dmaguard's core so that only the algorithms differ. NOT hardened: a device that
 * writes a free block redirects the next allocation. Benchmark use only.
 */
#ifndef _DMAGUARD_BENCH_REF_POOL_H
#define _DMAGUARD_BENCH_REF_POOL_H

/* Cores before pool v3 (BENCH_REV=) name the one-thread build so. */
#if defined(DG_USER_PCP_IRQ_COST) && !defined(DG_USER_PCP_KERNEL_COST)
#define DG_USER_PCP_KERNEL_COST
#endif

#include "dg_platform.h"

/*
 * Two builds of ref_pool.c, both declared here:
 *   ref_pool_*       (ref_pool.c) locks with the userspace platform's
 *                    lock, the one dmaguard's core takes (its spinlock_t,
 *                    a pthread mutex in tools/include), so that the
 *                    single-thread rows compare the algorithms only;
 *   ref_spin_pool_*  (ref_pool_spin.c) locks with a pthread_spinlock_t,
 *                    whatever the platform's lock is: the kind of lock
 *                    the kernel's dma_pool takes, for the multi-thread
 *                    runs; in the one-thread build with the flags saved
 *                    and restored, as spin_lock_irqsave();
 *   ref_bare_pool_*  (ref_pool_bare.c) the same spinlock without the
 *                    flags: the kernel's dma_pool with its interrupt
 *                    toggle left out, a bound no kernel reaches.
 */
#define REF_POOL_API(pool)						\
struct pool;								\
struct pool *pool##_create(const char *name, void *dev, size_t size,	\
			   size_t align, size_t boundary);		\
void *pool##_alloc(struct pool *p, gfp_t gfp, dma_addr_t *dma);	\
void pool##_free(struct pool *p, void *vaddr, dma_addr_t dma);		\
void pool##_destroy(struct pool *p);					\
/* Bytes of bookkeeping outside the pages, and blocks the pages hold. */ \
void pool##_meta(struct pool *p, size_t *meta, size_t *blocks)

REF_POOL_API(ref_pool);
REF_POOL_API(ref_spin_pool);
REF_POOL_API(ref_bare_pool);

#endif /* _DMAGUARD_BENCH_REF_POOL_H */
