/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the unit tests of the pin cache (cmocka): every test
 * runs against a fresh simulated mm (dg_user_mm.h) of DGP_PAGES pages, all
 * mapped read-write and stamped, and a cache over it; the teardown checks
 * that every pin, charge, mapping, notifier and bookkeeping allocation
 * was given back. Checks are made through the simulated mm (frames, pin
 * counts, pinned_vm), never through the cache's internals.
 */
#ifndef _DMAGUARD_PIN_TEST_H
#define _DMAGUARD_PIN_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pincache.h"
#include "dg_user.h"
#include "dg_user_mm.h"

#define DGP_PAGES	256
#define PG		DG_PAGE_SIZE

struct dgp {
	struct dg_user_mm *mm;
	struct dg_pin_cache *c;
	long meta_base;
};

static struct dgp dgp;

/* The address of byte @off of page @page of the simulated mm. */
static inline unsigned long dgp_va(unsigned long page, unsigned long off)
{
	return dg_user_mm_addr(page) + off;
}

/* Stamp every page with its index and a generation, as the process would. */
static inline void dgp_stamp(unsigned long first, unsigned long n,
			     unsigned char gen)
{
	unsigned char b[2];
	unsigned long i;

	for (i = first; i < first + n; i++) {
		b[0] = (unsigned char)i;
		b[1] = gen;
		assert_int_equal(dg_user_mm_write(dgp.mm, dgp_va(i, 0), b, 2), 0);
	}
}

static inline struct dg_pin_cache *dgp_cache(u64 max_bytes, u32 max_entries,
					     void *dev)
{
	struct dg_pin_params p = {
		.mm = dgp.mm, .dev = dev, .max_bytes = max_bytes,
		.max_entries = max_entries, .node = DG_NO_NODE,
	};

	return dg_pin_cache_create(&p);
}

/* Replace the test's cache by one with these budgets and device. */
static inline void dgp_recreate(u64 max_bytes, u32 max_entries, void *dev)
{
	assert_int_equal(dg_pin_cache_destroy(dgp.c), 0);
	dg_user_run_work();
	dgp.c = dgp_cache(max_bytes, max_entries, dev);
	assert_non_null(dgp.c);
}

/* A mm of DGP_PAGES read-write pages (generation 1) and an unbounded cache. */
static inline int dgp_setup(void **state)
{
	(void)state;
	dg_user_fail_nth_alloc(0);
	dg_user_verbose = getenv("DG_VERBOSE") != NULL;
	dgp.meta_base = dg_user_count.meta_live;
	dgp.mm = dg_user_mm_create(DGP_PAGES);
	assert_non_null(dgp.mm);
	assert_int_equal(dg_user_mm_map(dgp.mm, dgp_va(0, 0), DGP_PAGES * PG,
					DG_PROT_RW), 0);
	dgp_stamp(0, DGP_PAGES, 1);
	dgp.c = dgp_cache(0, 0, NULL);
	assert_non_null(dgp.c);
	return 0;
}

/* Destroy what is left; nothing may stay pinned, charged or allocated. */
static inline int dgp_teardown(void **state)
{
	(void)state;
	dg_user_fail_nth_alloc(0);
	if (dgp.c) {
#ifdef DG_DEBUG
		dg_pin_cache_check(dgp.c);
#endif
		assert_int_equal(dg_pin_cache_destroy(dgp.c), 0);
	}
	dgp.c = NULL;
	/* a test's hook that never ran must not run in the next test */
	dg_user_xchg_hook = NULL;
	/* a reap queued by the test's last invalidations frees the cache */
	dg_user_run_work();
	assert_int_equal(dgp.mm->pins_live, 0);
	assert_int_equal(dgp.mm->pinned_vm, 0);
	assert_int_equal(dgp.mm->maps_live, 0);
	assert_int_equal(dgp.mm->notifiers_live, 0);
	assert_int_equal(dg_user_count.meta_live, dgp.meta_base);
	dg_user_mm_destroy(dgp.mm);	/* aborts on a leaked frame */
	dgp.mm = NULL;
	return 0;
}

static inline struct dg_pin_stats dgp_stats(void)
{
	struct dg_pin_stats st;

	dg_pin_get_stats(dgp.c, &st);
#ifdef DG_DEBUG
	dg_pin_cache_check(dgp.c);
#endif
	return st;
}

/* A get that must succeed; checks the handle's shape. */
static inline struct dg_pin_handle dgp_get(unsigned long addr, size_t len,
					   bool write)
{
	struct dg_pin_handle h;

	memset(&h, 0, sizeof(h));
	assert_int_equal(dg_pin_get(dgp.c, addr, len, write, &h), 0);
	assert_true(h.cookie != 0);
	assert_int_equal(h.offset, addr % PG);
	assert_int_equal(h.nr_pages, (addr % PG + len + PG - 1) / PG);
	return h;
}

/* The handle's pages are the frames mapped at @addr now. */
static inline void dgp_assert_current(const struct dg_pin_handle *h,
				      unsigned long addr)
{
	unsigned long i, va = addr - addr % PG;

	for (i = 0; i < h->nr_pages; i++)
		assert_ptr_equal(h->pages[i], dg_user_mm_frame(dgp.mm, va + i * PG));
}

/* Page i of the handle holds the stamp (index, generation). */
static inline void dgp_assert_stamp(const struct dg_pin_handle *h,
				    unsigned long first, unsigned char gen)
{
	unsigned long i;

	for (i = 0; i < h->nr_pages; i++) {
		const struct dg_user_frame *f = h->pages[i];

		assert_int_equal(f->data[0], (unsigned char)(first + i));
		assert_int_equal(f->data[1], gen);
	}
}

static inline long dgp_pins(unsigned long page)
{
	return dg_user_mm_frame(dgp.mm, dgp_va(page, 0))->pins;
}

#define DGP_TEST(fn)	cmocka_unit_test_setup_teardown(fn, dgp_setup, dgp_teardown)

#endif /* _DMAGUARD_PIN_TEST_H */
