// SPDX-License-Identifier: GPL-2.0-only
/*
 * The mainline platform: what mm/dmapool.c is made of around dmaguard's
 * core. scripts/kernel-series/generate.py writes the file from this
 * template, with the tree's own copyright lines on top and the core
 * (c-core/, renamed to the kernel's names) where the lines "@dma-space@"
 * (c-core/dg_dma_space.h) and "@core@" (the rest) are. Never compiled as
 * it stands.
 *
 * This allocator returns small blocks of a given size which are DMA-able by
 * the given device. It takes chunks of coherent memory from
 * dma_alloc_coherent() and splits them into blocks of the required size.
 *
 * The device can read and write every byte of every chunk at any time,
 * and a buggy or hostile one does. So the allocator keeps no state in
 * chunk memory and never reads it: which blocks are free is recorded in
 * bitmaps next to each chunk's descriptor, a freed address is checked
 * against them by arithmetic before anything is done with it, and a free
 * that is not of a live block of the pool is reported once, counted and
 * not applied.
 */

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/dmapool.h>
#include <linux/export.h>
#include <linux/gfp.h>
#include <linux/hardirq.h>
#include <linux/init.h>
#include <linux/iommu.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/local_lock.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mmdebug.h>
#include <linux/mutex.h>
#include <linux/numa.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/reciprocal_div.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/workqueue.h>

/*
 * A pool's place in the lists of pools (pools_lock) and its reclaim of
 * chunks that stayed empty.
 */
struct pool_plat {
	struct list_head pools;		/* on its device's dma_pools */
	struct list_head all;		/* on pools_all */
	struct delayed_work reclaim;
};

static void pool_plat_init(struct pool_plat *plat);
static void pool_plat_reclaim_kick(struct pool_plat *plat,
				   unsigned int nr_empty);
static void pool_plat_fini(struct pool_plat *plat);

/* @dma-space@ */

/*
 * Chunk memory is coherent memory of the pool's device.
 * dma_alloc_coherent() aligns the CPU and bus address of an allocation
 * to its page order, which the pool relies on (and checks).
 */
static void __dma *chunk_mem_alloc(struct device *dev, size_t size,
				   dma_addr_t *dma, gfp_t gfp)
{
	void *mem = dma_alloc_coherent(dev, size, dma, gfp);

	return (void __dma __force *)mem;
}

static void chunk_mem_free(struct device *dev, size_t size, void __dma *mem,
			   dma_addr_t dma)
{
	dma_free_coherent(dev, size, (void __force *)mem, dma);
}

/*
 * Whether @dev's IOMMU domain invalidates its IOTLB lazily (the flush
 * queue): memory freed there goes back to the page allocator while the
 * device may still reach it through stale IOTLB entries.
 */
static bool chunk_mem_lazy_unmap(struct device *dev)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);

	return dom && dom->type == IOMMU_DOMAIN_DMA_FQ;
}

/* @core@ */

/* A chunk goes back once it stayed empty this long; one is kept. */
#define DMAPOOL_RECLAIM_DELAY	HZ
#define DMAPOOL_RECLAIM_KEEP	1

/*
 * pools_lock guards every device's dma_pools list and pools_all.
 * pools_reg_lock orders the creation and removal of the sysfs file with
 * the first and last pool of a device.
 */
static DEFINE_MUTEX(pools_lock);
static DEFINE_MUTEX(pools_reg_lock);
static LIST_HEAD(pools_all);

static ssize_t pools_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct pool_stats st;
	struct pool_plat *plat;
	unsigned int size;

	size = sysfs_emit(buf, "poolinfo - 0.1\n");

	mutex_lock(&pools_lock);
	list_for_each_entry(plat, &dev->dma_pools, pools) {
		pool_get_stats(pool_from_plat(plat), &st);
		size += sysfs_emit_at(buf, size, "%-16s %4llu %4llu %4u %2u\n",
				      st.name, st.blocks_in_use,
				      st.blocks_total, st.stride, st.chunks);
	}
	mutex_unlock(&pools_lock);

	return size;
}

static DEVICE_ATTR_RO(pools);

/*
 * A pool's reclaim: queued when a chunk empties beyond what the pool
 * keeps, it gives back the empty chunks old enough and comes back for
 * the others.
 */
static void pool_reclaim_work(struct work_struct *work)
{
	struct pool_plat *plat = container_of(to_delayed_work(work),
					      struct pool_plat, reclaim);
	struct dma_pool *pool = pool_from_plat(plat);

	pool_reclaim_empty(pool, DMAPOOL_RECLAIM_DELAY, DMAPOOL_RECLAIM_KEEP);
	if (pool_empty_chunks(pool) > DMAPOOL_RECLAIM_KEEP)
		queue_delayed_work(system_unbound_wq, &plat->reclaim,
				   DMAPOOL_RECLAIM_DELAY);
}

static void pool_plat_init(struct pool_plat *plat)
{
	INIT_LIST_HEAD(&plat->pools);
	INIT_LIST_HEAD(&plat->all);
	INIT_DELAYED_WORK(&plat->reclaim, pool_reclaim_work);
}

/*
 * Called under the pool lock, from any context. A plain look at the
 * pending bit first: queueing a pending work changes nothing but costs an
 * atomic; a stale look only delays the reclaim to the next kick.
 */
static void pool_plat_reclaim_kick(struct pool_plat *plat,
				   unsigned int nr_empty)
{
	if (nr_empty > DMAPOOL_RECLAIM_KEEP &&
	    !delayed_work_pending(&plat->reclaim))
		queue_delayed_work(system_unbound_wq, &plat->reclaim,
				   DMAPOOL_RECLAIM_DELAY);
}

/* Destroy: no reclaim may run or be queued past this. */
static void pool_plat_fini(struct pool_plat *plat)
{
	cancel_delayed_work_sync(&plat->reclaim);
}

/**
 * dma_pool_create - Creates a pool of consistent memory blocks, for dma.
 * @name: name of pool, for diagnostics
 * @dev: device that will be doing the DMA
 * @size: size of the blocks in this pool.
 * @align: alignment requirement for blocks; must be a power of two
 * @boundary: returned blocks won't cross this power of two boundary
 * Context: not in_interrupt()
 *
 * Given one of these pools, dma_pool_alloc() may be used to allocate
 * memory. Such memory will all have "consistent" DMA mappings, accessible
 * by the device and its driver without using cache flushing primitives.
 * The actual size of blocks allocated may be larger than requested
 * because of alignment.
 *
 * If @boundary is nonzero, objects returned from dma_pool_alloc() won't
 * cross that size boundary. This is useful for devices which have
 * addressing restrictions on individual DMA transfers, such as not crossing
 * boundaries of 4KBytes.
 *
 * No allocator state is kept in the blocks: a device writing to a block,
 * free or allocated, cannot change what the pool hands out.
 *
 * Return: a dma allocation pool with the requested characteristics, or
 * %NULL if one can't be created.
 */
struct dma_pool *dma_pool_create(const char *name, struct device *dev,
				 size_t size, size_t align, size_t boundary)
{
	struct pool_params p = {
		.name = name, .dev = dev, .size = size, .align = align,
		.boundary = boundary,
	};
	struct dma_pool *pool;
	const char *why;
	bool empty;

	if (!dev)
		return NULL;
	p.node = dev_to_node(dev);
	/* What the kernel accepted before, and no more. */
	if (align && is_power_of_2(align) && size && size <= INT_MAX &&
	    boundary && boundary < ALIGN(size, align)) {
		dev_err(dev, "pool %s: cannot create: boundary smaller than size rounded up to align\n",
			name);
		return NULL;
	}
	if (pool_check_params(&p, &why)) {
		dev_err(dev, "pool %s: cannot create: %s\n", name ?: "(null)",
			why);
		return NULL;
	}
	pool = pool_create(&p);
	if (!pool)
		return NULL;

	/*
	 * pools_reg_lock: the sysfs file comes with a device's first pool and
	 * goes with its last, whatever the order of creates and destroys.
	 */
	mutex_lock(&pools_reg_lock);
	mutex_lock(&pools_lock);
	empty = list_empty(&dev->dma_pools);
	list_add(&pool->plat.pools, &dev->dma_pools);
	list_add(&pool->plat.all, &pools_all);
	mutex_unlock(&pools_lock);
	if (empty && device_create_file(dev, &dev_attr_pools)) {
		mutex_lock(&pools_lock);
		list_del(&pool->plat.pools);
		list_del(&pool->plat.all);
		mutex_unlock(&pools_lock);
		mutex_unlock(&pools_reg_lock);
		pool_destroy(pool);
		return NULL;
	}
	mutex_unlock(&pools_reg_lock);
	return pool;
}
EXPORT_SYMBOL(dma_pool_create);

/**
 * dma_pool_destroy - destroys a pool of dma memory blocks.
 * @pool: dma pool that will be destroyed
 * Context: !in_interrupt()
 *
 * Caller guarantees that no more memory from the pool is in use,
 * and that nothing will try to use the pool after this call. Chunks that
 * still hold allocated blocks are reported and not given back, so that a
 * late access does not reach memory reused by someone else.
 */
void dma_pool_destroy(struct dma_pool *pool)
{
	struct device *dev;
	bool empty;

	if (unlikely(!pool))
		return;

	dev = pool->dev;
	mutex_lock(&pools_reg_lock);
	mutex_lock(&pools_lock);
	list_del(&pool->plat.pools);
	list_del(&pool->plat.all);
	empty = list_empty(&dev->dma_pools);
	mutex_unlock(&pools_lock);
	if (empty)
		device_remove_file(dev, &dev_attr_pools);
	mutex_unlock(&pools_reg_lock);

	pool_destroy(pool);
}
EXPORT_SYMBOL(dma_pool_destroy);

/**
 * dma_pool_alloc - get a block of consistent memory
 * @pool: dma pool that will produce the block
 * @mem_flags: GFP_* bitmask
 * @handle: pointer to dma address of block
 *
 * Return: the kernel virtual address of a currently unused block,
 * and reports its dma address through the handle.
 * If such a memory block can't be allocated, %NULL is returned.
 */
void *dma_pool_alloc(struct dma_pool *pool, gfp_t mem_flags,
		     dma_addr_t *handle)
{
	return (void __force *)__pool_alloc(pool, mem_flags, handle);
}
EXPORT_SYMBOL(dma_pool_alloc);

/**
 * dma_pool_free - put block back into dma pool
 * @pool: the dma pool holding the block
 * @vaddr: virtual address of block
 * @dma: dma address of block
 *
 * Caller promises neither device nor driver will again touch this block
 * unless it is first re-allocated. A free that is not of a block the pool
 * handed out and that is still allocated (an address outside the pool or
 * inside a block, a dma address that is not the block's, a second free)
 * is reported, counted and ignored.
 */
void dma_pool_free(struct dma_pool *pool, void *vaddr, dma_addr_t dma)
{
	__pool_free(pool, (void __dma __force *)vaddr, dma);
}
EXPORT_SYMBOL(dma_pool_free);

/*
 * Managed DMA pool
 */
static void dmam_pool_release(struct device *dev, void *res)
{
	struct dma_pool *pool = *(struct dma_pool **)res;

	dma_pool_destroy(pool);
}

static int dmam_pool_match(struct device *dev, void *res, void *match_data)
{
	return *(struct dma_pool **)res == match_data;
}

/**
 * dmam_pool_create - Managed dma_pool_create()
 * @name: name of pool, for diagnostics
 * @dev: device that will be doing the DMA
 * @size: size of the blocks in this pool.
 * @align: alignment requirement for blocks; must be a power of two
 * @allocation: returned blocks won't cross this boundary (or zero)
 *
 * Managed dma_pool_create(). DMA pool created with this function is
 * automatically destroyed on driver detach.
 *
 * Return: a managed dma allocation pool with the requested
 * characteristics, or %NULL if one can't be created.
 */
struct dma_pool *dmam_pool_create(const char *name, struct device *dev,
				  size_t size, size_t align, size_t allocation)
{
	struct dma_pool **ptr, *pool;

	ptr = devres_alloc(dmam_pool_release, sizeof(*ptr), GFP_KERNEL);
	if (!ptr)
		return NULL;

	pool = dma_pool_create(name, dev, size, align, allocation);
	*ptr = pool;
	if (pool)
		devres_add(dev, ptr);
	else
		devres_free(ptr);

	return pool;
}
EXPORT_SYMBOL(dmam_pool_create);

/**
 * dmam_pool_destroy - Managed dma_pool_destroy()
 * @pool: dma pool that will be destroyed
 *
 * Managed dma_pool_destroy().
 */
void dmam_pool_destroy(struct dma_pool *pool)
{
	struct device *dev = pool->dev;

	WARN_ON(devres_release(dev, dmam_pool_release, dmam_pool_match, pool));
}
EXPORT_SYMBOL(dmam_pool_destroy);

/*
 * A CPU went offline: every pool gives back the blocks cached there, as
 * the page allocator drains a dead CPU's lists. Runs on a control CPU
 * after @cpu is dead.
 */
static int dmapool_cpu_dead(unsigned int cpu)
{
	struct pool_plat *plat;

	mutex_lock(&pools_lock);
	list_for_each_entry(plat, &pools_all, all)
		pool_cpu_dead(pool_from_plat(plat), cpu);
	mutex_unlock(&pools_lock);
	return 0;
}

static int __init dmapool_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "mm/dmapool:dead",
					NULL, dmapool_cpu_dead);
	return ret < 0 ? ret : 0;
}
core_initcall(dmapool_init);
