// SPDX-License-Identifier: GPL-2.0
/*
 * Block layout, for every row of the table in dg_test.h: several chunks'
 * worth of blocks, each aligned (vaddr and dma), dma == vaddr + offset, no
 * block across a boundary (in DMA address), no two live blocks overlapping,
 * every block at a reference block start inside a chunk, blocks of a fresh
 * chunk in ascending address order; then all freed, stats back to zero.
 */
#include "dg_test.h"

#define CHUNKS	5

static void layout(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct dg_pool_stats st;
	struct dgt_blk *b, *sorted;
	unsigned char *start = NULL;
	size_t bpc, n, i, chunk;
	unsigned int rc;

	assert_non_null(pool);
	st = dgt_stats(pool);
	bpc = st.blocks_per_chunk;
	chunk = st.chunk_size;
	assert_true(bpc >= 1);
	assert_true(chunk >= r->size);
	assert_int_equal(chunk & (chunk - 1), 0);
	/* Packed as tightly as mainline's dma_pool packs a chunk. */
	assert_int_equal(bpc, dgt_ref_blocks_per_chunk(r->size, r->align,
						       r->boundary, chunk));

	n = CHUNKS * bpc + 3;
	b = calloc(n, sizeof(*b));
	sorted = calloc(n, sizeof(*sorted));
	assert_non_null(b);
	assert_non_null(sorted);
	for (i = 0; i < n; i++) {
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
		memset(b[i].v, 0xc3, r->size);	/* ASan: all of it is ours */
		if (i % bpc == 0) {
			/* first block of a fresh chunk: its (page) start */
			assert_int_equal((uintptr_t)b[i].v % DG_PAGE_SIZE, 0);
			assert_int_equal(dgt_stats(pool).chunks, i / bpc + 1);
			start = b[i].v;
		} else {
			/* fresh chunk: ascending, same chunk */
			assert_true(b[i].v > b[i - 1].v);
			assert_true(b[i].v + r->size <= start + chunk);
		}
	}
	st = dgt_stats(pool);
	assert_int_equal(st.blocks_in_use, n);
	assert_int_equal(st.chunks, CHUNKS + 1);
	assert_int_equal(st.blocks_total, (CHUNKS + 1) * bpc);
	assert_int_equal(st.chunks_allocated, CHUNKS + 1);
	assert_int_equal(st.chunks_empty, 0);
	assert_int_equal(dg_user_count.chunks_live - dgt_base.chunks_live,
			 CHUNKS + 1);
	assert_int_equal(dg_user_count.chunk_bytes_live -
			 dgt_base.chunk_bytes_live, (CHUNKS + 1) * chunk);
	assert_int_equal(st.bad_frees[DG_BAD_FOREIGN] +
			 st.bad_frees[DG_BAD_MISALIGNED] +
			 st.bad_frees[DG_BAD_DMA] + st.bad_frees[DG_BAD_DOUBLE], 0);

	dgt_assert_in_chunks(pool, b, n, r->size, r->align, r->boundary);
	memcpy(sorted, b, n * sizeof(*b));
	dgt_assert_disjoint(sorted, n, r->size);

	/* free in random order */
	dgt_shuffle(b, n, 1234);
	for (i = 0; i < n; i++) {
		rc = dg_pool_free(pool, b[i].v, b[i].dma);
		assert_int_equal(rc, DG_FREE_OK);
		assert_int_equal(dgt_stats(pool).blocks_in_use, n - i - 1);
	}
	dg_pool_drain(pool);	/* cached blocks back to their chunks */
	st = dgt_stats(pool);
	assert_int_equal(st.blocks_in_use, 0);
	assert_int_equal(st.chunks_empty, st.chunks);

	/* and the pool hands out every block again, none twice */
	for (i = 0; i < n; i++)
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
	assert_int_equal(dgt_stats(pool).chunks, CHUNKS + 1);
	dgt_assert_in_chunks(pool, b, n, r->size, r->align, r->boundary);
	memcpy(sorted, b, n * sizeof(*b));
	dgt_assert_disjoint(sorted, n, r->size);
	for (i = 0; i < n; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);

	assert_int_equal(dg_pool_destroy(pool), 0);
	free(b);
	free(sorted);
}

/*
 * Freed blocks are reused before a chunk is added: with every other block
 * of a full chunk freed, from the top down, the next allocations return
 * exactly those blocks, each once, lowest first within each bitmap word
 * (a CPU's cache hands out its run of one word lowest first).
 */
static void refill_reuses_freed(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	size_t bpc, i, j, n = 0;
	struct dgt_blk *b, *x;
	bool *seen;

	assert_non_null(pool);
	bpc = dgt_stats(pool).blocks_per_chunk;
	b = calloc(bpc, sizeof(*b));
	x = calloc(bpc, sizeof(*x));
	seen = calloc(bpc, sizeof(*seen));
	assert_true(b && x && seen);
	for (i = 0; i < bpc; i++)
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
	/* free every other block, from the top down */
	for (i = bpc; i-- > 0;)
		if (i % 2 == 0)
			assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
					 DG_FREE_OK);
	for (i = 0; i < bpc; i += 2, n++) {
		x[n] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
		for (j = 0; j < bpc; j += 2)
			if (x[n].v == b[j].v)
				break;
		assert_true(j < bpc);		/* one of the freed blocks */
		assert_false(seen[j]);		/* handed out once */
		seen[j] = true;
		assert_int_equal(x[n].dma, b[j].dma);
		/* lowest first within a run: up by one stride in a word */
		if (n && x[n].v > x[n - 1].v)
			assert_true((char *)x[n].v - (char *)x[n - 1].v >=
				    (long)(2 * r->size));
	}
	assert_int_equal(dgt_stats(pool).chunks, 1);
	for (i = 0; i < bpc; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(pool), 0);
	free(seen);
	free(x);
	free(b);
}

int main(void)
{
	struct CMUnitTest tests[2 * DGT_NR_ROWS];

	DGT_ROW_TESTS(tests, layout, "layout");
	DGT_ROW_TESTS(tests + DGT_NR_ROWS, refill_reuses_freed, "refill");
	return _cmocka_run_group_tests("pool_layout", tests,
				       sizeof(tests) / sizeof(tests[0]),
				       NULL, NULL);
}
