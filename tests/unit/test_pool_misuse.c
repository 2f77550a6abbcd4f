// SPDX-License-Identifier: GPL-2.0
/*
 * Driver misuse of dg_pool_free(): foreign, interior, slack, wrong dma and
 * double frees. Each is classified (enum dg_bad_free), counted in
 * stats.bad_frees, reported once per pool, and NOT applied: the pool's live
 * blocks stay live and the next allocations are unaffected.
 */
#include "dg_test.h"

/* Geometries with slack and interior room: tail slack, segment slack. */
static const struct dgt_row rows[] = {
	{ "64_64", 64, 64, 0 },
	{ "68_32_b4096", 68, 32, 4096 },
	{ "100_4_b128", 100, 4, 128 },
	{ "3000_64_b4096", 3000, 64, 4096 },
	{ "24_8_b64", 24, 8, 64 },
	{ "4096_4096", 4096, 4096, 0 },
};

#define NR_ROWS	(sizeof(rows) / sizeof(rows[0]))
#define NLIVE	40

/* A pool with NLIVE live blocks, and what must stay true of it. */
struct fixture {
	const struct dgt_row *r;
	struct dg_pool *pool;
	struct dgt_blk live[NLIVE];
	struct dg_pool_stats st0;
	unsigned long first0, again0;
	u64 bad_total;
};

static void fx_init(struct fixture *f, const struct dgt_row *r)
{
	int i;

	memset(f, 0, sizeof(*f));
	f->r = r;
	f->pool = dgt_create_row(r);
	assert_non_null(f->pool);
	for (i = 0; i < NLIVE; i++) {
		f->live[i] = dgt_alloc(f->pool, GFP_KERNEL, r->size, r->align,
				       r->boundary);
		memset(f->live[i].v, i, r->size);
	}
	f->st0 = dgt_stats(f->pool);
	f->first0 = dg_user_reports_err;
	f->again0 = dg_user_reports_again;
}

/*
 * Free (@v, @dma) and expect it rejected as @want: counted, reported (the
 * pool's first report with dev_err(), the rest with dev_err_ratelimited()),
 * and nothing else about the pool changed.
 */
static void expect_bad(struct fixture *f, void *v, dma_addr_t dma,
		       enum dg_bad_free want)
{
	struct dg_pool_stats st;
	int i;

	assert_int_equal(dg_pool_free(f->pool, v, dma), want);
	f->bad_total++;
	st = dgt_stats(f->pool);
	assert_int_equal(st.bad_frees[want], f->st0.bad_frees[want] + 1);
	f->st0.bad_frees[want]++;
	assert_memory_equal(&st, &f->st0, sizeof(st));
	assert_int_equal(dg_user_reports_err, f->first0 + 1);
	assert_int_equal(dg_user_reports_again, f->again0 + f->bad_total - 1);
	/* the live blocks' contents were not touched */
	for (i = 0; i < NLIVE; i++)
		if (f->live[i].v)
			assert_int_equal(f->live[i].v[f->r->size - 1],
					 (unsigned char)i);
}

/* Free every live block: all accepted; destroy clean. */
static void fx_fini(struct fixture *f)
{
	int i;

	for (i = 0; i < NLIVE; i++)
		if (f->live[i].v)
			assert_int_equal(dg_pool_free(f->pool, f->live[i].v,
						      f->live[i].dma),
					 DG_FREE_OK);
	assert_int_equal(dgt_stats(f->pool).blocks_in_use, 0);
	assert_int_equal(dg_pool_destroy(f->pool), 0);
}

/* The next @n allocations are distinct from each other and from live. */
static void expect_fresh_allocs(struct fixture *f, int n)
{
	struct dgt_blk b[NLIVE + 8], all[2 * NLIVE + 8];
	size_t k = 0;
	int i;

	assert_true(n <= 8 + NLIVE);
	for (i = 0; i < n; i++) {
		b[i] = dgt_alloc(f->pool, GFP_KERNEL, f->r->size, f->r->align,
				 f->r->boundary);
		all[k++] = b[i];
	}
	for (i = 0; i < NLIVE; i++)
		if (f->live[i].v)
			all[k++] = f->live[i];
	dgt_assert_in_chunks(f->pool, all, k, f->r->size, f->r->align,
			     f->r->boundary);
	dgt_assert_disjoint(all, k, f->r->size);
	for (i = 0; i < n; i++)
		assert_int_equal(dg_pool_free(f->pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
}

static void foreign_malloc(void **state)
{
	struct fixture f;
	unsigned char *m = malloc(4096);

	assert_non_null(m);
	fx_init(&f, *state);
	expect_bad(&f, m, (uintptr_t)m + DG_USER_DMA_OFFSET, DG_BAD_FOREIGN);
	expect_bad(&f, m + 64, (uintptr_t)m + 64 + DG_USER_DMA_OFFSET,
		   DG_BAD_FOREIGN);
	expect_bad(&f, &f, 0, DG_BAD_FOREIGN);		/* stack */
	expect_bad(&f, (void *)foreign_malloc, 0, DG_BAD_FOREIGN); /* text */
	expect_fresh_allocs(&f, 2);
	fx_fini(&f);
	free(m);
}

static void foreign_null(void **state)
{
	struct fixture f;

	fx_init(&f, *state);
	expect_bad(&f, NULL, 0, DG_BAD_FOREIGN);
	expect_bad(&f, NULL, f.live[0].dma, DG_BAD_FOREIGN);
	expect_bad(&f, (void *)(uintptr_t)1, 0, DG_BAD_FOREIGN);
	expect_bad(&f, (void *)~(uintptr_t)0, 0, DG_BAD_FOREIGN);
	expect_bad(&f, (void *)~(uintptr_t)4095, 0, DG_BAD_FOREIGN);
	expect_fresh_allocs(&f, 2);
	fx_fini(&f);
}

static void foreign_other_pool(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *other = dgt_create("other", r->size, r->align,
					   r->boundary);
	struct dgt_blk o;
	struct fixture f;

	assert_non_null(other);
	o = dgt_alloc(other, GFP_KERNEL, r->size, r->align, r->boundary);
	fx_init(&f, r);
	expect_bad(&f, o.v, o.dma, DG_BAD_FOREIGN);
	/* the other pool's block is still live there */
	assert_int_equal(dgt_stats(other).blocks_in_use, 1);
	assert_int_equal(dgt_stats(other).bad_frees[DG_BAD_FOREIGN], 0);
	/* and the reverse: ours in the other pool */
	assert_int_equal(dg_pool_free(other, f.live[0].v, f.live[0].dma),
			 DG_BAD_FOREIGN);
	assert_int_equal(dgt_stats(other).bad_frees[DG_BAD_FOREIGN], 1);
	assert_int_equal(dgt_stats(f.pool).blocks_in_use, NLIVE);
	/* the other pool reports its first bad free with dev_err() too */
	assert_int_equal(dg_user_reports_err, f.first0 + 2);
	assert_int_equal(dg_pool_free(other, o.v, o.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(other), 0);
	expect_fresh_allocs(&f, 2);
	fx_fini(&f);
}

static void interior_pointer(void **state)
{
	const struct dgt_row *r = *state;
	struct fixture f;
	int i;

	fx_init(&f, r);
	for (i = 0; i < NLIVE; i += 7) {
		struct dgt_blk b = f.live[i];

		expect_bad(&f, b.v + 1, b.dma + 1, DG_BAD_MISALIGNED);
		expect_bad(&f, b.v + r->size / 2, b.dma + r->size / 2,
			   DG_BAD_MISALIGNED);
		expect_bad(&f, b.v + r->size - 1, b.dma + r->size - 1,
			   DG_BAD_MISALIGNED);
		/* interior with the block's own dma: still misaligned */
		expect_bad(&f, b.v + 1, b.dma, DG_BAD_MISALIGNED);
	}
	expect_fresh_allocs(&f, 2);
	fx_fini(&f);
}

/*
 * Pointers into the slack of a chunk: between the last block and the end
 * of the chunk, and between a block and the next boundary segment. Built
 * from the reference layout, so every non-block offset in a chunk is tried
 * (sampled for big chunks).
 */
static void slack_pointer(void **state)
{
	const struct dgt_row *r = *state;
	struct dgt_chunks *cs;
	unsigned char *mem;
	size_t off, chunk, a = r->align ? r->align : 1, tried = 0;
	dma_addr_t cdma;
	struct fixture f;

	fx_init(&f, r);
	cs = dgt_chunks(f.pool);
	assert_true(cs->n >= 1);
	mem = cs->c[0].mem;
	cdma = cs->c[0].dma;
	chunk = cs->c[0].len;
	free(cs);
	/* every aligned offset that is not a block start */
	for (off = 0; off < chunk; off += a) {
		if (dgt_ref_is_block(off, r->size, r->align, r->boundary, chunk))
			continue;
		expect_bad(&f, mem + off, cdma + off, DG_BAD_MISALIGNED);
		tried++;
	}
	/* the last bytes of the chunk */
	expect_bad(&f, mem + chunk - 1, cdma + chunk - 1, DG_BAD_MISALIGNED);
	if (chunk % ((r->size + a - 1) & ~(a - 1)) || r->boundary)
		assert_true(tried > 0);
	expect_fresh_allocs(&f, 2);
	fx_fini(&f);
}

static void wrong_dma(void **state)
{
	const struct dgt_row *r = *state;
	struct dgt_blk other;
	struct fixture f;

	fx_init(&f, r);
	other = f.live[1];
	expect_bad(&f, f.live[0].v, other.dma, DG_BAD_DMA);
	expect_bad(&f, f.live[0].v, f.live[0].dma + 1, DG_BAD_DMA);
	expect_bad(&f, f.live[0].v, f.live[0].dma - 1, DG_BAD_DMA);
	expect_bad(&f, f.live[0].v, 0, DG_BAD_DMA);
	expect_bad(&f, f.live[0].v, (uintptr_t)f.live[0].v, DG_BAD_DMA);
	expect_bad(&f, f.live[0].v, ~(dma_addr_t)0, DG_BAD_DMA);
	expect_bad(&f, f.live[0].v, f.live[0].dma ^ (1ull << 40), DG_BAD_DMA);
	/* the block is still live: the right handle frees it, once */
	assert_int_equal(dg_pool_free(f.pool, f.live[0].v, f.live[0].dma),
			 DG_FREE_OK);
	f.live[0].v = NULL;
	f.st0 = dgt_stats(f.pool);
	expect_bad(&f, (void *)other.v, other.dma + 4096, DG_BAD_DMA);
	expect_fresh_allocs(&f, 2);
	fx_fini(&f);
}

/*
 * A rejected double free is not applied: the block is handed out once by
 * the next allocations, never twice.
 */
static void double_free(void **state)
{
	const struct dgt_row *r = *state;
	struct fixture f;
	struct dgt_blk b;
	int i;

	fx_init(&f, r);
	b = f.live[5];
	assert_int_equal(dg_pool_free(f.pool, b.v, b.dma), DG_FREE_OK);
	f.live[5].v = NULL;
	f.st0 = dgt_stats(f.pool);
	for (i = 0; i < 3; i++)
		expect_bad(&f, b.v, b.dma, DG_BAD_DOUBLE);
	assert_int_equal(dgt_stats(f.pool).blocks_in_use, NLIVE - 1);
	/* the next allocations: distinct, none a live block */
	expect_fresh_allocs(&f, 8);
	fx_fini(&f);
}

/* Double free of a block in a chunk that is otherwise empty. */
static void double_free_empty_chunk(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct dgt_blk b, x, y;
	struct dg_pool_stats st;

	assert_non_null(pool);
	b = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	assert_int_equal(dg_pool_free(pool, b.v, b.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_free(pool, b.v, b.dma), DG_BAD_DOUBLE);
	assert_int_equal(dg_pool_free(pool, b.v, b.dma), DG_BAD_DOUBLE);
	dg_pool_drain(pool);	/* the cached block back to its chunk */
	st = dgt_stats(pool);
	assert_int_equal(st.blocks_in_use, 0);
	assert_int_equal(st.chunks_empty, 1);
	assert_int_equal(st.bad_frees[DG_BAD_DOUBLE], 2);
	x = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	y = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	assert_ptr_not_equal(x.v, y.v);
	assert_int_equal(dgt_stats(pool).blocks_in_use, 2);
	assert_int_equal(dg_pool_free(pool, x.v, x.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_free(pool, y.v, y.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

/* Every block of a held chunk that was never handed out: double free. */
static void never_allocated_block(void **state)
{
	const struct dgt_row *r = *state;
	struct dgt_chunks *cs;
	struct fixture f;
	size_t off, bpc;
	int i, n = 0;

	fx_init(&f, r);
	bpc = dgt_stats(f.pool).blocks_per_chunk;
	cs = dgt_chunks(f.pool);
	for (i = 0; i < (int)cs->n; i++)
		for (off = 0; off < cs->c[i].len; off++) {
			unsigned char *v = cs->c[i].mem + off;
			int k;

			if (!dgt_ref_is_block(off, r->size, r->align,
					      r->boundary, cs->c[i].len))
				continue;
			for (k = 0; k < NLIVE; k++)
				if (f.live[k].v == v)
					break;
			if (k < NLIVE)
				continue;
			expect_bad(&f, v, cs->c[i].dma + off, DG_BAD_DOUBLE);
			n++;
		}
	assert_int_equal(n, cs->n * bpc - NLIVE);
	free(cs);
	expect_fresh_allocs(&f, 8);
	fx_fini(&f);
}

/* Reports: one dev_err() per pool whatever the mix, then ratelimited. */
static void report_once_per_pool(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *p1 = dgt_create("r1", r->size, r->align, r->boundary);
	struct dg_pool *p2 = dgt_create("r2", r->size, r->align, r->boundary);
	unsigned long first = dg_user_reports_err;
	unsigned long again = dg_user_reports_again;
	struct dgt_blk a = dgt_alloc(p1, GFP_KERNEL, r->size, r->align,
				     r->boundary);
	struct dg_pool_stats st;

	assert_int_equal(dg_pool_free(p1, a.v + 1, a.dma + 1),
			 DG_BAD_MISALIGNED);
	assert_int_equal(dg_user_reports_err, first + 1);
	assert_int_equal(dg_user_reports_again, again);
	assert_int_equal(dg_pool_free(p1, NULL, 0), DG_BAD_FOREIGN);
	assert_int_equal(dg_pool_free(p1, a.v, a.dma + 8), DG_BAD_DMA);
	assert_int_equal(dg_user_reports_err, first + 1);
	assert_int_equal(dg_user_reports_again, again + 2);
	/* the second pool has its own first report */
	assert_int_equal(dg_pool_free(p2, a.v, a.dma), DG_BAD_FOREIGN);
	assert_int_equal(dg_user_reports_err, first + 2);
	assert_int_equal(dg_pool_free(p2, a.v, a.dma), DG_BAD_FOREIGN);
	assert_int_equal(dg_user_reports_again, again + 3);
	/* a legit free in between changes nothing about that */
	assert_int_equal(dg_pool_free(p1, a.v, a.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_free(p1, a.v, a.dma), DG_BAD_DOUBLE);
	assert_int_equal(dg_user_reports_err, first + 2);
	assert_int_equal(dg_user_reports_again, again + 4);
	st = dgt_stats(p1);
	assert_int_equal(st.bad_frees[DG_FREE_OK], 0);
	assert_int_equal(st.bad_frees[DG_BAD_FOREIGN], 1);
	assert_int_equal(st.bad_frees[DG_BAD_MISALIGNED], 1);
	assert_int_equal(st.bad_frees[DG_BAD_DMA], 1);
	assert_int_equal(st.bad_frees[DG_BAD_DOUBLE], 1);
	assert_int_equal(dgt_stats(p2).bad_frees[DG_BAD_FOREIGN], 2);
	assert_int_equal(dg_pool_destroy(p1), 0);
	assert_int_equal(dg_pool_destroy(p2), 0);
}

/*
 * The chunk lookup caches the chunk of the previous free: misuse that
 * alternates between chunks must not be confused by the cache.
 */
static void misuse_across_chunks(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	size_t bpc, n, i;
	struct dgt_blk *b;

	assert_non_null(pool);
	bpc = dgt_stats(pool).blocks_per_chunk;
	n = 3 * bpc;
	b = calloc(n, sizeof(*b));
	assert_non_null(b);
	for (i = 0; i < n; i++)
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
	for (i = 0; i < n; i += 2)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	for (i = 0; i < n; i++) {
		size_t j = (i * 7919) % n;	/* hop between chunks */

		if (j % 2 == 0)
			assert_int_equal(dg_pool_free(pool, b[j].v, b[j].dma),
					 DG_BAD_DOUBLE);
		else
			assert_int_equal(dg_pool_free(pool, b[j].v,
						      b[(j + bpc) % n].dma),
					 DG_BAD_DMA);
	}
	assert_int_equal(dgt_stats(pool).blocks_in_use, n / 2);
	for (i = 1; i < n; i += 2)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	assert_int_equal(dgt_stats(pool).blocks_in_use, 0);
	assert_int_equal(dg_pool_destroy(pool), 0);
	free(b);
}

int main(void)
{
	static void (*const fns[])(void **) = {
		foreign_malloc, foreign_null, foreign_other_pool,
		interior_pointer, slack_pointer, wrong_dma, double_free,
		double_free_empty_chunk, never_allocated_block,
		report_once_per_pool, misuse_across_chunks,
	};
	static const char *const names[] = {
		"foreign_malloc", "foreign_null", "foreign_other_pool",
		"interior", "slack", "wrong_dma", "double_free",
		"double_free_empty_chunk", "never_allocated",
		"report_once_per_pool", "across_chunks",
	};
	return dgt_run_matrix("pool_misuse", fns, names,
			      sizeof(fns) / sizeof(fns[0]), rows, NR_ROWS);
}
