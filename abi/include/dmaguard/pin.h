/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmaguard public interface: the pinned-page cache (since v1.1).
 *
 * A driver that DMAs to and from user buffers creates one cache per
 * address space (typically on open(), for current->mm) and gets its user
 * ranges through it: the first get of a range pins its pages
 * (FOLL_LONGTERM, one pin per page) and, for a cache bound to a device,
 * maps them for DMA once; later gets of the range, or of any sub-range,
 * are hits that cost neither the mmap lock, nor a pin, nor per-page work.
 * The cache follows the address space through an mmu interval notifier:
 * after munmap, mremap, MADV_DONTNEED or a copy-on-write break, no get
 * returns the old pages; a range invalidated while the driver holds it
 * stays pinned and mapped until its last put, so DMA in flight never hits
 * freed memory, and one invalidated while unused is unmapped, unpinned
 * and uncharged at once, with no further call of the driver's. Both are
 * released by a work item: the notifier callback and a put (which may
 * come from an interrupt) never sleep. After mprotect(), a get answers as a fresh pin would (a
 * get for write of a range made read-only fails with -EFAULT). fork()
 * keeps the parent's entries over 4 KiB anonymous pages (its pinned pages
 * stay its own, the child gets copies); a fork that copies a transparent
 * huge page or a hugetlb page invalidates the entries over it, so the
 * next get pins again.
 *
 * What a hit does not check again, where a fresh pin would: a
 * userfaultfd write-protection (the range keeps VM_WRITE, so a writable
 * entry keeps serving writes a pin would fault into the monitor), the
 * clearing of soft-dirty bits (device writes through a cached entry are
 * not seen as dirtying the pages again), and protection keys (a pin
 * checks the caller's PKRU; a hit does not). A driver that needs them
 * must not cache such ranges.
 *
 * Pinned pages are unmovable (FOLL_LONGTERM: compaction, NUMA balancing
 * and THP collapse skip them), idle entries included, until an entry is
 * evicted (budgets, memory pressure through the shrinker), invalidated,
 * or its cache destroyed: bound them with max_bytes.
 *
 * Pinned pages are charged to the process's pinned_vm against
 * RLIMIT_MEMLOCK (unless CAP_IPC_LOCK), per address space, as RDMA's
 * memory registration counts. mlock() and VFIO type1 charge locked_vm
 * against the same limit, separately; io_uring charges the user, summed
 * over the user's processes. Each entry holds and charges its own pins: a
 * range cached both read-only and writable, or by two overlapping
 * entries, counts twice, as two registrations would.
 *
 * The cache keeps the mm_struct (not the process's memory) alive: when
 * the process exits first, every entry becomes stale and stays pinned only
 * until the driver destroys the cache, normally on file release. Each
 * live cache holds a reference on dmaguard.ko (its notifiers and work
 * items are dmaguard's code, and may run after the driver's last call).
 *
 * Include <dmaguard/dmaguard.h> rather than this file directly; build
 * time test: DMAGUARD_VERSION_MINOR >= 1; run time: dmaguard_version().
 */
#ifndef _DMAGUARD_PIN_H
#define _DMAGUARD_PIN_H

#include <dmaguard/types.h>

#ifndef __KERNEL__
#include <stdbool.h>
#endif

/* Opaque: drivers never see the cache's layout. */
struct dmaguard_pin_cache;
struct page;
struct sg_table;

/* dmaguard_pin_opts.flags */
/* opts->node is meaningful; without it, the device's node (or none). */
#define DMAGUARD_PIN_F_NODE		0x00000001u
/* Every flag this version knows; any other bit is refused (-EINVAL). */
#define DMAGUARD_PIN_F_ALL		0x00000001u

/*
 * The size-carrying structs stay incomplete types in the file that
 * exports the calls, for the reason given in <dmaguard/pool.h>. (That
 * file, abi/shim/pin_abi.c, exports dmaguard_pin_get() and
 * dmaguard_pin_put() too; abi/shim/pin_io.c defines them, with the
 * layouts in view, and exports nothing.)
 */
#ifndef DMAGUARD_SHIM_OPAQUE_STRUCTS
/**
 * struct dmaguard_pin_opts - how to create a pin cache (size-carrying)
 * @sz: sizeof(struct dmaguard_pin_opts) as the caller was compiled;
 *	DMAGUARD_OPTS() sets it
 * @flags: DMAGUARD_PIN_F_* bits, 0 for none
 * @max_bytes: budget of pinned bytes, 0 for none; a range larger than it
 *	is refused (-E2BIG), unused entries are evicted to stay within it
 * @max_entries: budget of entries, 0 for none
 * @node: NUMA node of the bookkeeping when @flags has DMAGUARD_PIN_F_NODE
 *	(NUMA_NO_NODE, -1, allowed)
 *
 * Later versions append fields; a zero field always keeps the v1.1
 * behaviour.
 */
struct dmaguard_pin_opts {
	__u32 sz;
	__u32 flags;
	__aligned_u64 max_bytes;
	__u32 max_entries;
	__s32 node;
};

/* Size of the first version; anything smaller is refused (-EINVAL). */
#define DMAGUARD_PIN_OPTS_SIZE_VER0	24

DMAGUARD_ASSERT_SIZE(dmaguard_pin_opts, 24);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_opts, sz, 0);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_opts, flags, 4);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_opts, max_bytes, 8);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_opts, max_entries, 16);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_opts, node, 20);

/**
 * struct dmaguard_pin - one get of a user range (size-carrying)
 * @sz: sizeof(struct dmaguard_pin) as the caller was compiled; set it and
 *	zero the rest before dmaguard_pin_get() (DMAGUARD_OPTS() does both)
 * @offset: of the range's first byte in the first page of @pages
 * @priv: the module's, for dmaguard_pin_put(); do not touch
 * @pages: the pinned pages, from the one holding the first byte; the
 *	array belongs to the cache
 * @nr_pages: pages covering the range
 * @sgt: for a cache bound to a device, the DMA-mapped sg_table of the
 *	whole cached entry, mapped DMA_BIDIRECTIONAL for a @write get's
 *	entry and DMA_TO_DEVICE otherwise; a cache keeps a mapping only
 *	where transfers need no dma_sync_*() call (coherent, no bounce
 *	buffers), so none is needed. NULL for an unbound cache, and for a
 *	device that needs syncs (swiotlb bounce buffering, as in
 *	confidential-computing guests; a non-coherent device): map the
 *	pages of each transfer yourself then, and sync them as usual
 * @sgt_offset: byte offset of the range's first byte within @sgt's
 *	DMA-mapped area (walk its DMA segments to find the address)
 *
 * Valid from a successful dmaguard_pin_get() to its dmaguard_pin_put().
 */
struct dmaguard_pin {
	__u32 sz;
	__u32 offset;
	void *priv;
	struct page **pages;
	__aligned_u64 nr_pages;
	struct sg_table *sgt;
	__aligned_u64 sgt_offset;
};

/* Size of the first version; anything smaller is refused (-EINVAL). */
#define DMAGUARD_PIN_SIZE_VER0		48

DMAGUARD_ASSERT_SIZE(dmaguard_pin, 48);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin, sz, 0);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin, offset, 4);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin, priv, 8);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin, pages, 16);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin, nr_pages, 24);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin, sgt, 32);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin, sgt_offset, 40);

/**
 * struct dmaguard_pin_stats - snapshot of a pin cache (size-carrying)
 * @sz: sizeof(struct dmaguard_pin_stats) as the caller was compiled; set
 *	it and zero the rest (DMAGUARD_OPTS() does both)
 * @entries: entries holding pins now
 * @entries_indexed: of which a get can still find (the others are stale,
 *	waiting for their last put)
 * @__reserved0: 0
 * @hits: gets served by a cached entry
 * @misses: gets that found none (failed ones too)
 * @invalidations: entries made stale by changes of the address space
 * @inval_ignored: notifications that left the pages mapped (protection
 *	changes, fork): no entry dropped
 * @evictions: entries dropped for the budgets
 * @retries: misses redone because an invalidation raced them
 * @pinned_bytes: bytes pinned (or being pinned) now
 * @handles: gets not yet put
 * @bad_puts: puts refused: of handles the cache did not hold (since v1.4)
 * @prot_checks: hits that re-checked the range's VMAs after a protection
 *	change (since v1.4)
 */
struct dmaguard_pin_stats {
	__u32 sz;
	__u32 entries;
	__u32 entries_indexed;
	__u32 __reserved0;
	__aligned_u64 hits;
	__aligned_u64 misses;
	__aligned_u64 invalidations;
	__aligned_u64 inval_ignored;
	__aligned_u64 evictions;
	__aligned_u64 retries;
	__aligned_u64 pinned_bytes;
	__aligned_u64 handles;
	__aligned_u64 bad_puts;
	__aligned_u64 prot_checks;
};

/* Size of the first version; anything smaller is refused (-EINVAL). */
#define DMAGUARD_PIN_STATS_SIZE_VER0	80

DMAGUARD_ASSERT_SIZE(dmaguard_pin_stats, 96);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_stats, sz, 0);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_stats, entries, 4);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_stats, entries_indexed, 8);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_stats, __reserved0, 12);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_stats, hits, 16);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_stats, misses, 24);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_stats, invalidations, 32);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_stats, inval_ignored, 40);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_stats, evictions, 48);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_stats, retries, 56);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_stats, pinned_bytes, 64);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_stats, handles, 72);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_stats, bad_puts, 80);
DMAGUARD_ASSERT_OFFSET(dmaguard_pin_stats, prot_checks, 88);
#else
struct dmaguard_pin_opts;
struct dmaguard_pin;
struct dmaguard_pin_stats;
#endif /* DMAGUARD_SHIM_OPAQUE_STRUCTS */

/**
 * dmaguard_pin_cache_create() - create the pin cache of the caller's mm
 * @dev: device the entries are DMA-mapped for, or NULL for pages only
 * @opts: budgets and flags; @opts->sz says which version of the struct
 *	the caller has (see struct dmaguard_pin_opts)
 *
 * The cache serves current->mm: every dmaguard_pin_get() on it must run
 * in a task of that address space (a system call of the process, not a
 * work item). Since v1.1.
 *
 * Context: Process context, in a task with an mm. May sleep.
 * Return: the cache, or an error pointer (never NULL): -EINVAL when @opts
 * is NULL, too small, has an unknown flag or an invalid node, or the
 * caller has no mm; -E2BIG when @opts is larger than this module knows
 * and a field it does not know is not zero; -ENOMEM.
 */
struct dmaguard_pin_cache *
dmaguard_pin_cache_create(struct device *dev,
			  const struct dmaguard_pin_opts *opts);

/**
 * dmaguard_pin_cache_destroy() - release every entry, then the cache
 * @c: the cache, or NULL (no-op)
 *
 * Entries no handle holds are unmapped, unpinned and uncharged now. A
 * cache bound to a device holds DMA mappings of it: destroy it before the
 * device goes (in the driver's remove(), after the last transfer). A
 * handle still held (a driver bug, reported) keeps its entry until its
 * dmaguard_pin_put(), and the last such put frees the cache. No get may
 * follow. Works whether or not the process still exists.
 *
 * Context: Process context. May sleep.
 * Return: the number of handles still held; 0 when the cache is gone.
 */
unsigned long dmaguard_pin_cache_destroy(struct dmaguard_pin_cache *c);

/**
 * dmaguard_pin_get() - the pinned (and mapped) pages of a user range
 * @c: the cache
 * @uaddr: first byte, a user address of the cache's mm; a tagged pointer
 *	(arm64 TBI/MTE, x86 LAM) is untagged first, as pin_user_pages_fast()
 *	does, so an invalidation of the range reaches its entry
 * @len: bytes, not 0
 * @write: the device will write to the range (pinned writable)
 * @pin: filled in; the caller sets @pin->sz and zeroes the rest
 *
 * A hit returns a cached entry covering the range, a miss pins (and maps)
 * the page-aligned range covering it. The pages are the ones mapped at
 * the time of the get; hold the handle for as long as DMA may touch them.
 * A hit on a range that starts where a cached entry starts (a driver
 * reusing its buffers) takes no lock; other hits take the cache's
 * spinlock. The first hit after a protection change of the range checks
 * its VMAs (under the mmap lock) as a pin would. Nothing stays pinned on
 * error. Since v1.1.
 *
 * Context: Process context, in a task of the cache's mm. May sleep.
 * Return: 0; -EINVAL for a NULL argument, a @len of 0 or a bad
 * @pin->sz; -EOVERFLOW for a range that wraps; -EFAULT for kernel,
 * unmapped or PROT_NONE addresses, read-only ones with @write, or a call
 * from another mm; -E2BIG for a range larger than the byte budget or
 * than 1 GiB;
 * -ENOSPC when the entries in use fill a budget (or 2^24 - 1 entries are
 * not yet released, as many as handles can name); -ENOMEM (also over
 * RLIMIT_MEMLOCK, after the cache's unused entries were given back);
 * -EAGAIN when invalidations kept racing the pinning.
 */
int dmaguard_pin_get(struct dmaguard_pin_cache *c, unsigned long uaddr,
		     size_t len, bool write, struct dmaguard_pin *pin);

/**
 * dmaguard_pin_put() - give back a handle of dmaguard_pin_get()
 * @c: the cache
 * @pin: the handle; its pages may not be used after this
 *
 * The entry stays cached unless it was invalidated meanwhile: then a
 * work item unmaps, unpins and uncharges it soon after the last put (a
 * put never waits for that). A handle the cache does not hold (put
 * already, through a copy; of an entry released since; of another cache;
 * garbage) is refused: reported once per cache, counted, never applied.
 * Two handles on one entry from gets that ran on one CPU, or any two on
 * an entry gone stale since (invalidated, evicted while in use, or its
 * cache destroyed), cannot be told apart: putting one twice
 * while the other is held gives back the other's reference, so put each
 * handle once (the put clears @pin, so a second put of @pin itself is a
 * no-op). What is checked: that the handle names an entry of @c by its
 * id and the id's generation (27 bits: a stale copy could match again
 * only once 2^27 more entries took its id), and that the entry is held
 * on the CPU its get ran on (the handle names it; the put may run
 * anywhere), or, once it went stale, held at all. @c itself cannot be
 * checked: a put on a cache already freed (destroyed, and its last entry
 * released) is a use-after-free, as any call on it.
 * After dmaguard_pin_cache_destroy(), the release that follows the last
 * put frees the cache. Takes no lock unless it hands the entry to the work
 * item or refuses the handle (then the cache's spinlock, interrupts
 * saved). Since v1.1.
 *
 * Context: Any context: process, softirq or hard interrupt (an I/O
 * completion), any task. Never sleeps.
 */
void dmaguard_pin_put(struct dmaguard_pin_cache *c, struct dmaguard_pin *pin);

/**
 * dmaguard_pin_cache_stats() - snapshot of a cache's counters
 * @c: the cache
 * @st: filled in; the caller sets @st->sz and zeroes the rest
 *
 * Since v1.1.
 *
 * Context: Process context. Takes the cache's spinlock.
 * Return: 0; -EINVAL when @c or @st is NULL or @st->sz is smaller than
 * DMAGUARD_PIN_STATS_SIZE_VER0; -E2BIG when @st is larger than this
 * module knows and the part it does not know is not zero.
 */
int dmaguard_pin_cache_stats(struct dmaguard_pin_cache *c,
			     struct dmaguard_pin_stats *st);

#endif /* _DMAGUARD_PIN_H */
