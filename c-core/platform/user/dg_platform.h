/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace side of the platform shim, the tools/testing/radix-tree way:
 * the kernel's own userspace headers (tools/include from the linux-source
 * tarball: list.h, bitops and find_bit, hash.h, log2.h, spinlock.h over a
 * pthread mutex) plus the few things they lack. Chunk memory and
 * bookkeeping are simulated in chunk_mem.c (failure injection, a remapping
 * "IOMMU" that gives page-aligned CPU and bus addresses with no relation
 * between them, hooks for tests that play a hostile device).
 */
#ifndef _DMAGUARD_PLATFORM_USER_H
#define _DMAGUARD_PLATFORM_USER_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/bitops.h>
#include <linux/bitmap.h>
#include <linux/find.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/spinlock.h>
#include <linux/kconfig.h>

/*
 * ThreadSanitizer takes tools/include's volatile READ_ONCE()/WRITE_ONCE()
 * for plain accesses: make them the relaxed atomic loads and stores they
 * stand for (the core uses them on scalars only).
 */
#ifdef __SANITIZE_THREAD__
#undef READ_ONCE
#undef WRITE_ONCE
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#endif

typedef u64 dma_addr_t;

/*
 * tools/include's __ffs() is the generic C fallback (a ladder of tests);
 * the kernel's x86 __ffs() is one tzcnt/bsf. Use the instruction here
 * too, or native benchmarks would charge the core for the fallback.
 */
#define __ffs(word)		((unsigned long)__builtin_ctzl(word))
/*
 * tools/include's hweight_long() (defined above, by <linux/bitops.h>)
 * ends in lib/hweight.c's software count, which is not built here; the
 * kernel's x86 one is a popcnt.
 */
#define hweight_long(word)	((unsigned int)__builtin_popcountl(word))

/*
 * Atomic bitops: tools/include aliases set_bit() and clear_bit() to
 * test_and_*() versions that it leaves to the architecture; these are
 * the kernel's x86 semantics (a locked bts/btr) with compiler atomics.
 */
static inline bool test_and_set_bit(long nr, volatile unsigned long *addr)
{
	unsigned long m = BIT_MASK(nr);

	return __atomic_fetch_or(&addr[BIT_WORD(nr)], m, __ATOMIC_SEQ_CST) & m;
}

static inline bool test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	unsigned long m = BIT_MASK(nr);

	return __atomic_fetch_and(&addr[BIT_WORD(nr)], ~m, __ATOMIC_SEQ_CST) & m;
}

/* spinlock.h's irqsave reads the flags it should set. */
#undef spin_lock_irqsave
#define spin_lock_irqsave(x, f)		((f) = 0, pthread_mutex_lock(x))

#include "dg_dma_space.h"

/*
 * gfp: tools/include's types.h has an enum gfp_t naming only GFP_KERNEL
 * and GFP_ATOMIC; give the flags the core tests distinct bits.
 */
#undef GFP_KERNEL
#undef GFP_ATOMIC
#define GFP_KERNEL		((gfp_t)0x01u)
#define GFP_ATOMIC		((gfp_t)0x02u)
#define GFP_NOWAIT		((gfp_t)0x04u)
#define __GFP_ZERO		((gfp_t)0x100u)

/*
 * The DMA barriers behind dmaguard_dma_wmb()/_rmb(): the simulated device
 * is another thread, so a release or acquire fence gives the order the
 * kernel's give on coherent memory.
 */
#ifndef dma_wmb
#define dma_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define dma_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

#define DG_PAGE_SIZE		4096ul
#define DG_NO_NODE		(-1)

#ifndef __cold
#define __cold			__attribute__((cold))
#endif
#ifndef __releases
#define __releases(x)
#endif
#ifndef __acquires
#define __acquires(x)
#endif
#ifndef __must_hold
#define __must_hold(x)
#endif
#undef noinline
#define noinline		__attribute__((noinline))

/*
 * <linux/reciprocal_div.h>, which tools/include lacks: a / d for every
 * u32 a as a multiply and shifts (Granlund and Montgomery), the kernel's
 * struct and semantics.
 */
struct reciprocal_value {
	u32 m;
	u8 sh1, sh2;
};

static inline struct reciprocal_value reciprocal_value(u32 d)
{
	int l = d > 1 ? 32 - __builtin_clz(d - 1) : 0;	/* fls(d - 1) */
	struct reciprocal_value r;

	r.m = (u32)(((1ull << 32) * ((1ull << l) - d)) / d + 1);
	r.sh1 = l < 1 ? l : 1;
	r.sh2 = l > 1 ? l - 1 : 0;
	return r;
}

static inline u32 reciprocal_divide(u32 a, struct reciprocal_value r)
{
	u32 t = (u32)(((u64)a * r.m) >> 32);

	return (t + ((a - t) >> r.sh1)) >> r.sh2;
}

/* <linux/bitops.h>'s, which tools/include lacks. */
static inline u64 ror64(u64 word, unsigned int shift)
{
	return (word >> (shift & 63)) | (word << ((-shift) & 63));
}

/* log2.h of tools/include lacks it. */
static inline int order_base_2(unsigned long n)
{
	return n > 1 ? ilog2(n - 1) + 1 : 0;
}

#define might_alloc(gfp)	do { (void)(gfp); } while (0)
#ifndef might_sleep
#define might_sleep()		VM_WARN_ON_ONCE(dg_user_in_irq)
#endif

/*
 * The kernel's VM_WARN_ON_ONCE() checks only with CONFIG_DEBUG_VM; here
 * in the unit-test and fuzz builds (DG_DEBUG), where a broken invariant
 * stops the program.
 */
#ifdef DG_DEBUG
#define VM_WARN_ON_ONCE(cond) do {					\
	if (cond) {							\
		fprintf(stderr, "%s:%d: dmaguard invariant broken: %s\n",	\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)
#else
#define VM_WARN_ON_ONCE(cond)	((void)sizeof(!!(cond)))
#endif

/* Bookkeeping allocations (chunk_mem.c: counted, can be made to fail). */
void *kzalloc_node(size_t size, gfp_t gfp, int node);
void kfree(void *p);
size_t ksize(void *p);

/* Time in ticks: tests move it by hand. */
extern unsigned long dg_user_ticks;
#define jiffies			(__atomic_load_n(&dg_user_ticks, __ATOMIC_RELAXED))

/* init_on_alloc of the simulated kernel; on, as in Debian's config. */
extern bool dg_user_init_on_alloc;
#define want_init_on_alloc(gfp) \
	(dg_user_init_on_alloc || ((gfp) & __GFP_ZERO))
/* init_on_free of the simulated kernel; off, as in Debian's config. */
extern bool dg_user_init_on_free;
#define want_init_on_free()		(dg_user_init_on_free)
#define gfpflags_allow_blocking(gfp)		(!!((gfp) & GFP_KERNEL))

void __dma *dg_chunk_mem_alloc(void *dev, size_t size, dma_addr_t *dma,
			       gfp_t gfp);
void dg_chunk_mem_free(void *dev, size_t size, void __dma *mem,
		       dma_addr_t dma);
/* The simulated device's IOMMU invalidates lazily (tests set it). */
extern bool dg_user_lazy_unmap;
#define dg_chunk_mem_lazy_unmap(dev)	((void)(dev), dg_user_lazy_unmap)

/*
 * Per-CPU data, the kernel's way: alloc_percpu() gives each of
 * DG_USER_CPUS "CPUs" a unit at a fixed distance, so that per_cpu_ptr()
 * and this_cpu_ptr() work on a pointer to any member. Userspace has no
 * "this CPU" that stays put: a thread gets one of the slots (round robin
 * at its first use); tests move it with dg_user_set_cpu().
 */
#define DG_USER_CPUS		8
#define DG_USER_PCPU_UNIT	1024ul

#define SMP_CACHE_BYTES			64
#define ____cacheline_aligned_in_smp	__aligned(SMP_CACHE_BYTES)

#define __percpu
#define alloc_percpu(type)	\
	((type *)dg_user_percpu_alloc(sizeof(type)))
#define free_percpu(p)		dg_user_percpu_free(p)
#define per_cpu_ptr(p, cpu)	\
	((__typeof__(p))((char *)(p) + (size_t)(cpu) * DG_USER_PCPU_UNIT))
#define alloc_percpu_gfp(type, gfp)	((void)(gfp), alloc_percpu(type))
#define for_each_possible_cpu(cpu)		for ((cpu) = 0; (cpu) < DG_USER_CPUS; (cpu)++)
#define num_possible_cpus()			DG_USER_CPUS
#define NR_CPUS					DG_USER_CPUS
#define nr_cpu_ids				DG_USER_CPUS
#define cpu_possible(cpu)			((cpu) < DG_USER_CPUS)
/* the thread's slot (below), which a thread keeps unless a test moves it */
#define raw_smp_processor_id()			dg_user_this_cpu()

void *dg_user_percpu_alloc(size_t size);
void dg_user_percpu_free(void *p);
void dg_user_set_cpu(int cpu);

/* Inline, as the kernel's this_cpu_ptr() is a %gs-relative add. */
extern __thread int dg_user_cpu_id;
extern __thread unsigned long dg_user_cpu_off;
int dg_user_first_cpu(void);

/*
 * <linux/local_lock.h>'s local_trylock_t (6.16), which the per-CPU block
 * caches use. In the kernel (on !PREEMPT_RT) it is preemption off and a
 * per-CPU flag: only an interrupt that lands inside a CPU's section finds
 * it taken. Here a slot's lock is a test-and-set one, tried as the
 * kernel's is (another thread holding the slot stands for the interrupted
 * section), and a section is an RCU read-side one, as preemption off is
 * in the kernel (the core waits for sections with synchronize_rcu(); the
 * shim of dg_user_rcu.h, included at the end of this file).
 *
 * Trylocks that found their slot taken are counted (atomic; the one-thread
 * benchmark builds do not count them): each sends exactly one call past
 * the cache, so a test can check the pool's cache_bypass against it,
 * whatever the scheduler did.
 */
typedef struct {
	int acquired;
} local_trylock_t;

#define local_trylock_init(l)		((l)->acquired = 0)

extern unsigned long dg_user_pcp_busy;
/*
 * A test's interrupt: when set, it runs (once, cleared first) inside the
 * next section this thread's trylock takes, as an interrupt landing there
 * would in the kernel (dg_user_pcp_interrupt() in dg_user.h).
 */
extern __thread void (*dg_user_pcp_irq)(void *arg);
void dg_user_pcp_run_irq(void);

#ifndef DG_USER_PCP_KERNEL_COST
static inline int dg_user_this_cpu(void)
{
	int cpu = dg_user_cpu_id;

	return __builtin_expect(cpu >= 0, 1) ? cpu : dg_user_first_cpu();
}

static inline void rcu_read_lock(void);
static inline void rcu_read_unlock(void);

static inline bool dg_user_local_trylock(local_trylock_t *l)
{
	if (__atomic_exchange_n(&l->acquired, 1, __ATOMIC_ACQUIRE)) {
		__atomic_fetch_add(&dg_user_pcp_busy, 1, __ATOMIC_RELAXED);
		return false;
	}
	rcu_read_lock();
	if (__builtin_expect(dg_user_pcp_irq != NULL, 0))
		dg_user_pcp_run_irq();
	return true;
}

static inline void dg_user_local_lock(local_trylock_t *l)
{
	while (__atomic_exchange_n(&l->acquired, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->acquired, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
	rcu_read_lock();
}

static inline void dg_user_local_unlock(local_trylock_t *l)
{
	rcu_read_unlock();
	__atomic_store_n(&l->acquired, 0, __ATOMIC_RELEASE);
}

#define this_cpu_ptr(p)		per_cpu_ptr(p, dg_user_this_cpu())
#define local_trylock(lock)	dg_user_local_trylock(this_cpu_ptr(lock))
#define local_lock(lock)	dg_user_local_lock(this_cpu_ptr(lock))
#define local_unlock(lock)	dg_user_local_unlock(this_cpu_ptr(lock))
#else
/*
 * One-thread benchmark builds (pool_bench's one-CPU rows): the cache lock
 * costs what the kernel's costs on !PREEMPT_RT, a preempt count taken and
 * dropped (with the test for a pending reschedule) and the flag read and
 * written, no atomic; this CPU is a plain read, as this_cpu_ptr() is an
 * add. It excludes nothing: only for programs that run the pools on one
 * thread, on "CPU" 0 from the start (chunk_mem.c).
 */
#define dg_user_this_cpu()	dg_user_cpu_id
/* As the kernel's: one add of this thread's offset (this_cpu_off). */
#define this_cpu_ptr(p)	\
	((__typeof__(p))((char *)(p) + dg_user_cpu_off))
extern __thread int dg_user_preempt_count;
extern int dg_user_need_resched;
void dg_user_preempt_schedule(void);

static inline bool dg_user_local_trylock(local_trylock_t *l)
{
	dg_user_preempt_count++;
	__asm__ __volatile__("" : : : "memory");
	if (__builtin_expect(*(volatile int *)&l->acquired, 0)) {
		dg_user_preempt_count--;
		return false;
	}
	*(volatile int *)&l->acquired = 1;
	__asm__ __volatile__("" : : : "memory");
	return true;
}

static inline void dg_user_local_unlock(local_trylock_t *l)
{
	__asm__ __volatile__("" : : : "memory");
	*(volatile int *)&l->acquired = 0;
	__asm__ __volatile__("" : : : "memory");
	if (__builtin_expect(!--dg_user_preempt_count &&
			     *(volatile int *)&dg_user_need_resched, 0))
		dg_user_preempt_schedule();
}

#define local_trylock(lock)	dg_user_local_trylock(this_cpu_ptr(lock))
#define local_lock(lock)	((void)dg_user_local_trylock(this_cpu_ptr(lock)))
#define local_unlock(lock)	dg_user_local_unlock(this_cpu_ptr(lock))

/*
 * For the in-band reference pool of the same build (tests/bench): what
 * spin_lock_irqsave() adds to the lock, the flags saved (pushf) and
 * restored (popf; in user mode it cannot change IF, the cli has no
 * user-mode equivalent).
 */
static inline unsigned long dg_user_irq_save(void)
{
	unsigned long f;

	__asm__ __volatile__("pushf; pop %0" : "=r"(f) : : "memory");
	return f;
}

static inline void dg_user_irq_restore(unsigned long f)
{
	__asm__ __volatile__("push %0; popf" : : "r"(f) : "memory", "cc");
}
#endif

/*
 * Running code on other CPUs (chunk_mem.c): each visit moves this thread
 * to the CPU's slot for the call and counts it in dg_user_cpu_visits.
 * work_on_cpu() is the kernel's process-context visit (the cache lock is
 * taken there); on_each_cpu_cond() its interrupt (the call must try the
 * lock, as a kernel IPI may land inside the CPU's section; here another
 * thread may hold the slot), allowed only where the kernel allows it:
 * interrupts on, not in an interrupt (dg_user_in_irq, set while a test's
 * interrupt runs and by tests).
 */
#define for_each_online_cpu(cpu)	for_each_possible_cpu(cpu)
long work_on_cpu(int cpu, long (*fn)(void *arg), void *arg);
void on_each_cpu_cond(bool (*cond)(int cpu, void *info),
		      void (*fn)(void *info), void *info, bool wait);
extern __thread bool dg_user_in_irq;
#define in_interrupt()			(dg_user_in_irq)
#define irqs_disabled()			(dg_user_in_irq)

/*
 * Per-pool platform state: the kernel keeps its reclaim work and registry
 * link here; userspace counts the reclaim requests (tests call
 * dg_pool_reclaim() themselves). A test may start the stand-in of the
 * kernel's reclaim work (dg_user_reclaim_start()): a thread that reclaims
 * until dg_plat_fini() stops it and waits for it, as
 * cancel_delayed_work_sync() does.
 */
struct dg_pool_plat {
	struct list_head registry;
	unsigned long reclaim_kicks;
	pthread_t reclaim_thread;
	bool reclaim_started;
	int reclaim_run;		/* atomic: 0 asks the thread to stop */
	unsigned long reclaim_passes;	/* atomic: reclaims it completed */
};

static inline void dg_plat_init(struct dg_pool_plat *plat)
{
	INIT_LIST_HEAD(&plat->registry);
	plat->reclaim_kicks = 0;
	plat->reclaim_started = false;
	plat->reclaim_run = 0;
	plat->reclaim_passes = 0;
}

static inline void dg_plat_reclaim_kick(struct dg_pool_plat *plat,
					unsigned int nr_empty)
{
	plat->reclaim_kicks++;
}

void dg_plat_fini(struct dg_pool_plat *plat);

/*
 * Messages are counted and printed with -v (DG_VERBOSE): dev_err() in
 * dg_user_reports_err, dev_err_ratelimited() in dg_user_reports_again
 * (the kernel's may drop some; tests count every call). @dev is read as
 * the kernel's dev_err() reads it (use-after-free checks).
 */
extern unsigned long dg_user_reports_err;
extern unsigned long dg_user_reports_again;
extern bool dg_user_verbose;

#define dg_user_report(counter, dev, fmt, ...) do {			\
	__typeof__(dev) volatile _dev = (dev);				\
									\
	(void)_dev;							\
	__atomic_add_fetch(&(counter), 1, __ATOMIC_RELAXED);		\
	if (dg_user_verbose)						\
		fprintf(stderr, "dmaguard: " fmt, ##__VA_ARGS__);	\
} while (0)
#define dev_err(dev, fmt, ...)	\
	dg_user_report(dg_user_reports_err, dev, fmt, ##__VA_ARGS__)
#define dev_err_ratelimited(dev, fmt, ...)	\
	dg_user_report(dg_user_reports_again, dev, fmt, ##__VA_ARGS__)


/* rcu_read_lock() and synchronize_rcu(), which the sections above use. */
#include "dg_user_rcu.h"

#endif /* _DMAGUARD_PLATFORM_USER_H */
