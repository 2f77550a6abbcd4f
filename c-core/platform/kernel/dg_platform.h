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
#include <linux/string.h>
#include <linux/jiffies.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/log2.h>
#include <linux/numa.h>
#include <asm/barrier.h>

#include "dg_dma_space.h"

#define DG_PAGE_SIZE		PAGE_SIZE
#define DG_NO_NODE		NUMA_NO_NODE

/* Bookkeeping memory: never device-visible. */
static inline void *dg_kzalloc_node(size_t size, gfp_t gfp, int node)
{
	return kzalloc_node(size, (gfp & ~__GFP_ZERO) | __GFP_NOWARN, node);
}

#define dg_kfree(p)			kfree(p)
#define dg_ksize(p)			ksize(p)
#define dg_now()			jiffies

/* Zero on allocation when asked for, or when init_on_alloc is on. */
#define dg_want_zero(gfp)		want_init_on_alloc(gfp)
#define dg_want_zero_on_free()		want_init_on_free()
#define dg_gfp_may_sleep(gfp)		gfpflags_allow_blocking(gfp)

/* Chunk memory: backend in c-core/platform/kernel/chunk_dma.c. */
void __dma *dg_chunk_mem_alloc(void *dev, size_t size, dma_addr_t *dma,
			       gfp_t gfp);
void dg_chunk_mem_free(void *dev, size_t size, void __dma *mem,
		       dma_addr_t dma);

/*
 * Invariant checks of the core: only with CONFIG_DEBUG_VM. They guard the
 * core's own bookkeeping, which nothing a device writes can reach.
 */
#define dg_assert(cond)			VM_WARN_ON_ONCE(!(cond))

/*
 * A rejected free (c-core/platform/kernel/main.c): the pool's first in
 * full, later ones ratelimited; never a WARN, which a misbehaving
 * driver or device could turn into a panic with panic_on_warn.
 */
void dg_report_bad_free(void *dev, bool first, const char *pool,
			const void __dma *vaddr, dma_addr_t dma,
			const char *why);
#define dg_err(dev, fmt, ...) \
	dev_err((struct device *)(dev), fmt "\n", ##__VA_ARGS__)

#define dg_hweight_long(word)		hweight_long(word)

/*
 * Per-CPU block caches: a local_lock_t (interrupts off, or a per-CPU lock
 * on PREEMPT_RT) guards this CPU's cache; the pool lock nests inside it.
 * dg_pcp_lock() returns the locked cache of the CPU it runs on.
 */
struct dg_cpu_lock {
	local_lock_t l;
};

#define dg_cpu_lock_init(cl)		local_lock_init(&(cl)->l)
#define dg_percpu_alloc(type)		alloc_percpu_gfp(type, GFP_KERNEL)
#define dg_percpu_free(p)		free_percpu(p)
#define dg_percpu_ptr(p, cpu)		per_cpu_ptr(p, cpu)
#define dg_for_each_cpu(cpu)		for_each_possible_cpu(cpu)
#define dg_nr_cpus()			num_possible_cpus()
#define dg_pcp_lock(pcp, flags) ({					\
	typeof(pcp) _pcp = (pcp);					\
	local_lock_irqsave(&_pcp->cpu_lock.l, flags);			\
	this_cpu_ptr(_pcp);						\
})
#define dg_pcp_unlock(pcp, flags) \
	local_unlock_irqrestore(&(pcp)->cpu_lock.l, flags)
/*
 * Wait for every dg_pcp_lock() section that began before: they are RCU
 * read-side sections (interrupts off; on PREEMPT_RT a spinlock_t, which
 * holds the RCU read lock), so no CPU needs to be visited. May sleep.
 */
#define dg_pcp_sync(pcp)		((void)(pcp), synchronize_rcu())

/*
 * Run @fn(@arg) on every online CPU for which @cond(cpu, @arg) is true
 * (every one for a NULL @cond), in process context there (main.c); for
 * draining the CPUs' caches. May sleep.
 */
void dg_on_each_cpu(bool (*cond)(int cpu, void *arg), void (*fn)(void *arg),
		    void *arg);

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
