// SPDX-License-Identifier: GPL-2.0
/*
 * Test hooks: what dmaguard's own in-kernel test and benchmark modules
 * (tests/kmod/) need beyond the public interface, namely the chunk walk
 * that plays a hostile device, the core's free with its verdict, a forced
 * reclaim and the chunk memory held by all pools.
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

DG_EXPORT_INTERNAL(dg_pool_for_each_chunk);
DG_EXPORT_INTERNAL(dg_pool_reclaim);
DG_EXPORT_INTERNAL(dg_pool_drain);
DG_EXPORT_INTERNAL(dg_pool_free);
/*
 * Only the benchmark module (tests/kmod/dmaguard_bench*.c) still reads the
 * core's statistics; it goes when that module uses dmaguard_pool_get_stats().
 */
DG_EXPORT_INTERNAL(dg_pool_get_stats);
