// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_bench, ring rows: the pattern of a driver's descriptor ring
 * on one CPU. A ring of @depth blocks is kept in flight; each step frees
 * the oldest block (its completion arrived) and allocates one in its
 * place, so blocks come and go in FIFO order. The kernel's dma_pool and
 * dmaguard get the same ring, on the same device, in one boot; their
 * turns alternate @RING_TURN steps at a time (each turn timed on its
 * own, which one goes first alternating), so that both see the same host
 * noise. @ring_reps measurements of @ring_steps steps each; medians.
 *
 *   BENCH ring kernel=K backend=B size=S depth=D steps=N kernel_us=M
 *         dmaguard_us=M ratio=R
 *   BENCH ring-reps kernel=K size=S depth=D kernel_us=a,b,..
 *         dmaguard_us=a,b,..
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dmapool.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/utsname.h>
#include "dg_test_dev.h"	/* dmaguard.h, pool.h */
#include "dmaguard_bench.h"

static unsigned int ring_reps = 5;
module_param(ring_reps, uint, 0444);
MODULE_PARM_DESC(ring_reps, "Timed measurements per pool and ring row (1-31)");

static unsigned int ring_steps_nr = 200000;
module_param_named(ring_steps, ring_steps_nr, uint, 0444);
MODULE_PARM_DESC(ring_steps, "Free + alloc steps a ring measurement");

#define RING_TURN	1000	/* steps a pool runs before the other's turn */
#define RING_MAX_DEPTH	256

static const struct {
	size_t size;
	unsigned int depth;
} ring_rows[] = {
	{ 64, 32 }, { 64, 256 }, { 4096, 32 }, { 4096, 256 },
};

/* One ring of in-flight blocks of one pool; @head is the oldest. */
struct ring {
	void *vaddr[RING_MAX_DEPTH];
	dma_addr_t dma[RING_MAX_DEPTH];
	unsigned int depth, head;
	struct dma_pool *kpool;
	struct dmaguard_pool *dpool;
};

static void *ring_alloc(struct ring *r, dma_addr_t *dma)
{
	return r->kpool ? dma_pool_alloc(r->kpool, GFP_KERNEL, dma) :
			  dmaguard_pool_alloc(r->dpool, GFP_KERNEL, dma);
}

static void ring_free(struct ring *r, void *vaddr, dma_addr_t dma)
{
	if (r->kpool)
		dma_pool_free(r->kpool, vaddr, dma);
	else
		dmaguard_pool_free(r->dpool, vaddr, dma);
}

static int ring_fill(struct ring *r)
{
	unsigned int i;

	for (i = 0; i < r->depth; i++) {
		r->vaddr[i] = ring_alloc(r, &r->dma[i]);
		if (!r->vaddr[i])
			return -ENOMEM;
	}
	r->head = 0;
	return 0;
}

static void ring_drain(struct ring *r)
{
	unsigned int i;

	for (i = 0; i < r->depth; i++)
		if (r->vaddr[i])
			ring_free(r, r->vaddr[i], r->dma[i]);
	memset(r->vaddr, 0, sizeof(r->vaddr));
}

/* @n steps: complete the oldest block, submit a new one in its slot. */
static int ring_steps(struct ring *r, unsigned int n)
{
	unsigned int h = r->head;

	while (n--) {
		ring_free(r, r->vaddr[h], r->dma[h]);
		r->vaddr[h] = ring_alloc(r, &r->dma[h]);
		if (!r->vaddr[h])
			return -ENOMEM;
		if (++h == r->depth)
			h = 0;
	}
	r->head = h;
	return 0;
}

/* One measurement of both rings, turns alternating; ns of each. */
static int ring_measure(struct ring *k, struct ring *d, u64 *k_ns, u64 *d_ns)
{
	struct ring *first, *second;
	unsigned int i;
	u64 t0, t1, t2;
	int ret = 0;

	*k_ns = 0;
	*d_ns = 0;
	for (i = 0; i < max(ring_steps_nr / RING_TURN, 1u) && !ret; i++) {
		first = i & 1 ? d : k;
		second = i & 1 ? k : d;
		t0 = ktime_get_ns();
		ret = ring_steps(first, RING_TURN);
		t1 = ktime_get_ns();
		ret = ret ?: ring_steps(second, RING_TURN);
		t2 = ktime_get_ns();
		*(first == k ? k_ns : d_ns) += t1 - t0;
		*(second == k ? k_ns : d_ns) += t2 - t1;
		if (need_resched())
			cond_resched();
	}
	return ret;
}

/* A row's measurements, off the stack. */
struct ring_times {
	s64 k_us[BENCH_MAX_REPS], d_us[BENCH_MAX_REPS];
	char kl[256], dl[256];
};

static int ring_row(size_t size, unsigned int depth)
{
	unsigned int i, reps = clamp(ring_reps, 1u, (unsigned int)BENCH_MAX_REPS);
	struct ring_times *t;
	struct ring *k, *d;
	s64 km, dm, milli;
	u64 kn, dn;
	int ret;

	k = kzalloc(sizeof(*k), GFP_KERNEL);
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	ret = -ENOMEM;
	if (!k || !d || !t)
		goto out;
	k->depth = depth;
	d->depth = depth;
	k->kpool = dma_pool_create("dg_bench_ring_k", bench_dev, size, size, 0);
	d->dpool = dmaguard_pool_create("dg_bench_ring", bench_dev, size, size, 0);
	if (!k->kpool || !d->dpool)
		goto out;
	ret = ring_fill(k) ?: ring_fill(d);
	/* warm-up: each ring goes round a few times untimed */
	ret = ret ?: ring_steps(k, 4 * depth) ?: ring_steps(d, 4 * depth);
	for (i = 0; i < reps && !ret; i++) {
		ret = ring_measure(k, d, &kn, &dn);
		t->k_us[i] = div_u64(kn, NSEC_PER_USEC);
		t->d_us[i] = div_u64(dn, NSEC_PER_USEC);
	}
	if (ret)
		goto out;
	km = bench_median(t->k_us, reps);
	dm = bench_median(t->d_us, reps);
	bench_format_list(t->kl, sizeof(t->kl), t->k_us, reps);
	bench_format_list(t->dl, sizeof(t->dl), t->d_us, reps);
	milli = div64_s64(dm * 1000, km ?: 1);
	pr_info("BENCH ring kernel=%s backend=%s size=%zu depth=%u steps=%u kernel_us=%lld dmaguard_us=%lld ratio=%lld.%03lld\n",
		init_utsname()->release, bench_backend, size, depth,
		max(ring_steps_nr / RING_TURN, 1u) * RING_TURN, km, dm,
		milli / 1000, milli % 1000);
	pr_info("BENCH ring-reps kernel=%s size=%zu depth=%u kernel_us=%s dmaguard_us=%s\n",
		init_utsname()->release, size, depth, t->kl, t->dl);
out:
	if (ret)
		pr_err("BENCH error ring size=%zu depth=%u: %d\n", size, depth,
		       ret);
	if (k && k->kpool) {
		ring_drain(k);
		dma_pool_destroy(k->kpool);
	}
	if (d && d->dpool) {
		ring_drain(d);
		dmaguard_pool_destroy(d->dpool);
	}
	kfree(t);
	kfree(k);
	kfree(d);
	return ret;
}

/**
 * bench_ring_run() - the ring rows
 *
 * Return: 0, or the first row's error.
 */
int bench_ring_run(void)
{
	unsigned int i;
	int ret = 0, err;

	for (i = 0; i < ARRAY_SIZE(ring_rows); i++) {
		err = ring_row(ring_rows[i].size, ring_rows[i].depth);
		if (err && !ret)
			ret = err;
	}
	return ret;
}
