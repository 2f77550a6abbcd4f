/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RCU calls of the pin cache's lock-free hit path, for the userspace
 * build: rcu_read_lock()/rcu_read_unlock(), synchronize_rcu(),
 * kfree_rcu(), call_rcu() and the hlist_*_rcu() list calls, with the
 * kernel's names
 * and contracts. Not the kernel's algorithm: each reading thread
 * publishes the grace-period number it entered under (0 outside); a
 * grace period bumps the number and waits until no thread still reads
 * under an older one. Readers pay no fence or atomic read-modify-write
 * (as the kernel's rcu_read_lock() does not): synchronize_rcu() forces
 * the ordering on them with membarrier(2), or, where the kernel lacks it
 * (and under ThreadSanitizer, which does not model it), every reader
 * fences. kfree_rcu() and call_rcu() wait for the grace period, then
 * free (call back) at once.
 */
#ifndef _DMAGUARD_USER_RCU_H
#define _DMAGUARD_USER_RCU_H

#include "dg_platform.h"

/* tools/include's <linux/kernel.h> makes it a no-op: this shim's is real. */
#undef synchronize_rcu

struct rcu_head {
	struct rcu_head *next;
};

struct dg_rcu_reader {
	unsigned long gp;		/* grace period entered under, 0: none */
	unsigned int nesting;
	struct dg_rcu_reader *next;	/* on the registry */
};

extern __thread struct dg_rcu_reader *dg_rcu_me;
extern unsigned long dg_rcu_gp;
extern bool dg_rcu_reader_fences;

struct dg_rcu_reader *dg_rcu_register(void);
void synchronize_rcu(void);

#if defined(__SANITIZE_THREAD__)
#define DG_RCU_TSAN	1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DG_RCU_TSAN	1
#endif
#endif

static inline void rcu_read_lock(void)
{
	struct dg_rcu_reader *r = dg_rcu_me;

	if (unlikely(!r))
		r = dg_rcu_register();
	if (r->nesting++)
		return;
#ifdef DG_RCU_TSAN
	__atomic_store_n(&r->gp, __atomic_load_n(&dg_rcu_gp, __ATOMIC_SEQ_CST),
			 __ATOMIC_SEQ_CST);
#else
	__atomic_store_n(&r->gp, __atomic_load_n(&dg_rcu_gp, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	/* the gp store before any read of the section */
	if (unlikely(dg_rcu_reader_fences))
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	else
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

static inline void rcu_read_unlock(void)
{
	struct dg_rcu_reader *r = dg_rcu_me;

	if (--r->nesting)
		return;
	/* every read of the section before the updater may free */
	__atomic_store_n(&r->gp, 0, __ATOMIC_RELEASE);
}

#define rcu_dereference(p)		__atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define rcu_assign_pointer(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
/* Updaters' reads, under their lock (no lockdep here: @c is not checked). */
#define rcu_dereference_protected(p, c)	(p)
#define rcu_access_pointer(p)		__atomic_load_n(&(p), __ATOMIC_RELAXED)
#define RCU_INIT_POINTER(p, v)		__atomic_store_n(&(p), (v), __ATOMIC_RELAXED)
#define lockdep_is_held(l)		true

/* Synchronous here: callers are in process context with no lock held. */
#define kfree_rcu(p, field) do {					\
	BUILD_BUG_ON(offsetof(__typeof__(*(p)), field) < 0);		\
	synchronize_rcu();						\
	kfree(p);							\
} while (0)
static inline void call_rcu(struct rcu_head *head,
			    void (*func)(struct rcu_head *head))
{
	synchronize_rcu();
	func(head);
}

/* call_rcu() calls back before it returns: nothing is ever pending. */
static inline void rcu_barrier(void)
{
}

/* kvmalloc'd memory is kmalloc'd here (dg_kvcalloc()). */
#define kvfree_rcu(p, field)		kfree_rcu(p, field)

static inline void hlist_add_head_rcu(struct hlist_node *n,
				      struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	n->next = first;
	n->pprev = &h->first;
	if (first)
		first->pprev = &n->next;
	rcu_assign_pointer(h->first, n);
}

/* Readers on @n go on to its successor: @n->next stays until freed. */
static inline void hlist_del_rcu(struct hlist_node *n)
{
	struct hlist_node *next = n->next;

	__atomic_store_n(n->pprev, next, __ATOMIC_RELEASE);
	if (next)
		next->pprev = n->pprev;
	n->pprev = NULL;
}

#define hlist_for_each_entry_rcu(pos, head, member)			\
	for (pos = hlist_entry_safe(rcu_dereference((head)->first),	\
				    __typeof__(*(pos)), member);	\
	     pos;							\
	     pos = hlist_entry_safe(rcu_dereference((pos)->member.next),	\
				    __typeof__(*(pos)), member))

#endif /* _DMAGUARD_USER_RCU_H */
