/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the test modules that use the kernel's own dma_pool API (the
 * contrast of dmaguard_scribble, the misuse cases of dmaguard_inplace_test):
 * whether such a pool still hands out sound blocks.
 */
#ifndef _DG_TEST_KPOOL_H
#define _DG_TEST_KPOOL_H

#include <linux/dma-direct.h>
#include <linux/dmapool.h>
#include <linux/iommu.h>
#include <linux/slab.h>
#include "dg_test_dev.h"

/**
 * dg_test_kpool_whole() - whether a kernel dma_pool is whole
 * @pool: the pool, of @size-byte blocks aligned to @size
 * @dev: its device
 * @size: its block size and alignment
 * @bad: memory no block may lie in (a decoy, a bad free's address) ...
 * @bad_len: ... and its length in bytes
 * @what: the pool, for the diagnostics
 *
 * Allocate three pages' worth of blocks and check them: distinct, aligned,
 * outside [@bad, @bad + @bad_len), and at the DMA address of their CPU
 * address where no IOMMU translates; then free them.
 *
 * Return: true if the pool is whole. On false the blocks stay allocated (a
 * pool that handed out a block twice is not freed into): leak the pool.
 */
static inline bool dg_test_kpool_whole(struct dma_pool *pool,
				       struct device *dev, size_t size,
				       const void *bad, size_t bad_len,
				       const char *what)
{
	unsigned int n = 3 * (PAGE_SIZE / size), i, j, budget = 3;
	struct {
		void *v;
		dma_addr_t d;
	} *b;
	bool ok = true;

	b = kcalloc(n, sizeof(*b), GFP_KERNEL);
	if (!b)
		return false;
	for (i = 0; i < n && ok; i++) {
		b[i].v = dma_pool_alloc(pool, GFP_KERNEL, &b[i].d);
		DG_EXPECT(ok, budget, b[i].v, "%s: allocation %u failed",
			  what, i);
		if (!b[i].v)
			break;
		DG_EXPECT(ok, budget, IS_ALIGNED((unsigned long)b[i].v, size),
			  "%s: block %p not aligned", what, b[i].v);
		DG_EXPECT(ok, budget,
			  (unsigned long)b[i].v - (unsigned long)bad >= bad_len,
			  "%s: block %p lies in the memory at %p it must not",
			  what, b[i].v, bad);
		DG_EXPECT(ok, budget, device_iommu_mapped(dev) ||
			  b[i].d == phys_to_dma(dev, virt_to_phys(b[i].v)),
			  "%s: block %p: dma %pad does not match", what, b[i].v,
			  &b[i].d);
		for (j = 0; j < i; j++)
			DG_EXPECT(ok, budget, b[j].v != b[i].v,
				  "%s: block %p handed out twice", what,
				  b[i].v);
	}
	for (j = 0; ok && j < i; j++)
		dma_pool_free(pool, b[j].v, b[j].d);
	kfree(b);
	return ok;
}

#endif /* _DG_TEST_KPOOL_H */
