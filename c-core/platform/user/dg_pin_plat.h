/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace side of the pin cache's platform hooks, over the simulated mm
 * of pin_mm.c: pages are malloc'd 4 KiB frames behind a page table that
 * tests change at any moment; each change calls the notifiers it
 * overlaps (dg_pin_invalidate()) the way the kernel's interval notifiers
 * would. The kernel twin is ../kernel/dg_pin_plat.h: same names, same
 * contracts (documented there).
 */
#ifndef _DMAGUARD_PIN_PLAT_USER_H
#define _DMAGUARD_PIN_PLAT_USER_H

#include <limits.h>
#include <sys/types.h>
#include "dg_platform.h"
#include <linux/err.h>
#include <linux/rbtree.h>
#include <linux/interval_tree_generic.h>
#include "dg_user_xarray.h"
#include "dg_user_rcu.h"

struct dg_user_mm;

/*
 * <linux/refcount.h> and the atomic_long_t calls the pin cache makes, over
 * the compiler's atomics (tools/include's atomic.h clashes with the
 * bitops of dg_platform.h). A refcount that would go below zero aborts,
 * where the kernel's saturates and warns.
 */
typedef struct {
	int refs;
} refcount_t;

static inline void refcount_set(refcount_t *r, int n)
{
	__atomic_store_n(&r->refs, n, __ATOMIC_RELAXED);
}

static inline void refcount_inc(refcount_t *r)
{
	if (__atomic_fetch_add(&r->refs, 1, __ATOMIC_RELAXED) <= 0)
		abort();	/* increment on 0: use after free */
}

static inline bool refcount_inc_not_zero(refcount_t *r)
{
	int old = __atomic_load_n(&r->refs, __ATOMIC_RELAXED);

	do {
		if (!old)
			return false;
	} while (!__atomic_compare_exchange_n(&r->refs, &old, old + 1, false,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

static inline bool refcount_dec_and_test(refcount_t *r)
{
	int old = __atomic_fetch_sub(&r->refs, 1, __ATOMIC_ACQ_REL);

	if (old <= 0)
		abort();
	return old == 1;
}

/* A reference that is never the last (the kernel WARNs on 1 -> 0). */
static inline void refcount_dec(refcount_t *r)
{
	if (__atomic_fetch_sub(&r->refs, 1, __ATOMIC_RELEASE) <= 1)
		abort();
}

/*
 * The atomic_long_t calls of the entries' hold counts, ordered as the
 * kernel's: reads and sets relaxed, value-returning calls fully ordered.
 */
static inline long atomic_long_read(const atomic_long_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic_long_set(atomic_long_t *v, long i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic_long_inc(atomic_long_t *v)
{
	__atomic_fetch_add(&v->counter, 1, __ATOMIC_RELAXED);
}

static inline bool atomic_long_try_cmpxchg(atomic_long_t *v, long *old,
					   long new)
{
	return __atomic_compare_exchange_n(&v->counter, old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/*
 * A test's hook: when set, it runs (once, cleared first) right after the
 * next exchange this thread makes, as another CPU's put landing between
 * an unlinking's exchanges would.
 */
extern __thread void (*dg_user_xchg_hook)(void);

static inline long atomic_long_xchg(atomic_long_t *v, long new)
{
	long old = __atomic_exchange_n(&v->counter, new, __ATOMIC_SEQ_CST);
	void (*hook)(void) = dg_user_xchg_hook;

	if (__builtin_expect(hook != NULL, 0)) {
		dg_user_xchg_hook = NULL;
		hook();
	}
	return old;
}

static inline long atomic_long_sub_return(long i, atomic_long_t *v)
{
	return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST);
}

/* The kernel's for x86, where loads are not reordered with loads. */
#ifndef smp_rmb
#define smp_rmb()	__atomic_signal_fence(__ATOMIC_ACQ_REL)
#endif

/* The old value less 1; not stored when that is negative. */
static inline long atomic_long_dec_if_positive(atomic_long_t *v)
{
	long c = atomic_long_read(v);

	do {
		if (c <= 0)
			return c - 1;
	} while (!atomic_long_try_cmpxchg(v, &c, c - 1));
	return c - 1;
}

/*
 * this_cpu_inc() of a per-CPU counter: a thread's slot may be shared
 * (dg_user_this_cpu()), so a relaxed atomic add, where the kernel's is
 * one plain instruction on x86.
 */
#define dg_this_cpu_inc(pcp, field) \
	__atomic_fetch_add(&per_cpu_ptr(pcp, dg_user_this_cpu())->field, \
			   1, __ATOMIC_RELAXED)

/* Userspace has no memory cgroups: an accounted allocation is a plain one. */
#define GFP_KERNEL_ACCOUNT	GFP_KERNEL

/*
 * The top byte of a user pointer may be a tag (arm64 TBI and MTE; x86 LAM
 * uses some of those bits): untagged_addr() strips it as arm64's does,
 * sign-extending bit 55, so a kernel address stays what it is. The
 * simulated mm's pin untags as GUP does, and its invalidations carry
 * untagged addresses, as the kernel's do.
 */
#define untagged_addr(addr)	\
	((unsigned long)((long)((unsigned long)(addr) << 8) >> 8))

/* Pages per pin call: small here, so that tests cross batch edges. */
#define DG_PIN_BATCH		8

/*
 * Per cache: the address space, the device entries are mapped for, and
 * the creating process (pin_abi.c records it, as in the kernel).
 */
struct dg_pin_plat {
	struct dg_user_mm *mm;
	void *dev;
	pid_t tgid;
	struct list_head reap_link;	/* on the queue of deferred reaps */
	struct list_head age_link;	/* on the queue of agings */
	struct list_head registry;	/* on the registry of live caches */
	struct dg_pin_cache *cache;
};

/*
 * The registry of live caches, as the kernel's (which feeds debugfs):
 * dg_pin_registry_add() (pin_mm.c) adds a cache, dg_pin_plat_fini()
 * takes it out; dg_user_pin_caches_handles() reads every registered
 * cache's statistics under the registry's lock, as debugfs does.
 * dg_user_pin_fini_hook, when set, runs in dg_pin_plat_fini() just
 * before the cache leaves the registry: a reader that found it there.
 */
struct dg_pin_cache;
void dg_pin_registry_add(struct dg_pin_plat *plat, struct dg_pin_cache *c);
unsigned long dg_user_pin_caches_handles(void);
void dg_user_pin_registry_del(struct dg_pin_plat *plat);
extern void (*dg_user_pin_fini_hook)(struct dg_pin_plat *plat);

/* Per entry: an interval notifier of the simulated mm. */
struct dg_pin_notifier {
	struct list_head link;		/* in mm->notifiers */
	struct dg_user_mm *mm;
	unsigned long start, last;	/* inclusive, like the kernel's */
	unsigned long seq;		/* invalidate_seq */
};

int dg_pin_plat_init(struct dg_pin_plat *plat, void *mm, void *dev);
void dg_pin_plat_fini(struct dg_pin_plat *plat);
int dg_pin_plat_track(struct dg_pin_plat *plat, struct dg_pin_notifier *n,
		      unsigned long start, unsigned long len);
void dg_pin_plat_untrack(struct dg_pin_notifier *n);
unsigned long dg_pin_plat_read_begin(struct dg_pin_notifier *n);

/* Under the cache lock, as the kernel's are under the driver's lock. */
static inline bool dg_pin_plat_read_retry(struct dg_pin_notifier *n,
					  unsigned long seq)
{
	return __atomic_load_n(&n->seq, __ATOMIC_RELAXED) != seq;
}

static inline void dg_pin_plat_set_seq(struct dg_pin_notifier *n,
				       unsigned long cur_seq)
{
	__atomic_store_n(&n->seq, cur_seq, __ATOMIC_RELAXED);
}

/*
 * The deferred reap: queued on a process-wide list that
 * dg_user_run_work() (dg_user_mm.h) runs, as a kernel worker would.
 */
void dg_pin_plat_queue_reap(struct dg_pin_plat *plat);
/*
 * The aging: dg_pin_plat_queue_age() puts the cache on a process-wide
 * list that dg_user_run_aging() (dg_user_mm.h) runs, as if a period had
 * passed; its period is dg_user_pin_age_period (ticks; 0: no aging).
 */
extern unsigned long dg_user_pin_age_period;
static inline unsigned long dg_pin_plat_age_period(void)
{
	return __atomic_load_n(&dg_user_pin_age_period, __ATOMIC_RELAXED);
}

void dg_pin_plat_queue_age(struct dg_pin_plat *plat);
bool dg_pin_plat_cancel_age(struct dg_pin_plat *plat);
/* Does the page table allow [start, last] for reading, or writing? */
bool dg_pin_plat_allows(struct dg_pin_plat *plat, unsigned long start,
			unsigned long last, bool write);

int dg_pin_plat_charge(struct dg_pin_plat *plat, unsigned long nr_pages);
void dg_pin_plat_uncharge(struct dg_pin_plat *plat, unsigned long nr_pages);
long dg_pin_plat_pin(struct dg_pin_plat *plat, unsigned long start,
		     unsigned long nr_pages, bool write, void **pages);
void dg_pin_plat_unpin(struct dg_pin_plat *plat, void **pages,
		       unsigned long nr_pages, bool dirty);
int dg_pin_plat_map(struct dg_pin_plat *plat, void **pages,
		    unsigned long nr_pages, bool write, void **cookie);
void dg_pin_plat_unmap(struct dg_pin_plat *plat, void *cookie,
		       unsigned long nr_pages, bool write);

/* The page pointer array of an entry: kvcalloc() in the kernel. */
#define dg_kvcalloc(n, size, node)	kzalloc_node((n) * (size), GFP_KERNEL, node)
#define dg_kvfree(p)			kfree(p)

#endif /* _DMAGUARD_PIN_PLAT_USER_H */
