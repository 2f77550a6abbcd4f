// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace platform: bookkeeping and chunk memory for the host build of
 * the core. Chunk memory is aligned_alloc()ed and given a made-up bus
 * address at a fixed distance, so that vaddr and dma differ as they do on
 * real hardware. Every allocation is counted (leak checks) and any one
 * can be made to fail (failure injection).
 */
#include <malloc.h>
#include "dg_platform.h"
#include "dg_user.h"

unsigned long dg_user_ticks;
bool dg_user_init_on_alloc = true;
bool dg_user_init_on_free;
bool dg_user_verbose;
unsigned long dg_user_reports_first;
unsigned long dg_user_reports_again;
unsigned long dg_user_reports_err;

struct dg_user_counters dg_user_count;

/* Fail the allocation that brings the count to fail_at (0: never). */
static unsigned long fail_at;
static unsigned long alloc_calls;

void dg_user_fail_nth_alloc(unsigned long nth)
{
	alloc_calls = 0;
	fail_at = nth;
}

bool dg_user_fail_reached(void)
{
	return fail_at &&
	       __atomic_load_n(&alloc_calls, __ATOMIC_RELAXED) >= fail_at;
}

/* Counters are atomic: pool_grow() allocates without the pool lock. */
static void count(long *c, long d)
{
	__atomic_fetch_add(c, d, __ATOMIC_RELAXED);
}

static bool should_fail(void)
{
	return fail_at &&
	       __atomic_add_fetch(&alloc_calls, 1, __ATOMIC_RELAXED) == fail_at;
}

void *dg_kzalloc_node(size_t size, gfp_t gfp, int node)
{
	void *p;

	(void)gfp;
	(void)node;
	if (should_fail())
		return NULL;
	p = calloc(1, size);
	if (p)
		count(&dg_user_count.meta_live, 1);
	return p;
}

void dg_kfree(void *p)
{
	if (p)
		count(&dg_user_count.meta_live, -1);
	free(p);
}

size_t dg_ksize(void *p)
{
	return malloc_usable_size(p);
}

void __dma *dg_chunk_mem_alloc(void *dev, size_t size, dma_addr_t *dma,
			       gfp_t gfp)
{
	void *p;

	(void)dev;
	(void)gfp;
	if (should_fail())
		return NULL;
	p = aligned_alloc(size, size);
	if (!p)
		return NULL;
	memset(p, 0, size);	/* dma_alloc_coherent() zeroes too */
	*dma = (dma_addr_t)(uintptr_t)p + DG_USER_DMA_OFFSET;
	count(&dg_user_count.chunks_live, 1);
	count(&dg_user_count.chunk_bytes_live, (long)size);
	return (void __dma __force *)p;
}

void dg_chunk_mem_free(void *dev, size_t size, void __dma *mem,
		       dma_addr_t dma)
{
	(void)dev;
	if (dma != (dma_addr_t)(uintptr_t)mem + DG_USER_DMA_OFFSET) {
		fprintf(stderr, "dg_chunk_mem_free: dma does not match\n");
		abort();
	}
	count(&dg_user_count.chunks_live, -1);
	count(&dg_user_count.chunk_bytes_live, -(long)size);
	free((void __force *)mem);
}
