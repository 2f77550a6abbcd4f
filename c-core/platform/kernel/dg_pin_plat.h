/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel side of the pin cache's platform hooks: the contracts the kernel
 * glue (pin_plat.c) implements. Its twin for userspace is
 * ../user/dg_pin_plat.h, over a simulated mm.
 */
#ifndef _DMAGUARD_PIN_PLAT_KERNEL_H
#define _DMAGUARD_PIN_PLAT_KERNEL_H

#include "dg_platform.h"
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/limits.h>
#include <linux/mmu_notifier.h>
#include <linux/uaccess.h>
#include <linux/interval_tree_generic.h>
#include <linux/rculist.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

struct dg_pin_cache;

/* this_cpu_inc() of a per-CPU counter: one instruction, no atomic. */
#define dg_this_cpu_inc(pcp, field)	this_cpu_inc((pcp)->field)

/* Pages per pin_user_pages_fast() call. */
#define DG_PIN_BATCH		512

/*
 * Per cache: the mm (mmgrab()ed), the device entries are mapped for, the
 * cache's place in the registry of live caches (debugfs), which
 * dg_pin_plat_fini() leaves, and its deferred reap.
 */
struct dg_pin_plat {
	struct mm_struct *mm;
	struct device *dev;
	struct list_head registry;
	struct dg_pin_cache *cache;
	pid_t tgid;
	struct work_struct reap_work;
	struct delayed_work age_work;	/* dg_pin_age_deferred() */
	bool map_needs_sync;		/* @dev needs syncs: map nothing */
};

/* Seconds between agings of a cache's unused entries; 0: none (main.c). */
extern unsigned int dg_pin_idle_secs;

/* The workqueue of deferred reaps (main.c); destroyed, so drained, at exit. */
extern struct workqueue_struct *dg_pin_wq;

/* The registry of live caches (main.c), for debugfs. */
void dg_pin_registry_add(struct dg_pin_plat *plat, struct dg_pin_cache *c);
void dg_pin_registry_del(struct dg_pin_plat *plat);

/* Per entry: its interval notifier. */
struct dg_pin_notifier {
	struct mmu_interval_notifier mni;
};

/*
 * Take a reference on @mm (mmgrab), @dev (get_device) and this module:
 * a cache outlives the calls of the driver that made it (its notifier
 * callbacks, a queued reap, a cache leaked by a driver that unloaded),
 * and each of those runs this module's text; the driver's symbol
 * dependency covers only the driver's own lifetime. Process context, may
 * sleep. 0 or -errno.
 */
int dg_pin_plat_init(struct dg_pin_plat *plat, void *mm, void *dev);
/* Drop them. Process context, may sleep. */
void dg_pin_plat_fini(struct dg_pin_plat *plat);

/*
 * mmu_interval_notifier_insert() over [start, start + len), its callback
 * calling dg_pin_invalidate() with the event's kind (dg_pin_event).
 * Process context, no lock held, may sleep. 0 or -errno (-ENOMEM).
 */
int dg_pin_plat_track(struct dg_pin_plat *plat, struct dg_pin_notifier *n,
		      unsigned long start, unsigned long len);
/*
 * mmu_interval_notifier_remove(): waits for a callback running on @n.
 * Process context, no lock held, may sleep; never from the callback.
 */
static inline void dg_pin_plat_untrack(struct dg_pin_notifier *n)
{
	mmu_interval_notifier_remove(&n->mni);
}

/* Process context, may sleep (waits for an invalidation in progress). */
static inline unsigned long dg_pin_plat_read_begin(struct dg_pin_notifier *n)
{
	return mmu_interval_read_begin(&n->mni);
}

/* Both under the cache lock, which the callback takes too. */
static inline bool dg_pin_plat_read_retry(struct dg_pin_notifier *n,
					  unsigned long seq)
{
	return mmu_interval_read_retry(&n->mni, seq);
}

static inline void dg_pin_plat_set_seq(struct dg_pin_notifier *n,
				       unsigned long cur_seq)
{
	mmu_interval_set_seq(&n->mni, cur_seq);
}

/*
 * Queue the cache's deferred reap (dg_pin_reap_deferred() from a work
 * item of dg_pin_wq). From the notifier callback, under the cache lock.
 */
static inline void dg_pin_plat_queue_reap(struct dg_pin_plat *plat)
{
	queue_work(dg_pin_wq, &plat->reap_work);
}

/* The aging period, in jiffies; 0 when idle entries are never aged. */
static inline unsigned long dg_pin_plat_age_period(void)
{
	return (unsigned long)READ_ONCE(dg_pin_idle_secs) * HZ;
}

/* Run dg_pin_age_deferred() a period from now. Under the cache lock. */
static inline void dg_pin_plat_queue_age(struct dg_pin_plat *plat)
{
	queue_delayed_work(dg_pin_wq, &plat->age_work,
			   dg_pin_plat_age_period());
}

/* Cancel a queued aging; true if it was pending. Any context. */
static inline bool dg_pin_plat_cancel_age(struct dg_pin_plat *plat)
{
	return cancel_delayed_work(&plat->age_work);
}

/*
 * Do the VMAs over [start, last] still allow what a pin for reading (or
 * writing) needs, as pin_user_pages would check them? Takes the mmap
 * lock for reading: process context, in a task of the cache's mm.
 */
bool dg_pin_plat_allows(struct dg_pin_plat *plat, unsigned long start,
			unsigned long last, bool write);

/*
 * Charge @nr_pages to mm->pinned_vm against RLIMIT_MEMLOCK unless
 * CAP_IPC_LOCK: 0, or -ENOMEM over the limit with nothing charged.
 * Uncharge gives them back. Process context, no lock held, may sleep;
 * never from the notifier callback.
 */
int dg_pin_plat_charge(struct dg_pin_plat *plat, unsigned long nr_pages);
void dg_pin_plat_uncharge(struct dg_pin_plat *plat, unsigned long nr_pages);

/*
 * pin_user_pages_fast(start, nr_pages, FOLL_LONGTERM | (write ?
 * FOLL_WRITE : 0), pages): the number of pages pinned from @start (may be
 * fewer than asked), or -errno when not even the first could be (-EFAULT
 * for kernel, unmapped, PROT_NONE or read-only-for-write addresses...).
 * Process context, no lock held, may sleep.
 */
long dg_pin_plat_pin(struct dg_pin_plat *plat, unsigned long start,
		     unsigned long nr_pages, bool write, void **pages);
/* unpin_user_pages_dirty_lock(pages, nr_pages, dirty). May sleep. */
void dg_pin_plat_unpin(struct dg_pin_plat *plat, void **pages,
		       unsigned long nr_pages, bool dirty);

/*
 * DMA-map the pages for plat->dev (an sg_table from
 * sg_alloc_table_from_pages(), which merges only physically contiguous
 * pages, then dma_map_sgtable()); *cookie is the sg_table, or NULL when
 * the device needs dma_sync_*() calls for its mappings (swiotlb bounce
 * buffers, a non-coherent device): such a mapping is not cached. 0 or
 * -errno. Unmap undoes it. Process context, no lock held, may sleep.
 */
int dg_pin_plat_map(struct dg_pin_plat *plat, void **pages,
		    unsigned long nr_pages, bool write, void **cookie);
void dg_pin_plat_unmap(struct dg_pin_plat *plat, void *cookie,
		       unsigned long nr_pages, bool write);

/* The page pointer array of an entry (no kvcalloc_node() before 6.10). */
static inline void *dg_kvcalloc(size_t n, size_t size, int node)
{
	return kvcalloc(n, size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
}

#define dg_kvfree(p)			kvfree(p)

#endif /* _DMAGUARD_PIN_PLAT_KERNEL_H */
