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
#include <linux/hardirq.h>
#include <linux/rcupdate.h>
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
 * The per-CPU block caches are guarded by local_trylock_t (6.16): on
 * !PREEMPT_RT preemption off and a per-CPU flag, no interrupt toggle and
 * no atomic, so only an interrupt that lands inside a CPU's section finds
 * it taken (the caller then goes past the cache, to the chunks under the
 * pool lock), and a section is an RCU read-side one. On PREEMPT_RT it is
 * a per-CPU spinlock_t, tried with migration off, never from a hard
 * interrupt. The kernels before 6.16 get it here, under the kernel's
 * names and with its semantics: local_trylock_init(), local_trylock(),
 * and on !PREEMPT_RT local_lock() and local_unlock(), which in this
 * module take a local_trylock_t (it has no local_lock_t; passing one does
 * not compile).
 */
#ifndef local_trylock_init
#ifndef CONFIG_PREEMPT_RT
typedef struct {
	local_lock_t llock;
	u8 acquired;
} local_trylock_t;

static inline void local_trylock_init(local_trylock_t *tl)
{
	local_lock_init(&tl->llock);
	tl->acquired = 0;
}

#ifdef CONFIG_DEBUG_LOCK_ALLOC
static inline void local_trylock_acquire(local_lock_t *l)
{
	lock_map_acquire_try(&l->dep_map);
	DEBUG_LOCKS_WARN_ON(l->owner);
	l->owner = current;
}
#else
static inline void local_trylock_acquire(local_lock_t *l)
{
}
#endif

/* Preemption is off: the flag and the lockdep map of this CPU's lock. */
static __always_inline bool __local_trylock(local_trylock_t *tl)
{
	if (READ_ONCE(tl->acquired))
		return false;
	WRITE_ONCE(tl->acquired, 1);
	local_trylock_acquire(&tl->llock);
	return true;
}

/*
 * The flag is set before the lockdep owner and cleared after it: an
 * interrupt that finds the flag clear finds no owner either.
 */
static __always_inline void __local_trylock_lock(local_trylock_t *tl)
{
	WRITE_ONCE(tl->acquired, 1);
	local_lock_acquire(&tl->llock);
}

static __always_inline void __local_trylock_unlock(local_trylock_t *tl)
{
	local_lock_release(&tl->llock);
	WRITE_ONCE(tl->acquired, 0);
}

#define local_trylock(lock)						\
	({								\
		bool __locked;						\
									\
		preempt_disable();					\
		__locked = __local_trylock(this_cpu_ptr(lock));		\
		if (!__locked)						\
			preempt_enable();				\
		__locked;						\
	})

#undef local_lock
#define local_lock(lock)						\
	do {								\
		preempt_disable();					\
		__local_trylock_lock(this_cpu_ptr(lock));		\
	} while (0)

#undef local_unlock
#define local_unlock(lock)						\
	do {								\
		__local_trylock_unlock(this_cpu_ptr(lock));		\
		preempt_enable();					\
	} while (0)
#else /* CONFIG_PREEMPT_RT */
typedef local_lock_t local_trylock_t;

#define local_trylock_init(lock)	local_lock_init(lock)

#define local_trylock(lock)						\
	({								\
		bool __locked = false;					\
									\
		if (!in_nmi() && !in_hardirq()) {			\
			migrate_disable();				\
			__locked = spin_trylock(this_cpu_ptr(lock));	\
			if (!__locked)					\
				migrate_enable();			\
		}							\
		__locked;						\
	})
#endif /* CONFIG_PREEMPT_RT */
#endif /* !local_trylock_init */

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
