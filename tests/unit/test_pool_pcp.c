// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU caches of free blocks (userspace "CPUs" are slots a thread
 * is moved between with dg_user_set_cpu()): a freed block is reused first
 * on its CPU; a double free is caught wherever the first free left the
 * block (this CPU's cache, another CPU's, its chunk); reclaim and destroy
 * take back what every cache holds (visiting only the CPUs that cache
 * blocks), and so does a CPU going offline; a chunk that a reclaim freed
 * is never reached through a CPU's memory of its previous free (ASan
 * would see it).
 */
#include "dg_test.h"

static const struct dgt_row rows[] = {
	{ "16_16", 16, 16, 0 },
	{ "64_64", 64, 64, 0 },
	{ "68_32_b4096", 68, 32, 4096 },
	{ "1024_1024", 1024, 1024, 0 },
	{ "2048_2048", 2048, 2048, 0 },
	{ "4096_4096", 4096, 4096, 0 },
};

static void lifo_reuse(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct dgt_blk a, b, c;

	assert_non_null(pool);
	dg_user_set_cpu(0);
	a = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	b = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	assert_int_equal(dg_pool_free(pool, a.v, a.dma), DG_FREE_OK);
	c = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	assert_ptr_equal(c.v, a.v);
	assert_int_equal(dgt_stats(pool).blocks_in_use, 2);
	assert_int_equal(dg_pool_free(pool, b.v, b.dma), DG_FREE_OK);
	assert_int_equal(dg_pool_free(pool, c.v, c.dma), DG_FREE_OK);
	assert_int_equal(dgt_stats(pool).blocks_in_use, 0);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

/* Freed on CPU 1, freed again on CPU 0 and on CPU 1: caught each time. */
static void double_free_across_cpus(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct dgt_blk b[64], x;
	size_t i, n = 64;

	assert_non_null(pool);
	dg_user_set_cpu(0);
	for (i = 0; i < n; i++)
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
	dg_user_set_cpu(1);
	assert_int_equal(dg_pool_free(pool, b[5].v, b[5].dma), DG_FREE_OK);
	dg_user_set_cpu(0);
	assert_int_equal(dg_pool_free(pool, b[5].v, b[5].dma), DG_BAD_DOUBLE);
	dg_user_set_cpu(1);
	assert_int_equal(dg_pool_free(pool, b[5].v, b[5].dma), DG_BAD_DOUBLE);
	assert_int_equal(dgt_stats(pool).bad_frees[DG_BAD_DOUBLE], 2);

	/* CPU 1 hands it out again; CPU 0 never does while it is live */
	x = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	assert_ptr_equal(x.v, b[5].v);
	dg_user_set_cpu(0);
	for (i = 0; i < n; i++)
		if (i != 5)
			assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
					 DG_FREE_OK);
	for (i = 0; i < n - 1; i++) {
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
		assert_ptr_not_equal(b[i].v, x.v);
	}
	b[n - 1] = x;
	dgt_assert_disjoint(b, n, r->size);
	for (i = 0; i < n; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	assert_int_equal(dgt_stats(pool).blocks_in_use, 0);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

/* Blocks cached on every CPU: reclaim gets every chunk back. */
static void reclaim_drains_every_cpu(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	size_t i, n, bpc;
	struct dgt_blk *b;
	u32 chunks;

	assert_non_null(pool);
	bpc = dgt_stats(pool).blocks_per_chunk;
	n = 3 * bpc;
	b = calloc(n, sizeof(*b));
	assert_non_null(b);
	for (i = 0; i < n; i++) {
		dg_user_set_cpu(i % DG_USER_CPUS);
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
	}
	for (i = 0; i < n; i++) {
		dg_user_set_cpu((i * 3) % DG_USER_CPUS);
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	}
	dg_user_set_cpu(0);
	assert_int_equal(dgt_stats(pool).blocks_in_use, 0);
	chunks = dgt_stats(pool).chunks;
	assert_int_equal(dg_pool_reclaim(pool, 0, 0), chunks);
	assert_int_equal(dgt_stats(pool).chunks, 0);
	assert_int_equal(dg_user_count.chunks_live, dgt_base.chunks_live);
	assert_int_equal(dg_pool_destroy(pool), 0);
	free(b);
}

/* Destroy with blocks in several caches: nothing leaks (teardown). */
static void destroy_with_cached_blocks(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct dgt_blk b[40];
	size_t i;

	assert_non_null(pool);
	for (i = 0; i < 40; i++) {
		dg_user_set_cpu(i % 3);
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
	}
	for (i = 0; i < 40; i++) {
		dg_user_set_cpu(i % 5);
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	}
	dg_user_set_cpu(0);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

/*
 * CPU 2's previous free was in a chunk that a reclaim then freed: a later
 * free on CPU 2 of a pointer into that old range is foreign, and is
 * decided without reading the freed descriptor.
 */
static void reclaimed_last_chunk(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct dgt_blk b;

	assert_non_null(pool);
	dg_user_set_cpu(2);
	b = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	assert_int_equal(dg_pool_free(pool, b.v, b.dma), DG_FREE_OK);
	dg_user_set_cpu(0);
	assert_int_equal(dg_pool_reclaim(pool, 0, 0), 1);
	assert_int_equal(dgt_stats(pool).chunks, 0);
	dg_user_set_cpu(2);
	assert_int_equal(dg_pool_free(pool, b.v, b.dma), DG_BAD_FOREIGN);
	dg_user_set_cpu(0);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

/*
 * A CPU goes offline with blocks in its cache: dg_pool_cpu_dead() (the
 * hotplug dead callback's work) gives them back, so their chunk empties
 * without waiting for the CPU to return; the CPU's memory of its last
 * chunk goes too.
 */
static void dead_cpu_cache_returned(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct dgt_blk b[4];
	u32 chunks;
	size_t i;

	assert_non_null(pool);
	dg_user_set_cpu(5);
	for (i = 0; i < 4; i++)
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
	for (i = 0; i < 4; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	dg_user_set_cpu(0);
	assert_int_equal(dgt_stats(pool).blocks_in_use, 0);
	chunks = dgt_stats(pool).chunks;
	/* Every row caches up to 4 blocks: CPU 5 keeps them all. */
	assert_int_equal(dgt_stats(pool).chunks_empty, 0);
	dg_pool_cpu_dead(pool, 5);
	assert_int_equal(dgt_stats(pool).chunks_empty, chunks);
	/* Nothing is left there to return twice. */
	dg_pool_cpu_dead(pool, 5);
	assert_int_equal(dgt_stats(pool).chunks_empty, chunks);
	assert_int_equal(dg_pool_reclaim(pool, 0, 0), chunks);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

/* A drain visits only the CPUs that cache blocks of the pool. */
static void drain_visits_only_busy_cpus(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	unsigned long visits;
	struct dgt_blk b[2];
	int i;

	assert_non_null(pool);
	for (i = 0; i < 2; i++) {
		dg_user_set_cpu(2 + 3 * i);	/* CPUs 2 and 5 */
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	}
	dg_user_set_cpu(0);
	visits = dg_user_cpu_visits;
	dg_pool_drain(pool);
	assert_int_equal(dg_user_cpu_visits - visits, 2);
	/* Nothing cached now: nobody is disturbed. */
	visits = dg_user_cpu_visits;
	dg_pool_drain(pool);
	assert_int_equal(dg_user_cpu_visits - visits, 0);
	assert_int_equal(dgt_stats(pool).chunks_empty, dgt_stats(pool).chunks);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

/*
 * A busy pool that is not shrinking never asks for a reclaim: runs go
 * back to their chunks as frees of other groups come, but no chunk
 * empties (every eighth block stays allocated). And the reclaim the
 * platform runs, dg_pool_reclaim_empty(), disturbs no CPU: blocks cached
 * there keep their chunks (the kernel's dma_pool keeps every page).
 */
static void steady_pool_no_reclaim(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	unsigned long visits;
	struct dgt_blk *b;
	size_t i, k, n;
	int round;

	assert_non_null(pool);
	dg_user_set_cpu(0);
	n = 4 * dgt_stats(pool).blocks_per_chunk;
	b = calloc(n, sizeof(*b));
	assert_non_null(b);
	for (i = 0; i < n; i++)
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
	for (round = 0; round < 20; round++) {
		/* Frees alternate between the two halves' groups. */
		for (k = 0; k < n / 2; k++)
			for (i = k; i < n; i += n / 2)
				if (i % 8 &&
				    dg_pool_free(pool, b[i].v, b[i].dma) !=
				    DG_FREE_OK)
					fail_msg("free %zu refused", i);
		for (i = 0; i < n; i++)
			if (i % 8)
				b[i] = dgt_alloc(pool, GFP_KERNEL, r->size,
						 r->align, r->boundary);
	}
	assert_int_equal(dgt_stats(pool).chunks_empty, 0);
	assert_int_equal(dg_pool_plat(pool)->reclaim_kicks, 0);
	/* Blocks cached on CPU 0 now; the platform's reclaim leaves them. */
	for (i = 1; i < 8; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	visits = dg_user_cpu_visits;
	assert_int_equal(dg_pool_reclaim_empty(pool, 0, 0), 0);
	assert_int_equal(dg_user_cpu_visits, visits);
	for (i = 0; i < n; i++)
		if (i >= 8 || !(i % 8))
			assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
					 DG_FREE_OK);
	assert_int_equal(dgt_stats(pool).blocks_in_use, 0);
	assert_int_equal(dg_pool_destroy(pool), 0);
	free(b);
}

/*
 * A growth that fails takes back what the other CPUs cache, so an
 * allocation fails only when the pool has no free block at all: CPU 0
 * allocates and frees every block of the pool (its runs keep some); CPU
 * 1 then gets every one of them with each chunk allocation refused,
 * GFP_ATOMIC (an IPI to CPU 0) and GFP_KERNEL (a drain), and no more.
 * From an interrupt no other CPU can be reached: no visit, and what the
 * chunks hold is still handed out.
 */
static void failed_growth_takes_cached(void **state)
{
	static const gfp_t gfps[] = { GFP_ATOMIC, GFP_KERNEL };
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	unsigned long visits;
	struct dgt_blk *b, x;
	size_t i, n, got;
	int g;

	assert_non_null(pool);
	dg_user_set_cpu(0);
	n = dgt_stats(pool).blocks_per_chunk;
	b = calloc(n, sizeof(*b));
	assert_non_null(b);
	for (g = 0; g < 3; g++) {
		dg_user_set_cpu(0);
		for (i = 0; i < n; i++)
			b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
					 r->boundary);
		assert_int_equal(dgt_stats(pool).chunks, 1);
		for (i = 0; i < n; i++)
			assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
					 DG_FREE_OK);
		dg_user_set_cpu(1);
		visits = dg_user_cpu_visits;
		dg_user_in_irq = g == 2;
		for (got = 0; got <= n; got++) {
			dg_user_fail_nth_alloc(1);
			x.v = dg_pool_alloc(pool, gfps[g % 2], &x.dma);
			if (!x.v)
				break;
			assert_true(got < n);
			b[got] = x;
		}
		dg_user_in_irq = false;
		dg_user_fail_nth_alloc(0);
		assert_int_equal(dgt_stats(pool).chunks, 1);
		assert_int_equal(dgt_stats(pool).blocks_in_use, got);
		if (g < 2) {
			assert_int_equal(got, n);
			assert_true(dg_user_cpu_visits > visits);
		} else {
			assert_true(got <= n);
			assert_int_equal(dg_user_cpu_visits, visits);
		}
		for (i = 0; i < got; i++)
			assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
					 DG_FREE_OK);
		dg_pool_drain(pool);
	}
	assert_int_equal(dgt_stats(pool).blocks_in_use, 0);
	assert_int_equal(dg_pool_destroy(pool), 0);
	free(b);
}

int main(void)
{
	static void (*const fns[])(void **) = {
		lifo_reuse, double_free_across_cpus, reclaim_drains_every_cpu,
		destroy_with_cached_blocks, reclaimed_last_chunk,
		dead_cpu_cache_returned, drain_visits_only_busy_cpus,
		steady_pool_no_reclaim, failed_growth_takes_cached,
	};
	static const char *const names[] = {
		"lifo_reuse", "double_free_across_cpus", "reclaim_drains",
		"destroy_cached", "reclaimed_last_chunk", "dead_cpu",
		"drain_visits", "steady_no_reclaim", "failed_growth_steals",
	};

	return dgt_run_matrix("pool_pcp", fns, names, 9, rows,
			      sizeof(rows) / sizeof(rows[0]));
}
