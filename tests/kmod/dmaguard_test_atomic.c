// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_test: GFP_ATOMIC allocations under a spinlock with interrupts
 * off, from a hard interrupt (an hrtimer callback), and from hard
 * interrupts that land inside the task's own allocations and frees.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/completion.h>
#include <linux/spinlock.h>
#include "dmaguard_test.h"

/* ---- case: GFP_ATOMIC under a spinlock with interrupts off ---- */

#define DGT_ATOMIC_N	96

static DEFINE_SPINLOCK(dgt_lock);

/**
 * dgt_atomic_spinlock() - case: GFP_ATOMIC under a spinlock, irqs off
 */
void dgt_atomic_spinlock(void)
{
	struct blk *b;
	struct dmaguard_pool *pool;
	struct dmaguard_pool_stats st;
	unsigned long flags;
	unsigned int i, got = 0, nonzero = 0;
	bool ok = true;

	dgt_case_begin();
	b = kcalloc(DGT_ATOMIC_N, sizeof(*b), GFP_KERNEL);
	pool = dmaguard_pool_create("dgt_atomic", dgt_dev, 32, 32, 0);
	EXPECT(ok, b && pool, "setup failed");
	if (!ok)
		goto out;
	/* The pool is empty: the first allocation grows it in atomic context. */
	spin_lock_irqsave(&dgt_lock, flags);
	for (i = 0; i < DGT_ATOMIC_N; i++) {
		void *v = (i & 1) ?
			dmaguard_pool_zalloc(pool, GFP_ATOMIC, &b[i].d) :
			dmaguard_pool_alloc(pool, GFP_ATOMIC, &b[i].d);

		b[i].v = (unsigned long)v;
		if (!v)
			continue;
		got++;
		if ((i & 1) && !dgt_all_bytes(v, 32, 0))
			nonzero++;
		memset(v, 0x3c, 32);
	}
	for (i = 0; i < DGT_ATOMIC_N; i += 2)
		if (b[i].v) {
			dmaguard_pool_free(pool, (void *)b[i].v, b[i].d);
			b[i].v = 0;
		}
	spin_unlock_irqrestore(&dgt_lock, flags);

	EXPECT(ok, got == DGT_ATOMIC_N, "%u of %u GFP_ATOMIC allocations",
	       got, DGT_ATOMIC_N);
	EXPECT(ok, !nonzero, "%u zalloc blocks not zero", nonzero);
	dgt_stats(pool, &st);
	EXPECT(ok, st.blocks_in_use == got - DGT_ATOMIC_N / 2,
	       "in use %llu", st.blocks_in_use);
	dgt_free_blocks(pool, b, DGT_ATOMIC_N);	/* the odd ones are left */
	dgt_stats(pool, &st);
	EXPECT(ok, st.blocks_in_use == 0 && !dgt_bad_total(&st),
	       "in use %llu, bad %llu", st.blocks_in_use, dgt_bad_total(&st));
out:
	dmaguard_pool_destroy(pool);
	kfree(b);
	dg_ktap_result(&dgt_ktap, ok, "atomic_spinlock_irqsave");
}

/* ---- case: GFP_ATOMIC from a hard interrupt (hrtimer callback) ---- */

#define DGT_IRQ_N	48

/* 1 KiB blocks, 32 a chunk: enough chunks to grow the pool's hash table. */
#define DGT_IRQ_BIG_N	(10 * 32)

struct irq_ctx {
	struct hrtimer timer;
	struct completion done;
	struct dmaguard_pool *pool;
	struct dmaguard_pool *big;
	struct blk b[DGT_IRQ_N];
	struct blk big_b[DGT_IRQ_BIG_N];
	unsigned int got, big_got;
	unsigned int nonzero;
	bool hardirq;
};

static enum hrtimer_restart dgt_irq_fn(struct hrtimer *t)
{
	struct irq_ctx *ctx = container_of(t, struct irq_ctx, timer);
	unsigned int i;

	ctx->hardirq = in_hardirq();
	for (i = 0; i < DGT_IRQ_N; i++) {
		void *v = dmaguard_pool_zalloc(ctx->pool, GFP_ATOMIC,
					       &ctx->b[i].d);

		ctx->b[i].v = (unsigned long)v;
		if (!v)
			continue;
		ctx->got++;
		if (!dgt_all_bytes(v, 64, 0))
			ctx->nonzero++;
		memset(v, 0x77, 64);
	}
	/* New chunks and a bigger chunk table, all in the interrupt. */
	for (i = 0; i < DGT_IRQ_BIG_N; i++) {
		void *v = dmaguard_pool_alloc(ctx->big, GFP_ATOMIC,
					      &ctx->big_b[i].d);

		ctx->big_b[i].v = (unsigned long)v;
		if (v)
			ctx->big_got++;
	}
	/* Half of them go back from the interrupt, too. */
	for (i = 0; i < DGT_IRQ_N; i += 2)
		if (ctx->b[i].v) {
			dmaguard_pool_free(ctx->pool, (void *)ctx->b[i].v,
					   ctx->b[i].d);
			ctx->b[i].v = 0;
		}
	complete(&ctx->done);
	return HRTIMER_NORESTART;
}

/*
 * On PREEMPT_RT spinlock_t sleeps, so no pool (mainline's dma_pool neither)
 * may be used from hard interrupt context; interrupt handlers run in
 * threads there. The callback then runs where RT runs timer callbacks: in
 * the timer softirq, in a task.
 */
#ifdef CONFIG_PREEMPT_RT
#define DGT_IRQ_MODE	HRTIMER_MODE_REL_SOFT
#else
#define DGT_IRQ_MODE	HRTIMER_MODE_REL_HARD
#endif

/**
 * dgt_atomic_hardirq() - case: GFP_ATOMIC in a hrtimer callback (hard
 * interrupt context, but on PREEMPT_RT)
 */
void dgt_atomic_hardirq(void)
{
	struct dmaguard_pool_stats st;
	struct irq_ctx *ctx;
	bool ok = true;
	unsigned int i;

	dgt_case_begin();
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	EXPECT(ok, ctx, "no memory");
	if (!ctx)
		goto out;
	ctx->pool = dmaguard_pool_create("dgt_irq", dgt_dev, 64, 64, 0);
	ctx->big = dmaguard_pool_create("dgt_irq_big", dgt_dev, 1024, 1024, 0);
	EXPECT(ok, ctx->pool && ctx->big, "create failed");
	if (!ok)
		goto out;
	init_completion(&ctx->done);
	hrtimer_init(&ctx->timer, CLOCK_MONOTONIC, DGT_IRQ_MODE);
	ctx->timer.function = dgt_irq_fn;
	hrtimer_start(&ctx->timer, ms_to_ktime(1), DGT_IRQ_MODE);
	EXPECT(ok, wait_for_completion_timeout(&ctx->done, 10 * HZ),
	       "timer never fired");
	hrtimer_cancel(&ctx->timer);
	EXPECT(ok, ctx->hardirq == !IS_ENABLED(CONFIG_PREEMPT_RT),
	       "callback %sin hard interrupt context",
	       ctx->hardirq ? "" : "not ");
	EXPECT(ok, ctx->got == DGT_IRQ_N, "%u of %u allocations in hardirq",
	       ctx->got, DGT_IRQ_N);
	EXPECT(ok, !ctx->nonzero, "%u blocks not zero", ctx->nonzero);
	for (i = 1; i < DGT_IRQ_N; i += 2)
		if (ctx->b[i].v)
			EXPECT(ok, dgt_all_bytes((void *)ctx->b[i].v, 64, 0x77),
			       "block %u changed", i);
	dgt_free_blocks(ctx->pool, ctx->b, DGT_IRQ_N);
	dgt_stats(ctx->pool, &st);
	EXPECT(ok, st.blocks_in_use == 0 && !dgt_bad_total(&st),
	       "in use %llu, bad %llu", st.blocks_in_use, dgt_bad_total(&st));
	dgt_stats(ctx->big, &st);
	EXPECT(ok, ctx->big_got == DGT_IRQ_BIG_N && st.chunks >= 10 &&
	       st.blocks_in_use == ctx->big_got,
	       "big pool: %u of %u allocations in hardirq, %u chunks",
	       ctx->big_got, DGT_IRQ_BIG_N, st.chunks);
	dgt_free_blocks(ctx->big, ctx->big_b, DGT_IRQ_BIG_N);
	dgt_stats(ctx->big, &st);
	EXPECT(ok, st.blocks_in_use == 0 && !dgt_bad_total(&st),
	       "big pool: in use %llu, bad %llu", st.blocks_in_use,
	       dgt_bad_total(&st));
out:
	if (ctx) {
		dmaguard_pool_destroy(ctx->pool);
		dmaguard_pool_destroy(ctx->big);
	}
	kfree(ctx);
	dg_ktap_result(&dgt_ktap, ok, "atomic_hardirq");
}

/* ---- case: interrupts inside this CPU's cache section ---- */

/* The smoke runs this long (a slow CPU, or TCG) or until this many bypasses. */
#define DGT_BUSY_MS	5000
#define DGT_BUSY_WANT	50
#define DGT_BUSY_HELD	32
/* Interrupts raised inside a section the test holds. */
#define DGT_BUSY_RAISED	16
#define DGT_BUSY_OPS	4

struct busy_ctx {
	struct hrtimer timer;
	struct irq_work work;
	struct dmaguard_pool *pool;
	unsigned int fired, got, wanted;
	bool stop;
};

/* An interrupt's work: four blocks allocated, written and freed. */
static void dgt_busy_ops(struct busy_ctx *ctx)
{
	struct blk b[DGT_BUSY_OPS];
	unsigned int i;

	ctx->fired++;
	for (i = 0; i < ARRAY_SIZE(b); i++) {
		void *v = dmaguard_pool_alloc(ctx->pool, GFP_ATOMIC, &b[i].d);

		b[i].v = (unsigned long)v;
		ctx->wanted++;
		if (!v)
			continue;
		ctx->got++;
		memset(v, 0x5a, 64);
	}
	for (i = 0; i < ARRAY_SIZE(b); i++)
		if (b[i].v)
			dmaguard_pool_free(ctx->pool, (void *)b[i].v, b[i].d);
}

/* Every 50 us, wherever the task is. */
static enum hrtimer_restart dgt_busy_fn(struct hrtimer *t)
{
	struct busy_ctx *ctx = container_of(t, struct busy_ctx, timer);

	dgt_busy_ops(ctx);
	if (READ_ONCE(ctx->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(50 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void dgt_busy_work(struct irq_work *w)
{
	dgt_busy_ops(container_of(w, struct busy_ctx, work));
}

/* Inside the section: raise the interrupt on this CPU, wait until it ran. */
static void dgt_busy_raise(void *arg)
{
	struct busy_ctx *ctx = arg;

	irq_work_queue(&ctx->work);
	while (irq_work_is_busy(&ctx->work))
		cpu_relax();
}

/**
 * dgt_irq_on_busy_cache() - case: a hard interrupt allocates and frees
 * while the CPU it lands on is inside the pool's cache section
 *
 * Exact part: the test holds this CPU's section (as a task inside an
 * allocation does) and raises an interrupt there DGT_BUSY_RAISED times;
 * each of the interrupt's calls goes past the cache
 * (dg_pool_alloc_bypass(), dg_pool_free_bypass()), counted exactly. Smoke:
 * the task allocates and frees in a loop while an hrtimer does the same
 * on the same pool; however often the timer lands inside a section (the
 * host's business), only its calls may go past the cache. On PREEMPT_RT
 * the cache is a spinlock_t tried with migration off: the timer's thread
 * goes past it when it preempted the task inside its section, and the
 * exact part (an irq_work raised in a held section) does not apply.
 */
void dgt_irq_on_busy_cache(void)
{
	struct dmaguard_pool_stats st;
	struct dg_pool_stats core = {};
	struct busy_ctx *ctx;
	struct blk b[DGT_BUSY_HELD];
	unsigned long end;
	unsigned int i, loops = 0, failed = 0;
	bool ok = true;
	u64 bypass;

	dgt_case_begin();
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	EXPECT(ok, ctx, "no memory");
	if (!ctx)
		goto out;
	ctx->pool = dmaguard_pool_create("dgt_busy", dgt_dev, 64, 64, 0);
	EXPECT(ok, ctx->pool, "create failed");
	if (!ok)
		goto out;
	init_irq_work(&ctx->work, dgt_busy_work);
	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		for (i = 0; i < DGT_BUSY_RAISED; i++)
			EXPECT(ok, !dg_test_in_cache_section(dg_test_core(ctx->pool),
							     dgt_busy_raise, ctx),
			       "this CPU's section was taken");
		dg_pool_get_stats(dg_test_core(ctx->pool), &core);
		EXPECT(ok, ctx->fired == DGT_BUSY_RAISED &&
		       ctx->got == ctx->wanted,
		       "%u interrupts of %u, %u of %u allocations", ctx->fired,
		       DGT_BUSY_RAISED, ctx->got, ctx->wanted);
		EXPECT(ok, core.cache_bypass == 2ull * ctx->wanted,
		       "%llu calls past the section held, want %u",
		       core.cache_bypass, 2 * ctx->wanted);
	}
	bypass = core.cache_bypass;
	ctx->fired = 0;

	/* The timer and the task on one CPU, for the whole smoke. */
	migrate_disable();
	hrtimer_init(&ctx->timer, CLOCK_MONOTONIC,
		     DGT_IRQ_MODE | HRTIMER_MODE_PINNED);
	ctx->timer.function = dgt_busy_fn;
	hrtimer_start(&ctx->timer, ns_to_ktime(50 * NSEC_PER_USEC),
		      DGT_IRQ_MODE | HRTIMER_MODE_PINNED);
	end = jiffies + msecs_to_jiffies(DGT_BUSY_MS);
	do {
		for (i = 0; i < DGT_BUSY_HELD; i++) {
			void *v = dmaguard_pool_alloc(ctx->pool, GFP_KERNEL,
						      &b[i].d);

			b[i].v = (unsigned long)v;
			if (v)
				memset(v, 0xa5, 64);
			else
				failed++;
		}
		for (i = 0; i < DGT_BUSY_HELD; i++)
			if (b[i].v && !dgt_all_bytes((void *)b[i].v, 64, 0xa5))
				failed++;
		dgt_free_blocks(ctx->pool, b, DGT_BUSY_HELD);
		loops++;
		dg_pool_get_stats(dg_test_core(ctx->pool), &core);
		if (core.cache_bypass - bypass >= DGT_BUSY_WANT)
			break;
		/* PREEMPT_RT: enough interrupts to have seen one. */
		if (IS_ENABLED(CONFIG_PREEMPT_RT) &&
		    READ_ONCE(ctx->fired) >= 4 * DGT_BUSY_WANT)
			break;
		cond_resched();
	} while (time_before(jiffies, end) || !READ_ONCE(ctx->fired));
	WRITE_ONCE(ctx->stop, true);
	hrtimer_cancel(&ctx->timer);
	migrate_enable();
	dg_pool_get_stats(dg_test_core(ctx->pool), &core);
	pr_info("# irq_on_busy_cache: %u loops, %u interrupts, %llu operations past the cache in use\n",
		loops, ctx->fired, core.cache_bypass - bypass);
	EXPECT(ok, ctx->got == ctx->wanted, "%u of %u allocations", ctx->got,
	       ctx->wanted);
	EXPECT(ok, !failed, "%u failed or overwritten blocks in the task",
	       failed);
	/* Only the interrupts' allocations and frees may go past the cache. */
	EXPECT(ok, core.cache_bypass <= 2ull * ctx->wanted,
	       "%llu bypasses, the interrupts made %u operations",
	       core.cache_bypass, 2 * ctx->wanted);
	dgt_stats(ctx->pool, &st);
	EXPECT(ok, st.blocks_in_use == 0 && !dgt_bad_total(&st),
	       "in use %llu, bad %llu", st.blocks_in_use, dgt_bad_total(&st));
out:
	if (ctx)
		dmaguard_pool_destroy(ctx->pool);
	kfree(ctx);
	dg_ktap_result(&dgt_ktap, ok, "irq_on_busy_cache");
}
