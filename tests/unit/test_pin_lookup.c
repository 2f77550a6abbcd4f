// SPDX-License-Identifier: GPL-2.0
/*
 * Pin cache lookups: a miss pins the page-aligned range once per page; a
 * get inside a cached range is a hit that pins nothing more; a write get
 * needs a writable entry; overlapping ranges that are not contained get
 * entries of their own; the returned pages hold the process's data; the
 * statistics count all of it.
 */
#include "dg_pin_test.h"

static void miss_then_hit(void **state)
{
	struct dg_pin_handle a, b;
	struct dg_pin_stats st;

	a = dgp_get(dgp_va(10, 100), 3 * PG, false);	/* pages 10..13 */
	assert_int_equal(a.nr_pages, 4);
	dgp_assert_current(&a, dgp_va(10, 100));
	dgp_assert_stamp(&a, 10, 1);
	assert_int_equal(dgp_pins(10), 1);
	assert_int_equal(dgp_pins(13), 1);
	assert_int_equal(dgp_pins(14), 0);
	assert_int_equal(dgp.mm->pinned_vm, 4);

	b = dgp_get(dgp_va(10, 100), 3 * PG, false);
	assert_int_equal(b.cookie, a.cookie);
	assert_int_equal(dgp_pins(10), 1);	/* no second pin */
	st = dgp_stats();
	assert_int_equal(st.hits, 1);
	assert_int_equal(st.misses, 1);
	assert_int_equal(st.entries, 1);
	assert_int_equal(st.handles, 2);
	assert_int_equal(st.pinned_bytes, 4 * PG);
	dg_pin_put(dgp.c, &a);
	dg_pin_put(dgp.c, &b);
	/* cached after the last put: still pinned */
	assert_int_equal(dgp_pins(10), 1);
	assert_int_equal(dgp_stats().handles, 0);
}

static void sub_range_hit(void **state)
{
	struct dg_pin_handle a, b, c;
	unsigned long pins_before;
	u64 e;

	a = dgp_get(dgp_va(20, 0), 16 * PG, true);	/* pages 20..35 */
	e = a.cookie;
	dg_pin_put(dgp.c, &a);
	assert_int_equal(a.cookie, 0);		/* put clears the handle */
	pins_before = dgp.mm->pin_calls;

	b = dgp_get(dgp_va(27, 5), 10, false);		/* inside page 27 */
	assert_int_equal(b.cookie, e);
	assert_int_equal(b.nr_pages, 1);
	assert_ptr_equal(b.pages[0], dg_user_mm_frame(dgp.mm, dgp_va(27, 0)));
	assert_int_equal(b.map_offset, 7 * PG + 5);
	dgp_assert_stamp(&b, 27, 1);

	c = dgp_get(dgp_va(34, PG - 1), PG + 1, true);	/* last two pages */
	assert_int_equal(c.cookie, e);
	assert_int_equal(c.nr_pages, 2);
	dgp_assert_current(&c, dgp_va(34, 0));
	assert_int_equal(dgp.mm->pin_calls, pins_before);	/* no pinning */
	assert_int_equal(dgp_stats().hits, 2);
	dg_pin_put(dgp.c, &b);
	dg_pin_put(dgp.c, &c);
}

static void write_needs_writable_entry(void **state)
{
	struct dg_pin_handle r, w, r2;

	r = dgp_get(dgp_va(40, 0), 2 * PG, false);
	w = dgp_get(dgp_va(40, 0), 2 * PG, true);	/* a miss */
	assert_int_not_equal(w.cookie, r.cookie);
	assert_int_equal(dgp_pins(40), 2);	/* one pin per page per entry */
	assert_int_equal(dgp_stats().misses, 2);
	r2 = dgp_get(dgp_va(40, 0), PG, false);	/* a read: either serves */
	assert_true(r2.cookie == r.cookie || r2.cookie == w.cookie);
	assert_int_equal(dgp_stats().hits, 1);
	dg_pin_put(dgp.c, &r);
	dg_pin_put(dgp.c, &w);
	dg_pin_put(dgp.c, &r2);
}

static void overlap_not_contained(void **state)
{
	struct dg_pin_handle a, b, c;

	a = dgp_get(dgp_va(50, 0), 4 * PG, false);	/* 50..53 */
	b = dgp_get(dgp_va(52, 0), 4 * PG, false);	/* 52..55: a miss */
	assert_int_not_equal(a.cookie, b.cookie);
	assert_int_equal(dgp_pins(52), 2);
	assert_int_equal(dgp_pins(50), 1);
	assert_int_equal(dgp_pins(55), 1);
	c = dgp_get(dgp_va(53, 0), 3 * PG, false);	/* inside b only */
	assert_int_equal(c.cookie, b.cookie);
	assert_int_equal(dgp_stats().entries, 2);
	dg_pin_put(dgp.c, &a);
	dg_pin_put(dgp.c, &b);
	dg_pin_put(dgp.c, &c);
}

/* A miss that covers unused entries replaces them: their pins go. */
static void covering_miss_drops_covered(void **state)
{
	struct dg_pin_handle a, b, held, big;

	a = dgp_get(dgp_va(60, 0), PG, false);
	b = dgp_get(dgp_va(62, 0), PG, true);
	held = dgp_get(dgp_va(64, 0), PG, false);
	dg_pin_put(dgp.c, &a);
	dg_pin_put(dgp.c, &b);
	big = dgp_get(dgp_va(60, 0), 8 * PG, false);	/* read-only */
	/* a dropped; b (writable) and held (in use) stay */
	assert_int_equal(dgp_pins(60), 1);
	assert_int_equal(dgp_pins(62), 2);
	assert_int_equal(dgp_pins(64), 2);
	assert_int_equal(dgp_stats().entries, 3);
	assert_int_equal(dgp_stats().evictions, 1);
	dg_pin_put(dgp.c, &held);
	dg_pin_put(dgp.c, &big);
}

/* The device's view: data the process wrote, and device writes it reads. */
static void contents_shared(void **state)
{
	struct dg_pin_handle h;
	char buf[8];

	assert_int_equal(dg_user_mm_write(dgp.mm, dgp_va(70, 300), "hello", 6), 0);
	h = dgp_get(dgp_va(70, 300), 6, true);
	assert_string_equal((char *)((struct dg_user_frame *)h.pages[0])->data +
			    h.offset, "hello");
	memcpy(((struct dg_user_frame *)h.pages[0])->data + h.offset, "DMA!", 5);
	assert_int_equal(dg_user_mm_read(dgp.mm, dgp_va(70, 300), buf, 5), 0);
	assert_string_equal(buf, "DMA!");
	dg_pin_put(dgp.c, &h);
}

/* A device-bound cache maps each entry once; hits share the mapping. */
static void mapped_for_device(void **state)
{
	struct dg_pin_handle a, b;
	struct dg_user_map *m;
	unsigned int scanned;
	int dev;

	dgp_recreate(0, 0, &dev);
	a = dgp_get(dgp_va(80, 0), 4 * PG, true);
	assert_non_null(a.map);
	m = a.map;
	assert_int_equal(m->nr_pages, 4);
	b = dgp_get(dgp_va(81, 8), 8, false);
	assert_ptr_equal(b.map, a.map);
	assert_int_equal(b.map_offset, PG + 8);
	assert_int_equal(dgp.mm->maps_live, 1);
	dg_pin_put(dgp.c, &a);
	dg_pin_put(dgp.c, &b);
	assert_int_equal(dg_pin_cache_evict(dgp.c, 10, &scanned), 1);
	dg_user_run_work();
	assert_int_equal(dgp.mm->maps_live, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		DGP_TEST(miss_then_hit),
		DGP_TEST(sub_range_hit),
		DGP_TEST(write_needs_writable_entry),
		DGP_TEST(overlap_not_contained),
		DGP_TEST(covering_miss_drops_covered),
		DGP_TEST(contents_shared),
		DGP_TEST(mapped_for_device),
	};

	return cmocka_run_group_tests_name("pin_lookup", tests, NULL, NULL);
}
