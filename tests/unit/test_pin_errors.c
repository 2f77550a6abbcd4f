// SPDX-License-Identifier: GPL-2.0
/*
 * Pin cache errors: bad input gets its -errno before anything is pinned;
 * whatever the platform's pin, charge or map call returns comes back as
 * it is, also when the pin call pinned part of the range first, and
 * nothing stays pinned, charged, mapped, tracked or allocated.
 */
#include "dg_pin_test.h"

static void assert_nothing_held(void)
{
	struct dg_pin_stats st = dgp_stats();

	assert_int_equal(dgp.mm->pins_live, 0);
	assert_int_equal(dgp.mm->pinned_vm, 0);
	assert_int_equal(dgp.mm->maps_live, 0);
	assert_int_equal(dgp.mm->notifiers_live, 0);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.pinned_bytes, 0);
	assert_int_equal(st.handles, 0);
	/* the cache, its hash, its per-CPU counters and its id array */
	assert_int_equal(dg_user_count.meta_live - dgp.meta_base, 4);
}

static void bad_input(void **state)
{
	struct dg_pin_handle h;

	assert_int_equal(dg_pin_get(dgp.c, dgp_va(0, 0), 0, false, &h), -EINVAL);
	assert_int_equal(dg_pin_get(dgp.c, ULONG_MAX - 10, 20, false, &h),
			 -EOVERFLOW);
	/* does not wrap, but its last page does */
	assert_int_equal(dg_pin_get(dgp.c, ULONG_MAX - 10, 5, false, &h),
			 -EOVERFLOW);
	assert_int_equal(dg_pin_get(dgp.c, 0, SIZE_MAX, false, &h), -EOVERFLOW);
	assert_int_equal(dgp.mm->pin_calls, 0);
	assert_nothing_held();
}

/* Kernel, unmapped, PROT_NONE and read-only-for-write addresses. */
static void platform_faults(void **state)
{
	struct dg_pin_handle h;
	unsigned int scanned;

	assert_int_equal(dg_pin_get(dgp.c, 0xffff888000000000ul, PG, false, &h),
			 -EFAULT);
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(5, 0), PG), 0);
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(5, 0), PG, false, &h), -EFAULT);
	assert_int_equal(dg_user_mm_protect(dgp.mm, dgp_va(6, 0), PG,
					    DG_PROT_NONE), 0);
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(6, 0), PG, false, &h), -EFAULT);
	assert_int_equal(dg_user_mm_protect(dgp.mm, dgp_va(7, 0), PG,
					    DG_PROT_READ), 0);
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(7, 0), PG, true, &h), -EFAULT);
	h = dgp_get(dgp_va(7, 0), PG, false);	/* a read is fine */
	dg_pin_put(dgp.c, &h);
	assert_int_equal(dg_pin_cache_evict(dgp.c, 1, &scanned), 1);
	dg_user_run_work();
	/* past the end of the simulated range: after the pages inside */
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(DGP_PAGES - 2, 0), 4 * PG,
				    false, &h), -EFAULT);
	assert_nothing_held();
}

/* The pin call pins part of the range, then fails: its errno, no pins. */
static void partial_pin(void **state)
{
	static const int errs[] = { -EFAULT, -ENOMEM, -EAGAIN, -EINTR, -EIO };
	struct dg_pin_handle h;
	unsigned int i;

	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		/* page 40 + 7i: the first page, then inside later batches */
		dgp.mm->fail_page = 40 + i * 7;
		dgp.mm->fail_errno = errs[i];
		assert_int_equal(dg_pin_get(dgp.c, dgp_va(40, 0), 40 * PG,
					    i & 1, &h), errs[i]);
		assert_nothing_held();
	}
	/* a hole in the middle, mid-batch */
	dgp.mm->fail_page = ULONG_MAX;
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(93, 0), PG), 0);
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(90, 0), 6 * PG, false, &h),
			 -EFAULT);
	assert_nothing_held();
}

static void charge_and_map_fail(void **state)
{
	struct dg_pin_handle h;
	int dev;

	dgp.mm->charge_errno = -EPERM;
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(0, 0), PG, false, &h), -EPERM);
	dgp.mm->charge_errno = 0;
	assert_int_equal(dgp.mm->pin_calls, 0);	/* charged before pinning */
	assert_nothing_held();

	dgp_recreate(0, 0, &dev);
	dgp.mm->map_errno = -ENOSPC;
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(0, 0), 3 * PG, true, &h),
			 -ENOSPC);
	assert_nothing_held();
	h = dgp_get(dgp_va(0, 0), 3 * PG, true);	/* once only */
	dg_pin_put(dgp.c, &h);
}

/* Each bookkeeping allocation of a miss fails in turn: -ENOMEM, no leak. */
static void alloc_failures(void **state)
{
	struct dg_pin_handle h;
	unsigned long nth;
	int err;

	for (nth = 1;; nth++) {
		dg_user_fail_nth_alloc(nth);
		err = dg_pin_get(dgp.c, dgp_va(10, 0), 4 * PG, false, &h);
		if (!dg_user_fail_reached()) {
			assert_int_equal(err, 0);
			dg_pin_put(dgp.c, &h);
			break;
		}
		assert_int_equal(err, -ENOMEM);
		assert_nothing_held();
	}
	dg_user_fail_nth_alloc(0);
	assert_true(nth > 2);	/* the entry and its page array */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		DGP_TEST(bad_input),
		DGP_TEST(platform_faults),
		DGP_TEST(partial_pin),
		DGP_TEST(charge_and_map_fail),
		DGP_TEST(alloc_failures),
	};

	return cmocka_run_group_tests_name("pin_errors", tests, NULL, NULL);
}
