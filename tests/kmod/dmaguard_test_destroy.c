// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_test: a pool's destroy racing its own reclaim. Every round, a
 * kthread on each online CPU fills that CPU's cache (allocates blocks,
 * frees them all): the chunks that empty queue the pool's reclaim
 * reclaim_delay_ms later, which gives them back. The pool is destroyed a
 * moment after the frees that moves, round by round, from 0 to race_ms,
 * across the reclaim's start: some destroys give the caches and chunks
 * back while the reclaim releases chunks, or wait for it. After each
 * destroy, every chunk must be gone. Run on its own (only=destroy_race)
 * by tests/vm/pool-destroy-race.vmtest, on four CPUs under KASAN and
 * slub_debug, and on PREEMPT_RT.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include "dmaguard_test.h"

static unsigned int race_rounds = 40;
module_param(race_rounds, uint, 0444);
MODULE_PARM_DESC(race_rounds, "Pools destroyed while their reclaim may run");

static unsigned int race_ms = 40;
module_param(race_ms, uint, 0444);
MODULE_PARM_DESC(race_ms, "Latest destroy after the frees, in ms (about twice reclaim_delay_ms)");

#define DRACE_SIZE	1024
#define DRACE_BLOCKS	192	/* a CPU's allocations a round: 3 chunks */

struct drace {
	struct dmaguard_pool *pool;
	atomic_t running;
	atomic_t failed;
	struct completion done;
};

static int drace_fn(void *arg)
{
	struct drace *r = arg;
	struct blk *b = kcalloc(DRACE_BLOCKS, sizeof(*b), GFP_KERNEL);
	unsigned int n = 0;

	if (b) {
		n = dgt_alloc_blocks(r->pool, b, DRACE_BLOCKS);
		dgt_free_blocks(r->pool, b, DRACE_BLOCKS);
	}
	if (n != DRACE_BLOCKS)
		atomic_inc(&r->failed);
	kfree(b);
	if (atomic_dec_and_test(&r->running))
		complete(&r->done);
	return 0;
}

/* One round: fill every online CPU's cache, then destroy after @us. */
static bool drace_round(unsigned int us, long base)
{
	struct task_struct *t;
	struct drace r = {};
	bool ok = true;
	long left;
	int cpu;

	r.pool = dmaguard_pool_create("dgt_drace", dgt_dev, DRACE_SIZE,
				      DRACE_SIZE, 0);
	EXPECT(ok, r.pool, "create failed");
	if (!r.pool)
		return false;
	init_completion(&r.done);
	atomic_set(&r.running, 1);
	for_each_online_cpu(cpu) {
		t = kthread_create(drace_fn, &r, "dgt_drace/%d", cpu);
		if (IS_ERR(t)) {
			atomic_inc(&r.failed);
			continue;
		}
		kthread_bind(t, cpu);
		atomic_inc(&r.running);
		wake_up_process(t);
	}
	if (atomic_dec_and_test(&r.running))
		complete(&r.done);
	wait_for_completion(&r.done);
	EXPECT(ok, !atomic_read(&r.failed), "%d workers failed",
	       atomic_read(&r.failed));
	if (us)
		usleep_range(us, us + 100);
	dmaguard_pool_destroy(r.pool);
	left = dg_test_chunk_bytes() - base;
	EXPECT(ok, !left, "%ld chunk bytes left after destroy (at %u us)",
	       left, us);
	return ok;
}

/**
 * dgt_destroy_race() - case: destroy racing the pool's reclaim
 */
void dgt_destroy_race(void)
{
	long base = dg_test_chunk_bytes();
	unsigned int i;
	bool ok = true;

	dgt_case_begin();
	for (i = 0; i < race_rounds && ok; i++)
		ok = drace_round(race_rounds > 1 ?
				 i * race_ms * 1000 / (race_rounds - 1) : 0,
				 base);
	pr_info("# destroy_race: %u rounds on %u CPUs, destroys from 0 to %u ms after the frees\n",
		i, num_online_cpus(), race_ms);
	dg_ktap_result(&dgt_ktap, ok, "destroy_racing_reclaim");
}
