// SPDX-License-Identifier: GPL-2.0
/*
 * Test hooks: what dmaguard's own in-kernel test and benchmark modules
 * (tests/kmod/) need beyond the public interface, namely the chunk walk
 * that plays a hostile device, the core's free with its verdict, a forced
 * reclaim, the chunk memory held by all pools, a call made inside this
 * CPU's cache section (where a test raises an interrupt), and chunk
 * allocations refused.
 *
 * Built only into the test flavour of dmaguard.ko
 * (`make modules DMAGUARD_TEST_HOOKS=1`, see ./Kbuild), in namespace
 * DMAGUARD_INTERNAL; the production module exports none of this, which
 * `make check-abi` asserts on its Module.symvers. Not part of the ABI.
 * Tests read statistics with the public dmaguard_pool_get_stats().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/module.h>
#include "dg_platform.h"
#include "dg_kernel.h"
#include "dg_test_hooks.h"
#include "pool_internal.h"

/**
 * dg_test_chunk_bytes() - chunk memory held by all pools
 *
 * The same number as debugfs dmaguard/chunk_bytes: a test compares it
 * before and after to prove that chunks went back to the system.
 *
 * Context: Any context.
 * Return: bytes of DMA memory currently held by every pool together.
 */
long dg_test_chunk_bytes(void)
{
	return atomic_long_read(&dg_chunk_bytes);
}
DG_EXPORT_INTERNAL(dg_test_chunk_bytes);

/**
 * dg_test_in_cache_section() - call @fn inside this CPU's cache section
 * @pool: the pool whose section is taken
 * @fn: called with the section held (preemption off, interrupts on)
 * @arg: its argument
 *
 * What a task inside dg_pool_alloc() or dg_pool_free() is to an interrupt
 * that lands on its CPU: every pool call made on this CPU while @fn runs,
 * from an interrupt @fn raises, finds the section taken and goes past the
 * cache. @fn must not sleep, nor call the pool itself.
 *
 * Context: Process context, !PREEMPT_RT (there the section is a
 * spinlock_t, held with migration off, and interrupts are threads).
 * Return: 0, or -EBUSY when the section was taken already.
 */
int dg_test_in_cache_section(struct dg_pool *pool, void (*fn)(void *arg),
			     void *arg)
{
	if (!local_trylock(&pool->pcp->lock))
		return -EBUSY;
	fn(arg);
	local_unlock(&pool->pcp->lock);
	return 0;
}
DG_EXPORT_INTERNAL(dg_test_in_cache_section);

/**
 * dg_test_fail_chunks() - refuse every chunk allocation, or stop refusing
 * @fail: true to refuse them, as dma_alloc_coherent() does when memory is
 *	short
 *
 * Context: Any context.
 */
void dg_test_fail_chunks(bool fail)
{
	WRITE_ONCE(dg_test_chunks_fail, fail);
}
DG_EXPORT_INTERNAL(dg_test_fail_chunks);

DG_EXPORT_INTERNAL(dg_pool_for_each_chunk);
DG_EXPORT_INTERNAL(dg_pool_reclaim);
DG_EXPORT_INTERNAL(dg_pool_drain);
DG_EXPORT_INTERNAL(dg_pool_free);
/*
 * Only the benchmark module (tests/kmod/dmaguard_bench*.c) still reads the
 * core's statistics; it goes when that module uses dmaguard_pool_get_stats().
 */
DG_EXPORT_INTERNAL(dg_pool_get_stats);
