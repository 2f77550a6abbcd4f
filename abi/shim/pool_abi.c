// SPDX-License-Identifier: GPL-2.0
/*
 * The exported pool interface: argument checks, then the core. The
 * public handle is the core pool itself, so the hot paths cost one
 * tail call; device-visible memory leaves the __dma address space here,
 * and only here, when a block is handed to its driver.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/device.h>
#include <dmaguard/dmaguard.h>
#include "dg_platform.h"
#include "dg_kernel.h"

static inline struct dg_pool *to_core(struct dmaguard_pool *pool)
{
	return (struct dg_pool *)pool;
}

/**
 * dmaguard_version() - version of the loaded dmaguard module
 *
 * Return: DMAGUARD_VERSION of the module.
 */
unsigned int dmaguard_version(void)
{
	return DMAGUARD_VERSION;
}
DG_EXPORT(dmaguard_version);

/**
 * dmaguard_pool_create_node() - create a pool of coherent DMA blocks
 * @name: name for reports and debugfs
 * @dev: device doing the DMA
 * @size: block size
 * @align: block alignment, power of two or 0
 * @boundary: power of two no block crosses, or 0
 * @node: NUMA node of the bookkeeping, or NUMA_NO_NODE
 *
 * Context: process context.
 * Return: the pool, or NULL (reason printed).
 */
struct dmaguard_pool *dmaguard_pool_create_node(const char *name,
						struct device *dev,
						size_t size, size_t align,
						size_t boundary, int node)
{
	struct dg_pool_params p = {
		.name = name, .dev = dev, .size = size, .align = align,
		.boundary = boundary, .node = node,
	};
	struct dg_pool *pool;

	might_sleep();
	if (!dev) {
		pr_err("pool %s: cannot create: no device\n",
		       name ? name : "(null)");
		return NULL;
	}
	pool = dg_pool_create(&p);
	if (pool)
		dg_registry_add(pool);
	return (struct dmaguard_pool *)pool;
}
DG_EXPORT(dmaguard_pool_create_node);

/**
 * dmaguard_pool_create() - create a pool of coherent DMA blocks
 * @name: name for reports and debugfs
 * @dev: device doing the DMA
 * @size: block size
 * @align: block alignment, power of two or 0
 * @boundary: power of two no block crosses, or 0
 *
 * Context: process context.
 * Return: the pool, or NULL (reason printed).
 */
struct dmaguard_pool *dmaguard_pool_create(const char *name,
					   struct device *dev, size_t size,
					   size_t align, size_t boundary)
{
	return dmaguard_pool_create_node(name, dev, size, align, boundary,
					 dev ? dev_to_node(dev) : NUMA_NO_NODE);
}
DG_EXPORT(dmaguard_pool_create);

/**
 * dmaguard_pool_alloc() - allocate one block
 * @pool: the pool
 * @mem_flags: GFP flags
 * @handle: the block's DMA address
 *
 * Return: the block, or NULL.
 */
void *dmaguard_pool_alloc(struct dmaguard_pool *pool, gfp_t mem_flags,
			  dma_addr_t *handle)
{
	return (void __force *)dg_pool_alloc(to_core(pool), mem_flags, handle);
}
DG_EXPORT(dmaguard_pool_alloc);

/**
 * dmaguard_pool_free() - give a block back
 * @pool: the pool
 * @vaddr: the block
 * @dma: its DMA address
 *
 * Context: any.
 */
void dmaguard_pool_free(struct dmaguard_pool *pool, void *vaddr,
			dma_addr_t dma)
{
	dg_pool_free(to_core(pool), (void __dma __force *)vaddr, dma);
}
DG_EXPORT(dmaguard_pool_free);

/**
 * dmaguard_pool_destroy() - destroy a pool
 * @pool: the pool, or NULL
 *
 * Context: process context.
 */
void dmaguard_pool_destroy(struct dmaguard_pool *pool)
{
	if (!pool)
		return;
	might_sleep();
	dg_registry_del(to_core(pool));
	dg_pool_destroy(to_core(pool));
}
DG_EXPORT(dmaguard_pool_destroy);
