// SPDX-License-Identifier: GPL-2.0
/*
 * Zeroing on allocation: with init_on_alloc off, a reused block keeps what
 * its previous user left unless __GFP_ZERO is passed; with init_on_alloc on
 * every block comes back zeroed. Zeroing covers the block and nothing more.
 * With init_on_free, a block is zeroed when it is freed, and a rejected
 * free zeroes nothing.
 */
#include "dg_test.h"

static bool all(const unsigned char *p, size_t n, unsigned char c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != c)
			return false;
	return true;
}

/*
 * Dirty a block and its neighbour, free the block, allocate it back with
 * @gfp and init_on_alloc = @ioa; return whether it came back zeroed. The
 * neighbour (a live block) must never be touched.
 */
static bool realloc_zeroed(const struct dgt_row *r, bool ioa, gfp_t gfp)
{
	struct dg_pool *pool = dgt_create_row(r);
	struct dgt_blk a, b, c;
	bool zero;

	assert_non_null(pool);
	dg_user_init_on_alloc = ioa;
	a = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	b = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	memset(a.v, 0xa5, r->size);
	memset(b.v, 0x3c, r->size);
	assert_int_equal(dg_pool_free(pool, a.v, a.dma), DG_FREE_OK);
	c = dgt_alloc(pool, gfp, r->size, r->align, r->boundary);
	assert_ptr_equal(c.v, a.v);	/* the only free block of the chunk start */
	zero = all(c.v, r->size, 0);
	if (!zero)
		assert_true(all(c.v, r->size, 0xa5));
	assert_true(all(b.v, r->size, 0x3c));
	assert_int_equal(dg_pool_free(pool, b.v, b.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_free(pool, c.v, c.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(pool), 0);
	dg_user_init_on_alloc = true;
	return zero;
}

static void no_init_keeps_dirt(void **state)
{
	assert_false(realloc_zeroed(*state, false, GFP_KERNEL));
	assert_false(realloc_zeroed(*state, false, GFP_ATOMIC));
}

static void no_init_gfp_zero(void **state)
{
	assert_true(realloc_zeroed(*state, false, GFP_KERNEL | __GFP_ZERO));
	assert_true(realloc_zeroed(*state, false, GFP_ATOMIC | __GFP_ZERO));
}

static void init_on_alloc_zeroes(void **state)
{
	assert_true(realloc_zeroed(*state, true, GFP_KERNEL));
	assert_true(realloc_zeroed(*state, true, GFP_ATOMIC));
	assert_true(realloc_zeroed(*state, true, GFP_ATOMIC | __GFP_ZERO));
}

/* Fresh chunks are zeroed memory (dma_alloc_coherent): every block is 0. */
static void fresh_blocks_zero(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	size_t i, n;
	struct dgt_blk *b;

	assert_non_null(pool);
	dg_user_init_on_alloc = false;
	n = dgt_stats(pool).blocks_per_chunk + 1;
	b = calloc(n, sizeof(*b));
	assert_non_null(b);
	for (i = 0; i < n; i++) {
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
		assert_true(all(b[i].v, r->size, 0));
		memset(b[i].v, 0xff, r->size);
	}
	for (i = 0; i < n; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(pool), 0);
	free(b);
}

/* init_on_free: the freed block is zero at once; its neighbour is not. */
static void init_on_free_zeroes(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct dgt_blk a, b, c;

	assert_non_null(pool);
	dg_user_init_on_alloc = false;
	dg_user_init_on_free = true;
	a = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	b = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	memset(a.v, 0xa5, r->size);
	memset(b.v, 0x3c, r->size);
	assert_int_equal(dg_pool_free(pool, a.v, a.dma), DG_FREE_OK);
	assert_true(all(a.v, r->size, 0));	/* chunk memory: still ours */
	assert_true(all(b.v, r->size, 0x3c));
	c = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	assert_ptr_equal(c.v, a.v);
	assert_true(all(c.v, r->size, 0));
	assert_int_equal(dg_pool_free(pool, b.v, b.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_free(pool, c.v, c.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

/* init_on_free: a rejected free writes nothing anywhere. */
static void init_on_free_bad_free_writes_nothing(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct dgt_blk a, b;

	assert_non_null(pool);
	dg_user_init_on_free = true;
	a = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	b = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	assert_int_equal(dg_pool_free(pool, b.v, b.dma), DG_FREE_OK);
	memset(a.v, 0xa5, r->size);
	memset(b.v, 0x3c, r->size);	/* the device wrote into a free block */
	if (r->size > 1)
		assert_int_equal(dg_pool_free(pool, a.v + 1, a.dma + 1),
				 DG_BAD_MISALIGNED);
	assert_int_equal(dg_pool_free(pool, a.v, a.dma + 64), DG_BAD_DMA);
	assert_int_equal(dg_pool_free(pool, b.v, b.dma), DG_BAD_DOUBLE);
	assert_true(all(a.v, r->size, 0xa5));
	assert_true(all(b.v, r->size, 0x3c));
	assert_int_equal(dg_pool_free(pool, a.v, a.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

/*
 * The pool's only write to DMA memory is zeroing a block: with every chunk
 * filled by the "device", a free changes nothing (init_on_free off) and an
 * allocation changes nothing but zeroes within its own stride.
 */
static void writes_only_zero(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct dgt_chunks *cs;
	struct dgt_blk *b, x;
	size_t n, i, off, stride;
	unsigned int c;

	assert_non_null(pool);
	n = 2 * dgt_stats(pool).blocks_per_chunk;
	stride = dgt_stats(pool).stride;
	b = calloc(n, sizeof(*b));
	assert_non_null(b);
	for (i = 0; i < n; i++)
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
	cs = dgt_chunks(pool);
	for (i = 0; i < n; i += 3) {
		for (c = 0; c < cs->n; c++)
			memset(cs->c[c].mem, 0xe7, cs->c[c].len);
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
		for (c = 0; c < cs->n; c++)
			assert_true(all(cs->c[c].mem, cs->c[c].len, 0xe7));
	}
	for (i = 0; i < n; i += 3) {
		for (c = 0; c < cs->n; c++)
			memset(cs->c[c].mem, 0xe7, cs->c[c].len);
		x = dgt_alloc(pool, GFP_KERNEL | __GFP_ZERO, r->size, r->align,
			      r->boundary);
		assert_true(all(x.v, r->size, 0));
		for (c = 0; c < cs->n; c++)
			for (off = 0; off < cs->c[c].len; off++) {
				unsigned char *p = cs->c[c].mem + off;

				if (p >= x.v && p < x.v + stride)
					assert_true(*p == 0 || *p == 0xe7);
				else if (*p != 0xe7)
					fail_msg("alloc wrote chunk byte %zu", off);
			}
		b[i] = x;
	}
	assert_int_equal(dgt_stats(pool).chunks, cs->n);
	for (i = 0; i < n; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(pool), 0);
	free(cs);
	free(b);
}

int main(void)
{
	struct CMUnitTest tests[7 * DGT_NR_ROWS];

	DGT_ROW_TESTS(tests, no_init_keeps_dirt, "no_init_keeps_dirt");
	DGT_ROW_TESTS(tests + DGT_NR_ROWS, no_init_gfp_zero, "no_init_gfp_zero");
	DGT_ROW_TESTS(tests + 2 * DGT_NR_ROWS, init_on_alloc_zeroes,
		      "init_on_alloc");
	DGT_ROW_TESTS(tests + 3 * DGT_NR_ROWS, fresh_blocks_zero, "fresh_zero");
	DGT_ROW_TESTS(tests + 4 * DGT_NR_ROWS, init_on_free_zeroes,
		      "init_on_free");
	DGT_ROW_TESTS(tests + 5 * DGT_NR_ROWS,
		      init_on_free_bad_free_writes_nothing,
		      "init_on_free_bad_free");
	DGT_ROW_TESTS(tests + 6 * DGT_NR_ROWS, writes_only_zero,
		      "writes_only_zero");
	return _cmocka_run_group_tests("pool_zero", tests,
				       sizeof(tests) / sizeof(tests[0]),
				       NULL, NULL);
}
