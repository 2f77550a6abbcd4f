/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmaguard public interface: hardened DMA pools.
 *
 * This header is the whole surface a driver sees. It is self-contained:
 * kernel code gets its types from <linux/types.h>, every other consumer
 * (bindgen, the userspace build of the core) from <stdint.h>/<stddef.h>.
 *
 * The pool calls mirror dma_pool_*() so that converting a driver is a
 * rename, with three differences: no 16-byte minimum block size, no
 * allocator metadata in device-visible memory, and every free is checked.
 */
#ifndef _DMAGUARD_DMAGUARD_H
#define _DMAGUARD_DMAGUARD_H

#define DMAGUARD_VERSION_MAJOR	1
#define DMAGUARD_VERSION_MINOR	0
/* One number that orders versions: major in the high 16 bits. */
#define DMAGUARD_VERSION_CODE(major, minor)	(((major) << 16) | (minor))
#define DMAGUARD_VERSION \
	DMAGUARD_VERSION_CODE(DMAGUARD_VERSION_MAJOR, DMAGUARD_VERSION_MINOR)

/* Symbol namespace of the exports; it changes with the major version. */
#define DMAGUARD_NS	DMAGUARD_V1

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/version.h>
struct device;

/*
 * A consumer module states DMAGUARD_IMPORT_NS(); without it, loading fails
 * with "module uses symbol ... from namespace DMAGUARD_V1, but does not
 * import it". Namespaces are strings from 6.13 on.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define DMAGUARD_IMPORT_NS()	MODULE_IMPORT_NS("DMAGUARD_V1")
#else
#define DMAGUARD_IMPORT_NS()	MODULE_IMPORT_NS(DMAGUARD_V1)
#endif
#else
#include <stddef.h>
#include <stdint.h>
typedef unsigned int gfp_t;
typedef uint64_t dma_addr_t;
struct device;
#endif

/* Opaque: drivers never see the pool's layout. */
struct dmaguard_pool;

/**
 * dmaguard_version() - version of the loaded dmaguard module
 *
 * Return: DMAGUARD_VERSION_CODE(major, minor) of the module that resolved
 * this call, to compare with DMAGUARD_VERSION from the headers a consumer
 * was built against.
 */
unsigned int dmaguard_version(void);

/**
 * dmaguard_pool_create() - create a pool of coherent DMA blocks
 * @name: name for reports and debugfs; copied, at most 31 characters kept
 * @dev: device that will do the DMA
 * @size: size of each block, at least 1 (no 16-byte minimum)
 * @align: alignment of each block, a power of two, or 0 for 1
 * @boundary: power of two no block may cross, or 0 for none; not smaller
 *	than @size
 *
 * Context: process context, may sleep.
 * Return: the pool, or NULL on invalid arguments (reported once with the
 * reason) or when memory for the pool's bookkeeping cannot be had.
 */
struct dmaguard_pool *dmaguard_pool_create(const char *name,
					   struct device *dev, size_t size,
					   size_t align, size_t boundary);

/**
 * dmaguard_pool_create_node() - dmaguard_pool_create() with a NUMA node
 * @name: as for dmaguard_pool_create()
 * @dev: as for dmaguard_pool_create()
 * @size: as for dmaguard_pool_create()
 * @align: as for dmaguard_pool_create()
 * @boundary: as for dmaguard_pool_create()
 * @node: node for the pool's bookkeeping memory, or NUMA_NO_NODE (-1)
 *
 * Context: process context, may sleep.
 * Return: the pool, or NULL as for dmaguard_pool_create().
 */
struct dmaguard_pool *dmaguard_pool_create_node(const char *name,
						struct device *dev,
						size_t size, size_t align,
						size_t boundary, int node);

/**
 * dmaguard_pool_alloc() - allocate one block
 * @pool: the pool
 * @mem_flags: GFP flags; GFP_ATOMIC allowed from any context
 * @handle: where the block's DMA address is stored
 *
 * Blocks of a fresh chunk come out in ascending address order. The block
 * is zeroed when @mem_flags has __GFP_ZERO or init_on_alloc is on.
 *
 * Return: the block's CPU address, or NULL when no memory could be had.
 */
void *dmaguard_pool_alloc(struct dmaguard_pool *pool, gfp_t mem_flags,
			  dma_addr_t *handle);

/**
 * dmaguard_pool_free() - give a block back
 * @pool: the pool it came from
 * @vaddr: its CPU address, as returned by dmaguard_pool_alloc()
 * @dma: its DMA address, as returned by dmaguard_pool_alloc()
 *
 * A free that does not match a live block of @pool (foreign or interior
 * pointer, wrong @dma, double free) is reported once per pool, counted,
 * and not applied: the pool stays consistent.
 *
 * Context: any context.
 */
void dmaguard_pool_free(struct dmaguard_pool *pool, void *vaddr,
			dma_addr_t dma);

/**
 * dmaguard_pool_destroy() - destroy a pool
 * @pool: the pool, or NULL (no-op)
 *
 * Blocks still allocated are reported; their chunks are deliberately
 * leaked so that a late access by a driver or device hits memory that
 * was never handed back to the system.
 *
 * Context: process context, may sleep.
 */
void dmaguard_pool_destroy(struct dmaguard_pool *pool);

#ifdef __KERNEL__
/**
 * dmaguard_pool_zalloc() - allocate one zeroed block
 * @pool: the pool
 * @mem_flags: GFP flags
 * @handle: where the block's DMA address is stored
 *
 * Return: as for dmaguard_pool_alloc().
 */
static inline void *dmaguard_pool_zalloc(struct dmaguard_pool *pool,
					 gfp_t mem_flags, dma_addr_t *handle)
{
	return dmaguard_pool_alloc(pool, mem_flags | __GFP_ZERO, handle);
}
#endif

#endif /* _DMAGUARD_DMAGUARD_H */
