// SPDX-License-Identifier: GPL-2.0
/*
 * dg_pool_reclaim(): chunks that stayed empty for min_age ticks go back to
 * the system, all but `keep` of them; never a chunk with a live block. The
 * memory shows up in dg_user_count.chunk_bytes_live, and the pool keeps
 * working afterwards. A free of a pointer into a released chunk is foreign.
 * A pool whose device's IOMMU invalidates lazily releases nothing before
 * its destroy.
 */
#include "dg_test.h"

static const struct dgt_row rows[] = {
	{ "16_16", 16, 16, 0 },
	{ "68_32_b4096", 68, 32, 4096 },
	{ "1024_1024", 1024, 1024, 0 },
	{ "4096_4096", 4096, 4096, 0 },
	{ "3000_64_b4096", 3000, 64, 4096 },
};

#define NR_ROWS	(sizeof(rows) / sizeof(rows[0]))
#define CHUNKS	6

struct filled {
	struct dg_pool *pool;
	struct dgt_blk *b;
	size_t n, bpc, chunk;
};

static void fill(struct filled *f, const struct dgt_row *r, size_t chunks)
{
	size_t i;

	f->pool = dgt_create_row(r);
	assert_non_null(f->pool);
	f->bpc = dgt_stats(f->pool).blocks_per_chunk;
	f->chunk = dgt_stats(f->pool).chunk_size;
	f->n = chunks * f->bpc;
	f->b = calloc(f->n, sizeof(*f->b));
	assert_non_null(f->b);
	for (i = 0; i < f->n; i++)
		f->b[i] = dgt_alloc(f->pool, GFP_KERNEL, r->size, r->align,
				    r->boundary);
	assert_int_equal(dgt_stats(f->pool).chunks, chunks);
}

static void free_range(struct filled *f, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		assert_int_equal(dg_pool_free(f->pool, f->b[i].v, f->b[i].dma),
				 DG_FREE_OK);
}

static void reclaim_after_free_all(void **state)
{
	const struct dgt_row *r = *state;
	long bytes0;
	struct filled f;
	struct dg_pool_stats st;
	struct dgt_blk x;
	unsigned int keep;

	for (keep = 0; keep <= 2; keep++) {
		dg_user_ticks = 1000;
		fill(&f, r, CHUNKS);
		free_range(&f, 0, f.n);
		dg_pool_drain(f.pool);	/* cached blocks back to their chunks */
		bytes0 = dg_user_count.chunk_bytes_live;
		st = dgt_stats(f.pool);
		assert_int_equal(st.chunks_empty, CHUNKS);

		/* not old enough yet */
		assert_int_equal(dg_pool_reclaim(f.pool, 10, keep), 0);
		dg_user_ticks += 9;
		assert_int_equal(dg_pool_reclaim(f.pool, 10, keep), 0);
		assert_int_equal(dgt_stats(f.pool).chunks, CHUNKS);
		assert_int_equal(dg_user_count.chunk_bytes_live, bytes0);

		/* old enough: all but keep go, memory comes back */
		dg_user_ticks += 1;
		assert_int_equal(dg_pool_reclaim(f.pool, 10, keep),
				 CHUNKS - keep);
		st = dgt_stats(f.pool);
		assert_int_equal(st.chunks, keep);
		assert_int_equal(st.chunks_empty, keep);
		assert_int_equal(st.chunks_released, CHUNKS - keep);
		assert_int_equal(st.blocks_total, keep * f.bpc);
		assert_int_equal(dg_user_count.chunk_bytes_live,
				 bytes0 - (long)((CHUNKS - keep) * f.chunk));
		assert_int_equal(dg_user_count.chunks_live - dgt_base.chunks_live,
				 keep);
		/* nothing more to release */
		dg_user_ticks += 1000;
		assert_int_equal(dg_pool_reclaim(f.pool, 10, keep), 0);

		/* allocation still works, from a kept chunk or a new one */
		x = dgt_alloc(f.pool, GFP_KERNEL, r->size, r->align,
			      r->boundary);
		dgt_assert_in_chunks(f.pool, &x, 1, r->size, r->align,
				     r->boundary);
		assert_int_equal(dgt_stats(f.pool).chunks, keep ? keep : 1);
		assert_int_equal(dgt_stats(f.pool).blocks_in_use, 1);
		assert_int_equal(dg_pool_free(f.pool, x.v, x.dma), DG_FREE_OK);
		assert_int_equal(dg_pool_destroy(f.pool), 0);
		free(f.b);
	}
}

/* Chunks with a live block are never released, whatever the age. */
static void reclaim_never_live(void **state)
{
	const struct dgt_row *r = *state;
	struct filled f;
	size_t c;

	dg_user_ticks = 5;
	fill(&f, r, CHUNKS);
	/* one live block in every chunk but the last two */
	for (c = 0; c < CHUNKS; c++)
		free_range(&f, c * f.bpc + (c < CHUNKS - 2), (c + 1) * f.bpc);
	dg_pool_drain(f.pool);	/* cached blocks back to their chunks */
	assert_int_equal(dgt_stats(f.pool).chunks_empty, 2);
	dg_user_ticks += 100000;
	assert_int_equal(dg_pool_reclaim(f.pool, 0, 0), 2);
	assert_int_equal(dgt_stats(f.pool).chunks, CHUNKS - 2);
	assert_int_equal(dgt_stats(f.pool).chunks_empty, 0);
	for (c = 0; c < CHUNKS - 2; c++) {
		struct dgt_blk *live = &f.b[c * f.bpc];

		dgt_assert_in_chunks(f.pool, live, 1, r->size, r->align,
				     r->boundary);
		memset(live->v, 0x42, r->size);		/* ASan: still ours */
	}
	assert_int_equal(dg_pool_reclaim(f.pool, 0, 0), 0);
	for (c = 0; c < CHUNKS - 2; c++)
		assert_int_equal(dg_pool_free(f.pool, f.b[c * f.bpc].v,
					      f.b[c * f.bpc].dma), DG_FREE_OK);
	assert_int_equal(dg_pool_reclaim(f.pool, 0, 0), CHUNKS - 2);
	assert_int_equal(dg_user_count.chunks_live, dgt_base.chunks_live);
	assert_int_equal(dg_pool_destroy(f.pool), 0);
	free(f.b);
}

/*
 * Hysteresis is per chunk: chunks emptied at different times go when each
 * of them is old enough.
 */
static void reclaim_by_age(void **state)
{
	const struct dgt_row *r = *state;
	struct filled f;
	size_t c;

	dg_user_ticks = 100;
	fill(&f, r, CHUNKS);
	for (c = 0; c < CHUNKS; c++) {
		free_range(&f, c * f.bpc, (c + 1) * f.bpc);
		dg_pool_drain(f.pool);	/* chunk c empties now, not at reclaim */
		dg_user_ticks += 10;	/* chunk c empty since 100 + 10c */
	}
	/* now = 160: ages 60, 50, ..., 10 */
	assert_int_equal(dg_pool_reclaim(f.pool, 45, 0), 2);
	assert_int_equal(dgt_stats(f.pool).chunks, CHUNKS - 2);
	assert_int_equal(dg_pool_reclaim(f.pool, 45, 0), 0);
	assert_int_equal(dg_pool_reclaim(f.pool, 25, 0), 2);
	assert_int_equal(dg_pool_reclaim(f.pool, 10, 1), 1);
	assert_int_equal(dgt_stats(f.pool).chunks, 1);
	assert_int_equal(dgt_stats(f.pool).chunks_empty, 1);
	/* the first freed chunks went first: their pointers are foreign now */
	assert_int_equal(dg_pool_free(f.pool, f.b[0].v, f.b[0].dma),
			 DG_BAD_FOREIGN);
	assert_int_equal(dg_pool_free(f.pool, f.b[f.bpc].v, f.b[f.bpc].dma),
			 DG_BAD_FOREIGN);
	/* one of the two youngest was kept: its blocks are free, not foreign */
	{
		size_t c4 = (CHUNKS - 2) * f.bpc, c5 = (CHUNKS - 1) * f.bpc;
		enum dg_bad_free a = dg_pool_free(f.pool, f.b[c4].v,
						  f.b[c4].dma);
		enum dg_bad_free b = dg_pool_free(f.pool, f.b[c5].v,
						  f.b[c5].dma);

		assert_true((a == DG_BAD_DOUBLE && b == DG_BAD_FOREIGN) ||
			    (a == DG_BAD_FOREIGN && b == DG_BAD_DOUBLE));
	}
	assert_int_equal(dg_pool_destroy(f.pool), 0);
	free(f.b);
}

/*
 * The free path caches the chunk of the previous free. After that chunk is
 * released, a (bad) free into it must be caught as foreign, not served
 * from the stale cache (ASan would see the freed descriptor).
 */
static void reclaim_drops_lookup_cache(void **state)
{
	const struct dgt_row *r = *state;
	struct filled f;
	struct dgt_blk x;
	size_t i;

	dg_user_ticks = 0;
	fill(&f, r, 2);
	free_range(&f, f.bpc, 2 * f.bpc);	/* chunk 1 empty, cached */
	assert_int_equal(dg_pool_reclaim(f.pool, 0, 0), 1);
	assert_int_equal(dg_pool_free(f.pool, f.b[f.bpc].v, f.b[f.bpc].dma),
			 DG_BAD_FOREIGN);
	assert_int_equal(dg_pool_free(f.pool, f.b[2 * f.bpc - 1].v,
				      f.b[2 * f.bpc - 1].dma), DG_BAD_FOREIGN);
	/* chunk 0 untouched */
	assert_int_equal(dgt_stats(f.pool).blocks_in_use, f.bpc);
	free_range(&f, 0, f.bpc);
	/* grow again and use the new chunk */
	for (i = 0; i < 2 * f.bpc; i++) {
		x = dgt_alloc(f.pool, GFP_KERNEL, r->size, r->align,
			      r->boundary);
		f.b[i] = x;
	}
	assert_int_equal(dgt_stats(f.pool).chunks, 2);
	dgt_assert_in_chunks(f.pool, f.b, 2 * f.bpc, r->size, r->align,
			     r->boundary);
	dgt_assert_disjoint(f.b, 2 * f.bpc, r->size);
	free_range(&f, 0, 2 * f.bpc);
	assert_int_equal(dg_pool_destroy(f.pool), 0);
	free(f.b);
}

/* Reclaim interleaved with allocation keeps the pool consistent. */
static void reclaim_churn(void **state)
{
	const struct dgt_row *r = *state;
	struct filled f;
	size_t round, i, live;

	dg_user_ticks = 0;
	fill(&f, r, CHUNKS);
	live = f.n;
	for (round = 0; round < 8; round++) {
		/* free a pseudo-random subset, reclaim, refill */
		for (i = 0; i < f.n; i++)
			if (f.b[i].v && (i * 2654435761u + round) % 3 == 0) {
				assert_int_equal(dg_pool_free(f.pool, f.b[i].v,
							      f.b[i].dma),
						 DG_FREE_OK);
				f.b[i].v = NULL;
				live--;
			}
		if (round % 2)
			for (i = 0; i < f.n; i++)
				if (f.b[i].v && i % 5 != 0) {
					dg_pool_free(f.pool, f.b[i].v,
						     f.b[i].dma);
					f.b[i].v = NULL;
					live--;
				}
		dg_user_ticks += 3;
		dg_pool_reclaim(f.pool, round % 3, round % 2);
		assert_int_equal(dgt_stats(f.pool).blocks_in_use, live);
		for (i = 0; i < f.n; i++)
			if (!f.b[i].v) {
				f.b[i] = dgt_alloc(f.pool, GFP_KERNEL, r->size,
						   r->align, r->boundary);
				live++;
			}
		{
			struct dgt_blk *copy = calloc(f.n, sizeof(*copy));

			assert_non_null(copy);
			memcpy(copy, f.b, f.n * sizeof(*copy));
			dgt_assert_in_chunks(f.pool, copy, f.n, r->size,
					     r->align, r->boundary);
			dgt_assert_disjoint(copy, f.n, r->size);
			free(copy);
		}
	}
	free_range(&f, 0, f.n);
	assert_int_equal(dg_pool_destroy(f.pool), 0);
	free(f.b);
}

/*
 * Lazy IOTLB invalidation (DMA-FQ): a chunk given back to the system
 * would stay reachable by the device until the flush queue drains, so
 * empty chunks stay until the destroy, which frees them all.
 */
static void reclaim_none_when_lazy(void **state)
{
	const struct dgt_row *r = *state;
	long bytes0;
	struct filled f;

	dg_user_ticks = 1000;
	dg_user_lazy_unmap = true;
	fill(&f, r, CHUNKS);
	dg_user_lazy_unmap = false;
	free_range(&f, 0, f.n);
	dg_pool_drain(f.pool);
	bytes0 = dg_user_count.chunk_bytes_live;
	assert_int_equal(dgt_stats(f.pool).chunks_empty, CHUNKS);
	dg_user_ticks += 1000;
	assert_int_equal(dg_pool_reclaim(f.pool, 0, 0), 0);
	assert_int_equal(dgt_stats(f.pool).chunks, CHUNKS);
	assert_int_equal(dgt_stats(f.pool).chunks_released, 0);
	assert_int_equal(dg_user_count.chunk_bytes_live, bytes0);
	assert_int_equal(dg_pool_destroy(f.pool), 0);
	assert_int_equal(dg_user_count.chunk_bytes_live,
			 bytes0 - (long)(CHUNKS * f.chunk));
	free(f.b);
}

int main(void)
{
	static void (*const fns[])(void **) = {
		reclaim_after_free_all, reclaim_never_live, reclaim_by_age,
		reclaim_drops_lookup_cache, reclaim_churn,
		reclaim_none_when_lazy,
	};
	static const char *const names[] = {
		"after_free_all", "never_live", "by_age", "drops_lookup_cache",
		"churn", "none_when_lazy",
	};
	return dgt_run_matrix("pool_reclaim", fns, names,
			      sizeof(fns) / sizeof(fns[0]), rows, NR_ROWS);
}
