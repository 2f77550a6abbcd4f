// SPDX-License-Identifier: GPL-2.0
/*
 * dg_pool_destroy() while the pool's own reclaim runs. In the kernel the
 * reclaim is a delayed work item that frees may have queued just before
 * the driver destroys the pool: destroy returns every CPU's cached blocks
 * while that reclaim drains the same caches. Here a thread stands in for
 * the work (dg_user_reclaim_start()); dg_pool_destroy() stops and waits
 * for it (dg_plat_fini(), as cancel_delayed_work_sync()). Built with TSan
 * too (test_pool_destroy_race-tsan), where two unordered returns of one
 * cache are a data race; both builds check that every chunk and every
 * byte of bookkeeping goes back, and DG_DEBUG (TSan build) checks the
 * chunk counts on every lock release.
 */
#include <pthread.h>
#include <sched.h>
#include "dg_test.h"

#ifndef ROUNDS
#define ROUNDS		200
#endif
#define PER_CPU		48	/* blocks each simulated CPU frees into its cache */

static void destroy_while_reclaiming(void **state)
{
	struct dgt_blk b[DG_USER_CPUS][PER_CPU];
	unsigned long passes;
	struct dg_pool *pool;
	int round, cpu, i;

	(void)state;
	for (round = 0; round < ROUNDS; round++) {
		pool = dgt_create("race", 16, 16, 0);
		assert_non_null(pool);
		/* Every simulated CPU allocates, then frees into its cache. */
		for (cpu = 0; cpu < DG_USER_CPUS; cpu++) {
			dg_user_set_cpu(cpu);
			for (i = 0; i < PER_CPU; i++) {
				b[cpu][i] = dgt_alloc(pool, GFP_KERNEL, 16, 16, 0);
				assert_non_null(b[cpu][i].v);
			}
		}
		for (cpu = 0; cpu < DG_USER_CPUS; cpu++) {
			dg_user_set_cpu(cpu);
			for (i = 0; i < PER_CPU; i++)
				assert_int_equal(dg_pool_free(pool, b[cpu][i].v,
							      b[cpu][i].dma),
						 DG_FREE_OK);
		}
		dg_user_set_cpu(0);
		assert_int_equal(dg_user_reclaim_start(pool), 0);
		/* The reclaim is under way, and comes round again. */
		passes = dg_user_reclaim_passes(pool);
		while (dg_user_reclaim_passes(pool) == passes)
			sched_yield();
		assert_int_equal(dg_pool_destroy(pool), 0);
		assert_int_equal(dg_user_count.chunks_live,
				 dgt_base.chunks_live);
		assert_int_equal(dg_user_count.meta_live, dgt_base.meta_live);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(destroy_while_reclaiming,
						dgt_setup, dgt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
