// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard.ko: module life cycle, the registry of live pools, debugfs and
 * the background reclaim of chunks that stayed empty.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <dmaguard/dmaguard.h>
#include "dg_platform.h"
#include "dg_kernel.h"

static unsigned int reclaim_delay_ms = 1000;
module_param(reclaim_delay_ms, uint, 0644);
MODULE_PARM_DESC(reclaim_delay_ms,
		 "Give a chunk back once it stayed empty this long (ms); also the scan period");

static unsigned int reclaim_keep_chunks = 1;
module_param(reclaim_keep_chunks, uint, 0644);
MODULE_PARM_DESC(reclaim_keep_chunks,
		 "Empty chunks each pool keeps whatever their age");

/* Pools alive, for debugfs and reclaim; never touched on a hot path. */
static LIST_HEAD(dg_pools);
static DEFINE_MUTEX(dg_pools_lock);
static struct dentry *dg_debugfs;

static void dg_reclaim_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(dg_reclaim_work, dg_reclaim_fn);

static unsigned long dg_reclaim_period(void)
{
	return msecs_to_jiffies(max(reclaim_delay_ms, 10u));
}

static void dg_reclaim_fn(struct work_struct *work)
{
	struct list_head *pos;

	mutex_lock(&dg_pools_lock);
	list_for_each(pos, &dg_pools)
		dg_pool_reclaim(dg_pool_from_owner_link(pos),
				msecs_to_jiffies(reclaim_delay_ms),
				reclaim_keep_chunks);
	mutex_unlock(&dg_pools_lock);
	schedule_delayed_work(&dg_reclaim_work, dg_reclaim_period());
}

void dg_registry_add(struct dg_pool *pool)
{
	mutex_lock(&dg_pools_lock);
	list_add_tail(dg_pool_owner_link(pool), &dg_pools);
	mutex_unlock(&dg_pools_lock);
}

void dg_registry_del(struct dg_pool *pool)
{
	mutex_lock(&dg_pools_lock);
	list_del_init(dg_pool_owner_link(pool));
	mutex_unlock(&dg_pools_lock);
}

static int dg_pools_show(struct seq_file *m, void *v)
{
	struct dg_pool_stats st;
	struct list_head *pos;

	seq_puts(m, "name size stride chunk_size blocks_in_use blocks_total chunks chunks_empty chunks_released meta_bytes bad_foreign bad_misaligned bad_dma bad_double\n");
	mutex_lock(&dg_pools_lock);
	list_for_each(pos, &dg_pools) {
		dg_pool_get_stats(dg_pool_from_owner_link(pos), &st);
		seq_printf(m, "%s %u %u %u %llu %llu %u %u %llu %llu %llu %llu %llu %llu\n",
			   st.name, st.size, st.stride, st.chunk_size,
			   st.blocks_in_use, st.blocks_total, st.chunks,
			   st.chunks_empty, st.chunks_released, st.meta_bytes,
			   st.bad_frees[DG_BAD_FOREIGN],
			   st.bad_frees[DG_BAD_MISALIGNED],
			   st.bad_frees[DG_BAD_DMA], st.bad_frees[DG_BAD_DOUBLE]);
	}
	mutex_unlock(&dg_pools_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dg_pools);

static int dg_chunk_bytes_get(void *data, u64 *val)
{
	*val = atomic_long_read(&dg_chunk_bytes);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(dg_chunk_bytes_fops, dg_chunk_bytes_get, NULL,
			 "%llu\n");

static int __init dg_init(void)
{
	dg_debugfs = debugfs_create_dir("dmaguard", NULL);
	debugfs_create_file("pools", 0444, dg_debugfs, NULL, &dg_pools_fops);
	debugfs_create_file("chunk_bytes", 0444, dg_debugfs, NULL,
			    &dg_chunk_bytes_fops);
	schedule_delayed_work(&dg_reclaim_work, dg_reclaim_period());
	pr_info("version %u.%u loaded\n", DMAGUARD_VERSION_MAJOR,
		DMAGUARD_VERSION_MINOR);
	return 0;
}

static void __exit dg_exit(void)
{
	cancel_delayed_work_sync(&dg_reclaim_work);
	debugfs_remove_recursive(dg_debugfs);
	/* Users hold a module reference, so no pool can be left here. */
	WARN_ON(!list_empty(&dg_pools));
	pr_info("unloaded\n");
}

module_init(dg_init);
module_exit(dg_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION("1.0");
MODULE_DESCRIPTION("Hardened DMA pools with no metadata in device-visible memory");
MODULE_AUTHOR("dmaguard developers");
