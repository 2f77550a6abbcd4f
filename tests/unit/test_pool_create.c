// SPDX-License-Identifier: GPL-2.0
/*
 * dg_pool_create(): every parameter check, the accepted corner cases, and
 * the bookkeeping of a pool that was created and destroyed.
 */
#include "dg_test.h"

/* An invalid create returns NULL, reports one error, leaks nothing. */
static void expect_invalid(const char *name, size_t size, size_t align,
			   size_t boundary)
{
	unsigned long errs = dg_user_reports_err;
	long meta = dg_user_count.meta_live;
	struct dg_pool_params p = {
		.name = name, .size = size, .align = align,
		.boundary = boundary, .node = DG_NO_NODE,
	};
	const char *why = NULL;

	assert_int_equal(dg_pool_check_params(&p, &why), -EINVAL);
	assert_non_null(why);
	assert_null(dgt_create(name, size, align, boundary));
	assert_int_equal(dg_user_reports_err, errs + 1);
	assert_int_equal(dg_user_count.meta_live, meta);
}

/* A valid create works, its block geometry is as asked, one block allocates. */
static void expect_valid(size_t size, size_t align, size_t boundary)
{
	size_t a = align ? align : 1;
	struct dg_pool_params p = {
		.name = "ok", .size = size, .align = align,
		.boundary = boundary, .node = DG_NO_NODE,
	};
	const char *why = NULL;
	struct dg_pool_stats st;
	struct dg_pool *pool;
	struct dgt_blk b;

	assert_int_equal(dg_pool_check_params(&p, &why), 0);
	pool = dgt_create("ok", size, align, boundary);
	assert_non_null(pool);
	st = dgt_stats(pool);
	assert_int_equal(st.size, size);
	assert_int_equal(st.stride, (size + a - 1) & ~(a - 1));
	assert_int_equal(st.blocks_in_use, 0);
	assert_int_equal(st.chunks, 0);
	b = dgt_alloc(pool, GFP_KERNEL, size, align, boundary);
	memset(b.v, 0x5a, size);	/* ASan: the whole block is ours */
	assert_int_equal(dg_pool_free(pool, b.v, b.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

static void null_name(void **state)
{
	expect_invalid(NULL, 64, 8, 0);
}

static void size_zero(void **state)
{
	expect_invalid("z", 0, 8, 0);
	expect_invalid("z", 0, 0, 0);
}

/* What dma_pool_create() refuses: a size over INT_MAX. */
static void size_too_big(void **state)
{
	expect_invalid("big", (size_t)INT_MAX + 1, 0, 0);
	expect_invalid("big", SIZE_MAX, 8, 0);
	/* A block with its alignment must fit in 2 GiB. */
	expect_invalid("big", INT_MAX, 1ul << 32, 0);
}

/*
 * What dma_pool_create() accepts, up to INT_MAX: blocks over 1 MiB are
 * real (mpt3sas sizes its reply post queue pool depth * 8 * 16 bytes
 * times the queues), and allocate.
 */
static void size_max_ok(void **state)
{
	struct dg_pool *pool;

	expect_valid(1u << 20, 0, 0);
	expect_valid(1u << 20, 1u << 20, 1u << 20);
	expect_valid((1u << 20) + 1, 0, 0);
	expect_valid(3u << 20, 16, 0);
	expect_valid((3u << 20) + 8, 8, 4u << 20);
	/* Created without a block: one would take 2 GiB. */
	pool = dgt_create("int_max", INT_MAX, 0, 0);
	assert_non_null(pool);
	assert_int_equal(dgt_stats(pool).stride, INT_MAX);
	assert_int_equal(dg_pool_destroy(pool), 0);
	pool = dgt_create("int_max", INT_MAX, 1ul << 31, 0);
	assert_non_null(pool);
	assert_int_equal(dgt_stats(pool).stride, 1ul << 31);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

static void align_not_pow2(void **state)
{
	expect_invalid("a", 64, 3, 0);
	expect_invalid("a", 64, 24, 0);
	expect_invalid("a", 64, 4097, 0);
	expect_invalid("a", 64, SIZE_MAX, 0);
}

static void align_too_big(void **state)
{
	expect_invalid("a", 64, 1ul << 32, 0);
	expect_invalid("a", 1, 1ul << 63, 0);
}

static void boundary_not_pow2(void **state)
{
	expect_invalid("b", 64, 8, 96);
	expect_invalid("b", 64, 8, 4097);
	expect_invalid("b", 16, 16, 3);
}

static void boundary_smaller_than_size(void **state)
{
	expect_invalid("b", 64, 8, 32);
	expect_invalid("b", 4096, 8, 2048);
	expect_invalid("b", 3, 1, 2);
}

static void boundary_equal_size_ok(void **state)
{
	expect_valid(64, 8, 64);
	expect_valid(4096, 0, 4096);
	expect_valid(1, 0, 1);
}

static void align_zero_is_one(void **state)
{
	struct dg_pool *pool = dgt_create("a0", 7, 0, 0);
	struct dgt_blk a, b;

	assert_non_null(pool);
	assert_int_equal(dgt_stats(pool).stride, 7);
	a = dgt_alloc(pool, GFP_KERNEL, 7, 1, 0);
	b = dgt_alloc(pool, GFP_KERNEL, 7, 1, 0);
	assert_ptr_equal(b.v, a.v + 7);
	assert_int_equal(dg_pool_free(pool, a.v, a.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_free(pool, b.v, b.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(pool), 0);
	expect_valid(7, 0, 0);
	expect_valid(7, 1, 0);
}

/* No 16-byte minimum: size 1 gives 1-byte blocks, packed. */
static void size_one_works(void **state)
{
	enum { N = 100 };
	struct dg_pool *pool = dgt_create("one", 1, 1, 0);
	struct dgt_blk b[N];
	int i;

	assert_non_null(pool);
	assert_int_equal(dgt_stats(pool).stride, 1);
	for (i = 0; i < N; i++) {
		b[i] = dgt_alloc(pool, GFP_KERNEL, 1, 1, 0);
		if (i)
			assert_ptr_equal(b[i].v, b[i - 1].v + 1);
	}
	assert_int_equal(dgt_stats(pool).blocks_in_use, N);
	assert_true(dgt_stats(pool).blocks_per_chunk >= 4096);
	for (i = 0; i < N; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(pool), 0);
	expect_valid(1, 0, 0);
	expect_valid(2, 2, 2);
	expect_valid(5, 1, 8);
}

static void big_align_ok(void **state)
{
	expect_valid(16, 1u << 20, 0);
	expect_valid(16, 1u << 22, 0);
	expect_valid(1, 65536, 0);
	expect_valid(100, 8192, 128);
}

/* Long names are truncated, never overrun; the caller's copy is not kept. */
static void name_copied_and_truncated(void **state)
{
	char name[100];
	struct dg_pool *pool;
	struct dg_pool_stats st;

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	pool = dgt_create(name, 32, 8, 0);
	assert_non_null(pool);
	memset(name, 'y', 10);
	st = dgt_stats(pool);
	assert_int_equal(strnlen(st.name, sizeof(st.name)),
			 DG_POOL_NAME_LEN - 1);
	assert_int_equal(st.name[0], 'x');
	assert_string_equal(dg_pool_name(pool), st.name);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

/* Create and destroy without allocating leaves nothing behind. */
static void create_destroy_no_leak(void **state)
{
	struct dg_pool *pool;
	int i;

	for (i = 0; i < 10; i++) {
		pool = dgt_create("cd", 16 << (i % 8), 0, 0);
		assert_non_null(pool);
		assert_true(dg_user_count.meta_live > dgt_base.meta_live);
		assert_int_equal(dg_user_count.chunks_live, dgt_base.chunks_live);
		assert_true(dgt_stats(pool).meta_bytes > 0);
		assert_int_equal(dg_pool_destroy(pool), 0);
		assert_int_equal(dg_user_count.meta_live, dgt_base.meta_live);
	}
}

/* Each bookkeeping allocation of create can fail: NULL, nothing leaked. */
static void create_alloc_failure(void **state)
{
	struct dg_pool *pool;
	unsigned long n;
	int failed = 0;

	for (n = 1; n <= 8; n++) {
		dg_user_fail_nth_alloc(n);
		pool = dgt_create("fail", 64, 64, 0);
		dg_user_fail_nth_alloc(0);
		if (!pool) {
			failed++;
			assert_int_equal(dg_user_count.meta_live,
					 dgt_base.meta_live);
			continue;
		}
		assert_int_equal(dg_pool_destroy(pool), 0);
	}
	assert_true(failed >= 1);
}

/* Several pools live side by side without sharing state. */
static void pools_independent(void **state)
{
	struct dg_pool *p1 = dgt_create("p1", 64, 64, 0);
	struct dg_pool *p2 = dgt_create("p2", 64, 64, 0);
	struct dgt_blk a = dgt_alloc(p1, GFP_KERNEL, 64, 64, 0);
	struct dgt_blk b = dgt_alloc(p2, GFP_KERNEL, 64, 64, 0);

	assert_ptr_not_equal(a.v, b.v);
	assert_int_equal(dgt_stats(p1).blocks_in_use, 1);
	assert_int_equal(dgt_stats(p2).blocks_in_use, 1);
	assert_string_equal(dgt_stats(p2).name, "p2");
	assert_int_equal(dg_pool_free(p1, a.v, a.dma), DG_FREE_OK);
	assert_int_equal(dgt_stats(p1).blocks_in_use, 0);
	assert_int_equal(dgt_stats(p2).blocks_in_use, 1);
	assert_int_equal(dg_pool_free(p2, b.v, b.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(p1), 0);
	assert_int_equal(dg_pool_destroy(p2), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, dgt_setup, dgt_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(null_name),
		T(size_zero),
		T(size_too_big),
		T(size_max_ok),
		T(align_not_pow2),
		T(align_too_big),
		T(boundary_not_pow2),
		T(boundary_smaller_than_size),
		T(boundary_equal_size_ok),
		T(align_zero_is_one),
		T(size_one_works),
		T(big_align_ok),
		T(name_copied_and_truncated),
		T(create_destroy_no_leak),
		T(create_alloc_failure),
		T(pools_independent),
	};

	return cmocka_run_group_tests_name("pool_create", tests, NULL, NULL);
}
