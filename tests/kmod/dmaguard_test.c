// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_test: the pool's properties in a real kernel, on real
 * dma_alloc_coherent() memory of a platform device with a 64-bit mask.
 *
 * Everything runs at load time, through the public API (dmaguard_pool_*)
 * plus the DMAGUARD_INTERNAL stats and chunk walk, and is reported as one
 * KTAP document on the console (prefix "dmaguard_test: "). The module then
 * stays loaded so that the spec can check the leak counters and rmmod it.
 *
 * Expected kernel WARNINGs (the spec must allow them): one per pool that
 * sees a bad free ("dmaguard: pool dgt_misuse: bad free", the same for
 * dgt_misuse2) and one for the pool destroyed with live blocks
 * ("dmaguard: pool dgt_live: destroyed with").
 *
 * The reclaim case wants dmaguard loaded with reclaim_delay_ms=100 and
 * reclaim_keep_chunks=1 (it waits up to 5 s whatever the setting); the
 * concurrency case wants two CPUs (it runs on one, with a diagnostic).
 *
 * Last line of the run: "# leaked_by_design=<bytes>", the chunk memory
 * that dmaguard deliberately never freed (chunks of the pool destroyed
 * with live blocks); debugfs chunk_bytes must equal it at the end.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/completion.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/random.h>
#include <linux/mm.h>
#include "dg_test_dev.h"
#include "dg_kernel.h"

DMAGUARD_IMPORT_NS();
DG_TEST_IMPORT_INTERNAL();

static unsigned int smp_iters = 200000;
module_param(smp_iters, uint, 0444);
MODULE_PARM_DESC(smp_iters, "Operations per thread in the concurrency case");

#define DGT_MAX_DIAG		8
#define DGT_MAX_CHUNKS		256

static struct device *dev;
static struct dg_ktap ktap;
static unsigned int diag_left;
static long leaked_by_design;

/* A failed expectation: print why (a few per case), mark the case failed. */
#define EXPECT(ok, cond, fmt, ...)					\
	do {								\
		if (!(cond)) {						\
			(ok) = false;					\
			if (diag_left) {				\
				diag_left--;				\
				pr_info("# %s:%d: " fmt "\n", __func__,	\
					__LINE__, ##__VA_ARGS__);	\
			}						\
		}							\
	} while (0)

static void case_begin(void)
{
	diag_left = DGT_MAX_DIAG;
}

static void stats(struct dmaguard_pool *pool, struct dg_pool_stats *st)
{
	dg_pool_get_stats(dg_test_core(pool), st);
}

static u64 bad_total(const struct dg_pool_stats *st)
{
	u64 n = 0;
	int i;

	for (i = 0; i < DG_BAD_NR; i++)
		n += st->bad_frees[i];
	return n;
}

/* ---- chunk list, taken with dg_pool_for_each_chunk() ---- */

struct chunk_rec {
	unsigned long mem;
	unsigned long len;
	dma_addr_t dma;
	unsigned long last;	/* highest block handed out, for ordering */
};

struct chunk_set {
	struct chunk_rec c[DGT_MAX_CHUNKS];
	unsigned int n;
	bool overflow;
};

static void chunk_collect_fn(void *arg, void __dma *mem, size_t len,
			     dma_addr_t dma)
{
	struct chunk_set *cs = arg;

	if (cs->n == DGT_MAX_CHUNKS) {
		cs->overflow = true;
		return;
	}
	cs->c[cs->n].mem = (unsigned long)(void __force *)mem;
	cs->c[cs->n].len = len;
	cs->c[cs->n].dma = dma;
	cs->c[cs->n].last = 0;
	cs->n++;
}

static void chunk_collect(struct dmaguard_pool *pool, struct chunk_set *cs)
{
	cs->n = 0;
	cs->overflow = false;
	dg_pool_for_each_chunk(dg_test_core(pool), chunk_collect_fn, cs);
}

static struct chunk_rec *chunk_of(struct chunk_set *cs, unsigned long v,
				  size_t size)
{
	unsigned int i;

	for (i = 0; i < cs->n; i++)
		if (v >= cs->c[i].mem && v + size <= cs->c[i].mem + cs->c[i].len)
			return &cs->c[i];
	return NULL;
}

/* ---- case: create validation ---- */

static void t_create_validation(void)
{
	static const struct {
		const char *what;
		bool dev;
		const char *name;
		size_t size, align, boundary;
	} bad[] = {
		{ "NULL dev", false, "dgt_v", 64, 64, 0 },
		{ "NULL name", true, NULL, 64, 64, 0 },
		{ "size 0", true, "dgt_v", 0, 8, 0 },
		{ "align 3", true, "dgt_v", 64, 3, 0 },
		{ "align 96", true, "dgt_v", 64, 96, 0 },
		{ "boundary 48", true, "dgt_v", 16, 16, 48 },
		{ "boundary < size", true, "dgt_v", 128, 8, 64 },
		{ "size 2 MiB", true, "dgt_v", 2 << 20, 8, 0 },
	};
	static const struct {
		size_t size, align, boundary;
	} good[] = {
		{ 1, 0, 0 }, { 1, 1, 1 }, { 3, 1, 4 }, { 68, 32, 4096 },
		{ 4096, 4096, 4096 }, { 64, 0, 0 },
	};
	struct dmaguard_pool *pool;
	bool ok = true;
	unsigned int i;

	case_begin();
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		pool = dmaguard_pool_create(bad[i].name, bad[i].dev ? dev : NULL,
					    bad[i].size, bad[i].align,
					    bad[i].boundary);
		EXPECT(ok, !pool, "create with %s succeeded", bad[i].what);
		if (pool)
			dmaguard_pool_destroy(pool);
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		pool = dmaguard_pool_create("dgt_v", dev, good[i].size,
					    good[i].align, good[i].boundary);
		EXPECT(ok, pool, "create %zu/%zu/%zu failed", good[i].size,
		       good[i].align, good[i].boundary);
		dmaguard_pool_destroy(pool);
	}
	dmaguard_pool_destroy(NULL);
	EXPECT(ok, dmaguard_version() == DMAGUARD_VERSION,
	       "version %#x, headers %#x", dmaguard_version(), DMAGUARD_VERSION);
	dg_ktap_result(&ktap, ok, "create_validation");
}

/* ---- case: geometry of every block, per row ---- */

struct blk {
	unsigned long v;
	dma_addr_t d;
};

static int blk_cmp_v(const void *a, const void *b)
{
	const struct blk *x = a, *y = b;

	return x->v < y->v ? -1 : x->v > y->v;
}

static int blk_cmp_d(const void *a, const void *b)
{
	const struct blk *x = a, *y = b;

	return x->d < y->d ? -1 : x->d > y->d;
}

static bool crosses(u64 a, size_t size, size_t boundary)
{
	return boundary && (a & ~(u64)(boundary - 1)) !=
			   ((a + size - 1) & ~(u64)(boundary - 1));
}

static void t_geometry(const char *name, size_t size, size_t align,
		       size_t boundary)
{
	size_t al = align ? align : 1;
	struct dmaguard_pool *pool;
	struct dg_pool_stats st;
	struct chunk_set *cs;
	struct chunk_rec *c;
	struct blk *b = NULL;
	unsigned int n = 0, i, j;
	u64 seed = 0x9e3779b97f4a7c15ull ^ size;
	bool ok = true;
	u8 *p;

	case_begin();
	cs = kzalloc(sizeof(*cs), GFP_KERNEL);
	pool = dmaguard_pool_create(name, dev, size, align, boundary);
	EXPECT(ok, cs && pool, "setup failed");
	if (!ok)
		goto out;
	stats(pool, &st);
	EXPECT(ok, st.chunks == 0 && st.blocks_in_use == 0,
	       "fresh pool has %u chunks", st.chunks);
	n = min(3 * st.blocks_per_chunk + 1, 24577u);
	b = kvcalloc(n, sizeof(*b), GFP_KERNEL);
	EXPECT(ok, b, "no memory for %u records", n);
	if (!ok)
		goto out;

	for (i = 0; i < n; i++) {
		void *v = dmaguard_pool_alloc(pool, GFP_KERNEL, &b[i].d);

		b[i].v = (unsigned long)v;
		EXPECT(ok, v, "alloc %u of %u failed", i, n);
		if (!v) {
			n = i;
			break;
		}
	}
	chunk_collect(pool, cs);
	EXPECT(ok, !cs->overflow, "more than %d chunks", DGT_MAX_CHUNKS);
	stats(pool, &st);
	EXPECT(ok, st.blocks_in_use == n, "in use %llu, allocated %u",
	       st.blocks_in_use, n);
	EXPECT(ok, st.chunks == cs->n, "stats %u chunks, walk %u", st.chunks,
	       cs->n);
	EXPECT(ok, st.chunks == DIV_ROUND_UP(n, st.blocks_per_chunk),
	       "%u chunks for %u blocks of %u per chunk", st.chunks, n,
	       st.blocks_per_chunk);

	for (i = 0; i < n; i++) {
		unsigned long v = b[i].v;
		dma_addr_t d = b[i].d;

		EXPECT(ok, !(v & (al - 1)), "block %lx not aligned to %zu", v, al);
		EXPECT(ok, !(d & (al - 1)), "dma %llx not aligned to %zu",
		       (u64)d, al);
		EXPECT(ok, !crosses(d, size, boundary),
		       "dma %llx+%zu crosses %zu", (u64)d, size, boundary);
		EXPECT(ok, !crosses(v, size, boundary),
		       "block %lx+%zu crosses %zu", v, size, boundary);
		c = chunk_of(cs, v, size);
		EXPECT(ok, c, "block %lx outside every chunk", v);
		if (!c)
			continue;
		EXPECT(ok, d - c->dma == v - c->mem,
		       "block at offset %lx has dma offset %llx", v - c->mem,
		       (u64)(d - c->dma));
		/* Every chunk is fresh here: ascending order within it. */
		EXPECT(ok, !c->last || v > c->last,
		       "block %lx after %lx in a fresh chunk", v, c->last);
		c->last = v;
	}

	/* Fill every block with its own byte, then check all of them. */
	for (i = 0; i < n; i++)
		memset((void *)b[i].v, i & 0xff, size);
	for (i = 0; i < n; i++) {
		p = (u8 *)b[i].v;
		for (j = 0; j < size; j++)
			if (p[j] != (i & 0xff))
				break;
		EXPECT(ok, j == size, "block %u overwritten at byte %u", i, j);
	}

	sort(b, n, sizeof(*b), blk_cmp_v, NULL);
	for (i = 1; i < n; i++)
		EXPECT(ok, b[i - 1].v + size <= b[i].v,
		       "blocks %lx and %lx overlap", b[i - 1].v, b[i].v);
	sort(b, n, sizeof(*b), blk_cmp_d, NULL);
	for (i = 1; i < n; i++)
		EXPECT(ok, b[i - 1].d + size <= b[i].d,
		       "dma %llx and %llx overlap", (u64)b[i - 1].d,
		       (u64)b[i].d);

	/* Free in random order. */
	for (i = n; i > 1; i--) {
		struct blk t;

		j = dg_rand_below(&seed, i);
		t = b[i - 1];
		b[i - 1] = b[j];
		b[j] = t;
	}
	for (i = 0; i < n; i++)
		dmaguard_pool_free(pool, (void *)b[i].v, b[i].d);
	stats(pool, &st);
	EXPECT(ok, st.blocks_in_use == 0, "%llu blocks in use after freeing all",
	       st.blocks_in_use);
	EXPECT(ok, bad_total(&st) == 0, "%llu bad frees", bad_total(&st));
	pr_info("# %s: size %zu align %zu boundary %zu: stride %u chunk %u, %u blocks/chunk, %u blocks in %u chunks, meta %llu bytes\n",
		name, size, align, boundary, st.stride, st.chunk_size,
		st.blocks_per_chunk, n, cs->n, st.meta_bytes);
out:
	dmaguard_pool_destroy(pool);
	kvfree(b);
	kfree(cs);
	dg_ktap_result(&ktap, ok, name);
}

/* ---- case: zeroing ---- */

static bool all_bytes(const void *p, size_t len, u8 val)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != val)
			return false;
	return true;
}

static bool zero_one(const char *name, size_t size, size_t align)
{
	struct dmaguard_pool *pool;
	struct dg_pool_stats st;
	struct blk *b = NULL;
	unsigned int n, i, mid;
	bool ok = true;
	void *v;
	size_t stride;

	pool = dmaguard_pool_create(name, dev, size, align, 0);
	EXPECT(ok, pool, "create failed");
	if (!pool)
		return false;
	stats(pool, &st);
	n = st.blocks_per_chunk;
	stride = st.stride;
	b = kcalloc(n, sizeof(*b), GFP_KERNEL);
	EXPECT(ok, b, "no memory");
	if (!b)
		goto out;

	/* Dirty every block of the chunk, free them all. */
	for (i = 0; i < n; i++) {
		b[i].v = (unsigned long)dmaguard_pool_alloc(pool, GFP_KERNEL,
							    &b[i].d);
		EXPECT(ok, b[i].v, "alloc failed");
		if (!b[i].v)
			goto out;
		memset((void *)b[i].v, 0xa5, size);
	}
	for (i = 0; i < n; i++)
		dmaguard_pool_free(pool, (void *)b[i].v, b[i].d);

	/* zalloc: every block zero. */
	for (i = 0; i < n; i++) {
		b[i].v = (unsigned long)dmaguard_pool_zalloc(pool, GFP_KERNEL,
							     &b[i].d);
		EXPECT(ok, b[i].v, "zalloc failed");
		if (!b[i].v)
			goto out;
		EXPECT(ok, all_bytes((void *)b[i].v, size, 0),
		       "zalloc block %u of %zu bytes not zero", i, size);
		memset((void *)b[i].v, 0xa5, size);
	}

	/*
	 * Free one block in the middle and zalloc it back: the zeroing stays
	 * inside the block (neighbours keep their bytes).
	 */
	mid = n / 2;
	dmaguard_pool_free(pool, (void *)b[mid].v, b[mid].d);
	v = dmaguard_pool_zalloc(pool, GFP_KERNEL, &b[mid].d);
	EXPECT(ok, (unsigned long)v == b[mid].v,
	       "freed block %lx, got %p back", b[mid].v, v);
	b[mid].v = (unsigned long)v;
	if (v)
		EXPECT(ok, all_bytes(v, size, 0), "block not zeroed");
	for (i = 0; i < n; i++)
		if (i != mid)
			EXPECT(ok, all_bytes((void *)b[i].v, size, 0xa5),
			       "block %u changed by zeroing block %u (stride %zu)",
			       i, mid, stride);

	/* GFP_KERNEL alone zeroes exactly when init_on_alloc says so. */
	if (want_init_on_alloc(GFP_KERNEL)) {
		dmaguard_pool_free(pool, (void *)b[0].v, b[0].d);
		v = dmaguard_pool_alloc(pool, GFP_KERNEL, &b[0].d);
		b[0].v = (unsigned long)v;
		EXPECT(ok, v && all_bytes(v, size, 0),
		       "init_on_alloc on, GFP_KERNEL block not zero");
	}
	for (i = 0; i < n; i++)
		if (b[i].v)
			dmaguard_pool_free(pool, (void *)b[i].v, b[i].d);
	stats(pool, &st);
	EXPECT(ok, st.blocks_in_use == 0 && !bad_total(&st),
	       "in use %llu, bad %llu", st.blocks_in_use, bad_total(&st));
out:
	kfree(b);
	dmaguard_pool_destroy(pool);
	return ok;
}

static void t_zeroing(void)
{
	bool ok;

	case_begin();
	ok = zero_one("dgt_zero64", 64, 64);
	ok &= zero_one("dgt_zero68", 68, 4);
	ok &= zero_one("dgt_zero20", 20, 8);
	ok &= zero_one("dgt_zero1", 1, 1);
	pr_info("# init_on_alloc for GFP_KERNEL: %s\n",
		want_init_on_alloc(GFP_KERNEL) ? "on" : "off");
	dg_ktap_result(&ktap, ok, "zeroing");
}

/* ---- case: the size-carrying public calls (create_opts, get_stats) ---- */

struct opts_big {
	struct dmaguard_pool_opts o;
	u64 tail;
};

struct stats_big {
	struct dmaguard_pool_stats s;
	u64 tail;
};

/* @p must be ERR_PTR(@err); a pool that was created anyway is destroyed. */
static bool refused(struct dmaguard_pool *p, long err)
{
	if (!IS_ERR_OR_NULL(p))
		dmaguard_pool_destroy(p);
	return p == ERR_PTR(err);
}

static void t_public_opts_stats(void)
{
	struct dmaguard_pool *pool, *p;
	struct dg_pool_stats in;
	struct opts_big ob = {};
	struct stats_big sb = {};
	struct blk b[3];
	bool ok = true;
	int i, ret;

	case_begin();
	{
		DMAGUARD_OPTS(dmaguard_pool_opts, o, .name = "dgt_opts",
			      .size = 68, .align = 32, .boundary = 4096);

		pool = dmaguard_pool_create_opts(dev, &o);
		EXPECT(ok, !IS_ERR_OR_NULL(pool), "valid opts refused: %ld",
		       PTR_ERR(pool));
		if (IS_ERR_OR_NULL(pool)) {
			pool = NULL;
			goto out;
		}
		p = dmaguard_pool_create_opts(NULL, &o);
		EXPECT(ok, refused(p, -EINVAL), "NULL dev: not -EINVAL");
		p = dmaguard_pool_create_opts(dev, NULL);
		EXPECT(ok, refused(p, -EINVAL), "NULL opts: not -EINVAL");
		o.sz = 8;
		p = dmaguard_pool_create_opts(dev, &o);
		EXPECT(ok, refused(p, -EINVAL), "sz 8: not -EINVAL");
		o.sz = sizeof(o);
		o.flags = 0x80000000u;
		p = dmaguard_pool_create_opts(dev, &o);
		EXPECT(ok, refused(p, -EINVAL), "unknown flag: not -EINVAL");
		o.flags = DMAGUARD_POOL_F_NODE;
		o.node = 1000;
		p = dmaguard_pool_create_opts(dev, &o);
		EXPECT(ok, refused(p, -EINVAL), "node 1000: not -EINVAL");
		o.flags = 0;
		o.node = 0;
		o.align = 3;
		p = dmaguard_pool_create_opts(dev, &o);
		EXPECT(ok, refused(p, -EINVAL), "align 3: not -EINVAL");
		/* A newer caller's larger struct: zero tail fine, else -E2BIG. */
		ob.o = o;
		ob.o.align = 32;
		ob.o.sz = sizeof(ob);
		p = dmaguard_pool_create_opts(dev, &ob.o);
		EXPECT(ok, !IS_ERR_OR_NULL(p), "larger opts, zero tail: %ld",
		       PTR_ERR(p));
		if (!IS_ERR_OR_NULL(p))
			dmaguard_pool_destroy(p);
		ob.tail = 1;
		p = dmaguard_pool_create_opts(dev, &ob.o);
		EXPECT(ok, refused(p, -E2BIG), "larger opts, tail set: not -E2BIG");
	}
	p = dmaguard_pool_create_node("dgt_node", dev, 64, 64, 0, NUMA_NO_NODE);
	EXPECT(ok, p, "create_node NUMA_NO_NODE failed");
	dmaguard_pool_destroy(p);

	for (i = 0; i < 3; i++) {
		b[i].v = (unsigned long)dmaguard_pool_alloc(pool, GFP_KERNEL,
							    &b[i].d);
		EXPECT(ok, b[i].v, "alloc failed");
	}
	if (b[2].v)
		dmaguard_pool_free(pool, (void *)b[2].v, b[2].d);
	dmaguard_pool_free(pool, (void *)(b[0].v + 4), b[0].d + 4);
	{
		DMAGUARD_OPTS(dmaguard_pool_stats, st);

		ret = dmaguard_pool_get_stats(pool, &st);
		dg_pool_get_stats(dg_test_core(pool), &in);
		EXPECT(ok, !ret, "get_stats: %d", ret);
		EXPECT(ok, st.sz == sizeof(st) && st.block_size == in.size &&
		       st.stride == in.stride && st.chunk_size == in.chunk_size &&
		       st.blocks_per_chunk == in.blocks_per_chunk &&
		       st.chunks == in.chunks && st.blocks_in_use == 2 &&
		       in.blocks_in_use == 2 && st.blocks_total == in.blocks_total &&
		       st.chunks_allocated == in.chunks_allocated &&
		       st.meta_bytes == in.meta_bytes &&
		       st.bad_free_misaligned == 1 &&
		       st.bad_free_foreign + st.bad_free_dma +
		       st.bad_free_double == 0,
		       "public stats differ from the core's");
		EXPECT(ok, dmaguard_pool_get_stats(NULL, &st) == -EINVAL,
		       "NULL pool accepted");
		EXPECT(ok, dmaguard_pool_get_stats(pool, NULL) == -EINVAL,
		       "NULL stats accepted");
		st.sz = 16;
		EXPECT(ok, dmaguard_pool_get_stats(pool, &st) == -EINVAL,
		       "sz 16 accepted");
	}
	sb.s.sz = sizeof(sb);
	ret = dmaguard_pool_get_stats(pool, &sb.s);
	EXPECT(ok, !ret && sb.s.blocks_in_use == 2 && !sb.tail,
	       "larger stats, zero tail: %d", ret);
	memset(&sb, 0, sizeof(sb));
	sb.s.sz = sizeof(sb);
	sb.tail = 7;
	EXPECT(ok, dmaguard_pool_get_stats(pool, &sb.s) == -E2BIG,
	       "larger stats, tail set, accepted");
	for (i = 0; i < 2; i++)
		if (b[i].v)
			dmaguard_pool_free(pool, (void *)b[i].v, b[i].d);
out:
	dmaguard_pool_destroy(pool);
	dg_ktap_result(&ktap, ok, "public_opts_and_stats");
}

/* ---- case: GFP_ATOMIC under a spinlock with interrupts off ---- */

#define DGT_ATOMIC_N	96

static DEFINE_SPINLOCK(dgt_lock);

static void t_atomic_spinlock(void)
{
	struct blk *b;
	struct dmaguard_pool *pool;
	struct dg_pool_stats st;
	unsigned long flags;
	unsigned int i, got = 0, nonzero = 0;
	bool ok = true;

	case_begin();
	b = kcalloc(DGT_ATOMIC_N, sizeof(*b), GFP_KERNEL);
	pool = dmaguard_pool_create("dgt_atomic", dev, 32, 32, 0);
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
		if ((i & 1) && !all_bytes(v, 32, 0))
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
	stats(pool, &st);
	EXPECT(ok, st.blocks_in_use == got - DGT_ATOMIC_N / 2,
	       "in use %llu", st.blocks_in_use);
	for (i = 1; i < DGT_ATOMIC_N; i += 2)
		if (b[i].v)
			dmaguard_pool_free(pool, (void *)b[i].v, b[i].d);
	stats(pool, &st);
	EXPECT(ok, st.blocks_in_use == 0 && !bad_total(&st),
	       "in use %llu, bad %llu", st.blocks_in_use, bad_total(&st));
out:
	dmaguard_pool_destroy(pool);
	kfree(b);
	dg_ktap_result(&ktap, ok, "atomic_spinlock_irqsave");
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
		if (!all_bytes(v, 64, 0))
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

static void t_atomic_hardirq(void)
{
	struct dg_pool_stats st;
	struct irq_ctx *ctx;
	bool ok = true;
	unsigned int i;

	case_begin();
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	EXPECT(ok, ctx, "no memory");
	if (!ctx)
		goto out;
	ctx->pool = dmaguard_pool_create("dgt_irq", dev, 64, 64, 0);
	ctx->big = dmaguard_pool_create("dgt_irq_big", dev, 1024, 1024, 0);
	EXPECT(ok, ctx->pool && ctx->big, "create failed");
	if (!ok)
		goto out;
	init_completion(&ctx->done);
	hrtimer_init(&ctx->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	ctx->timer.function = dgt_irq_fn;
	hrtimer_start(&ctx->timer, ms_to_ktime(1), HRTIMER_MODE_REL_HARD);
	EXPECT(ok, wait_for_completion_timeout(&ctx->done, 10 * HZ),
	       "timer never fired");
	hrtimer_cancel(&ctx->timer);
	EXPECT(ok, ctx->hardirq, "callback not in hard interrupt context");
	EXPECT(ok, ctx->got == DGT_IRQ_N, "%u of %u allocations in hardirq",
	       ctx->got, DGT_IRQ_N);
	EXPECT(ok, !ctx->nonzero, "%u blocks not zero", ctx->nonzero);
	for (i = 1; i < DGT_IRQ_N; i += 2)
		if (ctx->b[i].v)
			EXPECT(ok, all_bytes((void *)ctx->b[i].v, 64, 0x77),
			       "block %u changed", i);
	for (i = 0; i < DGT_IRQ_N; i++)
		if (ctx->b[i].v)
			dmaguard_pool_free(ctx->pool, (void *)ctx->b[i].v,
					   ctx->b[i].d);
	stats(ctx->pool, &st);
	EXPECT(ok, st.blocks_in_use == 0 && !bad_total(&st),
	       "in use %llu, bad %llu", st.blocks_in_use, bad_total(&st));
	stats(ctx->big, &st);
	EXPECT(ok, ctx->big_got == DGT_IRQ_BIG_N && st.chunks >= 10 &&
	       st.blocks_in_use == ctx->big_got,
	       "big pool: %u of %u allocations in hardirq, %u chunks",
	       ctx->big_got, DGT_IRQ_BIG_N, st.chunks);
	for (i = 0; i < DGT_IRQ_BIG_N; i++)
		if (ctx->big_b[i].v)
			dmaguard_pool_free(ctx->big, (void *)ctx->big_b[i].v,
					   ctx->big_b[i].d);
	stats(ctx->big, &st);
	EXPECT(ok, st.blocks_in_use == 0 && !bad_total(&st),
	       "big pool: in use %llu, bad %llu", st.blocks_in_use,
	       bad_total(&st));
out:
	if (ctx) {
		dmaguard_pool_destroy(ctx->pool);
		dmaguard_pool_destroy(ctx->big);
	}
	kfree(ctx);
	dg_ktap_result(&ktap, ok, "atomic_hardirq");
}

/* ---- cases: misuse ---- */

static const char * const bad_label[DG_BAD_NR] = {
	[DG_FREE_OK] = "ok", [DG_BAD_FOREIGN] = "foreign",
	[DG_BAD_MISALIGNED] = "misaligned", [DG_BAD_DMA] = "dma",
	[DG_BAD_DOUBLE] = "double",
};

/*
 * One bad free through the public API: exactly the counter of @want
 * moves, by one, and the blocks in use do not change.
 */
static bool bad_free_one(struct dmaguard_pool *pool, void *v, dma_addr_t d,
			 enum dg_bad_free want)
{
	struct dg_pool_stats a, b;
	bool ok = true;
	int i;

	stats(pool, &a);
	dmaguard_pool_free(pool, v, d);
	stats(pool, &b);
	for (i = 1; i < DG_BAD_NR; i++)
		EXPECT(ok, b.bad_frees[i] - a.bad_frees[i] == (i == want),
		       "free of %p dma %llx: %s count moved by %llu (want %s)",
		       v, (u64)d, bad_label[i], b.bad_frees[i] - a.bad_frees[i],
		       bad_label[want]);
	EXPECT(ok, b.blocks_in_use == a.blocks_in_use,
	       "bad free changed blocks in use %llu -> %llu", a.blocks_in_use,
	       b.blocks_in_use);
	return ok;
}

struct misuse {
	struct dmaguard_pool *pool;
	struct dmaguard_pool *other;
	struct blk a, b, c, o;
	bool setup;
};

static void t_misuse(struct misuse *m)
{
	u8 *foreign;
	bool ok;

	/* Setup: blocks a, b, c of the pool, o of another pool. */
	case_begin();
	ok = true;
	m->pool = dmaguard_pool_create("dgt_misuse", dev, 64, 64, 0);
	m->other = dmaguard_pool_create("dgt_misuse_o", dev, 64, 64, 0);
	foreign = kmalloc(256, GFP_KERNEL);
	EXPECT(ok, m->pool && m->other && foreign, "setup failed");
	if (ok) {
		m->a.v = (unsigned long)dmaguard_pool_alloc(m->pool, GFP_KERNEL, &m->a.d);
		m->b.v = (unsigned long)dmaguard_pool_alloc(m->pool, GFP_KERNEL, &m->b.d);
		m->c.v = (unsigned long)dmaguard_pool_alloc(m->pool, GFP_KERNEL, &m->c.d);
		m->o.v = (unsigned long)dmaguard_pool_alloc(m->other, GFP_KERNEL, &m->o.d);
		EXPECT(ok, m->a.v && m->b.v && m->c.v && m->o.v, "alloc failed");
	}
	m->setup = ok;
	if (ok) {
		memset((void *)m->a.v, 0xaa, 64);
		memset((void *)m->b.v, 0xbb, 64);
		memset((void *)m->c.v, 0xcc, 64);
		ok &= bad_free_one(m->pool, foreign, 0x1000, DG_BAD_FOREIGN);
		ok &= bad_free_one(m->pool, foreign, virt_to_phys(foreign),
				   DG_BAD_FOREIGN);
		ok &= bad_free_one(m->pool, (void *)m->o.v, m->o.d,
				   DG_BAD_FOREIGN);
		ok &= bad_free_one(m->pool, NULL, 0, DG_BAD_FOREIGN);
	}
	kfree(foreign);
	dg_ktap_result(&ktap, ok, "misuse_foreign_pointer");

	case_begin();
	ok = m->setup;
	if (ok) {
		ok &= bad_free_one(m->pool, (void *)(m->a.v + 8), m->a.d + 8,
				   DG_BAD_MISALIGNED);
		ok &= bad_free_one(m->pool, (void *)(m->a.v + 1), m->a.d + 1,
				   DG_BAD_MISALIGNED);
		ok &= bad_free_one(m->pool, (void *)(m->b.v + 63), m->b.d + 63,
				   DG_BAD_MISALIGNED);
	}
	dg_ktap_result(&ktap, ok, "misuse_interior_pointer");

	case_begin();
	ok = m->setup;
	if (ok) {
		ok &= bad_free_one(m->pool, (void *)m->a.v, m->b.d, DG_BAD_DMA);
		ok &= bad_free_one(m->pool, (void *)m->a.v, m->a.d + 64,
				   DG_BAD_DMA);
		ok &= bad_free_one(m->pool, (void *)m->a.v, 0, DG_BAD_DMA);
		ok &= bad_free_one(m->pool, (void *)m->b.v, m->b.d ^ (1ull << 40),
				   DG_BAD_DMA);
	}
	dg_ktap_result(&ktap, ok, "misuse_wrong_dma");

	case_begin();
	ok = m->setup;
	if (ok) {
		struct dg_pool_stats a, b;

		stats(m->pool, &a);
		dmaguard_pool_free(m->pool, (void *)m->c.v, m->c.d);
		stats(m->pool, &b);
		EXPECT(ok, b.blocks_in_use + 1 == a.blocks_in_use &&
		       bad_total(&b) == bad_total(&a), "good free of c miscounted");
		ok &= bad_free_one(m->pool, (void *)m->c.v, m->c.d,
				   DG_BAD_DOUBLE);
		ok &= bad_free_one(m->pool, (void *)m->c.v, m->c.d,
				   DG_BAD_DOUBLE);
		m->c.v = 0;
	}
	dg_ktap_result(&ktap, ok, "misuse_double_free");
}

/*
 * After all that, the pool is as if the bad frees never happened: a and b
 * are still allocated with their bytes, c came back once, and filling the
 * chunk never hands out a or b.
 */
static void t_misuse_not_applied(struct misuse *m)
{
	struct dg_pool_stats st;
	struct blk *b = NULL;
	unsigned int n = 0, i, got_c = 0;
	bool ok = m->setup;

	case_begin();
	if (!ok)
		goto out;
	stats(m->pool, &st);
	EXPECT(ok, st.blocks_in_use == 2, "in use %llu, want 2",
	       st.blocks_in_use);
	EXPECT(ok, st.bad_frees[DG_BAD_FOREIGN] == 4 &&
	       st.bad_frees[DG_BAD_MISALIGNED] == 3 &&
	       st.bad_frees[DG_BAD_DMA] == 4 && st.bad_frees[DG_BAD_DOUBLE] == 2,
	       "counts foreign %llu misaligned %llu dma %llu double %llu",
	       st.bad_frees[DG_BAD_FOREIGN], st.bad_frees[DG_BAD_MISALIGNED],
	       st.bad_frees[DG_BAD_DMA], st.bad_frees[DG_BAD_DOUBLE]);
	EXPECT(ok, all_bytes((void *)m->a.v, 64, 0xaa) &&
	       all_bytes((void *)m->b.v, 64, 0xbb),
	       "bytes of live blocks changed by bad frees");
	n = st.blocks_per_chunk * 2;
	b = kcalloc(n, sizeof(*b), GFP_KERNEL);
	EXPECT(ok, b, "no memory");
	if (!b)
		goto out;
	for (i = 0; i < n; i++) {
		b[i].v = (unsigned long)dmaguard_pool_alloc(m->pool, GFP_KERNEL,
							    &b[i].d);
		EXPECT(ok, b[i].v, "alloc failed");
		EXPECT(ok, b[i].v != m->a.v && b[i].v != m->b.v,
		       "live block %lx handed out again", b[i].v);
		if (b[i].v && b[i].d == m->c.d)
			got_c++;
	}
	/* c's dma was saved before it was cleared: find it by address. */
	EXPECT(ok, all_bytes((void *)m->a.v, 64, 0xaa) &&
	       all_bytes((void *)m->b.v, 64, 0xbb), "live blocks changed");
	for (i = 0; i < n; i++)
		if (b[i].v)
			dmaguard_pool_free(m->pool, (void *)b[i].v, b[i].d);
	EXPECT(ok, got_c == 1, "freed block c handed out %u times", got_c);
	dmaguard_pool_free(m->pool, (void *)m->a.v, m->a.d);
	dmaguard_pool_free(m->pool, (void *)m->b.v, m->b.d);
	stats(m->pool, &st);
	EXPECT(ok, st.blocks_in_use == 0, "in use %llu", st.blocks_in_use);
	EXPECT(ok, bad_total(&st) == 13, "bad frees %llu, want 13",
	       bad_total(&st));
out:
	kfree(b);
	dg_ktap_result(&ktap, ok, "misuse_not_applied");
}

/* A second pool's first bad free gets its own report; the first pool none. */
static void t_misuse_second_pool(struct misuse *m)
{
	struct dmaguard_pool *p2;
	struct dg_pool_stats st;
	bool ok = m->setup;
	dma_addr_t d;
	void *v;

	case_begin();
	p2 = dmaguard_pool_create("dgt_misuse2", dev, 16, 16, 0);
	EXPECT(ok, p2, "create failed");
	if (!ok)
		goto out;
	v = dmaguard_pool_alloc(p2, GFP_KERNEL, &d);
	EXPECT(ok, v, "alloc failed");
	if (!v)
		goto out;
	dmaguard_pool_free(p2, v, d);
	ok &= bad_free_one(p2, v, d, DG_BAD_DOUBLE);
	ok &= bad_free_one(p2, v + 4, d + 4, DG_BAD_MISALIGNED);
	ok &= bad_free_one(m->pool, (void *)m->o.v, m->o.d, DG_BAD_FOREIGN);
	stats(m->other, &st);
	EXPECT(ok, bad_total(&st) == 0, "other pool counted %llu",
	       bad_total(&st));
out:
	dmaguard_pool_destroy(p2);
	if (m->other && m->o.v)
		dmaguard_pool_free(m->other, (void *)m->o.v, m->o.d);
	dmaguard_pool_destroy(m->other);
	dmaguard_pool_destroy(m->pool);
	dg_ktap_result(&ktap, ok, "misuse_second_pool");
}

/* ---- case: reclaim of chunks that stay empty ---- */

static void t_reclaim(void)
{
	struct dmaguard_pool *pool;
	struct dg_pool_stats st, st0;
	struct blk *b = NULL;
	unsigned int n = 0, i, waited = 0;
	long bytes0, bytes1;
	bool ok = true;
	dma_addr_t d;
	void *v;

	case_begin();
	pool = dmaguard_pool_create("dgt_reclaim", dev, 64, 64, 0);
	EXPECT(ok, pool, "create failed");
	if (!pool)
		goto out;
	v = dmaguard_pool_alloc(pool, GFP_KERNEL, &d);
	stats(pool, &st);
	dmaguard_pool_free(pool, v, d);
	n = 4 * st.blocks_per_chunk;
	b = kcalloc(n, sizeof(*b), GFP_KERNEL);
	EXPECT(ok, v && b, "setup failed");
	if (!ok)
		goto out;
	for (i = 0; i < n; i++) {
		b[i].v = (unsigned long)dmaguard_pool_alloc(pool, GFP_KERNEL,
							    &b[i].d);
		EXPECT(ok, b[i].v, "alloc failed");
	}
	stats(pool, &st0);
	bytes0 = atomic_long_read(&dg_chunk_bytes);
	EXPECT(ok, st0.chunks == 4, "%u chunks for 4 chunks' worth", st0.chunks);
	for (i = 0; i < n; i++)
		if (b[i].v)
			dmaguard_pool_free(pool, (void *)b[i].v, b[i].d);
	stats(pool, &st);
	/* Hysteresis: nothing goes back the moment it empties. */
	EXPECT(ok, st.chunks == 4 && st.chunks_empty == 4,
	       "right after freeing: %u chunks, %u empty", st.chunks,
	       st.chunks_empty);
	msleep(400);
	waited = 400;
	for (;;) {
		stats(pool, &st);
		if (st.chunks_released >= 3 || waited >= 5000)
			break;
		msleep(50);
		waited += 50;
	}
	bytes1 = atomic_long_read(&dg_chunk_bytes);
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
	EXPECT(ok, waited <= 1000, "took %u ms (reclaim_delay_ms not 100?)",
	       waited);
	/* The kept chunk serves the next allocation. */
	v = dmaguard_pool_alloc(pool, GFP_KERNEL, &d);
	stats(pool, &st);
	EXPECT(ok, v && st.chunks_allocated == st0.chunks_allocated,
	       "allocation after reclaim took a new chunk");
	if (v)
		dmaguard_pool_free(pool, v, d);
out:
	kfree(b);
	dmaguard_pool_destroy(pool);
	dg_ktap_result(&ktap, ok, "reclaim_empty_chunks");
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
		if (zero && !all_bytes(v, 64, 0))
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

static void t_concurrency(void)
{
	struct smp_thread *th[2] = { NULL, NULL };
	struct task_struct *task[2];
	struct dg_pool_stats st;
	struct smp_ctx ctx = {};
	unsigned int i, cpus = num_online_cpus(), reclaimed = 0;
	bool ok = true;
	u64 t0;

	case_begin();
	ctx.live = vzalloc(BITS_TO_LONGS(DGT_TRACK_LIMIT >> DGT_TRACK_SHIFT) *
			   sizeof(long));
	ctx.pool = dmaguard_pool_create("dgt_smp", dev, 64, 64, 0);
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
	stats(ctx.pool, &st);
	pr_info("# concurrency: %u CPUs, %llu ms, chunks allocated %llu released %llu (%u by the racing reclaim)\n",
		cpus, (ktime_get_ns() - t0) / NSEC_PER_MSEC,
		st.chunks_allocated, st.chunks_released, reclaimed);
	EXPECT(ok, st.blocks_in_use == 0 && !bad_total(&st),
	       "in use %llu, bad %llu", st.blocks_in_use, bad_total(&st));
	EXPECT(ok, find_first_bit(ctx.live, DGT_TRACK_LIMIT >> DGT_TRACK_SHIFT) ==
	       DGT_TRACK_LIMIT >> DGT_TRACK_SHIFT, "tracking bitmap not empty");
out:
	dmaguard_pool_destroy(ctx.pool);
	kfree(th[0]);
	kfree(th[1]);
	vfree(ctx.live);
	dg_ktap_result(&ktap, ok, "concurrency_two_threads");
}

/* ---- case: no chunk memory left behind ---- */

static void t_no_leak(long base)
{
	long now = atomic_long_read(&dg_chunk_bytes);
	bool ok = true;

	case_begin();
	EXPECT(ok, now == base, "chunk bytes %ld after destroying every pool, %ld at load",
	       now, base);
	dg_ktap_result(&ktap, ok, "no_chunk_leak");
}

/* ---- case: destroy with live blocks ---- */

static void t_destroy_live(void)
{
	struct dmaguard_pool *pool;
	struct dg_pool_stats st;
	struct blk *b = NULL;
	struct blk first, last;
	unsigned int n = 0, i;
	long before, after;
	bool ok = true;
	dma_addr_t d;
	void *v;

	case_begin();
	pool = dmaguard_pool_create("dgt_live", dev, 64, 64, 0);
	EXPECT(ok, pool, "create failed");
	if (!pool)
		goto out;
	v = dmaguard_pool_alloc(pool, GFP_KERNEL, &d);
	stats(pool, &st);
	if (v)
		dmaguard_pool_free(pool, v, d);
	n = 3 * st.blocks_per_chunk;
	b = kcalloc(n, sizeof(*b), GFP_KERNEL);
	EXPECT(ok, v && b, "setup failed");
	if (!ok)
		goto out;
	for (i = 0; i < n; i++) {
		b[i].v = (unsigned long)dmaguard_pool_alloc(pool, GFP_KERNEL,
							    &b[i].d);
		EXPECT(ok, b[i].v, "alloc failed");
		if (!b[i].v)
			goto out;
	}
	/* Keep the first and last block: two chunks live, the middle empty. */
	first = b[0];
	last = b[n - 1];
	for (i = 1; i < n - 1; i++)
		dmaguard_pool_free(pool, (void *)b[i].v, b[i].d);
	memset((void *)first.v, 0x5e, 64);
	memset((void *)last.v, 0x5f, 64);
	stats(pool, &st);
	EXPECT(ok, st.chunks == 3 && st.chunks_empty == 1 &&
	       st.blocks_in_use == 2, "chunks %u, empty %u, in use %llu",
	       st.chunks, st.chunks_empty, st.blocks_in_use);
	before = atomic_long_read(&dg_chunk_bytes);
	dmaguard_pool_destroy(pool);
	pool = NULL;
	after = atomic_long_read(&dg_chunk_bytes);
	EXPECT(ok, before - after == (long)st.chunks_empty * st.chunk_size,
	       "chunk bytes dropped by %ld, want %u (the empty chunk only)",
	       before - after, st.chunks_empty * st.chunk_size);
	leaked_by_design += (long)(st.chunks - st.chunks_empty) * st.chunk_size;
	/* The live blocks' memory was not handed back: still ours, intact. */
	EXPECT(ok, all_bytes((void *)first.v, 64, 0x5e) &&
	       all_bytes((void *)last.v, 64, 0x5f),
	       "live blocks changed after destroy");
out:
	kfree(b);
	dmaguard_pool_destroy(pool);
	dg_ktap_result(&ktap, ok, "destroy_with_live_blocks");
}

/* Rows of the geometry case: the dmapool_test rows, size 1, small boundaries. */
static const struct {
	const char *name;
	size_t size, align, boundary;
} dgt_rows[] = {
	{ "geometry_16_16", 16, 16, 0 },
	{ "geometry_64_64", 64, 64, 0 },
	{ "geometry_256_256", 256, 256, 0 },
	{ "geometry_1024_1024", 1024, 1024, 0 },
	{ "geometry_4096_4096", 4096, 4096, 0 },
	{ "geometry_68_32_b4096", 68, 32, 4096 },
	{ "geometry_1_1", 1, 1, 0 },
	{ "geometry_24_8_b64", 24, 8, 64 },
	{ "geometry_100_4_b128", 100, 4, 128 },
};

/* Every case but the geometry rows. */
#define DGT_NR_OTHER		15

static int __init dgt_init(void)
{
	struct platform_device *pdev;
	struct misuse *m;
	long base;
	unsigned int i;

	pdev = dg_test_dev_create("dmaguard_test");
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	dev = &pdev->dev;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		dg_test_dev_destroy(pdev);
		return -ENOMEM;
	}
	base = atomic_long_read(&dg_chunk_bytes);

	dg_ktap_begin(&ktap, DGT_NR_OTHER + ARRAY_SIZE(dgt_rows));
	t_create_validation();
	for (i = 0; i < ARRAY_SIZE(dgt_rows); i++)
		t_geometry(dgt_rows[i].name, dgt_rows[i].size, dgt_rows[i].align,
			   dgt_rows[i].boundary);
	t_zeroing();
	t_public_opts_stats();
	t_atomic_spinlock();
	t_atomic_hardirq();
	t_misuse(m);
	t_misuse_not_applied(m);
	t_misuse_second_pool(m);
	t_reclaim();
	t_concurrency();
	t_no_leak(base);
	t_destroy_live();
	pr_info("# leaked_by_design=%ld\n", leaked_by_design);
	pr_info("# %u of %u cases failed\n", ktap.failed, ktap.n);
	WARN_ON(ktap.n != DGT_NR_OTHER + ARRAY_SIZE(dgt_rows));

	kfree(m);
	dg_test_dev_destroy(pdev);
	dev = NULL;
	return 0;
}

static void __exit dgt_exit(void)
{
}

module_init(dgt_init);
module_exit(dgt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dmaguard pool tests on real coherent DMA memory (KTAP)");
