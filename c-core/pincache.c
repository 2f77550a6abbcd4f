// SPDX-License-Identifier: GPL-2.0
/*
 * Cache of pinned user page ranges.
 *
 * entry          a page-aligned range [start, last] of the cache's mm,
 *                pinned once per page (pages[]), read-only or writable,
 *                optionally DMA-mapped (map), with a refcount of the
 *                handles drivers hold, an interval notifier of its own and
 *                an id (a slot of the cache's id array) that handles name
 *                it by.
 * holds          the entry's handles, counted per CPU (the get's; the
 *                handle's cookie names it, and its put gives it back
 *                there): hits on one entry from several CPUs write no
 *                line in common. A get takes a handle only while its
 *                slot is not UNLINKED (a compare-and-exchange). Unlinking
 *                (under the lock) exchanges every slot for UNLINKED and
 *                moves their sum into left; whoever brings left to 0
 *                (the unlinker, when no handle was held, or the last put)
 *                owns the entry's release.
 * index          an interval tree (the kernel's interval_tree_generic.h)
 *                over the live (indexed) entries, under the lock: a get
 *                that misses the hash walks the entries containing the
 *                first page, O(log n + k), k the number of live entries
 *                over that page; a miss drops the unused entries its new
 *                entry covers, so k stays small. Overlapping entries may
 *                coexist, each with its own pins.
 * hash           the same live entries by start page, an RCU hash: the
 *                lock-free hit path. A get whose range starts where a live
 *                entry starts (a driver reusing its buffer) takes its
 *                handle with no lock and no write to the cache; a put
 *                finds its entry through the id array, also lock-free.
 *                Entries are freed after an RCU grace period.
 * ids            entries by id, from creation to release: an array of
 *                slots, RCU-replaced by one twice as large when full
 *                (changed under the lock), so a put's lookup is a bounds
 *                check and a load, not a tree walk.
 * lru            every live entry, in use or not; a hit only marks its
 *                entry referenced. Eviction takes from the tail, giving
 *                referenced entries a second chance (to the head, mark
 *                cleared) and skipping those in use (never evicted; a hit
 *                that races the unlinking keeps its pages to its put).
 * dead           stale entries no handle holds, invalidated inside the
 *                notifier callback, which queues the platform's deferred
 *                reap (a work item) to release them in process context;
 *                so does the last put of a stale entry. A get or destroy
 *                that comes first releases them.
 *
 * An entry is new while a miss pins it (no handle, not indexed: the
 * notifier only moves its sequence), live once indexed, stale once
 * invalidated, evicted or destroyed (unlinked under the lock, never
 * indexed again; released at the last put, or from dead).
 *
 * Lifetime: the cache is reference counted (ref): one reference is its
 * creator's, dropped by dg_pin_cache_destroy(); one is held by every
 * entry until the end of its release (its notifier is removed by then,
 * so no callback can reach the cache through it); one by a queued reap.
 * Whoever drops the last frees the cache, so a destroy racing the last
 * puts, or a put racing another, never touches freed memory.
 *
 * Handles name their entry by a cookie (entry id, the id's generation,
 * the CPU of the get), never by a pointer: a put looks the id up in the
 * cache's id array and applies only to an entry of this cache, of that
 * generation, held on that CPU. Anything else (a foreign or stale
 * handle, one put twice) is reported once per cache, counted and refused.
 * A copy put twice is seen while no other handle is counted on its CPU;
 * past that (and on a stale entry, whose handles are counted together)
 * it takes another handle's place, as any count would let it.
 *
 * Invalidation: the platform calls dg_pin_invalidate() from the mm's
 * notifier for every entry overlapping the range. For an event that may
 * change the pages mapped, it moves the entry's notifier sequence, marks
 * it stale and unlinks it from the index, under the cache lock, and
 * queues the reap when the entry is unused: no unpin, no unmap, no
 * uncharge, no notifier removal there. A VMA protection change (mprotect,
 * NUMA hinting) keeps the pages but may take a permission away: the entry
 * is flagged and its next hit re-checks the range's VMAs (outside the
 * lock) before serving it, dropping the entry when a fresh pin would
 * fail. A write-protection that keeps the VMA (fork's copy-on-write
 * setup: pinned anonymous pages are copied for the child, the parent's
 * stay mapped and writable) changes nothing.
 *
 * A miss races invalidations the mmu_interval_read_begin()/read_retry()
 * way: the notifier is inserted first, the pages pinned outside the lock,
 * then under the lock the sequence is checked; if it moved, the pins are
 * dropped and the miss is redone (DG_PIN_RETRIES times, then -EAGAIN).
 *
 * Budgets: the bytes and entries of every entry not yet released are
 * reserved under the lock before pinning; over a budget, unused entries
 * are evicted from the LRU tail; if the entries in use alone exceed it,
 * the get fails with -ENOSPC. A range larger than the byte budget fails
 * with -E2BIG, as does one over DG_PIN_MAX_BYTES. A charge the platform
 * refuses (pinned_vm against RLIMIT_MEMLOCK) evicts unused entries, least
 * recently used first, and is tried once more: the cache's own idle pins
 * never make a get fail for the limit.
 *
 * Locking: c->lock (spinlock_t) guards the index, the hash's and the
 * lists' changes, unlinking and the counters but the per-CPU hits. Hits
 * and puts take no lock: an RCU read section, one atomic
 * compare-and-exchange on the entry's slot of the handle's CPU (and a
 * per-CPU increment for a hit). Puts come from any context (I/O
 * completions run in interrupts), so c->lock is taken with interrupts
 * off: saved where the caller's state is unknown (puts, the notifier
 * callback), _irq in process context. What the per-CPU counts cost under
 * the lock: unlinking exchanges, and a look at an entry's use (the LRU
 * scan, the aging, the stats) reads, one count per possible CPU.
 * Nothing is pinned, mapped, charged, allocated or freed under the lock.
 * Lock order: the mm's (the notifier callback runs under it) before
 * c->lock.
 */
#include "pincache_internal.h"

#define START(e)	((e)->start)
#define LAST(e)		((e)->last)

INTERVAL_TREE_DEFINE(struct dg_pin_entry, rb, unsigned long, subtree_last,
		     START, LAST, static, pin_it)

/* The ids' bitmap, after the slots. */
static unsigned long *ids_used(struct dg_pin_ids *ids)
{
	return (unsigned long *)&ids->slot[ids->nr];
}

/* The ids' generations, after the bitmap. */
static u32 *ids_gen(struct dg_pin_ids *ids)
{
	return (u32 *)(ids_used(ids) + BITS_TO_LONGS(ids->nr));
}

/*
 * The next generation of @id, for the cookie of the entry taking it: a
 * handle of an earlier entry of that id is refused until the generation
 * wraps (2^27 entries of that id later). Never 0, so no cookie is 0.
 */
static u32 ids_next_gen(struct dg_pin_ids *ids, u32 id)
{
	u32 *gen = &ids_gen(ids)[id];

	*gen = (*gen + 1) & (BIT(DG_PIN_COOKIE_GEN_BITS) - 1);
	if (!*gen)
		*gen = 1;
	return *gen;
}

static struct dg_pin_ids *ids_deref(struct dg_pin_cache *c)
	__must_hold(&c->lock)
{
	return rcu_dereference_protected(c->ids, lockdep_is_held(&c->lock));
}

/* An id array of @nr slots, none used but id 0 (never given out). */
static struct dg_pin_ids *ids_alloc(u32 nr, int node)
{
	struct dg_pin_ids *ids;

	ids = dg_kvcalloc(1, sizeof(*ids) + nr * sizeof(ids->slot[0]) +
			  BITS_TO_LONGS(nr) * sizeof(long) + nr * sizeof(u32),
			  node);
	if (ids) {
		ids->nr = nr;
		__set_bit(0, ids_used(ids));
	}
	return ids;
}

/* Live: in the index, so gets may take handles. Under the lock. */
static bool entry_indexed(const struct dg_pin_entry *e)
{
	return !RB_EMPTY_NODE(&e->rb);
}

#ifdef DG_DEBUG
/**
 * dg_pin_cache_check() - assert the cache's invariants (debug builds)
 * @c: the cache
 *
 * O(entries); the unit tests and the fuzzer call it after operations.
 */
void dg_pin_cache_check(struct dg_pin_cache *c)
{
	struct dg_pin_entry *e;
	u32 indexed = 0, listed = 0, hashed = 0, b;

	spin_lock_irq(&c->lock);
	for (e = pin_it_iter_first(&c->index, 0, ULONG_MAX); e;
	     e = pin_it_iter_next(e, 0, ULONG_MAX)) {
		VM_WARN_ON_ONCE(!entry_indexed(e));
		VM_WARN_ON_ONCE(e->start & (DG_PAGE_SIZE - 1));
		VM_WARN_ON_ONCE(e->last - e->start + 1 != e->nr_pages * DG_PAGE_SIZE);
		VM_WARN_ON_ONCE(list_empty(&e->lru));
		VM_WARN_ON_ONCE(rcu_access_pointer(ids_deref(c)->slot[e->id]) != e);
		indexed++;
	}
	list_for_each_entry(e, &c->lru, lru) {
		VM_WARN_ON_ONCE(!entry_indexed(e));
		listed++;
	}
	for (b = 0; b < 1u << DG_PIN_HASH_BITS; b++) {
		hlist_for_each_entry(e, &c->hash[b], hnode) {
			VM_WARN_ON_ONCE(hash_long(e->start / DG_PAGE_SIZE,
						  DG_PIN_HASH_BITS) != b);
			hashed++;
		}
	}
	list_for_each_entry(e, &c->dead, lru)
		VM_WARN_ON_ONCE(entry_indexed(e) || atomic_long_read(&e->left));
	VM_WARN_ON_ONCE(!list_empty(&c->dead) && !c->reap_queued);
	VM_WARN_ON_ONCE(indexed != c->nr_indexed);
	VM_WARN_ON_ONCE(listed != indexed || hashed != indexed);
	VM_WARN_ON_ONCE(indexed > c->nr_entries);
	VM_WARN_ON_ONCE(c->max_entries && c->nr_entries > c->max_entries);
	VM_WARN_ON_ONCE(c->max_bytes && c->bytes > c->max_bytes);
	spin_unlock_irq(&c->lock);
}
#endif

/**
 * dg_pin_cache_create() - create the pin cache of one address space
 * @p: parameters, see struct dg_pin_params
 *
 * Context: process context, may sleep.
 * Return: the cache, or NULL when no memory could be had or the platform
 * refused the address space.
 */
struct dg_pin_cache *dg_pin_cache_create(const struct dg_pin_params *p)
{
	struct dg_pin_cache *c;

	c = kzalloc_node(sizeof(*c), GFP_KERNEL_ACCOUNT, p->node);
	if (!c)
		return NULL;
	c->hash = dg_kvcalloc(1u << DG_PIN_HASH_BITS, sizeof(*c->hash),
			      p->node);
	c->pcpu = alloc_percpu(struct dg_pin_pcpu);
	RCU_INIT_POINTER(c->ids, ids_alloc(DG_PIN_IDS_MIN, p->node));
	if (!c->hash || !c->pcpu || !rcu_access_pointer(c->ids))
		goto free;
	if (dg_pin_plat_init(&c->plat, p->mm, p->dev))
		goto free;
	spin_lock_init(&c->lock);
	refcount_set(&c->ref, 1);
	c->index = RB_ROOT_CACHED;
	INIT_LIST_HEAD(&c->lru);
	INIT_LIST_HEAD(&c->dead);
	c->max_bytes = p->max_bytes;
	c->max_entries = p->max_entries;
	c->node = p->node;
	c->mapped = p->dev;
	return c;

free:
	if (c->pcpu)
		free_percpu(c->pcpu);
	dg_kvfree(rcu_access_pointer(c->ids));
	dg_kvfree(c->hash);
	kfree(c);
	return NULL;
}

/**
 * dg_pin_cache_put() - drop a reference on a cache
 * @c: the cache; freed if that was the last reference
 *
 * The cache's own users (its entries, a queued reap, its creator through
 * dg_pin_cache_destroy()) and a walker's dg_pin_cache_tryget() drop
 * theirs here. No get may race the last (gets end with the creator's
 * reference), so the cache itself needs no grace period.
 *
 * Context: process context, may sleep.
 */
void dg_pin_cache_put(struct dg_pin_cache *c)
{
	if (!refcount_dec_and_test(&c->ref))
		return;
	/*
	 * Out of the registry first: a statistics reader that found the
	 * cache there (debugfs, under the registry's lock) reads all of it.
	 */
	dg_pin_plat_fini(&c->plat);
	/* every entry's release came first: every id is free */
	dg_kvfree(rcu_dereference_protected(c->ids,
					    !refcount_read(&c->ref)));
	free_percpu(c->pcpu);
	dg_kvfree(c->hash);
	kfree(c);
}

/* Have the platform release the dead list soon, in process context. */
static void queue_reap(struct dg_pin_cache *c)
	__must_hold(&c->lock)
{
	if (c->reap_queued)
		return;
	c->reap_queued = true;
	refcount_inc(&c->ref);
	dg_pin_plat_queue_reap(&c->plat);
}

/*
 * Have the platform run the aging a period from now, while entries are
 * live and the platform ages them at all.
 */
static void queue_age(struct dg_pin_cache *c)
	__must_hold(&c->lock)
{
	if (c->age_queued || !c->nr_indexed || !dg_pin_plat_age_period())
		return;
	c->age_queued = true;
	refcount_inc(&c->ref);
	dg_pin_plat_queue_age(&c->plat);
}

/* Out of the index, the hash and the LRU; unlinking is the caller's. */
static void entry_unindex(struct dg_pin_cache *c, struct dg_pin_entry *e)
	__must_hold(&c->lock)
{
	pin_it_remove(e, &c->index);
	RB_CLEAR_NODE(&e->rb);
	hlist_del_rcu(&e->hnode);
	list_del_init(&e->lru);
	WRITE_ONCE(c->nr_indexed, c->nr_indexed - 1);	/* read unlocked */
}

/*
 * Count @n puts of handles the cache did not hold. Return: whether they
 * are the cache's first, for the caller to report (once per cache).
 */
static bool count_bad_puts(struct dg_pin_cache *c, long n)
	__must_hold(&c->lock)
{
	bool first = !c->bad_put_reported;

	c->bad_puts += n;
	c->bad_put_reported = true;
	return first;
}

/*
 * Unindex a live entry for good: no get can take a handle from here on.
 * Return: true when no handle held it (or puts of handles not held, met
 * during the sum, took all the counts): the caller owns it; else the last
 * put releases it.
 */
static bool entry_unlink(struct dg_pin_cache *c, struct dg_pin_entry *e)
	__must_hold(&c->lock)
{
	long held = 0;
	int cpu;

	entry_unindex(c, e);
	/*
	 * The bias first (the exchanges' full barriers order it before
	 * them): a put that meets an exchanged slot counts it down, and
	 * cannot reach 0 before the sum is in.
	 */
	atomic_long_set(&e->left, DG_PIN_LEFT_BIAS);
	for_each_possible_cpu(cpu)
		held += atomic_long_xchg(per_cpu_ptr(e->holds, cpu),
					 DG_PIN_UNLINKED);
	held = atomic_long_sub_return(DG_PIN_LEFT_BIAS - held, &e->left);
	if (held >= 0)
		return !held;
	/*
	 * More puts than handles: a copy put twice met an exchanged slot
	 * during the sum (no slot ever goes below 0). Nothing holds it.
	 */
	if (count_bad_puts(c, -held))
		dev_err(c->plat.dev, "pin cache: handles of entry %#llx put more often than taken\n",
			(unsigned long long)e->cookie);
	atomic_long_set(&e->left, 0);
	return true;
}

/* Handles held on a live entry: a snapshot (puts race it). */
static long entry_handles(struct dg_pin_entry *e)
{
	long n = 0;
	int cpu;

	if (!entry_indexed(e))
		return max(atomic_long_read(&e->left), 0L);
	for_each_possible_cpu(cpu)
		n += atomic_long_read(per_cpu_ptr(e->holds, cpu));
	return n;
}

/*
 * Evict a live entry found unused: unlink it. Return: true when it is the
 * caller's now; false when a hit took it since it was looked at: stale
 * then (gone from the index and the LRU), released at that handle's put.
 */
static bool entry_unlink_idle(struct dg_pin_cache *c, struct dg_pin_entry *e)
	__must_hold(&c->lock)
{
	if (entry_unlink(c, e))
		return true;
	c->evictions++;
	return false;
}

/* entry_unlink_idle() if no handle holds @e; false if one does. */
static bool entry_take_idle(struct dg_pin_cache *c, struct dg_pin_entry *e)
	__must_hold(&c->lock)
{
	return !entry_handles(e) && entry_unlink_idle(c, e);
}

/* An unused entry just unlinked goes to the deferred reap. */
static void entry_to_dead(struct dg_pin_cache *c, struct dg_pin_entry *e)
	__must_hold(&c->lock)
{
	list_add(&e->lru, &c->dead);
	queue_reap(c);
}

/*
 * Give @e an id and a slot: the lowest free id, in an array grown (out
 * of the lock, then swapped in) when full. Return: 0 or -ENOMEM.
 */
static int entry_name(struct dg_pin_cache *c, struct dg_pin_entry *e)
{
	struct dg_pin_ids *ids, *grown = NULL;
	u32 id, nr;

	for (;;) {
		spin_lock_irq(&c->lock);
		ids = ids_deref(c);
		nr = ids->nr;
		if (grown && grown->nr > nr) {
			/* slots, used bits, generations: the new one is larger */
			memcpy(grown->slot, ids->slot, nr * sizeof(ids->slot[0]));
			memcpy(ids_used(grown), ids_used(ids),
			       BITS_TO_LONGS(nr) * sizeof(long));
			memcpy(ids_gen(grown), ids_gen(ids), nr * sizeof(u32));
			rcu_assign_pointer(c->ids, grown);
			grown = ids;	/* the old one, freed below */
			ids = ids_deref(c);
			nr = ids->nr;
		}
		id = find_next_zero_bit(ids_used(ids), nr, 1);
		if (id < nr) {
			__set_bit(id, ids_used(ids));
			e->id = id;
			e->cookie = (u64)ids_next_gen(ids, id) <<
				    DG_PIN_COOKIE_GEN_SHIFT | id;
			rcu_assign_pointer(ids->slot[id], e);
			spin_unlock_irq(&c->lock);
			/* the old array (lock-free puts may read it), or ours */
			if (grown)
				kvfree_rcu(grown, rcu);
			return 0;
		}
		spin_unlock_irq(&c->lock);
		if (grown)
			kvfree_rcu(grown, rcu);
		/* as many as a cookie can name */
		if (nr >= DG_PIN_IDS_MAX)
			return -ENOSPC;
		grown = ids_alloc(2 * nr, c->node);
		if (!grown)
			return -ENOMEM;
	}
}

/* @e's id is free again: no put can find it from now on. */
static void entry_unname(struct dg_pin_cache *c, struct dg_pin_entry *e)
	__must_hold(&c->lock)
{
	struct dg_pin_ids *ids = ids_deref(c);

	RCU_INIT_POINTER(ids->slot[e->id], NULL);
	__clear_bit(e->id, ids_used(ids));
}

/*
 * An idle stale entry leaves the budgets and the ids (no handle can name
 * it any more): its releaser owns it now.
 */
static void entry_forget(struct dg_pin_cache *c, struct dg_pin_entry *e)
	__must_hold(&c->lock)
{
	entry_unname(c, e);
	c->bytes -= e->nr_pages * DG_PAGE_SIZE;
	c->nr_entries--;
}

/* Evict an entry taken idle onto @out, for release outside the lock. */
static void entry_evict(struct dg_pin_cache *c, struct dg_pin_entry *e,
			struct list_head *out)
	__must_hold(&c->lock)
{
	entry_forget(c, e);
	list_add(&e->lru, out);
	c->evictions++;
}

/*
 * Evict an entry taken idle to the deferred reap: for callers that do not
 * release it themselves (the shrinker's, in reclaim; the aging).
 */
static void entry_evict_deferred(struct dg_pin_cache *c,
				 struct dg_pin_entry *e)
	__must_hold(&c->lock)
{
	entry_to_dead(c, e);
	c->evictions++;
}

/* Drop the pins of @npinned pages, and the mapping. No lock held. */
static void entry_unpin(struct dg_pin_cache *c, struct dg_pin_entry *e,
			unsigned long npinned)
{
	if (e->map)
		dg_pin_plat_unmap(&c->plat, e->map, e->nr_pages, e->write);
	e->map = NULL;
	if (npinned)
		dg_pin_plat_unpin(&c->plat, e->pages, npinned, e->write);
}

/* After a grace period: no lock-free get or put reads @e any more. */
static void entry_free_rcu(struct rcu_head *head)
{
	struct dg_pin_entry *e = container_of(head, struct dg_pin_entry, rcu);

	free_percpu(e->holds);
	kfree(e);
}

/*
 * Release an entry nobody can hold any more: notifier first (it waits
 * for a callback running on the entry), then the DMA mapping, the pins,
 * the charge, the memory (after a grace period: a lock-free get or put
 * may still be reading it) and the entry's reference on the cache, which
 * may be the last. Process context, no lock held.
 */
static void entry_release(struct dg_pin_cache *c, struct dg_pin_entry *e)
{
	dg_pin_plat_untrack(&e->notifier);
	entry_unpin(c, e, e->nr_pages);
	dg_pin_plat_uncharge(&c->plat, e->nr_pages);
	dg_kvfree(e->pages);
	call_rcu(&e->rcu, entry_free_rcu);
	dg_pin_cache_put(c);
}

/* Each entry holds a reference: @c may be gone once the last is released. */
static void release_list(struct dg_pin_cache *c, struct list_head *list)
{
	struct dg_pin_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, list, lru) {
		list_del(&e->lru);
		entry_release(c, e);
	}
}

/* Take the dead list over: its entries leave the budgets now. */
static void take_dead(struct dg_pin_cache *c, struct list_head *out)
	__must_hold(&c->lock)
{
	struct dg_pin_entry *e;

	list_for_each_entry(e, &c->dead, lru)
		entry_forget(c, e);
	list_splice_init(&c->dead, out);
}

/**
 * dg_pin_reap_deferred() - release the entries invalidated while unused
 * @plat: the platform state of the cache whose reap was queued
 *
 * The platform's deferred reap (a work item in the kernel) calls it once
 * per dg_pin_plat_queue_reap(); it drops the reference the queueing took,
 * which may free a destroyed cache.
 *
 * Context: process context, may sleep; not from the notifier callback.
 */
void dg_pin_reap_deferred(struct dg_pin_plat *plat)
{
	struct dg_pin_cache *c = container_of(plat, struct dg_pin_cache, plat);
	LIST_HEAD(dead);

	spin_lock_irq(&c->lock);
	c->reap_queued = false;
	take_dead(c, &dead);
	spin_unlock_irq(&c->lock);
	release_list(c, &dead);
	dg_pin_cache_put(c);
}

/**
 * dg_pin_age_deferred() - release the entries left unused for a period
 * @plat: the platform state of the cache whose aging was queued
 *
 * Idle pins keep their pages unmovable (compaction, NUMA balancing and
 * THP collapse skip pinned pages), so the platform runs this once a
 * period while the cache has live entries: an entry found idle (no
 * handle, no hit mark) at two passes in a row goes to the deferred reap;
 * the others lose their mark. An entry thus goes after one to three
 * periods unused (one at least: the budgets' LRU scan clears marks too).
 * It drops the reference the queueing took, which may free a destroyed
 * cache.
 *
 * Context: process context; O(live entries x possible CPUs) under the
 * cache lock, once a period.
 */
void dg_pin_age_deferred(struct dg_pin_plat *plat)
{
	struct dg_pin_cache *c = container_of(plat, struct dg_pin_cache, plat);
	struct dg_pin_entry *e, *next;
	bool hit;

	spin_lock_irq(&c->lock);
	c->age_queued = false;
	list_for_each_entry_safe(e, next, &c->lru, lru) {
		/* hit since the last pass, or in use now: not idle */
		hit = READ_ONCE(e->referenced);
		if (hit || entry_handles(e)) {
			if (hit)
				WRITE_ONCE(e->referenced, false);
			e->aging = false;
			continue;
		}
		/* idle at two passes in a row (a hit may race us: tried) */
		if (!e->aging) {
			e->aging = true;
			continue;
		}
		if (entry_unlink_idle(c, e))
			entry_evict_deferred(c, e);
	}
	queue_age(c);
	spin_unlock_irq(&c->lock);
	dg_pin_cache_put(c);
}

/* A live entry covering [start, last] with the permission asked for. */
static struct dg_pin_entry *pin_lookup(struct dg_pin_cache *c,
				       unsigned long start, unsigned long last,
				       bool write)
	__must_hold(&c->lock)
{
	struct dg_pin_entry *e;

	for (e = pin_it_iter_first(&c->index, start, start); e;
	     e = pin_it_iter_next(e, start, start))
		if (e->last >= last && (e->write || !write))
			return e;
	return NULL;
}

/* A scan budget in which each live entry is looked at twice at most. */
static unsigned long lru_two_passes(const struct dg_pin_cache *c)
	__must_hold(&c->lock)
{
	return 2UL * c->nr_indexed;
}

/*
 * The coldest idle live entry, unlinked (entry_take_idle()), or NULL.
 * Entries hit since the scan last passed get a second chance and entries
 * in use are passed over: both go to the head. Each entry looked at
 * counts against *@scan, the caller's budget for its whole call, so that
 * the lock is held for as many entries as the caller chose, not for a
 * pass over the list per victim. A look costs a read of each possible
 * CPU's slot of the entry.
 */
static struct dg_pin_entry *lru_victim(struct dg_pin_cache *c,
				       unsigned long *scan)
	__must_hold(&c->lock)
{
	struct dg_pin_entry *e;

	while (*scan && !list_empty(&c->lru)) {
		(*scan)--;
		e = list_last_entry(&c->lru, struct dg_pin_entry, lru);
		if (READ_ONCE(e->referenced))
			WRITE_ONCE(e->referenced, false);
		else if (entry_take_idle(c, e))
			return e;
		/* in use (or taken by a hit just now, and gone) */
		if (entry_indexed(e))
			list_move(&e->lru, &c->lru);
	}
	return NULL;
}

/*
 * The locked-memory limit refused a charge of @nr_pages: release idle
 * entries, least recently used first, until as many pages went (the limit
 * is the mm's: other pins may hold the rest). Return: whether any went.
 * Process context, no lock held.
 */
static bool evict_for_charge(struct dg_pin_cache *c, unsigned long nr_pages)
{
	unsigned long freed = 0, scan;
	struct dg_pin_entry *e;
	LIST_HEAD(out);

	spin_lock_irq(&c->lock);
	scan = lru_two_passes(c);
	while (freed < nr_pages) {
		e = lru_victim(c, &scan);
		if (!e)
			break;
		freed += e->nr_pages;
		entry_evict(c, e, &out);
	}
	spin_unlock_irq(&c->lock);
	release_list(c, &out);
	return freed;
}

/*
 * Make room for @bytes more in one more entry: evict from the LRU tail
 * onto @out. Return: true when the budgets allow it now.
 */
static bool make_room(struct dg_pin_cache *c, u64 bytes,
		      struct list_head *out)
	__must_hold(&c->lock)
{
	unsigned long scan = lru_two_passes(c);
	struct dg_pin_entry *e;

	while ((c->max_bytes && c->bytes + bytes > c->max_bytes) ||
	       (c->max_entries && c->nr_entries + 1 > c->max_entries)) {
		e = lru_victim(c, &scan);
		if (!e)
			return false;
		entry_evict(c, e, out);
	}
	return true;
}

/* Evict the idle entries that @n covers with at least its permission. */
static void drop_covered(struct dg_pin_cache *c, struct dg_pin_entry *n,
			 struct list_head *out)
	__must_hold(&c->lock)
{
	struct dg_pin_entry *e, *next;

	for (e = pin_it_iter_first(&c->index, n->start, n->last); e; e = next) {
		next = pin_it_iter_next(e, n->start, n->last);
		if (e->start >= n->start && e->last <= n->last &&
		    (n->write || !e->write) && entry_take_idle(c, e))
			entry_evict(c, e, out);
	}
}

/*
 * A handle taken under the lock on an entry found in the index, counted
 * on @cpu: only unlinking (under the lock) makes a slot refuse it, but
 * lock-free gets and puts move the slot.
 */
static void entry_hold(struct dg_pin_entry *e, unsigned int cpu)
{
	atomic_long_inc(per_cpu_ptr(e->holds, cpu));
}

/*
 * A handle (counted on @cpu) given back by the lock's holder: a stale
 * entry's last goes on @out for release.
 */
static void entry_unhold_locked(struct dg_pin_cache *c,
				struct dg_pin_entry *e, unsigned int cpu,
				struct list_head *out)
	__must_hold(&c->lock)
{
	if (pin_entry_unhold(e, cpu))
		return;
	entry_forget(c, e);
	list_add(&e->lru, out);
}

/*
 * A hit on an entry whose VMA protection changed since its last check:
 * does its whole range still allow what it was pinned for (what a fresh
 * pin would check)? The caller holds a handle on @e; the lock is dropped
 * for the platform's check (it takes the mmap lock) and taken again.
 * Return: true to serve the hit; false when @e was dropped from the index.
 */
static bool entry_recheck(struct dg_pin_cache *c, struct dg_pin_entry *e)
	__releases(&c->lock) __acquires(&c->lock)
{
	unsigned long gen = e->prot_gen;
	bool ok;

	c->prot_checks++;
	spin_unlock_irq(&c->lock);
	ok = dg_pin_plat_allows(&c->plat, e->start, e->last, e->write);
	spin_lock_irq(&c->lock);
	/* invalidated meanwhile: its pages may be stale, pin afresh */
	if (!entry_indexed(e))
		return false;
	if (ok) {
		/* a protection event while checking: check again next time */
		if (e->prot_gen == gen)
			WRITE_ONCE(e->prot_changed, false);
		return true;
	}
	/*
	 * Our handle keeps it from going to dead here, unless puts of
	 * handles not held took its count (then nothing holds it, and our
	 * give-back is refused).
	 */
	if (entry_unlink(c, e))
		entry_to_dead(c, e);
	c->invalidations++;
	return false;
}

/* Pin every page of @e, a batch a call; 0 or the platform's -errno. */
static int entry_pin(struct dg_pin_cache *c, struct dg_pin_entry *e)
{
	unsigned long done = 0, n;
	long ret;

	while (done < e->nr_pages) {
		n = min(e->nr_pages - done, (unsigned long)DG_PIN_BATCH);
		ret = dg_pin_plat_pin(&c->plat, e->start + done * DG_PAGE_SIZE,
				      n, e->write, e->pages + done);
		if (ret <= 0) {
			/* 0: pinned nothing and said nothing: a fault */
			entry_unpin(c, e, done);
			return ret < 0 ? (int)ret : -EFAULT;
		}
		VM_WARN_ON_ONCE(ret > n);
		done += ret;
	}
	return 0;
}

/*
 * Pin, map and index a new entry for [start, start + bytes). The budgets
 * are reserved already. Return: the entry, holding one handle (counted
 * on @cpu) and a reference on the cache, or an ERR_PTR(); nothing is
 * left pinned, charged, tracked or named on error.
 */
static struct dg_pin_entry *entry_create(struct dg_pin_cache *c,
					 unsigned long start, u64 bytes,
					 bool write, unsigned int cpu,
					 struct list_head *out)
{
	struct dg_pin_entry *e;
	unsigned long seq;
	int err, tries;

	e = kzalloc_node(sizeof(*e), GFP_KERNEL_ACCOUNT, c->node);
	if (!e)
		return ERR_PTR(-ENOMEM);
	e->nr_pages = bytes / DG_PAGE_SIZE;
	/* Charged before its page array is allocated: a user picks its size. */
	err = dg_pin_plat_charge(&c->plat, e->nr_pages);
	if (err == -ENOMEM && evict_for_charge(c, e->nr_pages))
		err = dg_pin_plat_charge(&c->plat, e->nr_pages);
	if (err)
		goto free;
	e->pages = dg_kvcalloc(e->nr_pages, sizeof(*e->pages), c->node);
	/* every slot 0: no handle, and none can be put until indexed */
	e->holds = alloc_percpu_gfp(atomic_long_t, GFP_KERNEL_ACCOUNT);
	err = -ENOMEM;
	if (!e->pages || !e->holds)
		goto uncharge_free;
	e->start = start;
	e->last = start + bytes - 1;
	e->write = write;
	e->cache = c;
	INIT_LIST_HEAD(&e->lru);
	RB_CLEAR_NODE(&e->rb);
	/* Named (unheld, so no put applies) from here to its release. */
	err = entry_name(c, e);
	if (err)
		goto uncharge_free;
	err = dg_pin_plat_track(&c->plat, &e->notifier, start, bytes);
	if (err)
		goto erase;
	for (tries = 0;; tries++) {
		seq = dg_pin_plat_read_begin(&e->notifier);
		err = entry_pin(c, e);
		if (err)
			goto untrack;
		if (c->mapped) {
			err = dg_pin_plat_map(&c->plat, e->pages, e->nr_pages,
					      write, &e->map);
			if (err) {
				e->map = NULL;
				entry_unpin(c, e, e->nr_pages);
				goto untrack;
			}
		}
		spin_lock_irq(&c->lock);
		if (!dg_pin_plat_read_retry(&e->notifier, seq))
			break;
		c->retries++;
		spin_unlock_irq(&c->lock);
		entry_unpin(c, e, e->nr_pages);
		if (tries + 1 >= DG_PIN_RETRIES) {
			err = -EAGAIN;
			goto untrack;
		}
	}
	/*
	 * Under the lock, with the sequence unmoved: the pages are current.
	 * A protection event meanwhile left prot_changed set: the next hit
	 * checks it. Every field a lock-free hit reads is set before the
	 * entry is hashed.
	 */
	entry_hold(e, cpu);
	refcount_inc(&c->ref);
	drop_covered(c, e, out);
	pin_it_insert(e, &c->index);
	hlist_add_head_rcu(&e->hnode, pin_hash_head(c, start));
	list_add(&e->lru, &c->lru);
	WRITE_ONCE(c->nr_indexed, c->nr_indexed + 1);	/* read unlocked */
	queue_age(c);
	spin_unlock_irq(&c->lock);
	return e;

untrack:
	dg_pin_plat_untrack(&e->notifier);
erase:
	dg_pin_plat_uncharge(&c->plat, e->nr_pages);
	spin_lock_irq(&c->lock);
	entry_unname(c, e);
	spin_unlock_irq(&c->lock);
	dg_kvfree(e->pages);
	/* named: a lock-free put of a forged cookie may be reading it */
	call_rcu(&e->rcu, entry_free_rcu);
	return ERR_PTR(err);
uncharge_free:
	dg_pin_plat_uncharge(&c->plat, e->nr_pages);
free:
	dg_kvfree(e->pages);
	free_percpu(e->holds);
	kfree(e);
	return ERR_PTR(err);
}

/**
 * dg_pin_get() - pinned pages of a user range, from the cache or pinned now
 * @c: the cache
 * @addr: first byte, a user address of the cache's mm (a tagged pointer
 *	is untagged first, as pin_user_pages_fast() does)
 * @len: bytes, not 0
 * @write: the device will write to the range (the pages must be pinned
 *	writable; a read-only entry does not serve it)
 * @h: filled in on success; give it back with dg_pin_put()
 *
 * A hit takes a reference on a live entry covering the range (cost
 * independent of its length; no lock when the range starts where the
 * entry starts; after a protection change of its range, the first hit
 * re-checks the range's permission, as a pin would); a miss pins the
 * page-aligned range covering it into a new entry. No pin is left behind
 * on error.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for @len 0, -EOVERFLOW for a range that wraps,
 * -E2BIG for one larger than the byte budget or DG_PIN_MAX_BYTES,
 * -ENOSPC when the entries in use fill a budget (or DG_PIN_IDS_MAX - 1
 * are not yet released, as many as cookies can name), -EAGAIN when
 * invalidations kept racing the pinning, -ENOMEM, or the platform's errno
 * from charging (-ENOMEM over the locked-memory limit, once idle entries
 * were evicted), pinning (-EFAULT for an unmapped, PROT_NONE or
 * read-only-for-write range...) or DMA mapping.
 */
int dg_pin_get(struct dg_pin_cache *c, unsigned long addr, size_t len,
	       bool write, struct dg_pin_handle *h)
{
	struct dg_pin_entry *e;
	unsigned int cpu;

	/*
	 * Keyed as GUP pins and invalidations name ranges, untagged: a
	 * tagged key would never meet an invalidation.
	 */
	addr = untagged_addr(addr);
	e = __dg_pin_get(c, addr, len, write, &cpu);
	if (IS_ERR(e))
		return PTR_ERR(e);
	pin_fill_handle(e, cpu, addr, len, h);
	return 0;
}

/*
 * dg_pin_get() past the lock-free hit: @e is NULL, or held (on *@cpu) by
 * a hit whose protection changed (to re-check). The entry returned is
 * held on *@cpu.
 */
struct dg_pin_entry *dg_pin_get_locked(struct dg_pin_cache *c,
				       unsigned long addr, size_t len,
				       bool write, struct dg_pin_entry *e,
				       unsigned int *cpu)
{
	unsigned long start, end;
	LIST_HEAD(out);
	u64 bytes;

	if (!len)
		return ERR_PTR(-EINVAL);
	if (addr + len - 1 < addr)
		return ERR_PTR(-EOVERFLOW);
	start = addr & ~(DG_PAGE_SIZE - 1);
	end = (addr + len - 1) | (DG_PAGE_SIZE - 1);	/* last byte */
	if (end + 1 == 0)
		return ERR_PTR(-EOVERFLOW);
	bytes = (u64)end + 1 - start;
	if (bytes > DG_PIN_MAX_BYTES)	/* no entry is larger: @e is NULL */
		return ERR_PTR(-E2BIG);

	spin_lock_irq(&c->lock);
	take_dead(c, &out);
	if (!e) {
		e = pin_lookup(c, start, end, write);
		if (e) {
			*cpu = raw_smp_processor_id();
			entry_hold(e, *cpu);
		}
	}
	if (e) {
		/* held, found here or by a lock-free hit that must recheck */
		if (likely(!e->prot_changed) || entry_recheck(c, e)) {
			spin_unlock_irq(&c->lock);
			release_list(c, &out);
			pin_hit_account(c, e);
			return e;
		}
		/* dropped: the miss below pins what is mapped now, or fails */
		entry_unhold_locked(c, e, *cpu, &out);
	}
	c->misses++;
	if (c->max_bytes && bytes > c->max_bytes) {
		spin_unlock_irq(&c->lock);
		release_list(c, &out);
		return ERR_PTR(-E2BIG);
	}
	if (!make_room(c, bytes, &out)) {
		spin_unlock_irq(&c->lock);
		release_list(c, &out);
		return ERR_PTR(-ENOSPC);
	}
	c->bytes += bytes;
	c->nr_entries++;
	spin_unlock_irq(&c->lock);
	/* Unpin the evicted before pinning: the limit counts both. */
	release_list(c, &out);

	*cpu = raw_smp_processor_id();
	e = entry_create(c, start, bytes, write, *cpu, &out);
	if (IS_ERR(e)) {
		spin_lock_irq(&c->lock);
		c->bytes -= bytes;
		c->nr_entries--;
		spin_unlock_irq(&c->lock);
		return e;
	}
	release_list(c, &out);
	return e;
}

/**
 * dg_pin_put() - give back a handle from dg_pin_get()
 * @c: the cache
 * @h: the handle; its pages may not be used after this
 *
 * The entry stays cached, unless it was invalidated or evicted while in
 * use: then the last put hands it to the deferred reap, which releases
 * it (unmaps, unpins, uncharges) in process context. A
 * handle this cache did not give out, or took back already (a copy put
 * twice, a handle of a released entry, of another cache, garbage), is
 * refused: reported once per cache, counted in the stats, never applied.
 * Takes no lock unless it hands the entry over or refuses the handle.
 *
 * Context: any context, hard interrupts included; never sleeps.
 * Return: 0, or -EINVAL for a refused handle.
 */
int dg_pin_put(struct dg_pin_cache *c, struct dg_pin_handle *h)
{
	return __dg_pin_put(c, h);
}

/*
 * dg_pin_put() past the lock-free put: @left < 0, a refused @cookie; 0,
 * its entry's last handle, ours to release. Return: 0, or -EINVAL.
 */
int dg_pin_put_locked(struct dg_pin_cache *c, u64 cookie,
		      struct dg_pin_entry *e, long left)
{
	unsigned long flags;
	bool first;

	if (left < 0) {
		spin_lock_irqsave(&c->lock, flags);
		first = count_bad_puts(c, 1);
		spin_unlock_irqrestore(&c->lock, flags);
		/* a refused put cannot be the last: @c is the caller's */
		if (first)
			dev_err(c->plat.dev, "pin cache: put of a handle it does not hold (%#llx): refused\n",
				(unsigned long long)cookie);
		return -EINVAL;
	}
	/*
	 * The last handle of a stale entry: released by the deferred reap,
	 * since removing its notifier waits for the invalidations running in
	 * its mm (a put from one would deadlock) and a put may come from an
	 * interrupt. The entry keeps @c alive until then.
	 */
	spin_lock_irqsave(&c->lock, flags);
	entry_to_dead(c, e);
	spin_unlock_irqrestore(&c->lock, flags);
	return 0;
}

/**
 * dg_pin_invalidate() - the mm's notifier says an entry's range changes
 * @n: the entry's notifier
 * @cur_seq: the sequence the notifier moves to
 * @event: what the change may do to the entry, see enum dg_pin_event
 *
 * For %DG_PIN_EV_UNMAP, marks the entry stale and takes it out of the
 * index; an unused one goes to the dead list and the deferred reap is
 * queued, a used one is released at its last put. %DG_PIN_EV_PROT flags
 * the entry for a permission check at its next hit; %DG_PIN_EV_WRPROTECT
 * changes nothing. Nothing is unpinned, unmapped or uncharged here.
 *
 * Context: the notifier callback: under the mm's notifier locks, may not
 * sleep; takes the cache lock. The entry holds a reference on the cache
 * until its notifier is removed.
 * Return: true (the callback never needs to block).
 */
bool dg_pin_invalidate(struct dg_pin_notifier *n, unsigned long cur_seq,
		       enum dg_pin_event event)
{
	struct dg_pin_entry *e = container_of(n, struct dg_pin_entry, notifier);
	struct dg_pin_cache *c = e->cache;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	switch (event) {
	case DG_PIN_EV_WRPROTECT:
		c->inval_ignored++;
		break;
	case DG_PIN_EV_PROT:
		c->inval_ignored++;
		/* lock-free hits stop serving it from here */
		WRITE_ONCE(e->prot_changed, true);
		e->prot_gen++;
		break;
	default:
		dg_pin_plat_set_seq(n, cur_seq);
		/* new (not yet indexed) or stale already */
		if (!entry_indexed(e))
			break;
		c->invalidations++;
		if (entry_unlink(c, e))
			entry_to_dead(c, e);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return true;
}

/**
 * dg_pin_cache_nr_live() - how many entries an eviction may look at
 * @c: the cache
 *
 * For a shrinker's count, as the kernel's list_lru counts its objects:
 * every entry on the LRU, in use or not (the scan passes over those in
 * use). O(1), without the lock; hits and puts keep no count of their own,
 * so how many are idle is known only by looking.
 *
 * Context: any context.
 * Return: the number of live entries, a snapshot.
 */
unsigned int dg_pin_cache_nr_live(struct dg_pin_cache *c)
{
	return READ_ONCE(c->nr_indexed);
}

/**
 * dg_pin_cache_tryget() - a reference on a cache its creator still holds
 * @c: the cache
 *
 * For a walker of live caches (the kernel's shrinker) that must keep the
 * cache while it works on it without its registry's lock.
 *
 * Context: any context.
 * Return: true when taken; give it back with dg_pin_cache_put().
 */
bool dg_pin_cache_tryget(struct dg_pin_cache *c)
{
	return refcount_inc_not_zero(&c->ref);
}

/**
 * dg_pin_cache_evict() - drop unused entries, least recently used first
 * @c: the cache
 * @nr_to_scan: how many entries to look at, at most
 * @scanned: set to how many were looked at
 *
 * The kernel's shrinker calls it under memory pressure: unused pins go
 * back, so their pages can be reclaimed or migrated. The entries leave
 * the index now and are released by the deferred reap (or a get, put or
 * destroy that comes first): nothing here waits for a notifier, a page
 * lock or the mmap lock, so reclaim may call it from any context.
 * Recently hit entries get a second chance first (see the LRU above);
 * every entry looked at, those passed over included, counts against
 * @nr_to_scan, as a shrinker's objects scanned do, so the cache lock is
 * held for @nr_to_scan entries at most (and each is looked at twice at
 * most).
 *
 * Context: process context (direct reclaim included); does not sleep.
 * Return: the number evicted.
 */
unsigned int dg_pin_cache_evict(struct dg_pin_cache *c,
				unsigned int nr_to_scan, unsigned int *scanned)
{
	unsigned long scan, budget;
	struct dg_pin_entry *e;
	unsigned int done = 0;

	spin_lock_irq(&c->lock);
	budget = min_t(unsigned long, nr_to_scan, lru_two_passes(c));
	scan = budget;
	while ((e = lru_victim(c, &scan))) {
		entry_evict_deferred(c, e);
		done++;
	}
	spin_unlock_irq(&c->lock);
	*scanned = budget - scan;
	return done;
}

/* Handles held now, entry by entry (puts keep no count of their own). */
static unsigned long handles_now(struct dg_pin_cache *c)
	__must_hold(&c->lock)
{
	struct dg_pin_ids *ids = ids_deref(c);
	struct dg_pin_entry *e;
	unsigned long n = 0;
	u32 id;

	for_each_set_bit(id, ids_used(ids), ids->nr) {
		e = rcu_dereference_protected(ids->slot[id],
					      lockdep_is_held(&c->lock));
		if (e)
			n += entry_handles(e);
	}
	return n;
}

/**
 * dg_pin_cache_destroy() - release every entry of a cache, then the cache
 * @c: the cache
 *
 * Entries no handle holds are released now. Entries still in use (a
 * driver bug, reported) stay pinned and mapped until their last
 * dg_pin_put(), which releases them; the cache is freed when the last of
 * its entries is released and a queued reap has run. No get may follow.
 *
 * Context: process context, may sleep.
 * Return: the number of handles still held (0: no entry is left).
 */
unsigned long dg_pin_cache_destroy(struct dg_pin_cache *c)
{
	struct dg_pin_entry *e, *next;
	unsigned long held;
	LIST_HEAD(out);

	spin_lock_irq(&c->lock);
	for (e = pin_it_iter_first(&c->index, 0, ULONG_MAX); e; e = next) {
		next = pin_it_iter_next(e, 0, ULONG_MAX);
		if (entry_unlink(c, e)) {
			entry_forget(c, e);
			list_add(&e->lru, &out);
		}
	}
	take_dead(c, &out);
	held = handles_now(c);
	/* Nothing left to age; a running aging finds none and stops. */
	if (c->age_queued && dg_pin_plat_cancel_age(&c->plat)) {
		c->age_queued = false;
		refcount_dec(&c->ref);	/* the creator's keeps @c */
	}
	spin_unlock_irq(&c->lock);
	/* The creator's reference keeps @c until the end of this function. */
	release_list(c, &out);
	if (held)
		dev_err(c->plat.dev, "pin cache destroyed with %lu handles held; released at their last put\n",
			held);
	dg_pin_cache_put(c);
	return held;
}

/**
 * dg_pin_get_stats() - the cache's counters
 * @c: the cache
 * @st: filled in
 *
 * Context: process context (it takes the cache lock with spin_lock_irq());
 * O(ids + live entries x possible CPUs).
 */
void dg_pin_get_stats(struct dg_pin_cache *c, struct dg_pin_stats *st)
{
	u64 hits = 0;
	int cpu;

	spin_lock_irq(&c->lock);
	for_each_possible_cpu(cpu)
		hits += READ_ONCE(per_cpu_ptr(c->pcpu, cpu)->hits);
	st->hits = hits;
	st->misses = c->misses;
	st->invalidations = c->invalidations;
	st->inval_ignored = c->inval_ignored;
	st->evictions = c->evictions;
	st->retries = c->retries;
	st->prot_checks = c->prot_checks;
	st->bad_puts = c->bad_puts;
	st->pinned_bytes = c->bytes;
	st->entries = c->nr_entries;
	st->entries_indexed = c->nr_indexed;
	st->handles = handles_now(c);
	spin_unlock_irq(&c->lock);
}
