// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side-by-side: the project's chunk table (dg_table_find()) versus
 * the kernel's xarray (xa_load()), same synthetic chunk addresses (never
 * dereferenced) in the direct map (PAGE_OFFSET + ...) or in vmalloc space
 * (VMALLOC_START + ...), same lookup sequence, one module init. Medians of
 * REPS interleaved repetitions, ktime_get_ns().
 */
#define pr_fmt(fmt) fmt
#include <linux/module.h>
#include <linux/xarray.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <linux/sched.h>
#include "chunk.h"
#include "chunk_table.h"

static unsigned int reps = 5;
module_param(reps, uint, 0444);
static unsigned int lookups = 8192;
module_param(lookups, uint, 0444);
static unsigned int shift = 14;
module_param(shift, uint, 0444);

#define SPAN		(16ul << 30)
#define DESC_BYTES	128
#define MAXREPS		15

static u64 rng = 0x9e3779b97f4a7c15ull;
static unsigned long rnd(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return rng;
}

static int cmpu64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}
static u64 median(u64 *v, int n)
{
	sort(v, n, sizeof(*v), cmpu64, NULL);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* pool_table_room() without the lock dance */
static void ct_insert(struct dg_chunk_table *t, struct dg_chunk *c)
{
	while (!dg_table_has_room(t)) {
		u32 bits = t->bits + 1;
		struct dg_chunk_slot *s = kcalloc(1u << bits, sizeof(*s), GFP_KERNEL);

		kfree(dg_table_rehash(t, s, bits));
	}
	dg_table_insert(t, c);
}

static int ct_init(struct dg_chunk_table *t)
{
	t->slots = kcalloc(DG_TABLE_MIN_SLOTS, sizeof(*t->slots), GFP_KERNEL);
	t->bits = ilog2(DG_TABLE_MIN_SLOTS);
	t->used = 0;
	t->shift = shift;
	return t->slots ? 0 : -ENOMEM;
}

static inline unsigned long cbase(const struct dg_chunk *c)
{
	return (unsigned long)c->blocks;
}

/* chunks only page aligned: keyed by the window of the chunk's start */
static inline struct dg_chunk *xfind2(struct xarray *xa, unsigned long addr,
				      unsigned long sub)
{
	unsigned long w = (addr - sub) >> shift;
	struct dg_chunk *c = xa_load(xa, w);

	if (c && addr >= cbase(c))
		return c;
	c = xa_load(xa, w - 1);
	if (c && addr - cbase(c) < (1ul << shift))
		return c;
	return NULL;
}

static noinline unsigned long loop_hash(struct dg_chunk_table *t,
					const unsigned long *a, int m, int dep)
{
	unsigned long x = 0, prev = 0;
	int i;

	if (!dep) {
		for (i = 0; i < m; i++)
			x += (unsigned long)dg_table_find(t, a[i]);
		return x;
	}
	for (i = 0; i < m; i++) {
		prev = (unsigned long)dg_table_find(t, a[i] | (prev & 1));
		x += prev;
	}
	return x;
}

static noinline unsigned long loop_xa(struct xarray *xa, const unsigned long *a,
				      int m, int dep, int two, unsigned long sub)
{
	unsigned long x = 0, prev = 0;
	int i;

	if (!two) {
		for (i = 0; i < m; i++) {
			prev = (unsigned long)xa_load(xa, ((a[i] | (dep ? prev & 1 : 0)) - sub) >> shift);
			x += prev;
		}
		return x;
	}
	for (i = 0; i < m; i++) {
		prev = (unsigned long)xfind2(xa, a[i] | (dep ? prev & 1 : 0), sub);
		x += prev;
	}
	return x;
}

static volatile unsigned long sink;

static void shuffle(struct dg_chunk **v, int n)
{
	int i, j;

	for (i = n - 1; i > 0; i--) {
		j = rnd() % (i + 1);	/* once: swap() evaluates it twice */
		swap(v[i], v[j]);
	}
}

/* ps per op, printed as ns with 2 decimals */
#define NS(ps)		(unsigned long)((ps) / 1000), (unsigned long)((ps) % 1000 / 10)
#define RATIO(a, b)	(unsigned long)((a) * 100 / ((b) ?: 1) / 100), \
			(unsigned long)((a) * 100 / ((b) ?: 1) % 100)

/* Is addr inside a chunk? (sorted bases, binary search) */
static bool inside(const unsigned long *sorted, int n, unsigned long addr)
{
	int lo = 0, hi = n - 1, mid;

	while (lo <= hi) {
		mid = (lo + hi) / 2;
		if (sorted[mid] <= addr && addr - sorted[mid] < (1ul << shift))
			return true;
		if (sorted[mid] > addr)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return false;
}

static int run_case(const char *keys, unsigned long region, int page_mode, int n)
{
	static const char *const kind[] = { "hit", "miss", "hitD", "missD" };
	unsigned long size = 1ul << shift, *hits, *miss, *bases;
	struct dg_chunk **c, **order;
	struct dg_chunk_table t;
	struct xarray xa_abs, xa_rel;
	static u64 th[4][MAXREPS], ta[4][MAXREPS], tr[4][MAXREPS];
	int i, j, k, r, ret = -ENOMEM;

	bases = kvcalloc(n, sizeof(*bases), GFP_KERNEL);
	c = kvcalloc(n, sizeof(*c), GFP_KERNEL);
	order = kvcalloc(n, sizeof(*order), GFP_KERNEL);
	hits = vmalloc(lookups * sizeof(*hits));
	miss = vmalloc(lookups * sizeof(*miss));
	if (!bases || !c || !order || !hits || !miss)
		goto out;
	for (i = 0; i < n; i++) {
		unsigned long b;
		bool dup;

		do {
			if (!page_mode)
				b = region + (rnd() % (SPAN / size)) * size;
			else
				b = region + (rnd() % (SPAN / (2 * size))) * 2 * size +
				    (rnd() % (size / PAGE_SIZE)) * PAGE_SIZE;
			dup = false;
			for (k = 0; k < i; k++)
				if ((bases[k] >> (shift + page_mode)) ==
				    (b >> (shift + page_mode)))
					dup = true;
		} while (dup);
		bases[i] = b;
		c[i] = kzalloc(DESC_BYTES, GFP_KERNEL);
		if (!c[i])
			goto out;
		c[i]->blocks = (char __dma *)b;
	}
	if (ct_init(&t))
		goto out;
	xa_init(&xa_abs);
	xa_init(&xa_rel);
	for (i = 0; i < n; i++) {
		ct_insert(&t, c[i]);
		if (xa_err(xa_store(&xa_abs, bases[i] >> shift, c[i], GFP_KERNEL)) ||
		    xa_err(xa_store(&xa_rel, (bases[i] - region) >> shift, c[i], GFP_KERNEL)))
			goto out_xa;
	}
	memcpy(order, bases, n * sizeof(*bases));	/* as scratch: sorted bases */
	sort(order, n, sizeof(*bases), cmpu64, NULL);
	for (j = 0; j < lookups; j++) {
		hits[j] = bases[rnd() % n] + (rnd() % (size / 64)) * 64;
		do
			miss[j] = region + (rnd() % (SPAN / 64)) * 64;
		while (inside((unsigned long *)order, n, miss[j]));
	}
	for (j = 0; j < lookups; j++) {
		struct dg_chunk *h = dg_table_find(&t, hits[j]);

		if (!h || h != xfind2(&xa_abs, hits[j], 0) ||
		    h != xfind2(&xa_rel, hits[j], region) ||
		    dg_table_find(&t, miss[j]) || xfind2(&xa_abs, miss[j], 0) ||
		    xfind2(&xa_rel, miss[j], region)) {
			pr_err("XBENCH mismatch n=%d j=%d\n", n, j);
			ret = -EINVAL;
			goto out_xa;
		}
	}
	for (r = 0; r < reps; r++) {
		for (k = 0; k < 4; k++) {
			const unsigned long *a = k & 1 ? miss : hits;
			int dep = k >> 1;
			u64 t0;

			t0 = ktime_get_ns();
			sink += loop_hash(&t, a, lookups, dep);
			th[k][r] = (ktime_get_ns() - t0) * 1000 / lookups;
			t0 = ktime_get_ns();
			sink += loop_xa(&xa_abs, a, lookups, dep, page_mode, 0);
			ta[k][r] = (ktime_get_ns() - t0) * 1000 / lookups;
			t0 = ktime_get_ns();
			sink += loop_xa(&xa_rel, a, lookups, dep, page_mode, region);
			tr[k][r] = (ktime_get_ns() - t0) * 1000 / lookups;
			cond_resched();
		}
	}
	for (k = 0; k < 4; k++) {
		u64 h = median(th[k], reps), a = median(ta[k], reps),
		    b = median(tr[k], reps);

		pr_info("XBENCH guest n=%d keys=%s align=%s op=%s hash_ns=%lu.%02lu xa_ns=%lu.%02lu ratio=%lu.%02lu xa_rel_ns=%lu.%02lu ratio_rel=%lu.%02lu\n",
			n, keys, page_mode ? "page" : "chunk", kind[k],
			NS(h), NS(a), RATIO(h, a), NS(b), RATIO(h, b));
	}
	/* insert all, remove all: random orders, fresh structures */
	{
		int cycles = n >= 4096 ? 1 : 4096 / n;
		static u64 v[6][MAXREPS];
		struct dg_chunk_table tt;
		struct xarray x1, x2;

		for (i = 0; i < n; i++)
			order[i] = c[i];
		for (r = 0; r < reps; r++) {
			u64 s[6] = { 0 }, t0;
			int cy;

			for (cy = 0; cy < cycles; cy++) {
				if (ct_init(&tt))
					goto out_xa;
				xa_init(&x1);
				xa_init(&x2);
				shuffle(order, n);
				t0 = ktime_get_ns();
				for (i = 0; i < n; i++)
					ct_insert(&tt, order[i]);
				s[0] += ktime_get_ns() - t0;
				t0 = ktime_get_ns();
				for (i = 0; i < n; i++)
					xa_store(&x1, cbase(order[i]) >> shift, order[i], GFP_KERNEL);
				s[1] += ktime_get_ns() - t0;
				t0 = ktime_get_ns();
				for (i = 0; i < n; i++)
					xa_store(&x2, (cbase(order[i]) - region) >> shift, order[i], GFP_KERNEL);
				s[2] += ktime_get_ns() - t0;
				shuffle(order, n);
				t0 = ktime_get_ns();
				for (i = 0; i < n; i++)
					dg_table_remove(&tt, order[i]);
				s[3] += ktime_get_ns() - t0;
				t0 = ktime_get_ns();
				for (i = 0; i < n; i++)
					xa_erase(&x1, cbase(order[i]) >> shift);
				s[4] += ktime_get_ns() - t0;
				t0 = ktime_get_ns();
				for (i = 0; i < n; i++)
					xa_erase(&x2, (cbase(order[i]) - region) >> shift);
				s[5] += ktime_get_ns() - t0;
				kfree(tt.slots);
				xa_destroy(&x1);
				xa_destroy(&x2);
				cond_resched();
			}
			for (k = 0; k < 6; k++)
				v[k][r] = s[k] * 1000 / cycles / n;
		}
		for (k = 0; k < 6; k++)
			v[k][0] = median(v[k], reps);
		pr_info("XBENCH guest n=%d keys=%s align=%s op=insert hash_ns=%lu.%02lu xa_ns=%lu.%02lu ratio=%lu.%02lu xa_rel_ns=%lu.%02lu ratio_rel=%lu.%02lu\n",
			n, keys, page_mode ? "page" : "chunk",
			NS(v[0][0]), NS(v[1][0]), RATIO(v[0][0], v[1][0]),
			NS(v[2][0]), RATIO(v[0][0], v[2][0]));
		pr_info("XBENCH guest n=%d keys=%s align=%s op=remove hash_ns=%lu.%02lu xa_ns=%lu.%02lu ratio=%lu.%02lu xa_rel_ns=%lu.%02lu ratio_rel=%lu.%02lu\n",
			n, keys, page_mode ? "page" : "chunk",
			NS(v[3][0]), NS(v[4][0]), RATIO(v[3][0], v[4][0]),
			NS(v[5][0]), RATIO(v[3][0], v[5][0]));
	}
	ret = 0;
out_xa:
	kfree(t.slots);
	xa_destroy(&xa_abs);
	xa_destroy(&xa_rel);
out:
	if (c)
		for (i = 0; i < n; i++)
			kfree(c[i]);
	kvfree(bases);
	kvfree(c);
	kvfree(order);
	vfree(hits);
	vfree(miss);
	return ret;
}

static int __init xbench_init(void)
{
	static const int ns[] = { 16, 256, 4096 };
	int p, kk, i, ret;

	if (reps < 1 || reps > MAXREPS || shift < PAGE_SHIFT + 1 || !lookups)
		return -EINVAL;
	pr_info("XBENCH guest start PAGE_OFFSET=%lx VMALLOC_START=%lx shift=%u lookups=%u reps=%u\n",
		(unsigned long)PAGE_OFFSET, (unsigned long)VMALLOC_START, shift,
		lookups, reps);
	for (p = 0; p < 2; p++)
		for (kk = 0; kk < 2; kk++)
			for (i = 0; i < ARRAY_SIZE(ns); i++) {
				ret = run_case(kk ? "vmalloc" : "direct",
					       kk ? VMALLOC_START : PAGE_OFFSET,
					       p, ns[i]);
				if (ret)
					return ret;
			}
	pr_info("XBENCH guest done\n");
	return 0;
}

static void __exit xbench_exit(void) { }
module_init(xbench_init);
module_exit(xbench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dmaguard chunk table vs xarray lookup benchmark");
