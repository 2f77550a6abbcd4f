// SPDX-License-Identifier: GPL-2.0
/*
 * The exported functions of <dmaguard/dmaguard.h>, called the way a C
 * driver calls them, against libdmaguard-san.a: the kernel's own
 * exported-interface files (abi/shim/pool_abi.c, pin_abi.c) built for
 * userspace, under ASan+UBSan (LeakSanitizer included).
 *
 * Cases: what only raw C callers can do (NULL arguments, error pointers,
 * too small and too large structs, a destroy with a handle still held and
 * the put that then frees the cache, managed pools and their device's
 * resources), plus one normal round of each service; the Rust crates (bindings/) test the rest through the safe
 * layer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include <dmaguard/dmaguard.h>
#include <linux/err.h>
/* The userspace shims: dg_user_dev, dg_user_set_current_mm(). */
#include <linux/device.h>
#include <linux/sched.h>
#include "dg_user.h"
#include "dg_user_mm.h"

static void version(void **state)
{
	assert_int_equal(dmaguard_version(), DMAGUARD_VERSION);
}

static void pool_refusals(void **state)
{
	DMAGUARD_OPTS(dmaguard_pool_opts, o, .name = "t", .size = 8);
	DMAGUARD_OPTS(dmaguard_pool_stats, st);
	struct dmaguard_pool *p;
	unsigned char *big;

	assert_null(dmaguard_pool_create("t", NULL, 8, 0, 0));
	assert_null(dmaguard_pool_create("t", &dg_user_dev, 0, 0, 0));
	assert_null(dmaguard_pool_create_node("t", &dg_user_dev, 8, 0, 0, 1));
	assert_ptr_equal(dmaguard_pool_create_opts(&dg_user_dev, NULL),
			 ERR_PTR(-EINVAL));
	assert_ptr_equal(dmaguard_pool_create_opts(NULL, &o), ERR_PTR(-EINVAL));
	o.sz = DMAGUARD_POOL_OPTS_SIZE_VER0 - 8;
	assert_ptr_equal(dmaguard_pool_create_opts(&dg_user_dev, &o),
			 ERR_PTR(-EINVAL));
	o.sz = sizeof(o);
	o.__reserved0 = 1;
	assert_ptr_equal(dmaguard_pool_create_opts(&dg_user_dev, &o),
			 ERR_PTR(-EINVAL));
	o.__reserved0 = 0;

	/* A newer caller: accepted with a zero tail, -E2BIG otherwise. */
	big = calloc(1, sizeof(o) + 8);
	assert_non_null(big);
	memcpy(big, &o, sizeof(o));
	((struct dmaguard_pool_opts *)big)->sz = sizeof(o) + 8;
	p = dmaguard_pool_create_opts(&dg_user_dev, (void *)big);
	assert_false(IS_ERR_OR_NULL(p));
	dmaguard_pool_destroy(p);
	big[sizeof(o) + 3] = 1;
	assert_ptr_equal(dmaguard_pool_create_opts(&dg_user_dev, (void *)big),
			 ERR_PTR(-E2BIG));
	free(big);

	p = dmaguard_pool_create_opts(&dg_user_dev, &o);
	assert_false(IS_ERR_OR_NULL(p));
	assert_int_equal(dmaguard_pool_get_stats(NULL, &st), -EINVAL);
	assert_int_equal(dmaguard_pool_get_stats(p, NULL), -EINVAL);
	st.sz = DMAGUARD_POOL_STATS_SIZE_VER0 - 4;
	assert_int_equal(dmaguard_pool_get_stats(p, &st), -EINVAL);
	dmaguard_pool_destroy(p);
	dmaguard_pool_destroy(NULL);
}

static void pool_round(void **state)
{
	struct dmaguard_pool *p = dmaguard_pool_create("round", &dg_user_dev,
						       24, 8, 64);
	DMAGUARD_OPTS(dmaguard_pool_stats, st);
	dma_addr_t h1, h2;
	void *a, *b;

	assert_non_null(p);
	a = dmaguard_pool_alloc(p, GFP_KERNEL, &h1);
	b = dmaguard_pool_alloc(p, GFP_ATOMIC, &h2);
	assert_non_null(a);
	assert_non_null(b);
	/* The handle is the bus address of the block (the simulated IOMMU). */
	assert_int_equal(dg_user_bus_of(a), h1);
	assert_int_equal(dg_user_bus_of(b), h2);
	dmaguard_pool_free(p, a, h2);		/* wrong handle: refused */
	dmaguard_pool_free(p, a, h1);
	dmaguard_pool_free(p, a, h1);		/* double */
	dmaguard_pool_free(p, &st, 0);		/* foreign */
	assert_int_equal(dmaguard_pool_get_stats(p, &st), 0);
	assert_int_equal(st.blocks_in_use, 1);
	assert_int_equal(st.bad_free_dma, 1);
	assert_int_equal(st.bad_free_double, 1);
	assert_int_equal(st.bad_free_foreign, 1);
	dmaguard_pool_free(p, b, h2);
	dmaguard_pool_destroy(p);
}

/*
 * dmaguard_pool_zalloc() (a function since v1.3): blocks that held a
 * pattern come back zeroed. The pool gains no chunk for the second round,
 * so every zeroed block is one that was dirty. The barriers link and run.
 */
static void pool_zalloc(void **state)
{
	struct dmaguard_pool *p = dmaguard_pool_create("zalloc", &dg_user_dev,
						       64, 0, 0);
	DMAGUARD_OPTS(dmaguard_pool_stats, st);
	unsigned char *blk[32];
	dma_addr_t dma[32];
	u64 total;
	int i, j;

	assert_non_null(p);
	for (i = 0; i < 32; i++) {
		blk[i] = dmaguard_pool_alloc(p, GFP_KERNEL, &dma[i]);
		assert_non_null(blk[i]);
		memset(blk[i], 0xa5, 64);
	}
	dmaguard_dma_wmb();
	for (i = 0; i < 32; i++)
		dmaguard_pool_free(p, blk[i], dma[i]);
	assert_int_equal(dmaguard_pool_get_stats(p, &st), 0);
	total = st.blocks_total;
	for (i = 0; i < 32; i++) {
		blk[i] = dmaguard_pool_zalloc(p, GFP_KERNEL, &dma[i]);
		assert_non_null(blk[i]);
	}
	dmaguard_dma_rmb();
	for (i = 0; i < 32; i++)
		for (j = 0; j < 64; j++)
			assert_int_equal(blk[i][j], 0);
	assert_int_equal(dmaguard_pool_get_stats(p, &st), 0);
	assert_int_equal(st.blocks_total, total);
	for (i = 0; i < 32; i++)
		dmaguard_pool_free(p, blk[i], dma[i]);
	dmaguard_pool_destroy(p);
}

/*
 * Managed pools (v1.2): destroyed with the device's resources, or by
 * dmaguard_pool_destroy_managed(), which refuses a pool not created
 * managed; LeakSanitizer sees a pool that neither destroyed.
 */
static void pool_managed(void **state)
{
	struct device dev = { .numa_node = DG_NO_NODE };
	struct dmaguard_pool *m, *m2, *plain;
	unsigned long errs;
	dma_addr_t dma;
	void *b;

	assert_null(dmaguard_pool_create_managed("t", NULL, 8, 0, 0));
	assert_null(dmaguard_pool_create_managed("t", &dev, 0, 0, 0));
	assert_null(dev.devres);	/* a refused create adds nothing */

	m = dmaguard_pool_create_managed("m", &dev, 64, 64, 0);
	m2 = dmaguard_pool_create_managed("m2", &dev, 32, 0, 0);
	plain = dmaguard_pool_create("plain", &dev, 64, 0, 0);
	assert_non_null(m);
	assert_non_null(m2);
	assert_non_null(plain);
	b = dmaguard_pool_alloc(m, GFP_KERNEL, &dma);
	assert_non_null(b);
	dmaguard_pool_free(m, b, dma);

	/* not managed: reported once, left alone, still usable */
	errs = dg_user_reports_err;
	dmaguard_pool_destroy_managed(plain);
	assert_int_equal(dg_user_reports_err, errs + 1);
	b = dmaguard_pool_alloc(plain, GFP_KERNEL, &dma);
	assert_non_null(b);
	dmaguard_pool_free(plain, b, dma);
	dmaguard_pool_destroy(plain);

	/* early destroy: gone from the resources; then the unbind */
	dmaguard_pool_destroy_managed(m2);
	dmaguard_pool_destroy_managed(NULL);
	assert_int_equal(dg_user_reports_err, errs + 1);
	assert_non_null(dev.devres);	/* m's: m2 there too would be a double destroy */
	dg_user_devres_release_all(&dev);
	assert_null(dev.devres);
}

static void pin_refusals(void **state)
{
	DMAGUARD_OPTS(dmaguard_pin_opts, o);
	DMAGUARD_OPTS(dmaguard_pin, pin);
	DMAGUARD_OPTS(dmaguard_pin_stats, st);
	struct dg_user_mm *mm = dg_user_mm_create(4);
	struct dmaguard_pin_cache *c;
	unsigned long errs;

	assert_non_null(mm);
	dg_user_set_current_mm(NULL);
	assert_ptr_equal(dmaguard_pin_cache_create(NULL, &o), ERR_PTR(-EINVAL));
	dg_user_set_current_mm(mm);
	assert_ptr_equal(dmaguard_pin_cache_create(NULL, NULL), ERR_PTR(-EINVAL));
	o.flags = 2;
	assert_ptr_equal(dmaguard_pin_cache_create(NULL, &o), ERR_PTR(-EINVAL));
	o.flags = 0;
	c = dmaguard_pin_cache_create(NULL, &o);
	assert_false(IS_ERR_OR_NULL(c));
	assert_int_equal(dg_user_mm_map(mm, dg_user_mm_addr(0), 4096, DG_PROT_RW), 0);

	assert_int_equal(dmaguard_pin_get(NULL, dg_user_mm_addr(0), 1, false, &pin), -EINVAL);
	assert_int_equal(dmaguard_pin_get(c, dg_user_mm_addr(0), 1, false, NULL), -EINVAL);
	pin.sz = DMAGUARD_PIN_SIZE_VER0 - 8;
	assert_int_equal(dmaguard_pin_get(c, dg_user_mm_addr(0), 1, false, &pin), -EINVAL);
	pin.sz = sizeof(pin);
	assert_int_equal(dmaguard_pin_get(c, 0xffff888000000000ul, 1, false, &pin), -EFAULT);
	assert_int_equal(dmaguard_pin_get(c, ~0ul - 8, 64, false, &pin), -EOVERFLOW);
	/* Puts of nothing are no-ops. */
	errs = dg_user_reports_err;
	dmaguard_pin_put(NULL, &pin);
	dmaguard_pin_put(c, &pin);
	assert_int_equal(dg_user_reports_err, errs);
	/* A handle too small for any version was never filled: refused. */
	pin.sz = DMAGUARD_PIN_SIZE_VER0 - 8;
	dmaguard_pin_put(c, &pin);
	assert_int_equal(dg_user_reports_err, errs + 1);
	pin.sz = sizeof(pin);
	assert_int_equal(dmaguard_pin_cache_stats(c, &st), 0);
	assert_int_equal(st.bad_puts, 1);
	assert_int_equal(dmaguard_pin_cache_stats(NULL, &st), -EINVAL);
	assert_int_equal(dmaguard_pin_cache_stats(c, NULL), -EINVAL);
	assert_int_equal(dmaguard_pin_cache_stats(c, &st), 0);
	assert_int_equal(st.handles, 0);
	assert_int_equal(dmaguard_pin_cache_destroy(c), 0);
	assert_int_equal(dmaguard_pin_cache_destroy(NULL), 0);
	dg_user_set_current_mm(NULL);
	dg_user_mm_destroy(mm);
}

/* A destroy with a handle held: the last put frees the cache (ASan). */
static void pin_destroy_held(void **state)
{
	DMAGUARD_OPTS(dmaguard_pin_opts, o);
	DMAGUARD_OPTS(dmaguard_pin, pin);
	struct dg_user_mm *mm = dg_user_mm_create(2);
	struct dmaguard_pin_cache *c;
	struct dg_user_frame *f;

	assert_non_null(mm);
	dg_user_set_current_mm(mm);
	assert_int_equal(dg_user_mm_map(mm, dg_user_mm_addr(0), 8192, DG_PROT_RW), 0);
	c = dmaguard_pin_cache_create(&dg_user_dev, &o);
	assert_false(IS_ERR_OR_NULL(c));
	assert_int_equal(dmaguard_pin_get(c, dg_user_mm_addr(0) + 5, 4096, true, &pin), 0);
	assert_int_equal(pin.nr_pages, 2);
	assert_int_equal(pin.offset, 5);
	assert_non_null(pin.sgt);
	f = dg_user_mm_frame(mm, dg_user_mm_addr(0));
	assert_ptr_equal(pin.pages[0], f);
	assert_int_equal(f->pins, 1);
	assert_int_equal(dmaguard_pin_cache_destroy(c), 1);
	assert_int_equal(f->pins, 1);		/* held: still pinned */
	dmaguard_pin_put(c, &pin);
	assert_int_equal(f->pins, 1);		/* the put never releases */
	assert_int_equal(dg_user_run_work(), 1);	/* entry and cache */
	assert_int_equal(mm->pins_live, 0);
	assert_int_equal(mm->maps_live, 0);
	dg_user_set_current_mm(NULL);
	dg_user_mm_destroy(mm);			/* aborts on any leak */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(version),
		cmocka_unit_test(pool_refusals),
		cmocka_unit_test(pool_round),
		cmocka_unit_test(pool_zalloc),
		cmocka_unit_test(pool_managed),
		cmocka_unit_test(pin_refusals),
		cmocka_unit_test(pin_destroy_held),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
