// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_test: create checks, the block geometry of every row, zeroing,
 * and the size-carrying public calls (create_opts, get_stats).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/sort.h>
#include "dmaguard_test.h"

/* ---- case: create validation ---- */

/**
 * dgt_create_validation() - case: create refuses bad parameters only
 */
void dgt_create_validation(void)
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
		{ "size INT_MAX + 1", true, "dgt_v", (size_t)INT_MAX + 1, 8, 0 },
	};
	static const struct {
		size_t size, align, boundary;
	} good[] = {
		{ 1, 0, 0 }, { 1, 1, 1 }, { 3, 1, 4 }, { 68, 32, 4096 },
		{ 4096, 4096, 4096 }, { 64, 0, 0 },
		/* dma_pool_create() takes up to INT_MAX (mpt3sas: > 1 MiB) */
		{ (1 << 20) + 8, 8, 0 }, { INT_MAX, 0, 0 },
	};
	struct dmaguard_pool *pool;
	bool ok = true;
	unsigned int i;
	dma_addr_t d;
	void *v;

	dgt_case_begin();
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		pool = dmaguard_pool_create(bad[i].name, bad[i].dev ? dgt_dev : NULL,
					    bad[i].size, bad[i].align,
					    bad[i].boundary);
		EXPECT(ok, !pool, "create with %s succeeded", bad[i].what);
		if (pool)
			dmaguard_pool_destroy(pool);
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		pool = dmaguard_pool_create("dgt_v", dgt_dev, good[i].size,
					    good[i].align, good[i].boundary);
		EXPECT(ok, pool, "create %zu/%zu/%zu failed", good[i].size,
		       good[i].align, good[i].boundary);
		dmaguard_pool_destroy(pool);
	}
	/* A block over 1 MiB, on the device (a chunk of 2 MiB). */
	pool = dmaguard_pool_create("dgt_big", dgt_dev, (1 << 20) + 8, 8, 0);
	EXPECT(ok, pool, "create of a 1 MiB + 8 pool failed");
	v = pool ? dmaguard_pool_alloc(pool, GFP_KERNEL, &d) : NULL;
	EXPECT(ok, v, "no block of 1 MiB + 8");
	if (v) {
		struct dmaguard_pool_stats st;

		memset(v, 0x5a, (1 << 20) + 8);
		dmaguard_pool_free(pool, v, d);
		dgt_stats(pool, &st);
		EXPECT(ok, !st.blocks_in_use && !dgt_bad_total(&st),
		       "in use %llu, bad frees %llu", st.blocks_in_use,
		       dgt_bad_total(&st));
	}
	dmaguard_pool_destroy(pool);
	dmaguard_pool_destroy(NULL);
	EXPECT(ok, dmaguard_version() == DMAGUARD_VERSION,
	       "version %#x, headers %#x", dmaguard_version(), DMAGUARD_VERSION);
	dg_ktap_result(&dgt_ktap, ok, "create_validation");
}

/* ---- case: geometry of every block, per row ---- */

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

/**
 * dgt_geometry() - case: every block of a row in place, none overlapping
 * @name: the case name, also the pool's
 * @size: block size
 * @align: alignment (0: none)
 * @boundary: boundary no block may cross (0: none)
 */
void dgt_geometry(const char *name, size_t size, size_t align,
		  size_t boundary)
{
	size_t al = align ? align : 1;
	struct dmaguard_pool *pool;
	struct dmaguard_pool_stats st;
	struct chunk_set *cs;
	struct chunk_rec *c;
	struct blk *b = NULL;
	unsigned int n = 0, i, j;
	u64 seed = 0x9e3779b97f4a7c15ull ^ size;
	bool ok = true;
	u8 *p;

	dgt_case_begin();
	cs = kzalloc(sizeof(*cs), GFP_KERNEL);
	pool = dmaguard_pool_create(name, dgt_dev, size, align, boundary);
	EXPECT(ok, cs && pool, "setup failed");
	if (!ok)
		goto out;
	dgt_stats(pool, &st);
	EXPECT(ok, st.chunks == 0 && st.blocks_in_use == 0,
	       "fresh pool has %u chunks", st.chunks);
	n = min(3 * st.blocks_per_chunk + 1, 24577u);
	b = kvcalloc(n, sizeof(*b), GFP_KERNEL);
	EXPECT(ok, b, "no memory for %u records", n);
	if (!ok)
		goto out;

	/*
	 * On one CPU: a task that moved while it allocated would take the
	 * next group of a chunk on the new CPU and come back to the lower
	 * blocks left in the first CPU's cache (not ascending), or take a
	 * chunk more than the blocks need.
	 */
	migrate_disable();
	for (i = 0; i < n; i++) {
		void *v = dmaguard_pool_alloc(pool, GFP_KERNEL, &b[i].d);

		b[i].v = (unsigned long)v;
		EXPECT(ok, v, "alloc %u of %u failed", i, n);
		if (!v) {
			n = i;
			break;
		}
	}
	migrate_enable();
	dgt_chunk_collect(pool, cs);
	EXPECT(ok, !cs->overflow, "more than %d chunks", DGT_MAX_CHUNKS);
	dgt_stats(pool, &st);
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
		EXPECT(ok, !dg_test_crosses(d, size, boundary),
		       "dma %llx+%zu crosses %zu", (u64)d, size, boundary);
		EXPECT(ok, !dg_test_crosses(v, size, boundary),
		       "block %lx+%zu crosses %zu", v, size, boundary);
		c = dgt_chunk_of(cs, v, size);
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
	dgt_free_blocks(pool, b, n);
	dgt_stats(pool, &st);
	EXPECT(ok, st.blocks_in_use == 0, "%llu blocks in use after freeing all",
	       st.blocks_in_use);
	EXPECT(ok, dgt_bad_total(&st) == 0, "%llu bad frees", dgt_bad_total(&st));
	pr_info("# %s: size %zu align %zu boundary %zu: stride %u chunk %u, %u blocks/chunk, %u blocks in %u chunks, meta %llu bytes\n",
		name, size, align, boundary, st.stride, st.chunk_size,
		st.blocks_per_chunk, n, cs->n, st.meta_bytes);
out:
	dmaguard_pool_destroy(pool);
	kvfree(b);
	kfree(cs);
	dg_ktap_result(&dgt_ktap, ok, name);
}

/* ---- case: zeroing ---- */

static bool zero_one(const char *name, size_t size, size_t align)
{
	struct dmaguard_pool *pool;
	struct dmaguard_pool_stats st;
	struct blk *b = NULL;
	unsigned int n, i, mid;
	bool ok = true;
	void *v;
	size_t stride;

	pool = dmaguard_pool_create(name, dgt_dev, size, align, 0);
	EXPECT(ok, pool, "create failed");
	if (!pool)
		return false;
	dgt_stats(pool, &st);
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
	dgt_free_blocks(pool, b, n);

	/* zalloc: every block zero. */
	for (i = 0; i < n; i++) {
		b[i].v = (unsigned long)dmaguard_pool_zalloc(pool, GFP_KERNEL,
							     &b[i].d);
		EXPECT(ok, b[i].v, "zalloc failed");
		if (!b[i].v)
			goto out;
		EXPECT(ok, dgt_all_bytes((void *)b[i].v, size, 0),
		       "zalloc block %u of %zu bytes not zero", i, size);
		memset((void *)b[i].v, 0xa5, size);
	}

	/*
	 * Free one block in the middle and zalloc one: the zeroing stays
	 * inside the block (neighbours keep their bytes). It is the freed
	 * block when this task stayed on its CPU (the per-CPU caches reuse
	 * it first), another free one if the task migrated in between.
	 */
	mid = n / 2;
	dmaguard_pool_free(pool, (void *)b[mid].v, b[mid].d);
	v = dmaguard_pool_zalloc(pool, GFP_KERNEL, &b[mid].d);
	EXPECT(ok, v, "zalloc after a free failed");
	b[mid].v = (unsigned long)v;
	if (v)
		EXPECT(ok, dgt_all_bytes(v, size, 0), "block not zeroed");
	for (i = 0; i < n; i++)
		if (i != mid)
			EXPECT(ok, dgt_all_bytes((void *)b[i].v, size, 0xa5),
			       "block %u changed by zeroing block %u (stride %zu)",
			       i, mid, stride);

	/* GFP_KERNEL alone zeroes exactly when init_on_alloc says so. */
	if (want_init_on_alloc(GFP_KERNEL)) {
		dmaguard_pool_free(pool, (void *)b[0].v, b[0].d);
		v = dmaguard_pool_alloc(pool, GFP_KERNEL, &b[0].d);
		b[0].v = (unsigned long)v;
		EXPECT(ok, v && dgt_all_bytes(v, size, 0),
		       "init_on_alloc on, GFP_KERNEL block not zero");
	}
	dgt_free_blocks(pool, b, n);
	dgt_stats(pool, &st);
	EXPECT(ok, st.blocks_in_use == 0 && !dgt_bad_total(&st),
	       "in use %llu, bad %llu", st.blocks_in_use, dgt_bad_total(&st));
out:
	kfree(b);
	dmaguard_pool_destroy(pool);
	return ok;
}

/**
 * dgt_zeroing() - case: zalloc zeroes exactly its block
 */
void dgt_zeroing(void)
{
	bool ok;

	dgt_case_begin();
	ok = zero_one("dgt_zero64", 64, 64);
	ok &= zero_one("dgt_zero68", 68, 4);
	ok &= zero_one("dgt_zero20", 20, 8);
	ok &= zero_one("dgt_zero1", 1, 1);
	pr_info("# init_on_alloc for GFP_KERNEL: %s\n",
		want_init_on_alloc(GFP_KERNEL) ? "on" : "off");
	dg_ktap_result(&dgt_ktap, ok, "zeroing");
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

/**
 * dgt_public_opts_stats() - case: create_opts and get_stats, sizes checked
 */
void dgt_public_opts_stats(void)
{
	struct dmaguard_pool *pool, *p;
	struct chunk_set *cs = NULL;
	struct opts_big ob = {};
	struct stats_big sb = {};
	struct blk b[3];
	bool ok = true;
	int ret;

	dgt_case_begin();
	{
		DMAGUARD_OPTS(dmaguard_pool_opts, o, .name = "dgt_opts",
			      .size = 68, .align = 32, .boundary = 4096);

		pool = dmaguard_pool_create_opts(dgt_dev, &o);
		EXPECT(ok, !IS_ERR_OR_NULL(pool), "valid opts refused: %ld",
		       PTR_ERR(pool));
		if (IS_ERR_OR_NULL(pool)) {
			pool = NULL;
			goto out;
		}
		p = dmaguard_pool_create_opts(NULL, &o);
		EXPECT(ok, refused(p, -EINVAL), "NULL dev: not -EINVAL");
		p = dmaguard_pool_create_opts(dgt_dev, NULL);
		EXPECT(ok, refused(p, -EINVAL), "NULL opts: not -EINVAL");
		o.sz = 8;
		p = dmaguard_pool_create_opts(dgt_dev, &o);
		EXPECT(ok, refused(p, -EINVAL), "sz 8: not -EINVAL");
		o.sz = sizeof(o);
		o.flags = 0x80000000u;
		p = dmaguard_pool_create_opts(dgt_dev, &o);
		EXPECT(ok, refused(p, -EINVAL), "unknown flag: not -EINVAL");
		o.flags = DMAGUARD_POOL_F_NODE;
		o.node = 1000;
		p = dmaguard_pool_create_opts(dgt_dev, &o);
		EXPECT(ok, refused(p, -EINVAL), "node 1000: not -EINVAL");
		o.flags = 0;
		o.node = 0;
		o.align = 3;
		p = dmaguard_pool_create_opts(dgt_dev, &o);
		EXPECT(ok, refused(p, -EINVAL), "align 3: not -EINVAL");
		/* A newer caller's larger struct: zero tail fine, else -E2BIG. */
		ob.o = o;
		ob.o.align = 32;
		ob.o.sz = sizeof(ob);
		p = dmaguard_pool_create_opts(dgt_dev, &ob.o);
		EXPECT(ok, !IS_ERR_OR_NULL(p), "larger opts, zero tail: %ld",
		       PTR_ERR(p));
		if (!IS_ERR_OR_NULL(p))
			dmaguard_pool_destroy(p);
		ob.tail = 1;
		p = dmaguard_pool_create_opts(dgt_dev, &ob.o);
		EXPECT(ok, refused(p, -E2BIG), "larger opts, tail set: not -E2BIG");
	}
	p = dmaguard_pool_create_node("dgt_node", dgt_dev, 64, 64, 0, NUMA_NO_NODE);
	EXPECT(ok, p, "create_node NUMA_NO_NODE failed");
	dmaguard_pool_destroy(p);
	/* No such node: NULL, as for every refusal of the NULL-style calls. */
	p = dmaguard_pool_create_node("dgt_node", dgt_dev, 64, 64, 0, 1000);
	EXPECT(ok, !p, "create_node node 1000 accepted");
	dmaguard_pool_destroy(p);
	p = dmaguard_pool_create_node("dgt_node", dgt_dev, 64, 64, 0, -2);
	EXPECT(ok, !p, "create_node node -2 accepted");
	dmaguard_pool_destroy(p);

	EXPECT(ok, dgt_alloc_blocks(pool, b, 3) == 3, "alloc failed");
	if (b[2].v)
		dmaguard_pool_free(pool, (void *)b[2].v, b[2].d);
	dmaguard_pool_free(pool, (void *)(b[0].v + 4), b[0].d + 4);
	{
		DMAGUARD_OPTS(dmaguard_pool_stats, st);

		ret = dmaguard_pool_get_stats(pool, &st);
		EXPECT(ok, !ret, "get_stats: %d", ret);
		/* Against what the pool was asked and the chunk walk. */
		cs = kzalloc(sizeof(*cs), GFP_KERNEL);
		if (cs)
			dgt_chunk_collect(pool, cs);
		EXPECT(ok, cs && !cs->overflow, "chunk walk failed");
		EXPECT(ok, st.sz == sizeof(st) && st.block_size == 68 &&
		       st.stride >= 68 && !(st.stride & 31) &&
		       st.blocks_per_chunk &&
		       st.blocks_total == (u64)st.chunks * st.blocks_per_chunk &&
		       (!cs || (st.chunks == cs->n && cs->n &&
				st.chunk_size == cs->c[0].len)) &&
		       st.blocks_in_use == 2 && st.chunks_allocated >= st.chunks &&
		       st.meta_bytes && st.bad_free_misaligned == 1 &&
		       st.bad_free_foreign + st.bad_free_dma +
		       st.bad_free_double == 0,
		       "stats: size %u stride %u chunk %u x %u, %u chunks (walk %u), in use %llu, bad %llu",
		       st.block_size, st.stride, st.chunk_size,
		       st.blocks_per_chunk, st.chunks, cs ? cs->n : 0,
		       st.blocks_in_use, dgt_bad_total(&st));
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
	dgt_free_blocks(pool, b, 2);
out:
	kfree(cs);
	dmaguard_pool_destroy(pool);
	dg_ktap_result(&dgt_ktap, ok, "public_opts_and_stats");
}
