// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency smoke: threads allocate and free on one pool at once. Each
 * thread stamps every block it holds with its own pattern and checks the
 * stamp before freeing, so two threads handed overlapping blocks show up
 * as a torn stamp. Built twice by unit.mk: with ASan+UBSan like the other
 * tests, and with TSan (test_pool_threads-tsan) against a TSan build of
 * the core, where the data races themselves are the check.
 *
 * same_cpu: the threads share one "CPU" slot, so each may find the slot's
 * cache taken by the other and go past it, as an interrupt does in the
 * kernel (dg_pool_alloc_bypass(), dg_pool_free_bypass()). How often that
 * happens is the scheduler's business; that it happens exactly as often
 * as a trylock found the slot taken (dg_user_pcp_busy) is the pool's.
 *
 * irq_in_section: a test's interrupt (dg_user_pcp_interrupt()) lands
 * inside the section of an allocation and of a free, and allocates and
 * frees there: every one of its calls goes past the cache, counted.
 */
#include <pthread.h>
#include <unistd.h>
#include "dg_test.h"

#define NTHREADS	2
#ifndef ROUNDS
#define ROUNDS		300
#endif
#define HOLD		64

struct worker {
	struct dg_pool *pool;
	size_t size;
	unsigned char stamp;
	bool same_cpu;		/* every worker on slot 0 */
	unsigned long torn, allocs, failed;
};

static bool stamped(const unsigned char *p, size_t n, unsigned char c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != c)
			return false;
	return true;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct dgt_blk held[HOLD];
	unsigned int seed = w->stamp;
	int round, i, k;

	memset(held, 0, sizeof(held));
	if (w->same_cpu)
		dg_user_set_cpu(0);
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < HOLD; i++) {
			if (held[i].v)
				continue;
			held[i].v = dg_pool_alloc(w->pool, GFP_ATOMIC,
						  &held[i].dma);
			if (!held[i].v) {
				w->failed++;
				continue;
			}
			w->allocs++;
			if (held[i].dma != dg_user_bus_of(held[i].v))
				w->torn++;
			memset(held[i].v, w->stamp, w->size);
		}
		/* free about half, in a thread-specific order */
		for (k = 0; k < HOLD / 2; k++) {
			i = rand_r(&seed) % HOLD;
			if (!held[i].v)
				continue;
			if (!stamped(held[i].v, w->size, w->stamp))
				w->torn++;
			if (dg_pool_free(w->pool, held[i].v, held[i].dma) !=
			    DG_FREE_OK)
				w->torn++;
			held[i].v = NULL;
		}
		if (round % 50 == 49)
			dg_pool_reclaim(w->pool, 0, 1);
	}
	for (i = 0; i < HOLD; i++)
		if (held[i].v) {
			if (!stamped(held[i].v, w->size, w->stamp))
				w->torn++;
			if (dg_pool_free(w->pool, held[i].v, held[i].dma) !=
			    DG_FREE_OK)
				w->torn++;
		}
	return NULL;
}

static void threads(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct worker w[NTHREADS];
	pthread_t t[NTHREADS];
	int i;

	assert_non_null(pool);
	for (i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .pool = pool, .size = r->size,
					.stamp = (unsigned char)(0x11 * (i + 1)) };
		assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(w[i].torn, 0);
		assert_int_equal(w[i].failed, 0);
		assert_true(w[i].allocs > ROUNDS);
	}
	assert_int_equal(dgt_stats(pool).blocks_in_use, 0);
	assert_int_equal(dgt_stats(pool).bad_frees[DG_BAD_DOUBLE], 0);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

static void same_cpu(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	unsigned long busy = __atomic_load_n(&dg_user_pcp_busy,
					     __ATOMIC_RELAXED);
	struct worker w[NTHREADS];
	pthread_t t[NTHREADS];
	u64 bypass, ops = 0;
	int i;

	assert_non_null(pool);
	for (i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .pool = pool, .size = r->size,
					.stamp = (unsigned char)(0x21 * (i + 1)),
					.same_cpu = true };
		assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(w[i].torn, 0);
		assert_int_equal(w[i].failed, 0);
		ops += 2 * w[i].allocs;		/* each block allocated and freed */
	}
	busy = __atomic_load_n(&dg_user_pcp_busy, __ATOMIC_RELAXED) - busy;
	bypass = dgt_stats(pool).cache_bypass;
	print_message("    # %s: %llu of %llu operations found the cache in use\n",
		      r->name, (unsigned long long)bypass,
		      (unsigned long long)ops);
	/* Exactly the calls that found the slot taken went past it. */
	assert_int_equal(bypass, busy);
	assert_int_equal(dgt_stats(pool).blocks_in_use, 0);
	assert_int_equal(dgt_stats(pool).bad_frees[DG_BAD_DOUBLE], 0);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

#define IRQ_OPS		8

/* What a test's interrupt does on the pool its task is using. */
struct irq {
	struct dg_pool *pool;
	size_t size;
	struct dgt_blk *give;	/* blocks of the task's to free first */
	int nr_give;
	int ran;
};

static void irq_fn(void *arg)
{
	struct irq *irq = arg;
	struct dgt_blk b[IRQ_OPS];
	int i;

	irq->ran++;
	for (i = 0; i < irq->nr_give; i++)
		assert_int_equal(dg_pool_free(irq->pool, irq->give[i].v,
					      irq->give[i].dma), DG_FREE_OK);
	for (i = 0; i < IRQ_OPS; i++) {
		b[i].v = dg_pool_alloc(irq->pool, GFP_ATOMIC, &b[i].dma);
		assert_non_null(b[i].v);
		assert_true(b[i].dma == dg_user_bus_of(b[i].v));
		memset(b[i].v, 0x5a, irq->size);
	}
	for (i = 0; i < IRQ_OPS; i++) {
		assert_true(stamped(b[i].v, irq->size, 0x5a));
		assert_int_equal(dg_pool_free(irq->pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	}
}

static void irq_in_section(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct irq irq = { .pool = pool, .size = r->size };
	struct dgt_blk held[HOLD], give[2], x;
	unsigned long busy;
	u64 bypass;
	int i;

	assert_non_null(pool);
	dg_user_set_cpu(0);
	/* The slot's cache holds both free and handed-out blocks. */
	for (i = 0; i < HOLD; i++) {
		held[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				    r->boundary);
		memset(held[i].v, i, r->size);
	}
	for (i = 0; i < HOLD; i += 2)
		assert_int_equal(dg_pool_free(pool, held[i].v, held[i].dma),
				 DG_FREE_OK);
	busy = dg_user_pcp_busy;
	bypass = dgt_stats(pool).cache_bypass;

	/* Inside an allocation's section. */
	dg_user_pcp_interrupt(irq_fn, &irq);
	x = dgt_alloc(pool, GFP_KERNEL, r->size, r->align, r->boundary);
	assert_int_equal(irq.ran, 1);
	assert_int_equal(dg_user_pcp_busy - busy, 2 * IRQ_OPS);
	assert_int_equal(dgt_stats(pool).cache_bypass - bypass, 2 * IRQ_OPS);

	/* Inside a free's, freeing two of the task's blocks first. */
	give[0] = held[1];
	give[1] = held[3];
	irq.give = give;
	irq.nr_give = 2;
	dg_user_pcp_interrupt(irq_fn, &irq);
	assert_int_equal(dg_pool_free(pool, x.v, x.dma), DG_FREE_OK);
	assert_int_equal(irq.ran, 2);
	assert_int_equal(dg_user_pcp_busy - busy, 4 * IRQ_OPS + 2);
	assert_int_equal(dgt_stats(pool).cache_bypass - bypass,
			 4 * IRQ_OPS + 2);

	/* The task's blocks were never handed to the interrupt. */
	for (i = 5; i < HOLD; i += 2) {
		assert_true(stamped(held[i].v, r->size, (unsigned char)i));
		assert_int_equal(dg_pool_free(pool, held[i].v, held[i].dma),
				 DG_FREE_OK);
	}
	assert_int_equal(dgt_stats(pool).blocks_in_use, 0);
	assert_int_equal(dgt_stats(pool).bad_frees[DG_BAD_DOUBLE], 0);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

int main(void)
{
	struct CMUnitTest tests[3 * DGT_NR_ROWS];

	DGT_ROW_TESTS(tests, threads, "threads");
	DGT_ROW_TESTS(tests + DGT_NR_ROWS, same_cpu, "same_cpu");
	DGT_ROW_TESTS(tests + 2 * DGT_NR_ROWS, irq_in_section,
		      "irq_in_section");
	return _cmocka_run_group_tests("pool_threads", tests, 3 * DGT_NR_ROWS,
				       NULL, NULL);
}
