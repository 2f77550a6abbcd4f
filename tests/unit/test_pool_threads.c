// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency smoke: threads allocate and free on one pool at once. Each
 * thread stamps every block it holds with its own pattern and checks the
 * stamp before freeing, so two threads handed overlapping blocks show up
 * as a torn stamp. Built twice by unit.mk: with ASan+UBSan like the other
 * tests, and with TSan (test_pool_threads-tsan) against a TSan build of
 * the core, where the data races themselves are the check.
 *
 * same_cpu: the threads share one "CPU" slot, so each finds the slot's
 * cache taken by the other now and then and goes past it, as an interrupt
 * does in the kernel (dg_pool_alloc_bypass(), dg_pool_free_bypass()); they
 * run until the pool has counted such operations.
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
	int *stop;		/* same_cpu: run until set, on slot 0 */
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
	if (w->stop)
		dg_user_set_cpu(0);
	for (round = 0; w->stop ? !__atomic_load_n(w->stop, __ATOMIC_ACQUIRE) :
	     round < ROUNDS; round++) {
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

/* Seconds same_cpu waits for bypasses before it fails. */
#define SAME_CPU_LIMIT	20

static void same_cpu(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct worker w[NTHREADS];
	pthread_t t[NTHREADS];
	u64 bypass = 0, ops = 0;
	int i, stop = 0, waited;

	assert_non_null(pool);
	for (i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .pool = pool, .size = r->size,
					.stamp = (unsigned char)(0x21 * (i + 1)),
					.stop = &stop };
		assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (waited = 0; waited < SAME_CPU_LIMIT * 100; waited++) {
		bypass = dgt_stats(pool).cache_bypass;
		if (bypass >= 100)
			break;
		usleep(10000);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(w[i].torn, 0);
		assert_int_equal(w[i].failed, 0);
		ops += 2 * w[i].allocs;		/* each block allocated and freed */
	}
	bypass = dgt_stats(pool).cache_bypass;
	print_message("    # %s: %llu of %llu operations past the cache in use\n",
		      r->name, (unsigned long long)bypass,
		      (unsigned long long)ops);
	assert_true(bypass >= 100);
	/* Only a thread that found the slot taken may go past it. */
	assert_true(bypass < ops - ops / 10);
	assert_int_equal(dgt_stats(pool).blocks_in_use, 0);
	assert_int_equal(dgt_stats(pool).bad_frees[DG_BAD_DOUBLE], 0);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

int main(void)
{
	struct CMUnitTest tests[2 * DGT_NR_ROWS];

	DGT_ROW_TESTS(tests, threads, "threads");
	DGT_ROW_TESTS(tests + DGT_NR_ROWS, same_cpu, "same_cpu");
	return _cmocka_run_group_tests("pool_threads", tests, 2 * DGT_NR_ROWS,
				       NULL, NULL);
}
