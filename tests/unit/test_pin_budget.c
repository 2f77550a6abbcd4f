// SPDX-License-Identifier: GPL-2.0
/*
 * Pin cache budgets: least recently put entries go first when a byte or
 * an entry budget would be exceeded; entries in use are never evicted
 * (-ENOSPC when they alone fill a budget); a range larger than the byte
 * budget is -E2BIG; the locked-memory limit gives -ENOMEM with nothing
 * pinned or charged, and counts the evicted entries' pins as given back;
 * a range is charged before its page array is allocated, and one over
 * 1 GiB is refused before anything is.
 */
#include "dg_pin_test.h"
#include "pincache_internal.h"

static u64 get_put(unsigned long page, unsigned long n)
{
	struct dg_pin_handle h = dgp_get(dgp_va(page, 0), n * PG, false);
	u64 e = h.cookie;

	dg_pin_put(dgp.c, &h);
	return e;
}

static bool cached(unsigned long page, unsigned long n)
{
	return dgp_pins(page) > 0 && dgp_pins(page + n - 1) > 0;
}

static void lru_by_entries(void **state)
{
	struct dg_pin_handle h;

	dgp_recreate(0, 3, NULL);
	get_put(0, 1);
	get_put(10, 1);
	get_put(20, 1);
	h = dgp_get(dgp_va(0, 0), PG, false);	/* 0 is the most recent now */
	dg_pin_put(dgp.c, &h);
	get_put(30, 1);				/* evicts 10, the oldest */
	assert_false(cached(10, 1));
	assert_true(cached(0, 1) && cached(20, 1) && cached(30, 1));
	get_put(40, 1);				/* then 20 */
	assert_false(cached(20, 1));
	assert_int_equal(dgp_stats().evictions, 2);
	assert_int_equal(dgp_stats().entries, 3);
}

static void lru_by_bytes(void **state)
{
	dgp_recreate(8 * PG, 0, NULL);
	get_put(0, 4);
	get_put(10, 2);
	get_put(20, 2);				/* full: 8 pages */
	assert_int_equal(dgp.mm->pinned_vm, 8);
	get_put(30, 3);				/* evicts 0..3 (oldest) only */
	assert_false(cached(0, 4));
	assert_true(cached(10, 2) && cached(20, 2) && cached(30, 3));
	get_put(40, 6);				/* evicts 10, 20 and 30 */
	assert_false(cached(10, 2) || cached(20, 2) || cached(30, 3));
	assert_int_equal(dgp_stats().pinned_bytes, 6 * PG);
	assert_int_equal(dgp.mm->pinned_vm, 6);
	assert_int_equal(dgp_stats().evictions, 4);
}

static void in_use_never_evicted(void **state)
{
	struct dg_pin_handle a, b, c;
	unsigned int scanned;

	dgp_recreate(4 * PG, 2, NULL);
	a = dgp_get(dgp_va(0, 0), 2 * PG, false);
	b = dgp_get(dgp_va(10, 0), 2 * PG, false);
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(20, 0), PG, false, &c),
			 -ENOSPC);
	assert_true(cached(0, 2) && cached(10, 2));
	assert_int_equal(dgp_pins(20), 0);
	assert_int_equal(dg_pin_cache_evict(dgp.c, 100, &scanned), 0);
	dg_pin_put(dgp.c, &a);
	c = dgp_get(dgp_va(20, 0), PG, false);	/* now a can go */
	assert_false(cached(0, 2));
	assert_true(cached(10, 2));
	dg_pin_put(dgp.c, &b);
	dg_pin_put(dgp.c, &c);
}

/*
 * Hits mark an entry instead of moving it (they take no lock): the scan
 * gives a marked entry one more pass at the head, then evicts it like any
 * other, and passes over entries in use without losing their place.
 */
static void second_chance(void **state)
{
	struct dg_pin_handle h;

	dgp_recreate(0, 3, NULL);
	get_put(0, 1);
	get_put(10, 1);
	get_put(20, 1);				/* head 20 10 0 tail */
	h = dgp_get(dgp_va(0, 0), PG, false);	/* a hit marks 0 */
	dg_pin_put(dgp.c, &h);
	get_put(30, 1);				/* 0 to the head, 10 goes */
	assert_false(cached(10, 1));
	assert_true(cached(0, 1) && cached(20, 1) && cached(30, 1));
	h = dgp_get(dgp_va(20, 0), PG, false);	/* marks 20, held */
	get_put(40, 1);				/* 20 to the head; 0, mark spent */
	assert_false(cached(0, 1));
	get_put(50, 1);				/* 30, never hit */
	assert_false(cached(30, 1));
	get_put(60, 1);				/* 20 in use: passed over; 40 */
	assert_false(cached(40, 1));
	assert_true(cached(20, 1) && cached(50, 1) && cached(60, 1));
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dgp_stats().evictions, 4);
}

static void larger_than_budget(void **state)
{
	struct dg_pin_handle h;

	dgp_recreate(4 * PG, 0, NULL);
	get_put(0, 1);
	/* 4 bytes over 2 pages: 2 pages fit; 4 pages + 1 byte does not */
	h = dgp_get(dgp_va(10, PG - 2), 4, false);
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(20, 0), 4 * PG + 1, false, &h),
			 -E2BIG);
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(20, 1), 4 * PG, false, &h),
			 -E2BIG);
	assert_int_equal(dgp_pins(20), 0);
	assert_true(cached(0, 1));		/* nothing evicted for it */
	assert_int_equal(dgp_stats().evictions, 0);
}

static void memlock_limit(void **state)
{
	struct dg_pin_handle a, h;

	dgp.mm->pinned_limit = 6;
	a = dgp_get(dgp_va(0, 0), 4 * PG, false);
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(10, 0), 3 * PG, true, &h),
			 -ENOMEM);
	assert_int_equal(dgp.mm->pinned_vm, 4);
	assert_int_equal(dgp.mm->pins_live, 4);
	assert_int_equal(dgp.mm->notifiers_live, 1);
	assert_int_equal(dgp_stats().entries, 1);
	assert_int_equal(dgp_stats().pinned_bytes, 4 * PG);
	dg_pin_put(dgp.c, &a);
	/* unused now, but cached: a refused charge evicts it, then passes */
	h = dgp_get(dgp_va(10, 0), 3 * PG, true);
	assert_int_equal(dgp.mm->pinned_vm, 3);
	assert_int_equal(dgp_stats().evictions, 1);
	assert_false(cached(0, 4));
	dg_pin_put(dgp.c, &h);
	dgp.mm->pinned_limit = -1;
}

/*
 * A user picks the length, so nothing is allocated for a range before it
 * is charged: under a locked-memory limit of 0 a 200-page get never
 * reaches its page array (the allocation after the entry's), and a range
 * over DG_PIN_MAX_BYTES is refused before any allocation, budget or not.
 */
static void charge_before_allocation(void **state)
{
	struct dg_pin_handle h;

	dgp.mm->pinned_limit = 0;
	dg_user_fail_nth_alloc(2);
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(0, 0), 200 * PG, false, &h),
			 -ENOMEM);
	assert_false(dg_user_fail_reached());
	dgp.mm->pinned_limit = -1;
	dg_user_fail_nth_alloc(1);
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(0, 0), DG_PIN_MAX_BYTES + PG,
				    false, &h), -E2BIG);
	assert_false(dg_user_fail_reached());
	dg_user_fail_nth_alloc(0);
	assert_int_equal(dgp.mm->pinned_vm, 0);
	assert_int_equal(dgp_stats().entries, 0);
}

/*
 * The cache's own idle pins never fail a get for the limit: cycling 16
 * one-page buffers under a limit of 8 pages, every get succeeds (a refused
 * charge evicts the least recently used idle entries and is tried again),
 * and the pins never pass the limit.
 */
static void limit_evicts_idle(void **state)
{
	struct dg_pin_handle a, h;
	int round, i;

	dgp.mm->pinned_limit = 8;
	for (round = 0; round < 3; round++)
		for (i = 0; i < 16; i++) {
			assert_int_equal(dg_pin_get(dgp.c, dgp_va(i * 2, 0), PG,
						    false, &h), 0);
			assert_true(dgp.mm->pinned_vm <= 8);
			dg_pin_put(dgp.c, &h);
		}
	assert_true(dgp_stats().evictions >= 3 * 16 - 8);
	/* Entries in use are never evicted: then the limit refuses. */
	dgp_recreate(0, 0, NULL);
	dgp.mm->pinned_limit = 1;
	a = dgp_get(dgp_va(0, 0), PG, false);
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(2, 0), PG, false, &h),
			 -ENOMEM);
	dg_pin_put(dgp.c, &a);
	dgp.mm->pinned_limit = -1;
}

/* Under a byte budget, eviction comes before the charge: no -ENOMEM. */
static void evict_before_charge(void **state)
{
	dgp_recreate(4 * PG, 0, NULL);
	dgp.mm->pinned_limit = 4;
	get_put(0, 4);
	get_put(10, 4);
	assert_false(cached(0, 4));
	assert_int_equal(dgp.mm->pinned_vm, 4);
	dgp.mm->pinned_limit = -1;
}

/*
 * What the kernel's shrinker does: count the live entries (in use ones
 * too, as list_lru counts its objects), evict the oldest idle ones,
 * passing over those in use.
 */
static void evict_call(void **state)
{
	struct dg_pin_handle h;
	unsigned int scanned;

	get_put(0, 1);
	get_put(10, 1);
	get_put(20, 1);
	h = dgp_get(dgp_va(30, 0), PG, false);		/* in use */
	assert_int_equal(dg_pin_cache_nr_live(dgp.c), 4);
	assert_true(dg_pin_cache_tryget(dgp.c));
	assert_int_equal(dg_pin_cache_evict(dgp.c, 2, &scanned), 2);
	assert_int_equal(scanned, 2);
	dg_pin_cache_put(dgp.c);
	assert_int_equal(dg_pin_cache_nr_live(dgp.c), 2);
	/* unlinked now, released by the deferred reap */
	assert_true(cached(0, 1));
	assert_int_equal(dg_user_run_work(), 1);
	assert_false(cached(0, 1) || cached(10, 1));
	assert_true(cached(20, 1));
	/* 20 evicted; 30, in use, passed over (twice: each at most) */
	assert_int_equal(dg_pin_cache_evict(dgp.c, 8, &scanned), 1);
	assert_int_equal(scanned, 4);
	assert_int_equal(dg_pin_cache_nr_live(dgp.c), 1);
	dg_user_run_work();
	assert_int_equal(dgp.mm->pins_live, 1);
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dg_pin_cache_nr_live(dgp.c), 1);
}

/*
 * Idle pins keep their pages unmovable, so unused entries age out: one
 * found idle (no handle, no hit since) at two aging passes in a row goes
 * to the reap; a hit or a handle between the passes keeps an entry; a
 * cache with no live entry queues no aging.
 */
static void idle_entries_age_out(void **state)
{
	struct dg_pin_handle a, b, c, h;

	a = dgp_get(dgp_va(0, 0), 2 * PG, false);
	dg_pin_put(dgp.c, &a);
	b = dgp_get(dgp_va(4, 0), 2 * PG, false);
	dg_pin_put(dgp.c, &b);
	c = dgp_get(dgp_va(8, 0), 2 * PG, true);	/* held for a while */
	assert_int_equal(dg_user_run_aging(), 1);	/* a, b idle once */
	h = dgp_get(dgp_va(4, 0), 2 * PG, false);	/* b is hit */
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dgp_stats().hits, 1);
	assert_int_equal(dg_user_run_aging(), 1);	/* a idle twice: goes */
	assert_int_equal(dg_user_run_work(), 1);
	assert_int_equal(dgp_pins(0), 0);
	assert_int_equal(dgp_pins(4), 1);
	assert_int_equal(dgp_pins(8), 1);
	assert_int_equal(dg_user_run_aging(), 1);	/* b idle once */
	assert_int_equal(dg_user_run_aging(), 1);	/* b goes, c held */
	assert_int_equal(dg_user_run_work(), 1);
	assert_int_equal(dgp_pins(4), 0);
	assert_int_equal(dgp_pins(8), 1);
	dg_pin_put(dgp.c, &c);
	assert_int_equal(dg_user_run_aging(), 1);	/* c idle once */
	assert_int_equal(dgp_pins(8), 1);
	assert_int_equal(dg_user_run_aging(), 1);	/* c goes */
	assert_int_equal(dg_user_run_work(), 1);
	assert_int_equal(dgp_stats().entries, 0);
	assert_int_equal(dgp.mm->pinned_vm, 0);
	assert_int_equal(dg_user_run_aging(), 0);	/* none queued now */
	/* a new entry queues it again */
	a = dgp_get(dgp_va(0, 0), PG, false);
	dg_pin_put(dgp.c, &a);
	assert_int_equal(dg_user_run_aging(), 1);
}

/*
 * The cache lock is held for the entries the caller asked to look at,
 * not for a pass over the list per victim: with every entry hit since
 * the scan last passed (a second chance each), an eviction told to look
 * at 4 entries clears the marks of 4 and evicts none (it used to clear
 * all 32 and evict 4, a pass over the whole list under the lock for each
 * victim). A later eviction with the budget of two passes evicts all.
 */
static void evict_bounded_scan(void **state)
{
	unsigned int i, scanned, marked = 0;
	struct dg_pin_entry *e;

	for (i = 0; i < 32; i++) {
		get_put(i * 2, 1);
		get_put(i * 2, 1);	/* a hit: referenced */
	}
	assert_int_equal(dg_pin_cache_nr_live(dgp.c), 32);
	assert_int_equal(dg_pin_cache_evict(dgp.c, 4, &scanned), 0);
	assert_int_equal(scanned, 4);
	list_for_each_entry(e, &dgp.c->lru, lru)
		marked += e->referenced;
	assert_int_equal(marked, 28);
	assert_int_equal(dg_pin_cache_evict(dgp.c, 64, &scanned), 32);
	assert_int_equal(scanned, 60);
	assert_int_equal(dg_pin_cache_nr_live(dgp.c), 0);
	dg_user_run_work();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		DGP_TEST(idle_entries_age_out),
		DGP_TEST(lru_by_entries),
		DGP_TEST(lru_by_bytes),
		DGP_TEST(in_use_never_evicted),
		DGP_TEST(second_chance),
		DGP_TEST(larger_than_budget),
		DGP_TEST(memlock_limit),
		DGP_TEST(charge_before_allocation),
		DGP_TEST(limit_evicts_idle),
		DGP_TEST(evict_before_charge),
		DGP_TEST(evict_call),
		DGP_TEST(evict_bounded_scan),
	};

	return cmocka_run_group_tests_name("pin_budget", tests, NULL, NULL);
}
