// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_bench, multi-CPU part: every online CPU on one shared pool.
 *
 * A measurement: one kthread per online CPU, bound to it, all on ONE pool
 * of @mt_size-byte blocks (aligned to the size). Each thread loops
 * "allocate @mt_batch blocks with GFP_KERNEL, then free them in
 * allocation order" and counts the blocks it allocated and freed (one
 * operation = one alloc + free pair, counted per completed batch). The
 * threads start together: each checks in and sleeps until the last one
 * has; then the go is given, and an hrtimer sets the stop flag @mt_ms
 * later, which every thread reads before each batch.
 *
 * The kernel's dma_pool and a dmaguard pool are created once on the same
 * device (bench_dev) and reused: one untimed warm-up measurement of each,
 * then @mt_reps measurements of each, alternated (kernel first in even
 * repetitions, dmaguard first in odd ones). Printed (after the pr_fmt
 * prefix):
 *
 *   BENCH pool-mt kernel=K backend=B cpus=N size=S kernel_ops=X
 *         dmaguard_ops=Y ratio=R
 *   BENCH pool-mt-reps kernel=K backend=B cpus=N size=S batch=B ms=T
 *         kernel_ops=a,b,.. dmaguard_ops=a,b,.. median_pair_ratio=R
 *
 * kernel_ops and dmaguard_ops are the medians over the repetitions and
 * ratio = dmaguard_ops / kernel_ops: a throughput ratio, higher is better
 * for dmaguard (the single-CPU rows print time ratios). The median of
 * the ratios of each repetition's two measurements, made back to back,
 * is a second opinion that a busy host (TCG vCPUs are host threads)
 * disturbs less.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/dmapool.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/utsname.h>
#include <linux/wait.h>
#include <dmaguard/dmaguard.h>
#include "dmaguard_bench.h"

#define MT_MAX_BATCH	64

static unsigned int mt_ms = 300;
module_param(mt_ms, uint, 0444);
MODULE_PARM_DESC(mt_ms, "Duration of one multi-CPU measurement, ms");

static unsigned int mt_reps = 5;
module_param(mt_reps, uint, 0444);
MODULE_PARM_DESC(mt_reps, "Multi-CPU measurements per pool (1-31)");

static unsigned int mt_size = 64;
module_param(mt_size, uint, 0444);
MODULE_PARM_DESC(mt_size, "Block size of the multi-CPU run (power of two)");

static unsigned int mt_batch = 16;
module_param(mt_batch, uint, 0444);
MODULE_PARM_DESC(mt_batch, "Blocks each thread allocates before freeing them (1-64)");

/* One measurement: what the threads share. */
struct mt_run {
	struct dma_pool *kpool;		/* exactly one of the two is set */
	struct dmaguard_pool *dpool;
	wait_queue_head_t wq;		/* check-in, go, finish */
	atomic_t checked_in;
	atomic_t finished;
	bool go;
	atomic_t stop;
	struct hrtimer timer;
};

/* One thread; its batch lives here, not on its stack (KASAN grows frames). */
struct mt_thread {
	struct mt_run *run;
	struct task_struct *task;
	unsigned long ops;
	int err;
	void *v[MT_MAX_BATCH];
	dma_addr_t d[MT_MAX_BATCH];
};

/* A whole run's state, allocated: too big for a kernel stack. */
struct mt_state {
	struct mt_run run;
	s64 k_ops[BENCH_MAX_REPS], d_ops[BENCH_MAX_REPS], pr[BENCH_MAX_REPS];
	char kl[BENCH_MAX_REPS * 12], dl[BENCH_MAX_REPS * 12];
};

static enum hrtimer_restart mt_timer_fn(struct hrtimer *t)
{
	struct mt_run *run = container_of(t, struct mt_run, timer);

	atomic_set(&run->stop, 1);
	return HRTIMER_NORESTART;
}

/* One batch: allocate @n blocks, free them; 0 or -ENOMEM. */
static int mt_batch_once(struct mt_thread *t, unsigned int n)
{
	struct mt_run *run = t->run;
	void **v = t->v;
	dma_addr_t *d = t->d;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		v[i] = run->dpool ?
		       dmaguard_pool_alloc(run->dpool, GFP_KERNEL, &d[i]) :
		       dma_pool_alloc(run->kpool, GFP_KERNEL, &d[i]);
		if (!v[i]) {
			ret = -ENOMEM;
			break;
		}
	}
	n = i;
	for (i = 0; i < n; i++) {
		if (run->dpool)
			dmaguard_pool_free(run->dpool, v[i], d[i]);
		else
			dma_pool_free(run->kpool, v[i], d[i]);
	}
	return ret;
}

static int mt_thread_fn(void *data)
{
	struct mt_thread *t = data;
	struct mt_run *run = t->run;
	unsigned long ops = 0;

	atomic_inc(&run->checked_in);
	wake_up_all(&run->wq);
	wait_event(run->wq, READ_ONCE(run->go));
	while (!atomic_read(&run->stop)) {
		t->err = mt_batch_once(t, mt_batch);
		if (t->err) {
			atomic_set(&run->stop, 1);
			break;
		}
		ops += mt_batch;
		cond_resched();
	}
	t->ops = ops;
	atomic_inc(&run->finished);
	wake_up_all(&run->wq);

	/* kthread_stop() collects the thread. */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* One measurement on one pool: operations of all threads, or an error. */
static s64 mt_measure(struct dma_pool *kpool, struct dmaguard_pool *dpool,
		      struct mt_run *r, struct mt_thread *th)
{
	unsigned int cpu, n = 0, i;
	s64 ops = 0;
	int err = 0;

	*r = (struct mt_run){ .kpool = kpool, .dpool = dpool };
	init_waitqueue_head(&r->wq);
	atomic_set(&r->checked_in, 0);
	atomic_set(&r->finished, 0);
	atomic_set(&r->stop, 0);
	hrtimer_init(&r->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	r->timer.function = mt_timer_fn;

	for_each_online_cpu(cpu) {
		struct task_struct *task;

		th[n] = (struct mt_thread){ .run = r };
		task = kthread_create(mt_thread_fn, &th[n], "dg_bench_mt/%u",
				      cpu);
		if (IS_ERR(task)) {
			err = PTR_ERR(task);
			break;
		}
		kthread_bind(task, cpu);
		th[n++].task = task;
		wake_up_process(task);
	}
	wait_event(r->wq, atomic_read(&r->checked_in) == n);
	if (err)
		atomic_set(&r->stop, 1);
	else
		hrtimer_start(&r->timer, ms_to_ktime(mt_ms), HRTIMER_MODE_REL);
	WRITE_ONCE(r->go, true);
	wake_up_all(&r->wq);
	wait_event(r->wq, atomic_read(&r->finished) == n);
	hrtimer_cancel(&r->timer);

	for (i = 0; i < n; i++) {
		kthread_stop(th[i].task);
		if (th[i].err && !err)
			err = th[i].err;
		ops += th[i].ops;
	}
	return err ? err : ops;
}

int bench_mt_run(void)
{
	s64 km, dm, v, pm;
	const char *kver = init_utsname()->release;
	struct dmaguard_pool *dpool = NULL;
	struct dma_pool *kpool = NULL;
	struct mt_thread *th = NULL;
	struct mt_state *st;
	unsigned int cpus = num_online_cpus(), i, side;
	u64 ratio;
	int ret = -ENOMEM;

	if (!mt_reps || mt_reps > BENCH_MAX_REPS || !mt_ms ||
	    !mt_batch || mt_batch > MT_MAX_BATCH || !is_power_of_2(mt_size)) {
		pr_err("mt_reps must be 1-%d, mt_batch 1-%d, mt_ms at least 1, mt_size a power of two\n",
		       BENCH_MAX_REPS, MT_MAX_BATCH);
		return -EINVAL;
	}
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	th = kcalloc(nr_cpu_ids, sizeof(*th), GFP_KERNEL);
	kpool = dma_pool_create("dg_bench_mt_kernel", bench_dev, mt_size,
				mt_size, 0);
	dpool = dmaguard_pool_create("dg_bench_mt", bench_dev, mt_size,
				     mt_size, 0);
	if (!th || !kpool || !dpool)
		goto out;

	/* Warm-up (i == 0, untimed), then the repetitions, alternated. */
	for (i = 0; i <= mt_reps; i++) {
		for (side = 0; side < 2; side++) {
			bool dg = side ^ (i & 1);

			v = mt_measure(dg ? NULL : kpool, dg ? dpool : NULL,
				       &st->run, th);
			if (v < 0) {
				ret = v;
				goto out;
			}
			if (i && dg)
				st->d_ops[i - 1] = v;
			else if (i)
				st->k_ops[i - 1] = v;
		}
	}
	km = bench_median(st->k_ops, mt_reps);
	dm = bench_median(st->d_ops, mt_reps);
	ratio = km ? div64_u64((u64)dm * 1000 + km / 2, km) : 0;
	pr_info("BENCH pool-mt kernel=%s backend=%s cpus=%u size=%u kernel_ops=%lld dmaguard_ops=%lld ratio=%llu.%03llu\n",
		kver, bench_backend, cpus, mt_size, km, dm, ratio / 1000,
		ratio % 1000);
	for (i = 0; i < mt_reps; i++)
		st->pr[i] = st->k_ops[i] ?
			    div64_u64((u64)st->d_ops[i] * 1000 + st->k_ops[i] / 2,
				      st->k_ops[i]) : 0;
	pm = bench_median(st->pr, mt_reps);
	bench_format_list(st->kl, sizeof(st->kl), st->k_ops, mt_reps);
	bench_format_list(st->dl, sizeof(st->dl), st->d_ops, mt_reps);
	pr_info("BENCH pool-mt-reps kernel=%s backend=%s cpus=%u size=%u batch=%u ms=%u kernel_ops=%s dmaguard_ops=%s median_pair_ratio=%lld.%03lld\n",
		kver, bench_backend, cpus, mt_size, mt_batch, mt_ms, st->kl, st->dl,
		pm / 1000, pm % 1000);
	ret = 0;
out:
	dmaguard_pool_destroy(dpool);
	dma_pool_destroy(kpool);
	kfree(th);
	kfree(st);
	if (ret)
		pr_err("BENCH error kernel=%s backend=%s cpus=%u pool-mt size=%u: %d\n",
		       kver, bench_backend, cpus, mt_size, ret);
	return ret;
}
