// SPDX-License-Identifier: GPL-2.0
/*
 * dg_pool_destroy(): an all-free pool gives everything back; a pool with
 * live blocks returns their count, reports it, frees its descriptors and
 * every chunk without live blocks, and keeps the chunks that have live
 * blocks allocated (no use-after-free for a late driver access).
 */
#include "dg_test.h"

static const struct dgt_row rows[] = {
	{ "16_16", 16, 16, 0 },
	{ "68_32_b4096", 68, 32, 4096 },
	{ "4096_4096", 4096, 4096, 0 },
	{ "1_1", 1, 1, 0 },
};

#define NR_ROWS	(sizeof(rows) / sizeof(rows[0]))

static void destroy_all_free(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	unsigned long first = dg_user_reports_err;
	size_t i, n;
	struct dgt_blk *b;

	assert_non_null(pool);
	n = 3 * dgt_stats(pool).blocks_per_chunk + 1;
	b = calloc(n, sizeof(*b));
	assert_non_null(b);
	for (i = 0; i < n; i++)
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
	assert_int_equal(dg_user_count.chunks_live - dgt_base.chunks_live, 4);
	for (i = 0; i < n; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(pool), 0);
	assert_int_equal(dg_user_count.meta_live, dgt_base.meta_live);
	assert_int_equal(dg_user_count.chunks_live, dgt_base.chunks_live);
	assert_int_equal(dg_user_count.chunk_bytes_live,
			 dgt_base.chunk_bytes_live);
	assert_int_equal(dg_user_reports_err, first);	/* nothing to say */
	free(b);
}

/*
 * Chunks 0..3 full; then chunk 1 emptied, chunk 2 keeps one live block,
 * chunk 3 keeps all but one, chunk 0 keeps all.
 */
static void destroy_with_live(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	unsigned long first = dg_user_reports_err;
	struct dgt_chunks *cs;
	struct dgt_blk *b, *live;
	size_t bpc, n, i, nlive = 0, chunk;
	unsigned int ret;

	assert_non_null(pool);
	bpc = dgt_stats(pool).blocks_per_chunk;
	chunk = dgt_stats(pool).chunk_size;
	n = 4 * bpc;
	b = calloc(n, sizeof(*b));
	live = calloc(n, sizeof(*live));
	assert_non_null(b);
	assert_non_null(live);
	for (i = 0; i < n; i++)
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
	for (i = 0; i < n; i++) {
		size_t c = i / bpc, k = i % bpc;
		bool keep = c == 0 || (c == 2 && k == bpc / 2) ||
			    (c == 3 && k != 0);

		if (keep) {
			live[nlive++] = b[i];
			memset(b[i].v, 0x77, r->size);
		} else {
			assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
					 DG_FREE_OK);
		}
	}
	assert_int_equal(dgt_stats(pool).blocks_in_use, nlive);
	cs = dgt_chunks(pool);
	assert_int_equal(cs->n, 4);

	ret = dg_pool_destroy(pool);
	assert_int_equal(ret, nlive);
	assert_int_equal(dg_user_reports_err, first + 1);
	/* descriptors gone, only the three chunks with live blocks stay */
	assert_int_equal(dg_user_count.meta_live, dgt_base.meta_live);
	assert_int_equal(dg_user_count.chunks_live - dgt_base.chunks_live, 3);
	assert_int_equal(dg_user_count.chunk_bytes_live -
			 dgt_base.chunk_bytes_live, 3 * chunk);
	/* a late driver access to a live block is no use-after-free (ASan) */
	for (i = 0; i < nlive; i++) {
		assert_int_equal(live[i].v[0], 0x77);
		memset(live[i].v, 0x11, r->size);
	}
	/* the test owns those chunks now */
	assert_int_equal(dgt_release_leaked(cs, live, nlive, r->size), 3);
	free(cs);
	free(b);
	free(live);
}

/* Destroy right after create, and after a pool was grown and reclaimed. */
static void destroy_empty_and_reclaimed(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct dgt_blk x;

	assert_non_null(pool);
	assert_int_equal(dg_pool_destroy(pool), 0);
	pool = dgt_create_row(r);
	assert_non_null(pool);
	x = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	assert_int_equal(dg_pool_free(pool, x.v, x.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_reclaim(pool, 0, 0), 1);
	assert_int_equal(dg_user_count.chunks_live, dgt_base.chunks_live);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

int main(void)
{
	static void (*const fns[])(void **) = {
		destroy_all_free, destroy_with_live,
		destroy_empty_and_reclaimed,
	};
	static const char *const names[] = {
		"all_free", "with_live", "empty_and_reclaimed",
	};
	return dgt_run_matrix("pool_destroy", fns, names,
			      sizeof(fns) / sizeof(fns[0]), rows, NR_ROWS);
}
