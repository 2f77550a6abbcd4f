// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel platform: chunk memory is coherent DMA memory of the pool's
 * device. dma_alloc_coherent() aligns the CPU and bus address of an
 * allocation to its page order, which the core relies on (and checks).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/error-injection.h>
#include <linux/iommu.h>
#include <linux/atomic.h>
#include "dg_platform.h"
#include "dg_kernel.h"

/* Bytes of chunk memory held by all pools: read by tests via debugfs. */
atomic_long_t dg_chunk_bytes = ATOMIC_LONG_INIT(0);

#ifdef DMAGUARD_TEST_HOOKS
/* dg_test_fail_chunks(): chunk allocations refused while set. */
bool dg_test_chunks_fail;
#define dg_chunk_mem_refused()	READ_ONCE(dg_test_chunks_fail)
#else
#define dg_chunk_mem_refused()	false
#endif

/*
 * fail_function may fail it (tests/vm/fault.vmtest), where slab and page
 * allocator injection may not reach (CMA, an IOMMU's own memory).
 */
noinline void __dma *dg_chunk_mem_alloc(void *dev, size_t size,
					dma_addr_t *dma, gfp_t gfp)
{
	void *mem;

	if (dg_chunk_mem_refused())
		return NULL;
	mem = dma_alloc_coherent(dev, size, dma, gfp);

	if (mem)
		atomic_long_add(size, &dg_chunk_bytes);
	return (void __dma __force *)mem;
}
ALLOW_ERROR_INJECTION(dg_chunk_mem_alloc, NULL);

void dg_chunk_mem_free(void *dev, size_t size, void __dma *mem,
		       dma_addr_t dma)
{
	atomic_long_sub(size, &dg_chunk_bytes);
	dma_free_coherent(dev, size, (void __force *)mem, dma);
}

/*
 * Whether @dev's IOMMU domain invalidates its IOTLB lazily (the flush
 * queue, DMA-FQ): memory it frees goes back to the page allocator while
 * the device may still reach it through stale IOTLB entries.
 */
bool dg_chunk_mem_lazy_unmap(void *dev)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);

	return dom && dom->type == IOMMU_DOMAIN_DMA_FQ;
}
