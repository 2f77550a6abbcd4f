// SPDX-License-Identifier: GPL-2.0
/*
 * Pin cache destroy: everything unused is released at once, stale or
 * not; entries still held stay pinned and mapped until their last put,
 * which releases them, and the put of the very last handle frees the
 * cache itself. The teardown checks that nothing is left.
 */
#include "dg_pin_test.h"

static void destroy_releases_all(void **state)
{
	struct dg_pin_handle h;

	h = dgp_get(dgp_va(0, 0), 4 * PG, true);
	dg_pin_put(dgp.c, &h);
	h = dgp_get(dgp_va(10, 0), 2 * PG, false);
	dg_pin_put(dgp.c, &h);
	h = dgp_get(dgp_va(20, 0), 2 * PG, false);
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(20, 0), PG), 0);
	assert_int_equal(dgp.mm->pins_live, 8);
	assert_int_equal(dg_pin_cache_destroy(dgp.c), 0);
	dgp.c = NULL;
	assert_int_equal(dgp.mm->pins_live, 0);
	assert_int_equal(dgp.mm->pinned_vm, 0);
}

static void destroy_with_handles(void **state)
{
	unsigned long errs = dg_user_reports_err;
	struct dg_pin_handle a, b, c;
	struct dg_user_frame *f;
	int dev;

	dgp_recreate(0, 0, &dev);
	a = dgp_get(dgp_va(0, 0), 4 * PG, true);
	b = dgp_get(dgp_va(1, 0), PG, false);
	c = dgp_get(dgp_va(30, 0), PG, false);
	dg_pin_put(dgp.c, &c);			/* unused: released by destroy */
	f = a.pages[0];

	assert_int_equal(dg_pin_cache_destroy(dgp.c), 2);
	assert_int_equal(dg_user_reports_err, errs + 1);
	assert_int_equal(dgp_pins(30), 0);
	assert_int_equal(f->pins, 1);		/* in-flight DMA still safe */
	assert_int_equal(dgp.mm->maps_live, 1);
	assert_int_equal(dgp.mm->pinned_vm, 4);
	f->data[0] = 0x5a;
	/* the held entry still hears the notifier, harmlessly */
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(2, 0), PG), 0);
	dg_pin_put(dgp.c, &b);
	assert_int_equal(f->pins, 1);
	dg_pin_put(dgp.c, &a);
	assert_int_equal(f->pins, 1);		/* the put never releases */
	assert_int_equal(dg_user_run_work(), 1);	/* frees the cache */
	dgp.c = NULL;
	assert_int_equal(dgp.mm->pins_live, 0);
	assert_int_equal(dgp.mm->maps_live, 0);
	assert_int_equal(dgp.mm->pinned_vm, 0);
	assert_int_equal(dgp.mm->notifiers_live, 0);
}

static void destroy_empty(void **state)
{
	assert_int_equal(dg_pin_cache_destroy(dgp.c), 0);
	dgp.c = NULL;
}

/* What debugfs "pin_caches" reads, from a reader that found the cache. */
static void stats_reader(struct dg_pin_plat *plat)
{
	(void)plat;
	dg_user_pin_caches_handles();
}

/*
 * A statistics reader holding the registry's lock reads a cache while
 * its last put frees it (the reader found it just before it left the
 * registry): everything the statistics read must outlive the registry.
 * The hook plays that reader at the worst moment, every time; the
 * sanitizer reports any read of freed memory.
 */
static void stats_reader_meets_last_put(void **state)
{
	struct dg_pin_handle h;

	dg_pin_registry_add(dg_pin_cache_plat(dgp.c), dgp.c);
	h = dgp_get(dgp_va(1, 0), 2 * PG, false);
	assert_int_equal(dg_user_pin_caches_handles(), 1);
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dg_user_pin_caches_handles(), 0);
	dg_user_pin_fini_hook = stats_reader;
	assert_int_equal(dg_pin_cache_destroy(dgp.c), 0);
	dg_user_run_work();
	dg_user_pin_fini_hook = NULL;
	dgp.c = NULL;
	assert_int_equal(dg_user_pin_caches_handles(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		DGP_TEST(destroy_releases_all),
		DGP_TEST(destroy_with_handles),
		DGP_TEST(destroy_empty),
		DGP_TEST(stats_reader_meets_last_put),
	};

	return cmocka_run_group_tests_name("pin_destroy", tests, NULL, NULL);
}
