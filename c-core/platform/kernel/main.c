// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard.ko: module life cycle, the registries of live pools and pin
 * caches, debugfs, misuse reports and each pool's reclaim of chunks that
 * stayed empty.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/stringify.h>
#include <linux/mutex.h>
#include <linux/shrinker.h>
#include <linux/workqueue.h>
#include <dmaguard/dmaguard.h>
#include "dg_platform.h"
#include "dg_kernel.h"
#include "pincache.h"

static unsigned int reclaim_delay_ms = 1000;
module_param(reclaim_delay_ms, uint, 0644);
MODULE_PARM_DESC(reclaim_delay_ms,
		 "Give a chunk back once it stayed empty this long (ms)");

unsigned int dg_pin_idle_secs = 60;
module_param_named(pin_idle_secs, dg_pin_idle_secs, uint, 0644);
MODULE_PARM_DESC(pin_idle_secs,
		 "Unpin cached ranges no I/O used for this long (s); 0: never");

static unsigned int reclaim_keep_chunks = 1;
module_param(reclaim_keep_chunks, uint, 0644);
MODULE_PARM_DESC(reclaim_keep_chunks,
		 "Empty chunks each pool keeps whatever their age");

/*
 * Pools alive, for debugfs; never touched on a hot path. dg_pools_lock
 * nests outside every pool lock.
 */
static LIST_HEAD(dg_pools);
static DEFINE_MUTEX(dg_pools_lock);
static struct dentry *dg_debugfs;

/* Pin caches alive (their dg_pin_plat), for debugfs; as dg_pools. */
static LIST_HEAD(dg_pin_caches);
static DEFINE_MUTEX(dg_pin_caches_lock);

/* The parameters may change at any time: read each once per use. */
static unsigned long dg_reclaim_delay(void)
{
	return msecs_to_jiffies(READ_ONCE(reclaim_delay_ms));
}

/*
 * A pool's reclaim: queued when a chunk empties beyond what the pool keeps,
 * it gives back the empty chunks old enough and comes back for the others.
 */
static void dg_reclaim_fn(struct work_struct *work)
{
	struct dg_pool_plat *plat = container_of(to_delayed_work(work),
						 struct dg_pool_plat, reclaim);
	struct dg_pool *pool = dg_pool_from_plat(plat);
	unsigned int keep = READ_ONCE(reclaim_keep_chunks);

	dg_pool_reclaim_empty(pool, dg_reclaim_delay(), keep);
	if (dg_pool_empty_chunks(pool) > keep)
		queue_delayed_work(system_unbound_wq, &plat->reclaim,
				   dg_reclaim_delay());
}

void dg_plat_init(struct dg_pool_plat *plat)
{
	INIT_LIST_HEAD(&plat->registry);
	INIT_DELAYED_WORK(&plat->reclaim, dg_reclaim_fn);
}

/*
 * Called under the pool lock, from any context, when a chunk empties (or
 * an atomic caller parked one): queue_delayed_work() is safe there and
 * does nothing when the work is already pending.
 */
void dg_plat_reclaim_kick(struct dg_pool_plat *plat, unsigned int nr_empty)
{
	/*
	 * Only a pool with more empty chunks than it keeps has anything to
	 * give back (the reclaim leaves the CPUs' caches alone). A plain look
	 * at the pending bit first: queueing a pending work changes nothing
	 * but costs an atomic and an interrupt toggle. A stale look only
	 * delays the reclaim to the next kick.
	 */
	if (nr_empty > READ_ONCE(reclaim_keep_chunks) &&
	    !delayed_work_pending(&plat->reclaim))
		queue_delayed_work(system_unbound_wq, &plat->reclaim,
				   dg_reclaim_delay());
}

/* Destroy: no reclaim may run or be queued past this. */
void dg_plat_fini(struct dg_pool_plat *plat)
{
	cancel_delayed_work_sync(&plat->reclaim);
}

/* The dynamic CPU hotplug state of dg_cpu_dead(), or a -errno. */
static int dg_cpuhp_state;

/*
 * A CPU went offline: every pool gives back the blocks cached there, as
 * the page allocator drains a dead CPU's lists. Runs on a control CPU
 * after @cpu is dead.
 */
static int dg_cpu_dead(unsigned int cpu)
{
	struct dg_pool_plat *plat;

	mutex_lock(&dg_pools_lock);
	list_for_each_entry(plat, &dg_pools, registry)
		dg_pool_cpu_dead(dg_pool_from_plat(plat), cpu);
	mutex_unlock(&dg_pools_lock);
	return 0;
}

void dg_registry_add(struct dg_pool *pool)
{
	mutex_lock(&dg_pools_lock);
	list_add_tail(&dg_pool_plat(pool)->registry, &dg_pools);
	mutex_unlock(&dg_pools_lock);
}

void dg_registry_del(struct dg_pool *pool)
{
	mutex_lock(&dg_pools_lock);
	list_del_init(&dg_pool_plat(pool)->registry);
	mutex_unlock(&dg_pools_lock);
}

static int dg_pools_show(struct seq_file *m, void *v)
{
	struct dg_pool_plat *plat;
	struct dg_pool_stats st;

	seq_puts(m, "name size stride chunk_size blocks_in_use blocks_total chunks chunks_empty chunks_released meta_bytes pcp_bytes bad_foreign bad_misaligned bad_dma bad_double\n");
	mutex_lock(&dg_pools_lock);
	list_for_each_entry(plat, &dg_pools, registry) {
		dg_pool_get_stats(dg_pool_from_plat(plat), &st);
		seq_printf(m, "%s %u %u %u %llu %llu %u %u %llu %llu %llu %llu %llu %llu %llu\n",
			   st.name, st.size, st.stride, st.chunk_size,
			   st.blocks_in_use, st.blocks_total, st.chunks,
			   st.chunks_empty, st.chunks_released, st.meta_bytes,
			   st.pcp_bytes,
			   st.bad_frees[DG_BAD_FOREIGN],
			   st.bad_frees[DG_BAD_MISALIGNED],
			   st.bad_frees[DG_BAD_DMA], st.bad_frees[DG_BAD_DOUBLE]);
	}
	mutex_unlock(&dg_pools_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dg_pools);

void dg_pin_registry_add(struct dg_pin_plat *plat, struct dg_pin_cache *c)
{
	mutex_lock(&dg_pin_caches_lock);
	plat->cache = c;
	list_add_tail(&plat->registry, &dg_pin_caches);
	mutex_unlock(&dg_pin_caches_lock);
}

/* From the cache's free, which a destroy or a last put may run. */
void dg_pin_registry_del(struct dg_pin_plat *plat)
{
	mutex_lock(&dg_pin_caches_lock);
	list_del_init(&plat->registry);
	mutex_unlock(&dg_pin_caches_lock);
}

/*
 * The pin caches' shrinker: under memory pressure, unused entries give
 * their pins back (their pages can then be reclaimed or migrated), least
 * recently used first, a cache at a time. An entry is an object.
 */
static unsigned long dg_pin_shrink_count(struct shrinker *s,
					 struct shrink_control *sc)
{
	struct dg_pin_plat *plat;
	unsigned long n = 0;

	if (!mutex_trylock(&dg_pin_caches_lock))
		return 0;
	list_for_each_entry(plat, &dg_pin_caches, registry)
		n += dg_pin_cache_nr_live(plat->cache);
	mutex_unlock(&dg_pin_caches_lock);
	return n ? n : SHRINK_EMPTY;
}

static unsigned long dg_pin_shrink_scan(struct shrinker *s,
					struct shrink_control *sc)
{
	unsigned long freed = 0, passes = 0, done = 0, n;
	struct dg_pin_cache *c;
	unsigned int scanned;

	/*
	 * Eviction only unlinks: the releases (notifier removal, unpinning,
	 * which may wait) run from dg_pin_wq, never in reclaim itself.
	 */
	while (done < sc->nr_to_scan) {
		if (!mutex_trylock(&dg_pin_caches_lock))
			break;
		c = NULL;
		/* the first cache with live entries; it goes to the tail */
		n = list_count_nodes(&dg_pin_caches);
		while (n-- && !c) {
			struct dg_pin_plat *plat = list_first_entry(&dg_pin_caches,
				struct dg_pin_plat, registry);

			list_rotate_left(&dg_pin_caches);
			if (dg_pin_cache_nr_live(plat->cache) &&
			    dg_pin_cache_tryget(plat->cache))
				c = plat->cache;
		}
		mutex_unlock(&dg_pin_caches_lock);
		if (!c)
			break;
		/* Without the registry's lock: the cache's free takes it. */
		freed += dg_pin_cache_evict(c, sc->nr_to_scan - done, &scanned);
		done += scanned;
		dg_pin_cache_put(c);
		if (++passes > 64)
			break;
	}
	sc->nr_scanned = done;	/* entries looked at, those passed over too */
	/* entries looked at are progress, even when each had a second chance */
	return freed || done ? freed : SHRINK_STOP;
}

#if DG_SHRINKER_ALLOC
static struct shrinker *dg_pin_shrinker;

static int dg_pin_shrinker_register(void)
{
	dg_pin_shrinker = shrinker_alloc(0, "dmaguard-pin");
	if (!dg_pin_shrinker)
		return -ENOMEM;
	dg_pin_shrinker->count_objects = dg_pin_shrink_count;
	dg_pin_shrinker->scan_objects = dg_pin_shrink_scan;
	shrinker_register(dg_pin_shrinker);
	return 0;
}

static void dg_pin_shrinker_unregister(void)
{
	shrinker_free(dg_pin_shrinker);
}
#else
static struct shrinker dg_pin_shrinker = {
	.count_objects = dg_pin_shrink_count,
	.scan_objects = dg_pin_shrink_scan,
	.seeks = DEFAULT_SEEKS,
};

static int dg_pin_shrinker_register(void)
{
	return register_shrinker(&dg_pin_shrinker, "dmaguard-pin");
}

static void dg_pin_shrinker_unregister(void)
{
	unregister_shrinker(&dg_pin_shrinker);
}
#endif

static int dg_pin_caches_show(struct seq_file *m, void *v)
{
	struct dg_pin_plat *plat;
	struct dg_pin_stats st;

	seq_puts(m, "tgid device entries entries_indexed pinned_bytes handles hits misses invalidations inval_ignored evictions retries prot_checks bad_puts\n");
	mutex_lock(&dg_pin_caches_lock);
	list_for_each_entry(plat, &dg_pin_caches, registry) {
		dg_pin_get_stats(plat->cache, &st);
		seq_printf(m, "%d %s %u %u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
			   plat->tgid, plat->dev ? dev_name(plat->dev) : "-",
			   st.entries, st.entries_indexed, st.pinned_bytes,
			   st.handles, st.hits, st.misses, st.invalidations,
			   st.inval_ignored, st.evictions, st.retries,
			   st.prot_checks, st.bad_puts);
	}
	mutex_unlock(&dg_pin_caches_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dg_pin_caches);

static int dg_chunk_bytes_get(void *data, u64 *val)
{
	*val = atomic_long_read(&dg_chunk_bytes);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(dg_chunk_bytes_fops, dg_chunk_bytes_get, NULL,
			 "%llu\n");

struct workqueue_struct *dg_pin_wq;

static int __init dg_init(void)
{
	int ret;

	/* Reaps give pinned memory back: they must run under memory pressure. */
	dg_pin_wq = alloc_workqueue("dmaguard_pin", WQ_MEM_RECLAIM, 0);
	if (!dg_pin_wq)
		return -ENOMEM;
	if (dg_pin_shrinker_register()) {
		ret = -ENOMEM;
		goto err_wq;
	}
	/* The dead callback of the PREPARE section: after the CPU is gone. */
	dg_cpuhp_state = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN,
						   "dmaguard:dead", NULL,
						   dg_cpu_dead);
	if (dg_cpuhp_state < 0) {
		ret = dg_cpuhp_state;
		goto err_shrinker;
	}
	dg_debugfs = debugfs_create_dir("dmaguard", NULL);
	debugfs_create_file("pools", 0444, dg_debugfs, NULL, &dg_pools_fops);
	debugfs_create_file("chunk_bytes", 0444, dg_debugfs, NULL,
			    &dg_chunk_bytes_fops);
	debugfs_create_file("pin_caches", 0444, dg_debugfs, NULL,
			    &dg_pin_caches_fops);
	pr_info("version %u.%u loaded\n", DMAGUARD_VERSION_MAJOR,
		DMAGUARD_VERSION_MINOR);
	return 0;

err_shrinker:
	dg_pin_shrinker_unregister();
err_wq:
	destroy_workqueue(dg_pin_wq);
	return ret;
}

static void __exit dg_exit(void)
{
	debugfs_remove_recursive(dg_debugfs);
	/* Users hold a module reference, so no pool can be left here. */
	WARN_ON(!list_empty(&dg_pools));
	/* Each pin cache holds a module reference until it is freed. */
	WARN_ON(!list_empty(&dg_pin_caches));
	cpuhp_remove_state_nocalls(dg_cpuhp_state);
	dg_pin_shrinker_unregister();
	/* Waits for a reap still returning from the put that freed its cache. */
	destroy_workqueue(dg_pin_wq);
	/* The released entries' frees, after their grace period (call_rcu). */
	rcu_barrier();
	pr_info("unloaded\n");
}

module_init(dg_init);
module_exit(dg_exit);
MODULE_LICENSE("GPL");
/* The version and namespace come from the public header, their one home. */
MODULE_VERSION(__stringify(DMAGUARD_VERSION_MAJOR) "."
	       __stringify(DMAGUARD_VERSION_MINOR));
/*
 * modinfo shows what a module imports (import_ns) but nothing of what it
 * exports; this tag names the namespace of dmaguard's exports, the one a
 * driver imports with DMAGUARD_IMPORT_NS(). `make check-dkms` checks it
 * against the namespace strings of the module's real export table.
 */
MODULE_INFO(export_ns, __stringify(DMAGUARD_NS));
MODULE_DESCRIPTION("Hardened DMA pools with no metadata in device-visible memory");
MODULE_AUTHOR("dmaguard developers");
