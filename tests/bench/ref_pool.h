/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-band reference pool for the native benchmark: the algorithm of the
 * kernel's dma_pool since 6.4 (free list threaded through the free blocks
 * themselves), written here from its description, over the same
 * userspace platform (lock, chunk memory, zeroing rule) as dmaguard's
 * core so that only the algorithms differ. NOT hardened: a device that
 * writes a free block redirects the next allocation. Benchmark use only.
 */
#ifndef _DMAGUARD_BENCH_REF_POOL_H
#define _DMAGUARD_BENCH_REF_POOL_H

#include "dg_platform.h"

struct ref_pool;

struct ref_pool *ref_pool_create(const char *name, void *dev, size_t size,
				 size_t align, size_t boundary);
void *ref_pool_alloc(struct ref_pool *pool, gfp_t gfp, dma_addr_t *dma);
void ref_pool_free(struct ref_pool *pool, void *vaddr, dma_addr_t dma);
void ref_pool_destroy(struct ref_pool *pool);
/* Bytes of bookkeeping outside the pages, and blocks the pages hold. */
void ref_pool_meta(struct ref_pool *pool, size_t *meta, size_t *blocks);

#endif /* _DMAGUARD_BENCH_REF_POOL_H */
