// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line metadata per block: for every row, a pool filled with at
 * least 8192 blocks (whole chunks), stats.meta_bytes / blocks_total printed;
 * at 16-byte blocks it must be at most 0.5 byte per block. The per-CPU
 * caches are a fixed cost per pool (pcp_bytes, printed: their size times
 * the possible CPUs), not per block, and are reported apart. meta_bytes must
 * also account for what the pool really holds: it grows with chunks and
 * falls back when chunks are released.
 */
#include "dg_test.h"

#define MIN_BLOCKS	8192

static void meta_per_block(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct dg_pool_stats st;
	struct dgt_blk *b;
	size_t bpc, n, i;
	u64 meta_empty, meta_full;
	double per_block;

	assert_non_null(pool);
	meta_empty = dgt_stats(pool).meta_bytes;
	assert_true(meta_empty > 0);
	bpc = dgt_stats(pool).blocks_per_chunk;
	n = (MIN_BLOCKS + bpc - 1) / bpc * bpc;		/* full chunks */
	if (n < 4 * bpc)
		n = 4 * bpc;
	b = calloc(n, sizeof(*b));
	assert_non_null(b);
	for (i = 0; i < n; i++)
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
	st = dgt_stats(pool);
	assert_int_equal(st.blocks_total, n);
	assert_int_equal(st.blocks_in_use, n);
	assert_true(st.meta_bytes > meta_empty);
	per_block = (double)st.meta_bytes / (double)st.blocks_total;
	print_message("# meta %-14s size %4zu blocks %6llu chunks %4u "
		      "chunk %6u B meta %7llu B = %.3f B/block, "
		      "+ per-CPU caches %llu B a pool\n",
		      r->name, r->size, (unsigned long long)st.blocks_total,
		      st.chunks, st.chunk_size,
		      (unsigned long long)st.meta_bytes, per_block,
		      (unsigned long long)st.pcp_bytes);
	if (r->size == 16)
		assert_true(per_block <= 0.5);

	for (i = 0; i < n; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	/* released chunks take their descriptors' bytes with them */
	meta_full = st.meta_bytes;
	assert_int_equal(dg_pool_reclaim(pool, 0, 0), st.chunks);
	st = dgt_stats(pool);
	assert_int_equal(st.chunks, 0);
	assert_true(st.meta_bytes <= meta_full - (n / bpc) * 32);
	assert_int_equal(dg_pool_destroy(pool), 0);
	free(b);
}

int main(void)
{
	struct CMUnitTest tests[DGT_NR_ROWS];

	DGT_ROW_TESTS(tests, meta_per_block, "meta");
	return _cmocka_run_group_tests("pool_meta", tests, DGT_NR_ROWS,
				       NULL, NULL);
}
