// SPDX-License-Identifier: GPL-2.0
/*
 * Failure injection: for N = 1, 2, ... make the N-th allocation of the
 * platform (bookkeeping or chunk memory) fail during "create, then
 * allocate many blocks" until N is past the last allocation of the run.
 * A failed create or alloc returns NULL; the pool stays consistent (later
 * allocations work, blocks distinct and well placed, stats right, no
 * orphan chunk) and destroy leaks nothing. A failed growth of the chunk
 * table is absorbed (the table just runs fuller), so not every injected
 * failure makes an allocation fail.
 */
#include "dg_test.h"

static const struct dgt_row rows[] = {
	{ "16_16", 16, 16, 0 },
	{ "68_32_b4096", 68, 32, 4096 },
	{ "1024_1024", 1024, 1024, 0 },
	{ "4096_4096", 4096, 4096, 0 },
};

#define NR_ROWS	(sizeof(rows) / sizeof(rows[0]))
/* Enough chunks for the chunk lookup table to grow twice. */
#define CHUNKS	20
#define MAX_N	400

/* One run with the N-th allocation failing; returns whether it was reached. */
static bool run_once(const struct dgt_row *r, unsigned long nth, gfp_t gfp)
{
	struct dg_pool *pool;
	struct dg_pool_stats st;
	struct dgt_blk *b, x;
	size_t bpc, want, got = 0, tries, i;
	int fired = 0;
	bool reached;

	dg_user_fail_nth_alloc(nth);
	pool = dgt_create_row(r);
	if (!pool) {
		dg_user_fail_nth_alloc(0);
		assert_int_equal(dg_user_count.meta_live, dgt_base.meta_live);
		assert_int_equal(dg_user_count.chunks_live,
				 dgt_base.chunks_live);
		return true;
	}
	bpc = dgt_stats(pool).blocks_per_chunk;
	want = CHUNKS * bpc;
	b = calloc(want + 2 * bpc, sizeof(*b));
	assert_non_null(b);
	for (tries = 0; got < want && tries < want + 4; tries++) {
		x.dma = 0;
		x.v = dg_pool_alloc(pool, gfp, &x.dma);
		if (!x.v) {
			fired++;
			st = dgt_stats(pool);
			/* nothing half-done is left behind */
			assert_int_equal(st.blocks_in_use, got);
			assert_int_equal(st.chunks, (got + bpc - 1) / bpc);
			assert_int_equal(dg_user_count.chunks_live -
					 dgt_base.chunks_live, st.chunks);
			continue;
		}
		b[got] = x;
		assert_int_equal(x.dma, dg_user_bus_of(x.v));
		got++;
	}
	reached = dg_user_fail_reached();
	dg_user_fail_nth_alloc(0);
	assert_true(fired <= 1);
	assert_true(reached || !fired);
	assert_int_equal(got, want);

	/* and later allocations work */
	for (i = 0; i < 2 * bpc; i++)
		b[got++] = dgt_alloc(pool, gfp, r->size, r->align, r->boundary);

	st = dgt_stats(pool);
	assert_int_equal(st.blocks_in_use, got);
	assert_int_equal(st.chunks, (got + bpc - 1) / bpc);
	assert_int_equal(st.blocks_total, st.chunks * bpc);
	assert_int_equal(dg_user_count.chunks_live - dgt_base.chunks_live,
			 st.chunks);
	dgt_assert_in_chunks(pool, b, got, r->size, r->align, r->boundary);
	dgt_assert_disjoint(b, got, r->size);
	for (i = 0; i < got; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	assert_int_equal(dgt_stats(pool).blocks_in_use, 0);
	assert_int_equal(dg_pool_destroy(pool), 0);
	assert_int_equal(dg_user_count.meta_live, dgt_base.meta_live);
	assert_int_equal(dg_user_count.chunks_live, dgt_base.chunks_live);
	free(b);
	return reached;
}

static void fail_nth(const struct dgt_row *r, gfp_t gfp)
{
	unsigned long n;

	for (n = 1; n <= MAX_N; n++)
		if (!run_once(r, n, gfp))
			break;
	/* every chunk costs at least two allocations; all were tried */
	assert_true(n > 2 * CHUNKS);
	assert_true(n <= MAX_N);
	print_message("%s: failure injected at each of %lu allocations\n",
		      r->name, n - 1);
}

static void fail_nth_kernel(void **state)
{
	fail_nth(*state, GFP_KERNEL);
}

static void fail_nth_atomic(void **state)
{
	fail_nth(*state, GFP_ATOMIC | __GFP_ZERO);
}

/*
 * A failure while the pool already holds live blocks and free blocks: the
 * free blocks are used first, the failure only shows once they are gone.
 */
static void fail_with_free_blocks(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct dgt_blk *b, x;
	size_t bpc, i;

	assert_non_null(pool);
	bpc = dgt_stats(pool).blocks_per_chunk;
	b = calloc(2 * bpc, sizeof(*b));
	assert_non_null(b);
	for (i = 0; i < 2 * bpc; i++)
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
	for (i = 0; i < 2 * bpc; i += 2)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	dg_user_fail_nth_alloc(1);
	for (i = 0; i < 2 * bpc; i += 2)
		b[i] = dgt_alloc(pool, GFP_ATOMIC, r->size, r->align,
				 r->boundary);
	x.v = dg_pool_alloc(pool, GFP_ATOMIC, &x.dma);
	assert_null(x.v);
	dg_user_fail_nth_alloc(0);
	assert_int_equal(dgt_stats(pool).chunks, 2);
	x = dgt_alloc(pool, GFP_ATOMIC, r->size, r->align, r->boundary);
	assert_int_equal(dgt_stats(pool).chunks, 3);
	assert_int_equal(dg_pool_free(pool, x.v, x.dma), DG_FREE_OK);
	for (i = 0; i < 2 * bpc; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(pool), 0);
	free(b);
}

/*
 * The chunk table cannot grow and has no slot to spare: the new chunk
 * cannot go into service. Its memory must not be freed in the caller's
 * context when the caller cannot sleep (with interrupts off that would be
 * dma_free_coherent() in atomic context): it waits for the next reclaim,
 * or the destroy. A caller that may sleep frees it at once.
 */
static void table_full(const struct dgt_row *r, gfp_t gfp, bool reclaim)
{
	struct dg_pool *pool = dgt_create_row(r);
	struct dgt_blk *b, x;
	size_t bpc, n = 0, max, i;
	long live;

	assert_non_null(pool);
	bpc = dgt_stats(pool).blocks_per_chunk;
	/* The table starts with 16 slots; 15 chunks fill it to the last one. */
	max = 15 * bpc;
	b = calloc(max, sizeof(*b));
	assert_non_null(b);
	while (n < max) {
		/*
		 * From the 9th chunk on, growing needs a bigger table: the
		 * third allocation of a grow (descriptor, memory, table).
		 */
		if (n % bpc == 0 && n / bpc >= 8)
			dg_user_fail_nth_alloc(3);
		b[n] = dgt_alloc(pool, gfp, r->size, r->align, r->boundary);
		n++;
		if (n % bpc == 0)
			dg_user_fail_nth_alloc(0);
	}
	assert_int_equal(dgt_stats(pool).chunks, 15);

	dg_user_fail_nth_alloc(3);
	x.v = dg_pool_alloc(pool, gfp, &x.dma);
	assert_null(x.v);
	assert_true(dg_user_fail_reached());
	dg_user_fail_nth_alloc(0);
	live = dg_user_count.chunks_live - dgt_base.chunks_live;
	if (gfp & GFP_KERNEL) {
		assert_int_equal(live, 15);	/* freed at once */
	} else {
		assert_int_equal(live, 16);	/* parked, not freed */
		if (reclaim) {
			/* min_age and keep do not matter to parked chunks */
			assert_int_equal(dg_pool_reclaim(pool, ~0ul, ~0u), 0);
			assert_int_equal(dg_user_count.chunks_live -
					 dgt_base.chunks_live, 15);
		}
	}
	assert_int_equal(dgt_stats(pool).chunks, 15);
	for (i = 0; i < n; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	/* destroy frees a parked chunk too (the teardown checks the counts) */
	assert_int_equal(dg_pool_destroy(pool), 0);
	free(b);
}

static void table_full_kernel(void **state)
{
	table_full(*state, GFP_KERNEL, false);
}

static void table_full_atomic_reclaim(void **state)
{
	table_full(*state, GFP_ATOMIC, true);
}

static void table_full_atomic_destroy(void **state)
{
	table_full(*state, GFP_ATOMIC, false);
}

int main(void)
{
	static void (*const fns[])(void **) = {
		fail_nth_kernel, fail_nth_atomic, fail_with_free_blocks,
		table_full_kernel, table_full_atomic_reclaim,
		table_full_atomic_destroy,
	};
	static const char *const names[] = {
		"fail_nth", "fail_nth_atomic", "fail_with_free_blocks",
		"table_full", "table_full_atomic_reclaim",
		"table_full_atomic_destroy",
	};
	return dgt_run_matrix("pool_failinject", fns, names,
			      sizeof(fns) / sizeof(fns[0]), rows, NR_ROWS);
}
