/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pin cache's private structures and its lock-free paths, inline:
 * pincache.c (the core, see there) and the exported per-I/O calls
 * (abi/shim/pin_io.c) share them, so that a hit and a put are one
 * function each, with no call into the core unless the lock is needed.
 */
#ifndef _DMAGUARD_CORE_PINCACHE_INTERNAL_H
#define _DMAGUARD_CORE_PINCACHE_INTERNAL_H

#include "pincache.h"

/*
 * Handles are counted per CPU (the one the get ran on, which the handle's
 * cookie names), so that hits on one entry from several CPUs write lines
 * of their own: each slot of e->holds is the handles taken there and not
 * given back, or DG_PIN_UNLINKED from the entry's unlinking on. Unlinking
 * moves the slots' sum into e->left, which later puts bring down.
 */
#define DG_PIN_UNLINKED		LONG_MIN
/* e->left while the slots are being summed: no put can take it to 0. */
#define DG_PIN_LEFT_BIAS	(LONG_MAX / 2)

/*
 * A cookie: the generation of the entry's id (never 0), the CPU its handle
 * is counted on, its id.
 */
#define DG_PIN_COOKIE_ID_BITS	24
#define DG_PIN_COOKIE_CPU_BITS	13
#define DG_PIN_COOKIE_GEN_SHIFT \
	(DG_PIN_COOKIE_ID_BITS + DG_PIN_COOKIE_CPU_BITS)
#define DG_PIN_COOKIE_GEN_BITS	(64 - DG_PIN_COOKIE_GEN_SHIFT)
#define DG_PIN_COOKIE_CPU_MASK \
	(((1ull << DG_PIN_COOKIE_CPU_BITS) - 1) << DG_PIN_COOKIE_ID_BITS)
/* Ids and CPUs a cookie can name. */
#define DG_PIN_IDS_MAX		BIT(DG_PIN_COOKIE_ID_BITS)
#if NR_CPUS > (1 << DG_PIN_COOKIE_CPU_BITS)
#error "a handle's cookie cannot name every CPU"
#endif

/* Buckets of the hash by start page. */
#define DG_PIN_HASH_BITS	9

struct dg_pin_entry {
	/* read by lock-free hits: set before the entry is hashed */
	struct hlist_node hnode;	/* c->hash, while indexed */
	unsigned long start, last;	/* page-aligned start, last byte */
	atomic_long_t __percpu *holds;	/* handles per CPU, or UNLINKED */
	bool write;
	bool referenced;		/* hit since the LRU scan passed */
	bool prot_changed;		/* VMA protection changed since checked */
	u32 id;				/* its slot in c->ids */
	u64 cookie;			/* its handles' but the CPU: gen, id */
	void **pages;
	void *map;
	/* set under the lock, by unlinking; puts after it count it down */
	atomic_long_t left;		/* handles held when unlinked */
	/* under the lock */
	struct rb_node rb;		/* c->index; empty unless live */
	unsigned long subtree_last;
	struct list_head lru;		/* c->lru, c->dead or a private list */
	bool aging;			/* unmarked at the last aging pass */
	struct dg_pin_cache *cache;
	unsigned long nr_pages;
	unsigned long prot_gen;		/* moves at each protection event */
	struct dg_pin_notifier notifier;
	struct rcu_head rcu;
};

/*
 * Entries by id, for puts: slot[id] is the entry an id names, from its
 * creation to its release; used[] (after the slots) marks the ids taken,
 * gen[] (after used[]) counts each id's entries, for their cookies.
 * Changed under c->lock; replaced whole, twice as large, when full, the
 * old array freed after a grace period; read by lock-free puts. Id 0 is
 * never given out.
 */
struct dg_pin_ids {
	u32 nr;				/* slots */
	struct rcu_head rcu;
	struct dg_pin_entry __rcu *slot[];
};

/* Counted without the lock, by lock-free hits. */
struct dg_pin_pcpu {
	u64 hits;
} __aligned(64);	/* userspace's per-CPU slots are one array */

struct dg_pin_cache {
	/* first: dg_pin_cache_plat() is a cast (every get checks its mm) */
	struct dg_pin_plat plat;
	/* read by lock-free hits and puts, written at create and free */
	struct hlist_head *hash;	/* RCU; changed under the lock */
	struct dg_pin_pcpu __percpu *pcpu;
	struct dg_pin_ids __rcu *ids;	/* id -> entry, until released */
	/* under the lock */
	spinlock_t lock;		/* index, hash, lists, unlinking, counters */
	refcount_t ref;			/* creator, entries, queued works */
	struct rb_root_cached index;
	struct list_head lru;
	struct list_head dead;
	u64 max_bytes;
	u32 max_entries;
	int node;
	bool mapped;			/* entries are DMA-mapped for a device */
	bool reap_queued;
	bool age_queued;		/* the aging holds a reference */
	bool bad_put_reported;
	u64 bytes;			/* reserved or pinned, not released */
	u32 nr_entries;			/* reserved or holding pins */
	u32 nr_indexed;
	u64 misses, invalidations, inval_ignored, evictions, retries;
	u64 prot_checks, bad_puts;
};

static_assert(offsetof(struct dg_pin_cache, plat) == 0,
	      "dg_pin_cache_plat() casts");

static inline struct hlist_head *pin_hash_head(struct dg_pin_cache *c,
					       unsigned long start)
{
	return &c->hash[hash_long(start / DG_PAGE_SIZE, DG_PIN_HASH_BITS)];
}

/* A handle on a live entry, counted on @cpu, taken without the lock. */
static inline bool pin_entry_tryhold(struct dg_pin_entry *e, unsigned int cpu)
{
	atomic_long_t *slot = per_cpu_ptr(e->holds, cpu);
	long v = atomic_long_read(slot);

	do {
		if (v == DG_PIN_UNLINKED)
			return false;
	} while (!atomic_long_try_cmpxchg(slot, &v, v + 1));
	return true;
}

/*
 * Give back a handle counted on @cpu, without the lock. Return: > 0 when
 * others may hold the entry or it is live; 0: it is stale and this was
 * its last handle, the caller owns its release; -1 when no handle was
 * held there (nothing changed).
 */
static inline long pin_entry_unhold(struct dg_pin_entry *e, unsigned int cpu)
{
	atomic_long_t *slot = per_cpu_ptr(e->holds, cpu);
	long v = atomic_long_read(slot);

	do {
		if (v == DG_PIN_UNLINKED) {
			/*
			 * The slot was read relaxed (or by a failed cmpxchg):
			 * pairs with the full barrier of entry_unlink()'s
			 * exchange, so that e->left is read with its bias.
			 */
			smp_rmb();
			return atomic_long_dec_if_positive(&e->left);
		}
		if (!v)
			return -1;
	} while (!atomic_long_try_cmpxchg(slot, &v, v - 1));
	return 1;
}

/*
 * The lock-free hit: a live entry starting at @start, covering @last,
 * with the permission asked for, held. The caller checks prot_changed
 * after this (after the hold: a protection event that returned before
 * the get began is seen).
 */
static inline struct dg_pin_entry *pin_lookup_rcu(struct dg_pin_cache *c,
						  unsigned long start,
						  unsigned long last,
						  bool write, unsigned int cpu)
{
	struct dg_pin_entry *e;

	rcu_read_lock();
	hlist_for_each_entry_rcu(e, pin_hash_head(c, start), hnode) {
		if (e->start == start && e->last >= last &&
		    (e->write || !write) && pin_entry_tryhold(e, cpu))
			break;
	}
	rcu_read_unlock();
	return e;
}

/* A hit on @e, held: counted, and marked for the LRU scan. */
static inline void pin_hit_account(struct dg_pin_cache *c,
				   struct dg_pin_entry *e)
{
	/* a write only when it changes the line */
	if (!READ_ONCE(e->referenced))
		WRITE_ONCE(e->referenced, true);
	dg_this_cpu_inc(c->pcpu, hits);
}

static inline u64 pin_cookie(const struct dg_pin_entry *e, unsigned int cpu)
{
	return e->cookie | (u64)cpu << DG_PIN_COOKIE_ID_BITS;
}

static inline u32 pin_cookie_id(u64 cookie)
{
	return cookie & (DG_PIN_IDS_MAX - 1);
}

static inline unsigned int pin_cookie_cpu(u64 cookie)
{
	return (cookie & DG_PIN_COOKIE_CPU_MASK) >> DG_PIN_COOKIE_ID_BITS;
}

static inline u32 pin_cookie_gen(u64 cookie)
{
	return cookie >> DG_PIN_COOKIE_GEN_SHIFT;
}

static inline void pin_fill_handle(struct dg_pin_entry *e, unsigned int cpu,
				   unsigned long addr, size_t len,
				   struct dg_pin_handle *h)
{
	unsigned long first = (addr - e->start) / DG_PAGE_SIZE;

	h->cookie = pin_cookie(e, cpu);
	h->pages = e->pages + first;
	h->offset = addr & (DG_PAGE_SIZE - 1);
	h->nr_pages = (h->offset + len + DG_PAGE_SIZE - 1) / DG_PAGE_SIZE;
	h->map = e->map;
	h->map_offset = addr - e->start;
}

/*
 * Take a handle back, without the lock: the entry a cookie names, if it
 * is this cache's, of the cookie's generation and held on the cookie's
 * CPU. Return: pin_entry_unhold()'s (0: the caller releases the entry),
 * -1 when refused.
 */
static __always_inline long pin_cookie_unhold(struct dg_pin_cache *c,
					      u64 cookie,
					      struct dg_pin_entry **ep)
{
	unsigned int cpu = pin_cookie_cpu(cookie);
	struct dg_pin_entry *e = NULL;
	struct dg_pin_ids *ids;
	u32 id = pin_cookie_id(cookie);
	long ret = -1;

	/* the RCU section keeps the array and @e while we use them */
	rcu_read_lock();
	ids = rcu_dereference(c->ids);
	if (likely(id < ids->nr))
		e = rcu_dereference(ids->slot[id]);
	if (e && e->cookie == (cookie & ~DG_PIN_COOKIE_CPU_MASK) &&
	    likely(cpu < nr_cpu_ids && cpu_possible(cpu)))
		ret = pin_entry_unhold(e, cpu);
	rcu_read_unlock();
	*ep = e;
	return ret;
}

struct dg_pin_entry *dg_pin_get_locked(struct dg_pin_cache *c,
				       unsigned long addr, size_t len,
				       bool write, struct dg_pin_entry *e,
				       unsigned int *cpu);
int dg_pin_put_locked(struct dg_pin_cache *c, u64 cookie,
		      struct dg_pin_entry *e, long left);

/*
 * dg_pin_get(), inline, up to the handle: the entry serving the range,
 * held (counted on *@cpu), or an ERR_PTR(). The hit runs here without a
 * call; anything else (a miss, a hit to re-check, an error) goes on in
 * dg_pin_get_locked(). The caller fills the handle (pin_fill_handle()).
 */
static __always_inline struct dg_pin_entry *
__dg_pin_get(struct dg_pin_cache *c, unsigned long addr, size_t len,
	     bool write, unsigned int *cpu)
{
	unsigned long start, last;
	struct dg_pin_entry *e;

	/* @len 0 and wrapping ranges: refused there */
	if (unlikely(!len || addr + len - 1 < addr))
		return dg_pin_get_locked(c, addr, len, write, NULL, cpu);
	start = addr & ~(DG_PAGE_SIZE - 1);
	last = (addr + len - 1) | (DG_PAGE_SIZE - 1);
	/* any CPU's slot is right: the handle says which it took */
	*cpu = raw_smp_processor_id();
	e = pin_lookup_rcu(c, start, last, write, *cpu);
	if (unlikely(!e) || unlikely(READ_ONCE(e->prot_changed)))
		return dg_pin_get_locked(c, addr, len, write, e, cpu);
	pin_hit_account(c, e);
	return e;
}

/*
 * dg_pin_put(), inline: a handle given back to an entry that keeps
 * others or stays cached, without a call. A refusal or a release goes
 * on in dg_pin_put_locked().
 */
static __always_inline int __dg_pin_put(struct dg_pin_cache *c,
					struct dg_pin_handle *h)
{
	struct dg_pin_entry *e;
	long left;

	left = pin_cookie_unhold(c, h->cookie, &e);
	if (unlikely(left <= 0) &&
	    dg_pin_put_locked(c, h->cookie, e, left))
		return -EINVAL;
	h->cookie = 0;
	return 0;
}

#endif /* _DMAGUARD_CORE_PINCACHE_INTERNAL_H */
