/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmaguard core: cache of pinned user page ranges.
 *
 * One cache per address space (mm). A get for (user address, length,
 * write) returns a handle on an entry whose pages cover the range: a hit
 * when a live entry already covers it (no pin, no per-page work), else a
 * miss that pins the page-aligned range (one pin per page per entry) and
 * indexes it. Invalidations of the address space (the mm's notifier) make
 * entries stale: no later get returns them, and their pins are dropped
 * at once by a deferred reap (a work item in the kernel) when unused, or
 * at the last put when held; always in process context, never inside
 * the invalidation callback.
 *
 * Plain C over dg_platform.h and dg_pin_plat.h (the platform's pin,
 * notifier, accounting and DMA mapping hooks), built into dmaguard.ko and
 * into the userspace library the unit tests and the fuzzer link.
 */
#ifndef _DMAGUARD_CORE_PINCACHE_H
#define _DMAGUARD_CORE_PINCACHE_H

#include "dg_platform.h"
#include "dg_pin_plat.h"

struct dg_pin_cache;
struct dg_pin_entry;

/*
 * The largest range an entry pins, whatever the budget: a user chooses the
 * length, and its page array is allocated for it (io_uring caps a
 * registered buffer at 1 GiB too). Larger: -E2BIG.
 */
#define DG_PIN_MAX_BYTES	BIT_ULL(30)

/**
 * struct dg_pin_params - what a pin cache is made of
 * @mm: the address space, opaque to the core (struct mm_struct * in the
 *	kernel); handed to dg_pin_plat_init()
 * @dev: device the entries are DMA-mapped for, or NULL for none
 * @max_bytes: budget of pinned bytes, 0 for none; a range larger than it
 *	is refused with -E2BIG
 * @max_entries: budget of entries, 0 for none
 * @node: NUMA node for bookkeeping, or DG_NO_NODE
 */
struct dg_pin_params {
	void *mm;
	void *dev;
	u64 max_bytes;
	u32 max_entries;
	int node;
};

/*
 * What a notifier event may have changed, for dg_pin_invalidate():
 * UNMAP     the pages mapped may change (munmap, mremap, MADV_DONTNEED,
 *           a copy-on-write break, migration...): the entries go stale;
 * PROT      a VMA's protection changed (mprotect, NUMA hinting): the same
 *           pages stay mapped; the next hit re-checks the permission;
 * WRPROTECT PTEs write-protected under an unchanged VMA (fork's
 *           copy-on-write setup, writeback's mkclean, soft-dirty): the
 *           same pages stay mapped with the same permission; a later
 *           page replacement sends an UNMAP event of its own.
 */
enum dg_pin_event {
	DG_PIN_EV_UNMAP,
	DG_PIN_EV_PROT,
	DG_PIN_EV_WRPROTECT,
};

/**
 * struct dg_pin_handle - one get of a range, as the driver holds it
 * @cookie: names the entry for dg_pin_put(), which validates it (0: none)
 * @pages: the entry's page pointers from the page holding the first byte
 * @nr_pages: pages covering the range asked for
 * @offset: of the first byte in @pages[0]
 * @map: the entry's DMA mapping cookie (the whole entry), or NULL
 * @map_offset: byte offset of the first byte asked for within @map
 */
struct dg_pin_handle {
	u64 cookie;
	void **pages;
	unsigned long nr_pages;
	unsigned int offset;
	void *map;
	unsigned long map_offset;
};

struct dg_pin_stats {
	u64 hits;
	u64 misses;		/* gets that found no entry, failed ones too */
	u64 invalidations;	/* entries made stale by the notifier */
	u64 inval_ignored;	/* events that left the mapping as it was */
	u64 prot_checks;	/* hits that re-checked a changed protection */
	u64 bad_puts;		/* puts of handles not held: refused */
	u64 evictions;		/* entries dropped for the budgets */
	u64 retries;		/* misses redone for a racing invalidation */
	u64 pinned_bytes;	/* now: every entry not yet released */
	u32 entries;		/* now: entries holding pins */
	u32 entries_indexed;	/* now: of which a get can still find */
	u64 handles;		/* now: gets not yet put */
};

/* Misses redone for racing invalidations before giving up with -EAGAIN. */
#define DG_PIN_RETRIES		8

/* Ids of a new cache (handles name entries by id); doubled when full. */
#define DG_PIN_IDS_MIN		64

struct dg_pin_cache *dg_pin_cache_create(const struct dg_pin_params *p);
unsigned long dg_pin_cache_destroy(struct dg_pin_cache *c);
int dg_pin_get(struct dg_pin_cache *c, unsigned long addr, size_t len,
	       bool write, struct dg_pin_handle *h);
int dg_pin_put(struct dg_pin_cache *c, struct dg_pin_handle *h);
bool dg_pin_invalidate(struct dg_pin_notifier *n, unsigned long cur_seq,
		       enum dg_pin_event event);
void dg_pin_reap_deferred(struct dg_pin_plat *plat);
void dg_pin_age_deferred(struct dg_pin_plat *plat);
unsigned int dg_pin_cache_evict(struct dg_pin_cache *c,
				unsigned int nr_to_scan, unsigned int *scanned);
unsigned int dg_pin_cache_nr_live(struct dg_pin_cache *c);
bool dg_pin_cache_tryget(struct dg_pin_cache *c);
void dg_pin_cache_put(struct dg_pin_cache *c);
void dg_pin_get_stats(struct dg_pin_cache *c, struct dg_pin_stats *st);

/**
 * dg_pin_cache_plat() - the platform state of a cache
 * @c: the cache
 *
 * Its first member (pincache.c asserts it): no call on the get path.
 *
 * Return: the struct dg_pin_plat the platform hooks are handed.
 */
static inline struct dg_pin_plat *dg_pin_cache_plat(struct dg_pin_cache *c)
{
	return (struct dg_pin_plat *)c;
}

#ifdef DG_DEBUG
void dg_pin_cache_check(struct dg_pin_cache *c);
#endif

#endif /* _DMAGUARD_CORE_PINCACHE_H */
