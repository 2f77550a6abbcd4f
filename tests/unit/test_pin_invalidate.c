// SPDX-License-Identifier: GPL-2.0
/*
 * Pin cache invalidation through the simulated mm's notifiers: after
 * munmap, a remap at the same address or MADV_DONTNEED no get returns the
 * old entry, and a new get sees the new pages and their data; an entry
 * invalidated while a handle holds it stays pinned until the last put,
 * one invalidated while unused is released by the deferred reap the
 * notifier queues, with no further cache call; NUMA hinting and fork
 * keep the cache, mprotect gives what a fresh pin would (both ways); an
 * invalidation racing a miss makes it pin again.
 */
#include "dg_pin_test.h"

/* Unused entry, mapping replaced: unpinned by the next cache call. */
static void remap_unused(void **state)
{
	struct dg_pin_handle h;
	void *old;

	h = dgp_get(dgp_va(10, 0), 4 * PG, false);
	old = h.pages[0];
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dg_user_mm_map(dgp.mm, dgp_va(11, 0), PG, DG_PROT_RW), 0);
	assert_int_equal(dgp_stats().invalidations, 1);
	assert_int_equal(dgp_stats().entries_indexed, 0);
	dgp_stamp(11, 1, 2);
	h = dgp_get(dgp_va(10, 0), 4 * PG, false);	/* a miss, new pages */
	assert_int_equal(dgp_stats().misses, 2);
	assert_ptr_equal(h.pages[0], old);	/* page 10 was not remapped */
	dgp_assert_current(&h, dgp_va(10, 0));
	assert_int_equal(((struct dg_user_frame *)h.pages[1])->data[1], 2);
	assert_int_equal(dgp_pins(10), 1);	/* the old entry is released */
	assert_int_equal(dgp.mm->pinned_vm, 4);
	dg_pin_put(dgp.c, &h);
}

/* In use at munmap: pages stay pinned (and mapped) until the last put. */
static void unmap_while_held(void **state)
{
	struct dg_pin_handle a, b, h;
	struct dg_user_frame *f;
	int dev;

	dgp_recreate(0, 0, &dev);
	a = dgp_get(dgp_va(20, 0), 2 * PG, true);
	b = dgp_get(dgp_va(20, 0), PG, false);
	f = a.pages[0];
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(20, 0), 2 * PG), 0);
	/* the frame left the page table but is pinned: still alive */
	assert_null(dg_user_mm_frame(dgp.mm, dgp_va(20, 0)));
	assert_int_equal(f->pins, 1);
	assert_false(f->mapped);
	f->data[0] = 0xab;			/* in-flight DMA: no UAF */
	assert_int_equal(dgp.mm->maps_live, 1);
	assert_int_equal(dgp.mm->pinned_vm, 2);
	/* no hit on the stale entry: a miss, that fails on the hole */
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(20, 0), PG, false, &h),
			 -EFAULT);
	dg_pin_put(dgp.c, &b);
	assert_int_equal(f->pins, 1);		/* a still holds it */
	dg_pin_put(dgp.c, &a);
	/* released by the deferred reap, which the last put queued */
	assert_int_equal(f->pins, 1);
	assert_int_equal(dg_user_run_work(), 1);
	assert_int_equal(dgp.mm->pins_live, 0);
	assert_int_equal(dgp.mm->maps_live, 0);
	assert_int_equal(dgp.mm->pinned_vm, 0);
	assert_int_equal(dgp_stats().entries, 0);
}

/* Remapped while held: the next get misses and sees the new data. */
static void remap_while_held(void **state)
{
	struct dg_pin_handle a, b;
	long frames;

	a = dgp_get(dgp_va(30, 0), 3 * PG, true);
	frames = dgp.mm->frames_live;
	assert_int_equal(dg_user_mm_map(dgp.mm, dgp_va(30, 0), 3 * PG, DG_PROT_RW), 0);
	dgp_stamp(30, 3, 7);
	assert_int_equal(dgp.mm->frames_live, frames + 3);	/* old ones pinned */
	b = dgp_get(dgp_va(30, 0), 3 * PG, true);
	assert_int_not_equal(b.cookie, a.cookie);
	dgp_assert_current(&b, dgp_va(30, 0));
	dgp_assert_stamp(&b, 30, 7);
	dgp_assert_stamp(&a, 30, 1);		/* the old pages, still pinned */
	dg_pin_put(dgp.c, &a);
	assert_int_equal(dg_user_run_work(), 1);	/* the put queued it */
	assert_int_equal(dgp.mm->frames_live, frames);	/* old ones freed */
	assert_int_equal(dgp.mm->pinned_vm, 3);
	dg_pin_put(dgp.c, &b);
}

static void dontneed(void **state)
{
	struct dg_pin_handle h;

	h = dgp_get(dgp_va(40, 0), PG, false);
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dg_user_mm_dontneed(dgp.mm, dgp_va(40, 0), PG), 0);
	h = dgp_get(dgp_va(40, 0), PG, false);
	dgp_assert_current(&h, dgp_va(40, 0));
	assert_int_equal(((struct dg_user_frame *)h.pages[0])->data[1], 0);
	assert_int_equal(dgp_stats().invalidations, 1);
	dg_pin_put(dgp.c, &h);
}

/* NUMA hinting and fork's write-protection: the entry stays and serves. */
static void numa_and_fork_keep(void **state)
{
	struct dg_pin_handle h;
	struct dg_pin_stats st;
	u64 e;

	h = dgp_get(dgp_va(50, 0), 8 * PG, true);
	e = h.cookie;
	dg_pin_put(dgp.c, &h);
	dg_user_mm_numa_hint(dgp.mm, dgp_va(0, 0), DGP_PAGES * PG);
	dg_user_mm_fork(dgp.mm, dgp_va(0, 0), DGP_PAGES * PG);
	h = dgp_get(dgp_va(50, 0), 8 * PG, true);
	assert_int_equal(h.cookie, e);
	dgp_assert_current(&h, dgp_va(50, 0));
	st = dgp_stats();
	assert_int_equal(st.hits, 1);
	assert_int_equal(st.invalidations, 0);
	assert_int_equal(st.inval_ignored, 2);
	assert_int_equal(st.prot_checks, 1);	/* NUMA: one check, passed */
	dg_pin_put(dgp.c, &h);
	/* checked once: the next hit is a plain one */
	h = dgp_get(dgp_va(50, 0), PG, true);
	assert_int_equal(dgp_stats().prot_checks, 1);
	dg_pin_put(dgp.c, &h);
}

/*
 * mprotect(PROT_READ) under a cached writable entry: a get for write
 * fails as a fresh pin would (-EFAULT), a get for read still works;
 * mprotect(PROT_READ | PROT_WRITE) again: a get for write works.
 */
static void mprotect_both_ways(void **state)
{
	struct dg_pin_handle h, r;
	struct dg_pin_stats st;

	h = dgp_get(dgp_va(50, 0), 8 * PG, true);
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dg_user_mm_protect(dgp.mm, dgp_va(52, 0), PG,
					    DG_PROT_READ), 0);
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(50, 0), 8 * PG, true, &h),
			 -EFAULT);
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(52, 0), PG, true, &h),
			 -EFAULT);
	st = dgp_stats();
	assert_int_equal(st.hits, 0);
	assert_int_equal(st.invalidations, 1);	/* the write entry went */
	assert_int_equal(dgp_pins(50), 0);
	assert_int_equal(dgp.mm->pinned_vm, 0);
	r = dgp_get(dgp_va(50, 0), 8 * PG, false);	/* reading is allowed */
	dgp_assert_current(&r, dgp_va(50, 0));

	assert_int_equal(dg_user_mm_protect(dgp.mm, dgp_va(50, 0), 8 * PG,
					    DG_PROT_RW), 0);
	h = dgp_get(dgp_va(52, 0), PG, true);
	dgp_assert_current(&h, dgp_va(52, 0));
	dg_pin_put(dgp.c, &h);
	dg_pin_put(dgp.c, &r);
	/* a read entry and PROT_NONE: a read hit fails as a pin would */
	assert_int_equal(dg_user_mm_protect(dgp.mm, dgp_va(50, 0), 8 * PG,
					    DG_PROT_NONE), 0);
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(51, 0), PG, false, &h),
			 -EFAULT);
	assert_int_equal(dgp_pins(51), 0);
}

/* mprotect under a held entry: dropped for new gets, pinned until put. */
static void mprotect_while_held(void **state)
{
	struct dg_pin_handle h, w;

	h = dgp_get(dgp_va(60, 0), 4 * PG, true);
	assert_int_equal(dg_user_mm_protect(dgp.mm, dgp_va(60, 0), 4 * PG,
					    DG_PROT_READ), 0);
	/* held: the entry is dropped from the index, pinned until put */
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(60, 0), PG, true, &w),
			 -EFAULT);
	assert_int_equal(dgp_pins(60), 1);
	((struct dg_user_frame *)h.pages[0])->data[7] = 1;	/* DMA goes on */
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dg_user_run_work(), 1);	/* the put queued it */
	assert_int_equal(dgp_pins(60), 0);
	assert_int_equal(dgp.mm->pinned_vm, 0);
}

/* The range is remapped right after a hit's permission check passed. */
static void remap_after_check(struct dg_user_mm *mm, void *arg)
{
	mm->allows_hook = NULL;
	assert_int_equal(dg_user_mm_map(mm, dgp_va(64, 0), 2 * PG,
					DG_PROT_RW), 0);
	dgp_stamp(64, 2, 9);
}

/*
 * A hit re-checking a changed protection drops the cache lock for the
 * check: an invalidation meanwhile makes it pin afresh, never serve the
 * entry it checked.
 */
static void recheck_races_unmap(void **state)
{
	struct dg_pin_handle h;

	h = dgp_get(dgp_va(64, 0), 2 * PG, true);
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dg_user_mm_protect(dgp.mm, dgp_va(64, 0), 2 * PG,
					    DG_PROT_RW), 0);
	dgp.mm->allows_hook = remap_after_check;
	h = dgp_get(dgp_va(64, 0), 2 * PG, true);
	assert_null(dgp.mm->allows_hook);	/* the check ran */
	dgp_assert_current(&h, dgp_va(64, 0));
	dgp_assert_stamp(&h, 64, 9);
	assert_int_equal(dgp_stats().hits, 0);
	dg_pin_put(dgp.c, &h);
}

/* Outside an entry's range: the entry does not hear of it. */
static void unrelated_change(void **state)
{
	struct dg_pin_handle h;

	h = dgp_get(dgp_va(60, 0), 2 * PG, false);
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(62, 0), PG), 0);
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(59, 0), PG), 0);
	h = dgp_get(dgp_va(60, 0), 2 * PG, false);
	assert_int_equal(dgp_stats().hits, 1);
	dg_pin_put(dgp.c, &h);
}

/* Remap the page during the pin call: the miss must pin again. */
static void remap_hook(struct dg_user_mm *mm, void *arg)
{
	int *left = arg;
	unsigned long first = (dgp_va(70, 0) - DG_USER_MM_BASE) / PG;

	if (*left && (*left)--) {
		/* what dg_user_mm_map() does, with the mm lock held here */
		struct dg_pin_notifier *n, *tmp;

		mm->seq += 2;
		list_for_each_entry_safe(n, tmp, &mm->notifiers, link)
			if (n->start <= dgp_va(70, PG - 1) && dgp_va(70, 0) <= n->last)
				dg_pin_invalidate(n, mm->seq, DG_PIN_EV_UNMAP);
		mm->pt[first].frame->mapped = false;
		if (!mm->pt[first].frame->pins) {
			free(mm->pt[first].frame);
			mm->frames_live--;
		}
		mm->pt[first].frame = calloc(1, sizeof(struct dg_user_frame));
		mm->pt[first].frame->mapped = true;
		mm->pt[first].frame->data[1] = 9;
		mm->frames_live++;
	}
}

static void race_with_miss(void **state)
{
	struct dg_pin_handle h;
	int left = 2;

	dgp.mm->pin_hook = remap_hook;
	dgp.mm->pin_hook_arg = &left;
	h = dgp_get(dgp_va(70, 0), PG, true);
	dgp.mm->pin_hook = NULL;
	assert_int_equal(dgp_stats().retries, 2);
	dgp_assert_current(&h, dgp_va(70, 0));
	assert_int_equal(((struct dg_user_frame *)h.pages[0])->data[1], 9);
	assert_int_equal(dgp_pins(70), 1);
	assert_int_equal(dgp.mm->pinned_vm, 1);
	dg_pin_put(dgp.c, &h);
}

/* Invalidations that never stop: -EAGAIN, nothing left behind. */
static void race_gives_up(void **state)
{
	struct dg_pin_handle h;
	int left = 1000;

	dgp.mm->pin_hook = remap_hook;
	dgp.mm->pin_hook_arg = &left;
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(70, 0), PG, true, &h), -EAGAIN);
	dgp.mm->pin_hook = NULL;
	assert_int_equal(dgp_stats().retries, DG_PIN_RETRIES);
	assert_int_equal(dgp.mm->pins_live, 0);
	assert_int_equal(dgp.mm->pinned_vm, 0);
	assert_int_equal(dgp.mm->notifiers_live, 0);
	assert_int_equal(dgp_stats().entries, 0);
	assert_int_equal(dgp_stats().pinned_bytes, 0);
}

/*
 * An entry invalidated while unused is released by the reap the notifier
 * queued, with no further call of the cache: a process that unmaps gets
 * its pins and its locked-memory charge back at once.
 */
static void munmap_releases_without_calls(void **state)
{
	struct dg_pin_handle h;

	h = dgp_get(dgp_va(80, 0), 64 * PG, true);
	dg_pin_put(dgp.c, &h);
	h = dgp_get(dgp_va(150, 0), 4 * PG, false);
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dgp.mm->pins_live, 68);
	assert_int_equal(dg_user_work_pending(), 0);
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(80, 0), 64 * PG), 0);
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(150, 0), PG), 0);
	/* the callback only marked them and queued one reap for the cache */
	assert_int_equal(dg_user_work_pending(), 1);
	assert_int_equal(dgp.mm->pins_live, 68);
	assert_int_equal(dg_user_run_work(), 1);
	assert_int_equal(dgp.mm->pins_live, 0);
	assert_int_equal(dgp.mm->pinned_vm, 0);
	assert_int_equal(dgp_stats().entries, 0);
	assert_int_equal(dgp_stats().pinned_bytes, 0);
}

/*
 * The last put of an entry invalidated while in use, from an interrupt (an
 * I/O completion): a put may not sleep, and releasing may (removing the
 * notifier waits for the invalidations running in the mm, unpinning locks
 * pages), so the put hands the entry to the deferred reap.
 */
static void last_put_in_interrupt(void **state)
{
	struct dg_pin_handle h;

	h = dgp_get(dgp_va(30, 0), 2 * PG, true);
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(30, 0), 2 * PG), 0);
	assert_int_equal(dg_user_work_pending(), 0);	/* held: not dead */
	dg_user_in_irq = true;
	assert_int_equal(dg_pin_put(dgp.c, &h), 0);
	dg_user_in_irq = false;
	assert_int_equal(dgp.mm->pins_live, 2);
	assert_int_equal(dg_user_work_pending(), 1);
	assert_int_equal(dg_user_run_work(), 1);
	assert_int_equal(dgp.mm->pins_live, 0);
	assert_int_equal(dgp.mm->pinned_vm, 0);
	assert_int_equal(dgp_stats().entries, 0);
}

/* A reap still queued when the cache is destroyed: the reap frees it. */
static void reap_outlives_destroy(void **state)
{
	struct dg_pin_handle h;

	h = dgp_get(dgp_va(80, 0), 4 * PG, false);
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(80, 0), PG), 0);
	assert_int_equal(dg_user_work_pending(), 1);
	assert_int_equal(dg_pin_cache_destroy(dgp.c), 0);
	dgp.c = NULL;
	assert_int_equal(dgp.mm->pins_live, 0);	/* destroy released it */
	assert_int_not_equal(dg_user_count.meta_live, dgp.meta_base);
	assert_int_equal(dg_user_run_work(), 1);	/* frees the cache */
	assert_int_equal(dg_user_count.meta_live, dgp.meta_base);
}

/*
 * A tagged pointer (arm64 TBI and MTE, x86 LAM): the pin and every
 * invalidation see the untagged address (the simulated mm untags as GUP
 * does), so the cache must key its entry by it too, or a remap never
 * reaches the entry and a get keeps serving the old pages.
 */
static void tagged_pointer(void **state)
{
	unsigned long tag = 0x5aul << 56;
	struct dg_pin_handle h;

	h = dgp_get(dgp_va(40, 0) | tag, 2 * PG, false);
	dgp_assert_current(&h, dgp_va(40, 0));
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dg_user_mm_map(dgp.mm, dgp_va(40, 0), 2 * PG, DG_PROT_RW), 0);
	assert_int_equal(dgp_stats().invalidations, 1);
	dgp_stamp(40, 2, 9);
	h = dgp_get(dgp_va(40, 0) | tag, 2 * PG, false);	/* a miss */
	assert_int_equal(dgp_stats().misses, 2);
	dgp_assert_current(&h, dgp_va(40, 0));
	dg_pin_put(dgp.c, &h);
	/* the same range, untagged and with another tag: one entry */
	h = dgp_get(dgp_va(40, 0), 2 * PG, false);
	dg_pin_put(dgp.c, &h);
	h = dgp_get(dgp_va(40, 0) | 0x21ul << 56, 2 * PG, false);
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dgp_stats().misses, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		DGP_TEST(remap_unused),
		DGP_TEST(unmap_while_held),
		DGP_TEST(remap_while_held),
		DGP_TEST(dontneed),
		DGP_TEST(numa_and_fork_keep),
		DGP_TEST(mprotect_both_ways),
		DGP_TEST(mprotect_while_held),
		DGP_TEST(recheck_races_unmap),
		DGP_TEST(unrelated_change),
		DGP_TEST(race_with_miss),
		DGP_TEST(race_gives_up),
		DGP_TEST(munmap_releases_without_calls),
		DGP_TEST(last_put_in_interrupt),
		DGP_TEST(reap_outlives_destroy),
		DGP_TEST(tagged_pointer),
	};

	return cmocka_run_group_tests_name("pin_invalidate", tests, NULL, NULL);
}
