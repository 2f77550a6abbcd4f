/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel side of the platform shim: the core's few needs mapped onto the
 * kernel's own primitives. Its twin for userspace is ../user/dg_platform.h;
 * the two must offer the same names with the same meaning.
 */
#ifndef _DMAGUARD_PLATFORM_KERNEL_H
#define _DMAGUARD_PLATFORM_KERNEL_H

#ifndef pr_fmt
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#endif

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/bitops.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/bitmap.h>
#include <linux/hash.h>
#include <linux/device.h>
#include <linux/mmdebug.h>
#include <linux/sched/mm.h>
#include <linux/workqueue.h>
#include <linux/percpu.h>
#include <linux/local_lock.h>
#include <linux/cpumask.h>
#include <linux/smp.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <linux/string.h>
#include <linux/jiffies.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/log2.h>
#include <linux/reciprocal_div.h>
#include <linux/numa.h>
#include <asm/barrier.h>

#include "dg_dma_space.h"

#define DG_PAGE_SIZE		PAGE_SIZE
#define DG_NO_NODE		NUMA_NO_NODE

/* Chunk memory: backend in c-core/platform/kernel/chunk_dma.c. */
void __dma *dg_chunk_mem_alloc(void *dev, size_t size, dma_addr_t *dma,
			       gfp_t gfp);
void dg_chunk_mem_free(void *dev, size_t size, void __dma *mem,
		       dma_addr_t dma);
bool dg_chunk_mem_lazy_unmap(void *dev);

/*
 * A rejected free (c-core/platform/kernel/main.c): the pool's first in
 * full, later ones ratelimited; never a WARN, which a misbehaving
 * driver or device could turn into a panic with panic_on_warn.
 */
void dg_report_bad_free(void *dev, bool first, const char *pool,
			const void __dma *vaddr, dma_addr_t dma,
			const char *why);

/*
 * Per-CPU block caches. On !PREEMPT_RT a cache is taken with a trylock,
 * as mainline's local_trylock_t (6.16) takes one: preemption off and a
 * per-CPU flag, no interrupt toggle and no atomic. Only an interrupt that
 * lands inside a CPU's section can find the flag set (process context
 * cannot run there while preemption is off, and an interrupt's section
 * ends before the code it interrupted resumes); dg_pcp_trylock() then
 * returns NULL and the caller goes past the cache, to the chunks under the
 * pool lock. So the pool lock is always taken with interrupts saved, and
 * the cache section is an RCU read-side section (preemption off).
 *
 * On PREEMPT_RT the cache is a local_lock_t (a per-CPU spinlock_t that
 * holds the RCU read lock); interrupt handlers run in threads there, so
 * the lock is taken, never tried.
 *
 * dg_pcp_trylock(pcp) returns this CPU's cache, taken, or NULL;
 * dg_pcp_lock(pcp), for process context (the drains), one that is never
 * NULL; dg_pcp_unlock(pcp, cache) gives it back.
 */
#ifndef CONFIG_PREEMPT_RT
struct dg_cpu_lock {
	bool held;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct lockdep_map dep_map;
#endif
};

/*
 * One lockdep class for every cache. Sections that may interrupt another
 * are tries (never a deadlock); the process-context lock is a lock, as
 * mainline's local_lock() on a local_trylock_t is, so that an order the
 * PREEMPT_RT build would deadlock on (it takes the cache, never tries)
 * is reported on the debug kernel too.
 */
static inline void dg_cpu_lock_init(struct dg_cpu_lock *l)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	static struct lock_class_key key;

	lockdep_init_map(&l->dep_map, "dg_pcp", &key, 0);
#endif
	l->held = false;
}

static __always_inline struct dg_cpu_lock *
__dg_cpu_trylock(struct dg_cpu_lock __percpu *pl)
{
	struct dg_cpu_lock *l;

	preempt_disable();
	l = this_cpu_ptr(pl);
	if (unlikely(READ_ONCE(l->held))) {
		preempt_enable();
		return NULL;
	}
	WRITE_ONCE(l->held, true);
	barrier();	/* the section after the flag */
	return l;
}

static __always_inline struct dg_cpu_lock *
dg_cpu_trylock(struct dg_cpu_lock __percpu *pl)
{
	struct dg_cpu_lock *l = __dg_cpu_trylock(pl);

	if (!l)
		return NULL;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lock_map_acquire_try(&l->dep_map);
#endif
	return l;
}

static __always_inline void dg_cpu_unlock(struct dg_cpu_lock __percpu *pl,
					  struct dg_cpu_lock *l)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lock_map_release(&l->dep_map);
#endif
	barrier();	/* the section before the flag */
	WRITE_ONCE(l->held, false);
	preempt_enable();
}

/* Process context: nothing on this CPU is inside a section. */
static __always_inline struct dg_cpu_lock *
dg_cpu_lock(struct dg_cpu_lock __percpu *pl)
{
	struct dg_cpu_lock *l;

	might_sleep();
	l = __dg_cpu_trylock(pl);
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lock_map_acquire(&l->dep_map);
#endif
	return l;
}
#else /* CONFIG_PREEMPT_RT */
struct dg_cpu_lock {
	local_lock_t l;
};

static inline void dg_cpu_lock_init(struct dg_cpu_lock *l)
{
	local_lock_init(&l->l);
}

static __always_inline struct dg_cpu_lock *
dg_cpu_trylock(struct dg_cpu_lock __percpu *pl)
{
	local_lock(&pl->l);
	return this_cpu_ptr(pl);
}

static __always_inline void dg_cpu_unlock(struct dg_cpu_lock __percpu *pl,
					  struct dg_cpu_lock *l)
{
	local_unlock(&pl->l);
}

#define dg_cpu_lock(pl)			dg_cpu_trylock(pl)
#endif

/* The cache its struct dg_cpu_lock begins (pool_internal.h asserts it). */
#define dg_pcp_trylock(pcp)	((void *)dg_cpu_trylock(&(pcp)->cpu_lock))
#define dg_pcp_lock(pcp)	((void *)dg_cpu_lock(&(pcp)->cpu_lock))
#define dg_pcp_unlock(pcp, c)	dg_cpu_unlock(&(pcp)->cpu_lock, &(c)->cpu_lock)

/*
 * Wait for every cache section that began before: they are RCU read-side
 * sections (preemption off; on PREEMPT_RT a spinlock_t, which holds the
 * RCU read lock), so no CPU needs to be visited. May sleep.
 */
#define dg_pcp_sync(pcp)		((void)(pcp), synchronize_rcu())

/*
 * Per-pool platform state (main.c): the pool's link in the registry of
 * live pools and its reclaim work, queued when a chunk empties and the
 * pool holds more empty chunks than it keeps.
 */
struct dg_pool_plat {
	struct list_head registry;
	struct delayed_work reclaim;
};

void dg_plat_init(struct dg_pool_plat *plat);
void dg_plat_reclaim_kick(struct dg_pool_plat *plat, unsigned int nr_empty);
void dg_plat_fini(struct dg_pool_plat *plat);

#endif /* _DMAGUARD_PLATFORM_KERNEL_H */
