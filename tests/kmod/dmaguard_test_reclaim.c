// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_test: reclaim of chunks that stay empty, a CPU going offline
 * with blocks in its cache, a failed growth taking back cached blocks,
 * two threads on one pool (with reclaim racing them), statistics read while
 * another CPU allocates, the leak check, and destroy with live blocks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/workqueue.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/completion.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/spinlock.h>
#include "dmaguard_test.h"

static unsigned int smp_iters = 200000;
module_param(smp_iters, uint, 0444);
MODULE_PARM_DESC(smp_iters, "Operations per thread in the concurrency case");

/* ---- case: reclaim of chunks that stay empty ---- */

/* pool.vmtest loads dmaguard.ko with reclaim_delay_ms=100. */
#define DGT_RECLAIM_DELAY_MS	100

/*
 * Behind an IOMMU that invalidates lazily (DMA-FQ) a pool keeps its empty
 * chunks until its destroy: a chunk given back would stay reachable by
 * the device through stale IOTLB entries until the flush queue drains.
 */
static bool dgt_keeps_chunks(void)
{
	return !strcmp(dg_test_iommu_domain(dgt_dev), "DMA-FQ");
}

static bool dgt_reclaim_lazy(struct dmaguard_pool *pool,
			     const struct dmaguard_pool_stats *st0, long bytes0)
{
	struct dmaguard_pool_stats st;
	bool ok = true;

	msleep(4 * DGT_RECLAIM_DELAY_MS);
	EXPECT(ok, !dg_pool_reclaim(dg_test_core(pool), 0, 0),
	       "a forced reclaim released chunks");
	dgt_stats(pool, &st);
	pr_info("# reclaim: lazy IOTLB: chunks %u, released %llu, chunk bytes %ld -> %ld\n",
		st.chunks, st.chunks_released, bytes0, dg_test_chunk_bytes());
	EXPECT(ok, st.chunks == st0->chunks && !st.chunks_released &&
	       dg_test_chunk_bytes() == bytes0,
	       "released %llu of %u chunks, chunk bytes %ld -> %ld",
	       st.chunks_released, st0->chunks, bytes0,
	       dg_test_chunk_bytes());
	return ok;
}

/**
 * dgt_reclaim() - case: empty chunks go back after the delay, one kept
 * (none behind an IOMMU that invalidates lazily)
 */
void dgt_reclaim(void)
{
	struct dmaguard_pool *pool;
	struct dmaguard_pool_stats st, st0;
	struct blk *b = NULL;
	unsigned int n = 0, waited = 0;
	long bytes0, bytes1;
	bool ok = true;
	unsigned long j_free, since_free;
	dma_addr_t d;
	void *v;

	dgt_case_begin();
	pool = dmaguard_pool_create("dgt_reclaim", dgt_dev, 64, 64, 0);
	EXPECT(ok, pool, "create failed");
	if (!pool)
		goto out;
	/*
	 * On one CPU: a task that moves while it allocates leaves the rest
	 * of a group in the first CPU's cache, and the next CPU takes a
	 * fifth chunk (seen on PREEMPT_RT, whose runs are a whole chunk).
	 */
	migrate_disable();
	b = dgt_chunks_setup(pool, 4, &n);
	EXPECT(ok, b, "setup failed");
	if (ok)
		EXPECT(ok, dgt_alloc_blocks(pool, b, n) == n, "alloc failed");
	dgt_stats(pool, &st0);
	bytes0 = dg_test_chunk_bytes();
	EXPECT(ok, st0.chunks == 4, "%u chunks for 4 chunks' worth", st0.chunks);
	/* No chunk can have emptied before this. */
	j_free = jiffies;
	if (b)
		dgt_free_blocks(pool, b, n);
	/* The blocks this CPU still caches go back to their chunks. */
	dg_pool_drain(dg_test_core(pool));
	migrate_enable();
	if (!ok)
		goto out;
	if (dgt_keeps_chunks()) {
		ok = dgt_reclaim_lazy(pool, &st0, bytes0);
		goto out;
	}
	dgt_stats(pool, &st);
	since_free = jiffies - j_free;
	/*
	 * Hysteresis: nothing goes back before the delay. Checked only when
	 * the statistics were read within it, counted in jiffies as the
	 * reclaim's delayed work counts it, with a jiffy to spare for its
	 * timer (a vCPU may be stalled for longer on a loaded host: then the
	 * case says so).
	 */
	if (since_free + 1 < msecs_to_jiffies(DGT_RECLAIM_DELAY_MS))
		EXPECT(ok, st.chunks == 4 && st.chunks_empty == 4,
		       "%u ms after freeing: %u chunks, %u empty",
		       jiffies_to_msecs(since_free), st.chunks,
		       st.chunks_empty);
	else
		pr_info("# reclaim: statistics read %u ms after the frees: hysteresis not checked\n",
			jiffies_to_msecs(since_free));
	msleep(400);
	waited = 400;
	/*
	 * A release is counted under the pool lock, its memory freed after
	 * synchronize_rcu() (an RCU grace period: long on RT under load): wait
	 * for both, as long as a loaded host may take (the spec's timeout is
	 * the backstop; a release that never comes says so every 10 s).
	 */
	for (;;) {
		dgt_stats(pool, &st);
		bytes1 = dg_test_chunk_bytes();
		if (st.chunks_released >= 3 &&
		    bytes0 - bytes1 >= 3 * (long)st.chunk_size)
			break;
		if (!(waited % 10000))
			pr_info("# reclaim: waiting %u ms: released %llu, chunk bytes %ld -> %ld\n",
				waited, st.chunks_released, bytes0, bytes1);
		msleep(50);
		waited += 50;
	}
	pr_info("# reclaim: after %u ms: chunks %u, released %llu, chunk bytes %ld -> %ld\n",
		waited, st.chunks, st.chunks_released, bytes0, bytes1);
	EXPECT(ok, st.chunks_released > 0, "no chunk released after %u ms",
	       waited);
	EXPECT(ok, st.chunks_released == 3 && st.chunks == 1,
	       "released %llu, kept %u (want 3 and 1 with keep=1)",
	       st.chunks_released, st.chunks);
	EXPECT(ok, bytes0 - bytes1 == (long)st.chunks_released * st.chunk_size,
	       "chunk bytes dropped by %ld for %llu chunks of %u",
	       bytes0 - bytes1, st.chunks_released, st.chunk_size);
	/* The kept chunk serves the next allocation. */
	v = dmaguard_pool_alloc(pool, GFP_KERNEL, &d);
	dgt_stats(pool, &st);
	EXPECT(ok, v && st.chunks_allocated == st0.chunks_allocated,
	       "allocation after reclaim took a new chunk");
	if (v)
		dmaguard_pool_free(pool, v, d);
out:
	kfree(b);
	dmaguard_pool_destroy(pool);
	dg_ktap_result(&dgt_ktap, ok, "reclaim_empty_chunks");
}

/* ---- case: a CPU going offline gives back what it caches ---- */

#define DGT_OFF_BLOCKS	4	/* fewer than a cache holds: none flushed */

struct cpu_off {
	struct dmaguard_pool *pool;
	struct blk b[DGT_OFF_BLOCKS];
	unsigned int n;
};

/* On the CPU to be offlined: allocate, then free into its cache. */
static long cpu_off_fill(void *arg)
{
	struct cpu_off *c = arg;

	c->n = dgt_alloc_blocks(c->pool, c->b, DGT_OFF_BLOCKS);
	dgt_free_blocks(c->pool, c->b, c->n);
	return 0;
}

/**
 * dgt_cpu_offline() - case: a dead CPU's cached blocks go back at once
 *
 * Blocks freed on a CPU stay in its cache; when that CPU goes offline
 * they must return to their chunks (the hotplug dead callback), so the
 * chunks empty and can be released without waiting for the CPU.
 */
void dgt_cpu_offline(void)
{
	struct dmaguard_pool_stats st0, st1;
	struct cpu_off c = { };
	unsigned int cpu, released;
	bool ok = true;
	int ret;

	dgt_case_begin();
	cpu = cpumask_next(0, cpu_online_mask);
	if (cpu >= nr_cpu_ids) {
		dg_ktap_skip(&dgt_ktap, "cpu_offline_returns_cache",
			     "one CPU online");
		return;
	}
	c.pool = dmaguard_pool_create("dgt_cpu_off", dgt_dev, 64, 64, 0);
	EXPECT(ok, c.pool, "create failed");
	if (!c.pool)
		goto out;
	work_on_cpu(cpu, cpu_off_fill, &c);
	EXPECT(ok, c.n == DGT_OFF_BLOCKS, "%u of %u allocations on CPU %u",
	       c.n, DGT_OFF_BLOCKS, cpu);
	dgt_stats(c.pool, &st0);
	EXPECT(ok, !st0.blocks_in_use && st0.chunks && !st0.chunks_empty,
	       "before: %llu in use, %u chunks, %u empty (want 0, >0, 0: cached on CPU %u)",
	       st0.blocks_in_use, st0.chunks, st0.chunks_empty, cpu);
	ret = remove_cpu(cpu);
	EXPECT(ok, !ret, "remove_cpu(%u): %d", cpu, ret);
	dgt_stats(c.pool, &st1);
	EXPECT(ok, st1.chunks_empty == st1.chunks,
	       "CPU %u offline: %u of %u chunks empty (blocks stranded in its cache)",
	       cpu, st1.chunks_empty, st1.chunks);
	released = dg_pool_reclaim(dg_test_core(c.pool), 0, 0);
	EXPECT(ok, released == (dgt_keeps_chunks() ? 0 : st1.chunks),
	       "reclaim released %u of %u chunks (lazy IOTLB: %d)", released,
	       st1.chunks, dgt_keeps_chunks());
	if (!ret) {
		ret = add_cpu(cpu);
		EXPECT(ok, !ret, "add_cpu(%u): %d", cpu, ret);
	}
out:
	dmaguard_pool_destroy(c.pool);
	dg_ktap_result(&dgt_ktap, ok, "cpu_offline_returns_cache");
}

/* ---- case: a growth that fails takes back what other CPUs cache ---- */

struct steal_ctx {
	struct dmaguard_pool *pool;
	struct blk *b;
	unsigned int n, got;
};

/* On one CPU: allocate every block of the pool, then free them there. */
static long steal_fill(void *arg)
{
	struct steal_ctx *c = arg;

	c->got = dgt_alloc_blocks(c->pool, c->b, c->n);
	dgt_free_blocks(c->pool, c->b, c->got);
	return 0;
}

/* Allocate until NULL, every chunk allocation refused. */
static void steal_take(struct steal_ctx *c, gfp_t gfp)
{
	void *v;

	dg_test_fail_chunks(true);
	for (c->got = 0; c->got <= c->n; c->got++) {
		v = dmaguard_pool_alloc(c->pool, gfp, &c->b[c->got].d);
		if (!v)
			break;
		c->b[c->got].v = (unsigned long)v;
	}
	dg_test_fail_chunks(false);
}

/*
 * On another CPU, atomic: preemption off, interrupts on (on PREEMPT_RT,
 * where the pool's locks sleep, an atomic caller holds a spinlock_t).
 */
static DEFINE_SPINLOCK(steal_lock);

static long steal_take_atomic(void *arg)
{
	spin_lock(&steal_lock);
	steal_take(arg, GFP_ATOMIC);
	spin_unlock(&steal_lock);
	return 0;
}

/**
 * dgt_failed_growth_steals() - case: an allocation fails only when the
 * pool has no free block at all
 *
 * One CPU allocates every block of a one-chunk pool and frees them all
 * there (its cache keeps them); then, with every chunk allocation
 * refused, a GFP_ATOMIC caller on another CPU (an IPI takes them back)
 * and a GFP_KERNEL one (a drain) each get every block, and no more. On
 * PREEMPT_RT no atomic caller can reach another CPU's cache (it is a
 * sleeping lock there): the GFP_ATOMIC one gets none.
 */
void dgt_failed_growth_steals(void)
{
	struct dmaguard_pool_stats st;
	struct steal_ctx c = { };
	unsigned int cpu, round, want;
	bool ok = true;

	dgt_case_begin();
	cpu = cpumask_next(0, cpu_online_mask);
	if (cpu >= nr_cpu_ids) {
		dg_ktap_skip(&dgt_ktap, "failed_growth_steals",
			     "one CPU online");
		return;
	}
	c.pool = dmaguard_pool_create("dgt_steal", dgt_dev, 2048, 2048, 0);
	EXPECT(ok, c.pool, "create failed");
	if (!c.pool)
		goto out;
	dgt_stats(c.pool, &st);
	c.n = st.blocks_per_chunk;
	c.b = kcalloc(c.n + 1, sizeof(*c.b), GFP_KERNEL);
	EXPECT(ok, c.b, "no memory");
	for (round = 0; ok && round < 2; round++) {
		work_on_cpu(cpu, steal_fill, &c);
		dgt_stats(c.pool, &st);
		EXPECT(ok, c.got == c.n && st.chunks == 1 && !st.blocks_in_use,
		       "fill: %u of %u blocks, %u chunks, %llu in use", c.got,
		       c.n, st.chunks, st.blocks_in_use);
		if (round)
			steal_take(&c, GFP_KERNEL);
		else
			work_on_cpu(0, steal_take_atomic, &c);
		dgt_stats(c.pool, &st);
		want = !round && IS_ENABLED(CONFIG_PREEMPT_RT) ? 0 : c.n;
		EXPECT(ok, c.got == want && st.chunks == 1 &&
		       st.blocks_in_use == want,
		       "%s with chunks refused: %u of %u free blocks (want %u), %u chunks",
		       round ? "GFP_KERNEL" : "GFP_ATOMIC", c.got, c.n, want,
		       st.chunks);
		dgt_free_blocks(c.pool, c.b, min(c.got, c.n));
		dg_pool_drain(dg_test_core(c.pool));
	}
out:
	kfree(c.b);
	dmaguard_pool_destroy(c.pool);
	dg_ktap_result(&dgt_ktap, ok, "failed_growth_steals");
}

/* ---- case: drain and destroy from a CPU hotplug callback ---- */

struct hp_ctx {
	struct dmaguard_pool *drained;	/* blocks cached on this CPU */
	struct dmaguard_pool *destroyed; /* a reclaim queued */
	unsigned int cpu, released;
	bool ran;
};

static struct hp_ctx *dgt_hp;

/*
 * Teardown of a dynamic hotplug state: on the CPU going down, while the
 * task taking it down holds the CPU hotplug lock for writing. A drain
 * that took that lock (for reading, as work_on_cpu_safe() does) would
 * wait for the hotplug forever, and so would a destroy waiting for such
 * a drain in its pool's reclaim.
 */
static int dgt_hp_teardown(unsigned int cpu)
{
	struct hp_ctx *c = READ_ONCE(dgt_hp);

	if (!c || cpu != c->cpu)
		return 0;
	c->released = dg_pool_reclaim(dg_test_core(c->drained), 0, 0);
	dmaguard_pool_destroy(c->destroyed);
	c->destroyed = NULL;
	c->ran = true;
	return 0;
}

/**
 * dgt_hotplug_callback() - case: a CPU hotplug callback drains a pool's
 * caches (a reclaim: work on every CPU that caches blocks) and destroys a
 * pool whose reclaim is queued; neither may wait for the hotplug lock
 */
void dgt_hotplug_callback(void)
{
	struct dmaguard_pool_stats st;
	struct hp_ctx c = { };
	struct blk b[4];
	unsigned int n;
	bool ok = true;
	int state, ret;

	dgt_case_begin();
	c.cpu = cpumask_next(0, cpu_online_mask);
	if (c.cpu >= nr_cpu_ids) {
		dg_ktap_skip(&dgt_ktap, "hotplug_callback", "one CPU online");
		return;
	}
	c.drained = dmaguard_pool_create("dgt_hp_drain", dgt_dev, 64, 64, 0);
	c.destroyed = dmaguard_pool_create("dgt_hp_destroy", dgt_dev, 64, 64,
					   0);
	EXPECT(ok, c.drained && c.destroyed, "create failed");
	if (!ok)
		goto out;
	/* Blocks cached on this CPU: the drain has a CPU to visit. */
	migrate_disable();
	n = dgt_alloc_blocks(c.drained, b, ARRAY_SIZE(b));
	dgt_free_blocks(c.drained, b, n);
	migrate_enable();
	/* A chunk that empties queues the other pool's reclaim. */
	n = dgt_alloc_blocks(c.destroyed, b, ARRAY_SIZE(b));
	dgt_free_blocks(c.destroyed, b, n);
	dg_pool_drain(dg_test_core(c.destroyed));
	dgt_stats(c.drained, &st);
	EXPECT(ok, st.chunks == 1 && !st.chunks_empty,
	       "%u chunks, %u empty (want 1, 0: blocks cached)", st.chunks,
	       st.chunks_empty);

	state = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
					  "dmaguard_test:hotplug", NULL,
					  dgt_hp_teardown);
	EXPECT(ok, state > 0, "cpuhp_setup_state_nocalls: %d", state);
	if (state <= 0)
		goto out;
	WRITE_ONCE(dgt_hp, &c);
	ret = remove_cpu(c.cpu);
	WRITE_ONCE(dgt_hp, NULL);
	EXPECT(ok, !ret && c.ran, "remove_cpu(%u): %d, callback ran: %d",
	       c.cpu, ret, c.ran);
	EXPECT(ok, c.released == (dgt_keeps_chunks() ? 0 : 1),
	       "the callback's reclaim released %u chunks (lazy IOTLB: %d)",
	       c.released, dgt_keeps_chunks());
	if (!ret) {
		ret = add_cpu(c.cpu);
		EXPECT(ok, !ret, "add_cpu(%u): %d", c.cpu, ret);
	}
	cpuhp_remove_state_nocalls(state);
out:
	dmaguard_pool_destroy(c.drained);
	dmaguard_pool_destroy(c.destroyed);
	dg_ktap_result(&dgt_ktap, ok, "hotplug_callback");
}

/* ---- case: two threads on one pool ---- */

#define DGT_SMP_HELD	600
#define DGT_TRACK_SHIFT	6			/* the pool's stride: 64 */
#define DGT_TRACK_LIMIT	(4ull << 30)		/* dma below 4 GiB */

struct smp_ctx {
	struct dmaguard_pool *pool;
	unsigned long *live;		/* bit per 64-byte dma slot */
	spinlock_t lock;
	atomic_t running;
	struct completion done;
};

struct smp_thread {
	struct smp_ctx *ctx;
	unsigned int id;
	unsigned long ops, dup, corrupt, nonzero, fail, range;
	struct blk held[DGT_SMP_HELD];
	u64 tag[DGT_SMP_HELD];
	unsigned int n;
};

static void smp_fill(void *v, u64 tag)
{
	u64 *p = v;
	int i;

	for (i = 0; i < 8; i++)
		p[i] = tag;
}

static bool smp_check(const void *v, u64 tag)
{
	const u64 *p = v;
	int i;

	for (i = 0; i < 8; i++)
		if (p[i] != tag)
			return false;
	return true;
}

static void smp_free_one(struct smp_thread *t, unsigned int k)
{
	struct smp_ctx *ctx = t->ctx;
	struct blk b = t->held[k];
	unsigned long flags;

	if (!smp_check((void *)b.v, t->tag[k]))
		t->corrupt++;
	spin_lock_irqsave(&ctx->lock, flags);
	__clear_bit(b.d >> DGT_TRACK_SHIFT, ctx->live);
	spin_unlock_irqrestore(&ctx->lock, flags);
	dmaguard_pool_free(ctx->pool, (void *)b.v, b.d);
	t->n--;
	t->held[k] = t->held[t->n];
	t->tag[k] = t->tag[t->n];
}

static const u32 smp_free_pct[4] = { 35, 65, 35, 97 };

static int smp_thread_fn(void *arg)
{
	struct smp_thread *t = arg;
	struct smp_ctx *ctx = t->ctx;
	u64 seed = 0x1234567ull * (t->id + 1) + 99;
	unsigned long flags;
	unsigned int i;
	bool zero, dup;
	dma_addr_t d;
	void *v;

	for (i = 0; i < smp_iters; i++) {
		u32 r = dg_rand_below(&seed, 100);

		t->ops++;
		/*
		 * Swing between filling and draining (down to empty) so that
		 * chunks come and go while the other thread works.
		 */
		if (t->n && (t->n == DGT_SMP_HELD ||
			     r < smp_free_pct[(i / 4000) & 3])) {
			smp_free_one(t, dg_rand_below(&seed, t->n));
			continue;
		}
		zero = r & 1;
		if (zero)
			v = dmaguard_pool_zalloc(ctx->pool, GFP_KERNEL, &d);
		else
			v = dmaguard_pool_alloc(ctx->pool,
						(r & 2) ? GFP_ATOMIC : GFP_KERNEL,
						&d);
		if (!v) {
			t->fail++;
			continue;
		}
		if (d >= DGT_TRACK_LIMIT || (d & 63)) {
			t->range++;
			dmaguard_pool_free(ctx->pool, v, d);
			continue;
		}
		if (zero && !dgt_all_bytes(v, 64, 0))
			t->nonzero++;
		spin_lock_irqsave(&ctx->lock, flags);
		dup = __test_and_set_bit(d >> DGT_TRACK_SHIFT, ctx->live);
		spin_unlock_irqrestore(&ctx->lock, flags);
		if (dup) {
			/* Someone holds it: do not free it, do not touch it. */
			t->dup++;
			continue;
		}
		t->held[t->n].v = (unsigned long)v;
		t->held[t->n].d = d;
		t->tag[t->n] = ((u64)t->id << 56) | i;
		smp_fill(v, t->tag[t->n]);
		t->n++;
		if (!(i & 255))
			cond_resched();
	}
	while (t->n)
		smp_free_one(t, t->n - 1);
	if (atomic_dec_and_test(&ctx->running))
		complete(&ctx->done);
	return 0;
}

/**
 * dgt_concurrency() - case: two threads on one pool, reclaim racing
 */
void dgt_concurrency(void)
{
	struct smp_thread *th[2] = { NULL, NULL };
	struct task_struct *task[2];
	struct dmaguard_pool_stats st;
	struct smp_ctx ctx = {};
	unsigned int i, cpus = num_online_cpus(), reclaimed = 0;
	bool ok = true;
	u64 t0;

	dgt_case_begin();
	ctx.live = vzalloc(BITS_TO_LONGS(DGT_TRACK_LIMIT >> DGT_TRACK_SHIFT) *
			   sizeof(long));
	ctx.pool = dmaguard_pool_create("dgt_smp", dgt_dev, 64, 64, 0);
	spin_lock_init(&ctx.lock);
	init_completion(&ctx.done);
	atomic_set(&ctx.running, 2);
	for (i = 0; i < 2; i++)
		th[i] = kzalloc(sizeof(*th[i]), GFP_KERNEL);
	EXPECT(ok, ctx.live && ctx.pool && th[0] && th[1], "setup failed");
	if (!ok)
		goto out;
	if (cpus < 2)
		pr_info("# concurrency: only %u CPU online; threads interleave, no parallelism\n",
			cpus);
	t0 = ktime_get_ns();
	for (i = 0; i < 2; i++) {
		th[i]->ctx = &ctx;
		th[i]->id = i;
		task[i] = kthread_create(smp_thread_fn, th[i], "dgt_smp/%u", i);
		if (IS_ERR(task[i])) {
			EXPECT(ok, 0, "kthread_create failed");
			/* The other thread (if any) must still finish. */
			if (atomic_dec_and_test(&ctx.running))
				complete(&ctx.done);
			continue;
		}
		if (cpus >= 2)
			kthread_bind(task[i], i % cpus);
		wake_up_process(task[i]);
	}
	/*
	 * Meanwhile, give every empty chunk back at once, again and again:
	 * reclaim races with both threads' allocations and frees.
	 */
	while (!completion_done(&ctx.done)) {
		reclaimed += dg_pool_reclaim(dg_test_core(ctx.pool), 0, 0);
		usleep_range(50, 100);
	}
	wait_for_completion(&ctx.done);
	for (i = 0; i < 2; i++) {
		struct smp_thread *t = th[i];

		pr_info("# concurrency: thread %u: %lu ops, %lu duplicates, %lu corrupted, %lu not zeroed, %lu failed, %lu out of range\n",
			i, t->ops, t->dup, t->corrupt, t->nonzero, t->fail,
			t->range);
		EXPECT(ok, t->ops == smp_iters, "thread %u ran %lu ops", i,
		       t->ops);
		EXPECT(ok, !t->dup && !t->corrupt && !t->nonzero && !t->fail &&
		       !t->range, "thread %u saw errors", i);
	}
	dgt_stats(ctx.pool, &st);
	pr_info("# concurrency: %u CPUs, %llu ms, chunks allocated %llu released %llu (%u by the racing reclaim)\n",
		cpus, (ktime_get_ns() - t0) / NSEC_PER_MSEC,
		st.chunks_allocated, st.chunks_released, reclaimed);
	EXPECT(ok, st.blocks_in_use == 0 && !dgt_bad_total(&st),
	       "in use %llu, bad %llu", st.blocks_in_use, dgt_bad_total(&st));
	EXPECT(ok, find_first_bit(ctx.live, DGT_TRACK_LIMIT >> DGT_TRACK_SHIFT) ==
	       DGT_TRACK_LIMIT >> DGT_TRACK_SHIFT, "tracking bitmap not empty");
out:
	dmaguard_pool_destroy(ctx.pool);
	kfree(th[0]);
	kfree(th[1]);
	vfree(ctx.live);
	dg_ktap_result(&dgt_ktap, ok, "concurrency_two_threads");
}

/* ---- case: statistics read while another CPU allocates ---- */

#define DGT_STATS_RING		32	/* blocks in flight, as a driver's ring */

struct stats_ctx {
	struct dmaguard_pool *pool;
	struct completion reader_in, done;
	atomic_t running;
	unsigned long ops, fail, reads;
	bool stop;
};

/* Allocate and free through a ring, once the reader runs. */
static int stats_alloc_fn(void *arg)
{
	struct stats_ctx *ctx = arg;
	struct blk ring[DGT_STATS_RING] = {};
	unsigned long i;
	unsigned int k;

	wait_for_completion(&ctx->reader_in);
	for (i = 0; i < smp_iters / 2; i++) {
		k = i % DGT_STATS_RING;
		if (ring[k].v)
			dmaguard_pool_free(ctx->pool, (void *)ring[k].v,
					   ring[k].d);
		ring[k].v = (unsigned long)dmaguard_pool_alloc(ctx->pool,
							       GFP_KERNEL,
							       &ring[k].d);
		if (!ring[k].v)
			ctx->fail++;
		ctx->ops++;
		if (!(i & 255))
			cond_resched();
	}
	dgt_free_blocks(ctx->pool, ring, DGT_STATS_RING);
	WRITE_ONCE(ctx->stop, true);
	if (atomic_dec_and_test(&ctx->running))
		complete(&ctx->done);
	return 0;
}

/* Read the statistics until the allocator stops. */
static int stats_read_fn(void *arg)
{
	struct stats_ctx *ctx = arg;
	struct dmaguard_pool_stats st;

	complete(&ctx->reader_in);
	while (!READ_ONCE(ctx->stop)) {
		dgt_stats(ctx->pool, &st);
		ctx->reads++;
		cond_resched();
	}
	if (atomic_dec_and_test(&ctx->running))
		complete(&ctx->done);
	return 0;
}

/**
 * dgt_stats_race() - case: stats read while another CPU allocates
 *
 * The statistics sum every CPU's cached blocks without a lock while their
 * owners take and give back blocks: on the KCSAN kernel this is the race
 * between the fast path's marked writes of a run and those reads (a plain
 * access on either side is a report). Every allocation must succeed, and
 * the pool must add up once the allocator is done.
 */
void dgt_stats_race(void)
{
	int (*fn[2])(void *) = { stats_read_fn, stats_alloc_fn };
	unsigned int i, cpus = num_online_cpus();
	struct dmaguard_pool_stats st;
	struct stats_ctx ctx = {};
	struct task_struct *task;
	bool ok = true;

	dgt_case_begin();
	ctx.pool = dmaguard_pool_create("dgt_stats_race", dgt_dev, 64, 64, 0);
	init_completion(&ctx.reader_in);
	init_completion(&ctx.done);
	atomic_set(&ctx.running, 2);
	EXPECT(ok, ctx.pool, "create failed");
	if (!ok)
		goto out;
	for (i = 0; i < 2; i++) {
		task = kthread_create(fn[i], &ctx, "dgt_stats/%u", i);
		if (IS_ERR(task)) {
			EXPECT(ok, 0, "kthread_create failed");
			/* the other thread must not wait for this one */
			complete(&ctx.reader_in);
			WRITE_ONCE(ctx.stop, true);
			if (atomic_dec_and_test(&ctx.running))
				complete(&ctx.done);
			continue;
		}
		if (cpus >= 2)
			kthread_bind(task, i);
		wake_up_process(task);
	}
	wait_for_completion(&ctx.done);
	dgt_stats(ctx.pool, &st);
	pr_info("# stats_race: %lu operations, %lu reads, on %u CPUs\n",
		ctx.ops, ctx.reads, min(cpus, 2U));
	EXPECT(ok, ctx.ops == smp_iters / 2 && !ctx.fail,
	       "%lu operations, %lu failed", ctx.ops, ctx.fail);
	EXPECT(ok, st.blocks_in_use == 0 && !dgt_bad_total(&st),
	       "in use %llu, bad %llu", st.blocks_in_use, dgt_bad_total(&st));
out:
	dmaguard_pool_destroy(ctx.pool);
	dg_ktap_result(&dgt_ktap, ok, "stats_read_while_allocating");
}

/* ---- case: no chunk memory left behind ---- */

/**
 * dgt_no_leak() - case: no chunk memory left once every pool is destroyed
 * @base: the chunk bytes at load time
 */
void dgt_no_leak(long base)
{
	long now = dg_test_chunk_bytes();
	bool ok = true;

	dgt_case_begin();
	EXPECT(ok, now == base, "chunk bytes %ld after destroying every pool, %ld at load",
	       now, base);
	dg_ktap_result(&dgt_ktap, ok, "no_chunk_leak");
}

/* ---- case: destroy with live blocks ---- */

/**
 * dgt_destroy_live() - case: destroy with live blocks keeps their chunks
 */
void dgt_destroy_live(void)
{
	struct dmaguard_pool *pool;
	struct dmaguard_pool_stats st;
	struct blk *b = NULL;
	struct blk first, last;
	unsigned int n = 0, i;
	long before, after;
	bool ok = true;

	dgt_case_begin();
	pool = dmaguard_pool_create("dgt_live", dgt_dev, 64, 64, 0);
	EXPECT(ok, pool, "create failed");
	if (!pool)
		goto out;
	/*
	 * On one CPU, as in dgt_reclaim(): a task that moved while it
	 * allocated would leave a group in the first CPU's cache and take a
	 * fourth chunk; one that moved while it freed would leave the middle
	 * chunk's blocks cached, and that chunk not empty.
	 */
	migrate_disable();
	b = dgt_chunks_setup(pool, 3, &n);
	EXPECT(ok, b, "setup failed");
	if (ok)
		EXPECT(ok, dgt_alloc_blocks(pool, b, n) == n, "alloc failed");
	if (!ok) {
		migrate_enable();
		goto out;
	}
	/* Keep the first and last block: two chunks live, the middle empty. */
	first = b[0];
	last = b[n - 1];
	for (i = 1; i < n - 1; i++)
		dmaguard_pool_free(pool, (void *)b[i].v, b[i].d);
	/* The blocks this CPU still caches go back to their chunks. */
	dg_pool_drain(dg_test_core(pool));
	migrate_enable();
	memset((void *)first.v, 0x5e, 64);
	memset((void *)last.v, 0x5f, 64);
	dgt_stats(pool, &st);
	EXPECT(ok, st.chunks == 3 && st.chunks_empty == 1 &&
	       st.blocks_in_use == 2, "chunks %u, empty %u, in use %llu",
	       st.chunks, st.chunks_empty, st.blocks_in_use);
	before = dg_test_chunk_bytes();
	dmaguard_pool_destroy(pool);
	pool = NULL;
	after = dg_test_chunk_bytes();
	EXPECT(ok, before - after == (long)st.chunks_empty * st.chunk_size,
	       "chunk bytes dropped by %ld, want %u (the empty chunk only)",
	       before - after, st.chunks_empty * st.chunk_size);
	dgt_leaked_by_design += (long)(st.chunks - st.chunks_empty) * st.chunk_size;
	/* The live blocks' memory was not handed back: still ours, intact. */
	EXPECT(ok, dgt_all_bytes((void *)first.v, 64, 0x5e) &&
	       dgt_all_bytes((void *)last.v, 64, 0x5f),
	       "live blocks changed after destroy");
out:
	kfree(b);
	dmaguard_pool_destroy(pool);
	dg_ktap_result(&dgt_ktap, ok, "destroy_with_live_blocks");
}
