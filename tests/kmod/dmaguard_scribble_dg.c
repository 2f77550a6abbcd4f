// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_scribble, part 1: dmaguard under a hostile device. For each
 * row a pool takes random allocations and frees; after every operation
 * the CPU, playing the device, overwrites all chunk memory with one of
 * the patterns (see the top of dmaguard_scribble_main.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/delay.h>
#include "dmaguard_scribble.h"

static unsigned int ops_pct = 100;
module_param(ops_pct, uint, 0444);
MODULE_PARM_DESC(ops_pct, "Scale the operations per row, in percent");

/**
 * dgs_scribble_fn() - the device overwrites one chunk with the pattern
 * @arg: the scribbler (its pattern, its PRNG, its live blocks)
 * @mem: the chunk (or a plain buffer the pattern is built in)
 * @len: its length
 * @dma: its DMA address (unused)
 *
 * A dg_pool_for_each_chunk() callback.
 */
void dgs_scribble_fn(void *arg, void __dma *mem, size_t len, dma_addr_t dma)
{
	struct scribbler *s = arg;
	u64 *w = (u64 __force *)mem;
	size_t i, nw = len / sizeof(u64);
	u32 *w32;

	s->bytes += len;
	switch (s->pat) {
	case PAT_RANDOM:
		for (i = 0; i < nw; i++)
			w[i] = dg_rand(&s->rng);
		break;
	case PAT_ONES:
		memset(w, 0xff, len);
		break;
	case PAT_DECOY:
		/* struct { next; dma; } shaped, pointing at the decoy. */
		for (i = 0; i + 1 < nw; i += 2) {
			w[i] = (u64)(unsigned long)dgs_decoy;
			w[i + 1] = dgs_decoy_dma;
		}
		break;
	case PAT_LIVE:
		/* Pointers to live blocks, with their DMA addresses. */
		for (i = 0; i + 1 < nw; i += 2) {
			struct blk *b = s->n ?
				&s->live[dg_rand_below(&s->rng, s->n)] : NULL;

			w[i] = b ? b->v : (u64)(unsigned long)dgs_decoy;
			w[i + 1] = b ? b->d : dgs_decoy_dma;
		}
		break;
	case PAT_OFFSETS:
		/* In-chunk offsets of live blocks, as 32-bit words. */
		w32 = (u32 *)w;
		for (i = 0; i < len / sizeof(u32); i++) {
			struct blk *b = s->n ?
				&s->live[dg_rand_below(&s->rng, s->n)] : NULL;

			w32[i] = b ? (u32)(b->d & (len - 1)) : 0;
		}
		break;
	default:
		memset(w, 0, len);
		break;
	}
}

static void collect_fn(void *arg, void __dma *mem, size_t len,
		       dma_addr_t dma)
{
	struct scribbler *s = arg;

	if (s->nc == DGS_MAX_CHUNKS) {
		s->overflow = true;
		return;
	}
	s->c[s->nc].mem = (unsigned long)(void __force *)mem;
	s->c[s->nc].len = len;
	s->c[s->nc].dma = dma;
	s->nc++;
}

/**
 * dgs_scribbler_collect() - take the chunk list of a pool
 * @s: the scribbler, whose chunk list is replaced
 * @pool: the pool
 */
void dgs_scribbler_collect(struct scribbler *s, struct dmaguard_pool *pool)
{
	s->nc = 0;
	s->overflow = false;
	dg_pool_for_each_chunk(dg_test_core(pool), collect_fn, s);
}

/**
 * dgs_chunk_of() - the chunk a block of the row lies in
 * @s: the scribbler, with its chunk list
 * @v: the block's address
 *
 * Return: the chunk that holds the whole block, or NULL.
 */
struct chunk_rec *dgs_chunk_of(struct scribbler *s, unsigned long v)
{
	unsigned int i;

	for (i = 0; i < s->nc; i++)
		if (v >= s->c[i].mem && v + s->size <= s->c[i].mem + s->c[i].len)
			return &s->c[i];
	return NULL;
}

/**
 * dgs_judge_alloc() - judge one allocation, tallying what is wrong
 * @s: the scribbler
 * @pool: the pool
 * @v: the block's address
 * @d: its DMA address
 *
 * Return: true if the block may join the live set.
 */
bool dgs_judge_alloc(struct scribbler *s, struct dmaguard_pool *pool,
		     unsigned long v, dma_addr_t d)
{
	size_t al = s->align ? s->align : 1;
	struct chunk_rec *c;
	unsigned int i;
	bool good = true;

	if (v < (unsigned long)dgs_decoy + DGS_DECOY_SIZE &&
	    v + s->size > (unsigned long)dgs_decoy) {
		s->decoy++;
		return false;
	}
	if (d < dgs_decoy_dma + DGS_DECOY_SIZE && d + s->size > dgs_decoy_dma) {
		s->decoy++;
		good = false;
	}
	dgs_scribbler_collect(s, pool);
	c = dgs_chunk_of(s, v);
	if (!c) {
		s->outside++;
		return false;
	}
	if (d - c->dma != v - c->mem) {
		s->bad_dma++;
		good = false;
	}
	if ((v | d) & (al - 1) || dg_test_crosses(d, s->size, s->boundary) ||
	    dg_test_crosses(v, s->size, s->boundary)) {
		s->misplaced++;
		good = false;
	}
	for (i = 0; i < s->n; i++)
		if (v < s->live[i].v + s->size && v + s->size > s->live[i].v) {
			s->dup++;
			return false;
		}
	return good;
}

static void device_scribbles(struct scribbler *s, struct dmaguard_pool *pool)
{
	s->pat = dg_rand_below(&s->rng, PAT_NR);
	dg_pool_for_each_chunk(dg_test_core(pool), dgs_scribble_fn, s);
	s->scribbles++;
}

struct dgs_row {
	const char *name;
	size_t size, align, boundary;
	unsigned int ops, max_live;
	/*
	 * >0: at each quarter of the row, free every block, wait this long
	 * (the delayed reclaim may run), then drain and reclaim: the next
	 * chunks are fresh.
	 */
	unsigned int pause_ms;
};

static const struct dgs_row dgs_rows[] = {
	{ "dmaguard_scribble_16_16", 16, 16, 0, 6000, 1200 },
	{ "dmaguard_scribble_64_64", 64, 64, 0, 6000, 400 },
	{ "dmaguard_scribble_68_32_b4096", 68, 32, 4096, 6000, 300 },
	{ "dmaguard_scribble_256_256", 256, 256, 0, 4000, 100 },
	{ "dmaguard_scribble_1024_1024", 1024, 1024, 0, 3000, 80 },
	{ "dmaguard_scribble_4096_4096", 4096, 4096, 0, 1500, 40 },
	{ "dmaguard_scribble_1_1", 1, 1, 0, 4000, 600 },
	{ "dmaguard_scribble_24_8_b64", 24, 8, 64, 4000, 600 },
	{ "dmaguard_scribble_64_64_reclaim", 64, 64, 0, 4000, 500, 300 },
};

const unsigned int dgs_nr_rows = ARRAY_SIZE(dgs_rows);

static struct scribbler dgs_total;

/* Free odds per quarter of a row: fill, drain, fill, drain hard. */
static const u32 free_pct[4] = { 30, 60, 35, 90 };

/**
 * dgs_scribbler_keep() - a block joins the live set
 * @s: the scribbler
 * @v: the block's address
 * @d: its DMA address
 */
void dgs_scribbler_keep(struct scribbler *s, unsigned long v, dma_addr_t d)
{
	s->live[s->n].v = v;
	s->live[s->n].d = d;
	s->n++;
}

/**
 * dgs_scribbler_free() - free a live block (one operation)
 * @s: the scribbler
 * @pool: the pool
 * @k: the index of the block in the live set, which it leaves
 */
void dgs_scribbler_free(struct scribbler *s, struct dmaguard_pool *pool,
			unsigned int k)
{
	s->ops++;
	if (dg_pool_free(dg_test_core(pool), (void __dma __force *)s->live[k].v,
			 s->live[k].d) != DG_FREE_OK)
		s->free_rejected++;
	s->live[k] = s->live[--s->n];
}

/**
 * dgs_scribbler_bad() - whether any allocation or free went wrong
 * @s: the scribbler
 *
 * Return: nonzero if any tally of a wrong block or a refused free moved.
 */
unsigned long dgs_scribbler_bad(const struct scribbler *s)
{
	return s->outside | s->dup | s->decoy | s->misplaced | s->bad_dma |
	       s->alloc_fail | s->free_rejected;
}

/* One operation each, then the device overwrites the whole pool. */
static void op_free(struct scribbler *s, struct dmaguard_pool *pool,
		    unsigned int k)
{
	dgs_scribbler_free(s, pool, k);
	device_scribbles(s, pool);
}

static void op_alloc(struct scribbler *s, struct dmaguard_pool *pool,
		     bool atomic_zero)
{
	dma_addr_t d;
	void *v;

	s->ops++;
	v = atomic_zero ? dmaguard_pool_zalloc(pool, GFP_ATOMIC, &d) :
			  dmaguard_pool_alloc(pool, GFP_KERNEL, &d);
	if (!v)
		s->alloc_fail++;
	else if (dgs_judge_alloc(s, pool, (unsigned long)v, d))
		dgs_scribbler_keep(s, (unsigned long)v, d);
	/* A block judged wrong is neither kept nor freed: it is evidence. */
	device_scribbles(s, pool);
}

static void dgs_run_row(const struct dgs_row *row)
{
	struct dmaguard_pool *pool;
	struct dmaguard_pool_stats st;
	struct scribbler *s;
	unsigned int i, quarter = 0, ops = max(1u, row->ops * ops_pct / 100);
	long base = dg_test_chunk_bytes();
	bool ok = true;
	u64 t0 = ktime_get_ns();
	int j;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	pool = dmaguard_pool_create(row->name + strlen("dmaguard_"), dgs_dev,
				    row->size, row->align, row->boundary);
	if (s)
		s->live = kcalloc(row->max_live, sizeof(*s->live), GFP_KERNEL);
	if (!s || !s->live || !pool) {
		pr_info("# %s: setup failed\n", row->name);
		ok = false;
		goto out;
	}
	s->size = row->size;
	s->align = row->align;
	s->boundary = row->boundary;
	s->max = row->max_live;
	s->rng = dgs_seed ^ (row->size * 0x9e3779b97f4a7c15ull) ^ row->boundary;
	if (!s->rng)
		s->rng = 1;

	for (i = 0; i < ops; i++) {
		u32 r100 = dg_rand_below(&s->rng, 100);

		if (row->pause_ms && i * 4 / ops != quarter) {
			quarter = i * 4 / ops;
			while (s->n)
				op_free(s, pool, dg_rand_below(&s->rng, s->n));
			msleep(row->pause_ms);
			/*
			 * Whatever the delayed reclaim did meanwhile (when it
			 * runs is the host's business), the chunks emptied go
			 * back now, before the device scribbles again.
			 */
			dg_pool_drain(dg_test_core(pool));
			dg_pool_reclaim(dg_test_core(pool), 0, 0);
			device_scribbles(s, pool);
		}
		if (s->n == s->max ||
		    (s->n && r100 < free_pct[(i * 4 / ops) & 3]))
			op_free(s, pool, dg_rand_below(&s->rng, s->n));
		else
			op_alloc(s, pool, r100 & 1);
		if (!(i & 63)) {
			if (dg_test_stats(pool, &st) ||
			    st.blocks_in_use < s->n)
				s->accounting++;
			cond_resched();
		}
	}
	while (s->n)
		op_free(s, pool, s->n - 1);
	if (dg_test_stats(pool, &st))
		s->accounting++;
	pr_info("# %s: %lu ops, %lu scribbles (%lu KiB), %llu chunks allocated, %llu released, %llu ms\n",
		row->name, s->ops, s->scribbles, s->bytes >> 10,
		st.chunks_allocated, st.chunks_released,
		(ktime_get_ns() - t0) / NSEC_PER_MSEC);
	pr_info("# %s: outside_chunk=%lu duplicate=%lu decoy=%lu misplaced=%lu bad_dma=%lu alloc_fail=%lu free_rejected=%lu accounting=%lu\n",
		row->name, s->outside, s->dup, s->decoy, s->misplaced,
		s->bad_dma, s->alloc_fail, s->free_rejected, s->accounting);
	ok = !(dgs_scribbler_bad(s) | s->accounting | s->overflow);
	if (st.blocks_in_use ||
	    (st.chunks_allocated < 2 && row->max_live > st.blocks_per_chunk) ||
	    (row->pause_ms && !st.chunks_released)) {
		pr_info("# %s: %llu blocks in use at the end, %llu chunks allocated, %llu released\n",
			row->name, st.blocks_in_use, st.chunks_allocated,
			st.chunks_released);
		ok = false;
	}
	for (j = 1; j < DG_BAD_NR; j++)
		if (dg_test_bad_frees(&st, j)) {
			pr_info("# %s: %llu bad frees of kind %d\n", row->name,
				dg_test_bad_frees(&st, j), j);
			ok = false;
		}
	dgs_total.ops += s->ops;
	dgs_total.scribbles += s->scribbles;
	dgs_total.outside += s->outside;
	dgs_total.dup += s->dup;
	dgs_total.decoy += s->decoy;
	dgs_total.misplaced += s->misplaced + s->bad_dma;
out:
	dmaguard_pool_destroy(pool);
	if (dg_test_chunk_bytes() != base) {
		pr_info("# %s: chunk bytes %ld after destroy, %ld before\n",
			row->name, dg_test_chunk_bytes(), base);
		ok = false;
	}
	if (s)
		kfree(s->live);
	kfree(s);
	dg_ktap_result(&dgs_ktap, ok, row->name);
}

/**
 * dgs_dmaguard_run() - part 1: every row, then the REPORT line
 * @kver: the kernel release, for the REPORT line
 */
void dgs_dmaguard_run(const char *kver)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dgs_rows); i++)
		dgs_run_row(&dgs_rows[i]);
	pr_info("REPORT scribble kernel=%s allocator=dmaguard ops=%lu scribbles=%lu outside_chunk=%lu duplicate=%lu decoy=%lu\n",
		kver, dgs_total.ops, dgs_total.scribbles, dgs_total.outside,
		dgs_total.dup, dgs_total.decoy);
}
