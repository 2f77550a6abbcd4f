// SPDX-License-Identifier: GPL-2.0
/*
 * The free fast path's arithmetic (run_index()): a block's index in its
 * run from the freed address by one multiply and one rotate. For strides
 * up to dma_pool_create()'s INT_MAX (larger ones have no per-CPU caches),
 * and runs of 64 blocks and fewer (a group that ends in a segment's
 * unused tail), it must be below the run's nr exactly at the run's
 * blocks, and then be the block's index: at and around every block of a
 * run, and at addresses anywhere (what a device could forge). A wrong
 * answer here is a free applied to something that is not a block.
 */
#include "dg_test.h"
#include "pool_fast.h"

#define NR	64u	/* the most blocks a run has */

static u64 rng = 0x9e3779b97f4a7c15ull;

static u64 next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* One address, against division: returns 1 when run_index() found it. */
static unsigned int check_one(struct dg_pool *pool, struct dg_pcp_run *run,
			      u64 off)
{
	unsigned long addr = dg_dma_addr(run->base) + off;
	u64 i = run_index(pool, run, addr);
	bool block = off % pool->stride == 0 && off / pool->stride < run->nr;

	if ((i < run->nr) != block || (block && i != off / pool->stride))
		fail_msg("stride %u nr %u offset %#llx: index %llu",
			 pool->stride, run->nr, (unsigned long long)off,
			 (unsigned long long)i);
	return i < run->nr;
}

/*
 * Runs of @stride with 64 blocks and fewer: each finds every one of its
 * blocks once (the near misses of a larger stride are none of them) and
 * nothing else.
 */
static void check_stride(u32 stride, bool every_offset)
{
	static const u32 nrs[] = { NR, 17, 1 };
	struct dg_pool *pool = dgt_create("index", stride, 1, 0);
	struct dg_pcp_run run = {
		.base = (char __dma *)0xffff888012345000ul,
	};
	s64 q, lo = -2 * (s64)stride, hi = (s64)(NR + 2) * stride;
	u64 near[] = { 0, 1, 2, stride / 2, stride / 3, stride - 1,
		       stride - 2, 1ull << 63 };
	unsigned int found, k, n;

	assert_non_null(pool);
	assert_int_equal(pool->stride, stride);
	for (n = 0; n < ARRAY_SIZE(nrs); n++) {
		run.nr = nrs[n];
		found = 0;
		if (every_offset) {
			for (q = lo; q < hi; q++)
				found += check_one(pool, &run, (u64)q);
		} else {
			for (q = -2; q < NR + 2; q++)
				for (k = 0; k < ARRAY_SIZE(near); k++)
					found += check_one(pool, &run,
							   (u64)(q * stride) +
							   near[k]);
		}
		assert_int_equal(found, run.nr);
		for (k = 0; k < 2000; k++)
			check_one(pool, &run, next_random());
		/* the top of the address space, where the product wraps */
		for (k = 1; k < 200; k++)
			check_one(pool, &run, -(u64)k);
	}
	assert_int_equal(dg_pool_destroy(pool), 0);
}

/* Every stride up to 4 KiB + 128: each byte of its run and around it. */
static void small_strides(void **state)
{
	u32 s;

	for (s = 1; s <= 4096 + 128; s++)
		check_stride(s, s <= 512);
}

/* Odd, even and power-of-two strides up to the largest a pool accepts. */
static void large_strides(void **state)
{
	u32 shift, s;
	int d;

	for (shift = 12; shift <= 31; shift++) {
		for (d = -3; d <= 3; d++) {
			s = (u32)((1ull << shift) + d);
			if (s <= INT_MAX)	/* dma_pool_create()'s limit */
				check_stride(s, false);
		}
		if (3ull << (shift - 1) <= INT_MAX)
			check_stride(3u << (shift - 1), false);
	}
	for (d = 0; d < 200; d++)
		check_stride((u32)(next_random() % INT_MAX) + 1, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(small_strides),
		cmocka_unit_test(large_strides),
	};

	return cmocka_run_group_tests_name("pool_index", tests, NULL, NULL);
}
