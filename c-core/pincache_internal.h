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

/* The hold word: a get may take a handle while the entry is indexed. */
#define DG_PIN_INDEXED		1L
#define DG_PIN_HANDLE		2L

/* Buckets of the hash by start page. */
#define DG_PIN_HASH_BITS	9

struct dg_pin_entry {
	/* read by lock-free hits: set before the entry is hashed */
	struct hlist_node hnode;	/* c->hash, while indexed */
	unsigned long start, last;	/* page-aligned start, last byte */
	atomic_long_t hold;		/* handles << 1 | DG_PIN_INDEXED */
	bool write;
	bool referenced;		/* hit since the LRU scan passed */
	bool prot_changed;		/* VMA protection changed since checked */
	u32 id;				/* its slot in c->ids */
	u32 serial;			/* unique among live entries */
	void **pages;
	void *map;
	/* under the lock */
	struct rb_node rb;
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
 * creation to its release; used[] (after the slots) marks the ids taken.
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
	spinlock_t lock;		/* index, hash, lists, INDEXED, counters */
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

/* A handle on a live entry, taken without the lock. */
static inline bool pin_entry_tryhold(struct dg_pin_entry *e)
{
	long v = atomic_long_read(&e->hold);

	do {
		if (!(v & DG_PIN_INDEXED))
			return false;
	} while (!atomic_long_try_cmpxchg(&e->hold, &v, v + DG_PIN_HANDLE));
	return true;
}

/*
 * Give a handle back, without the lock. Return: the word after, or -1
 * when no handle was held (nothing changed); 0: the entry is stale and
 * this was its last handle, the caller owns its release.
 */
static inline long pin_entry_unhold(struct dg_pin_entry *e)
{
	long v = atomic_long_read(&e->hold);

	do {
		if (v < DG_PIN_HANDLE)
			return -1;
	} while (!atomic_long_try_cmpxchg(&e->hold, &v, v - DG_PIN_HANDLE));
	return v - DG_PIN_HANDLE;
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
						  bool write)
{
	struct dg_pin_entry *e;

	rcu_read_lock();
	hlist_for_each_entry_rcu(e, pin_hash_head(c, start), hnode) {
		if (e->start == start && e->last >= last &&
		    (e->write || !write) && pin_entry_tryhold(e))
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

static inline void pin_fill_handle(struct dg_pin_entry *e,
				   unsigned long addr, size_t len,
				   struct dg_pin_handle *h)
{
	unsigned long first = (addr - e->start) / DG_PAGE_SIZE;

	h->cookie = (u64)e->serial << 32 | e->id;
	h->pages = e->pages + first;
	h->offset = addr & (DG_PAGE_SIZE - 1);
	h->nr_pages = (h->offset + len + DG_PAGE_SIZE - 1) / DG_PAGE_SIZE;
	h->map = e->map;
	h->map_offset = addr - e->start;
}

/*
 * Take a handle back, without the lock: the entry a cookie names, if it
 * is this cache's, has the cookie's serial and is held. Return: the
 * entry's word after (0: the caller releases it), -1 when refused.
 */
static __always_inline long pin_cookie_unhold(struct dg_pin_cache *c,
					      u64 cookie,
					      struct dg_pin_entry **ep)
{
	struct dg_pin_entry *e = NULL;
	struct dg_pin_ids *ids;
	u32 id = (u32)cookie;
	long ret = -1;

	/* the RCU section keeps the array and @e while we use them */
	rcu_read_lock();
	ids = rcu_dereference(c->ids);
	if (likely(id < ids->nr))
		e = rcu_dereference(ids->slot[id]);
	if (e && e->serial == (u32)(cookie >> 32))
		ret = pin_entry_unhold(e);
	rcu_read_unlock();
	*ep = e;
	return ret;
}

struct dg_pin_entry *dg_pin_get_locked(struct dg_pin_cache *c,
				       unsigned long addr, size_t len,
				       bool write, struct dg_pin_entry *e);
int dg_pin_put_locked(struct dg_pin_cache *c, u64 cookie,
		      struct dg_pin_entry *e, long left);

/*
 * dg_pin_get(), inline, up to the handle: the entry serving the range,
 * held, or an ERR_PTR(). The hit runs here without a call; anything else
 * (a miss, a hit to re-check, an error) goes on in dg_pin_get_locked().
 * The caller fills the handle (pin_fill_handle()).
 */
static __always_inline struct dg_pin_entry *
__dg_pin_get(struct dg_pin_cache *c, unsigned long addr, size_t len,
	     bool write)
{
	unsigned long start, last;
	struct dg_pin_entry *e;

	/* @len 0 and wrapping ranges: refused there */
	if (unlikely(!len || addr + len - 1 < addr))
		return dg_pin_get_locked(c, addr, len, write, NULL);
	start = addr & ~(DG_PAGE_SIZE - 1);
	last = (addr + len - 1) | (DG_PAGE_SIZE - 1);
	e = pin_lookup_rcu(c, start, last, write);
	if (unlikely(!e) || unlikely(READ_ONCE(e->prot_changed)))
		return dg_pin_get_locked(c, addr, len, write, e);
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
