// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_test: misuse. Foreign, interior, wrong-DMA and double frees
 * are each counted as exactly their kind and change nothing; a second
 * pool's first bad free gets its own report.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/io.h>
#include "dmaguard_test.h"

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
	struct dmaguard_pool_stats a, b;
	bool ok = true;
	int i;

	dgt_stats(pool, &a);
	dmaguard_pool_free(pool, v, d);
	dgt_stats(pool, &b);
	for (i = 1; i < DG_BAD_NR; i++)
		EXPECT(ok, dg_test_bad_frees(&b, i) - dg_test_bad_frees(&a, i) ==
		       (i == want),
		       "free of %p dma %llx: %s count moved by %llu (want %s)",
		       v, (u64)d, bad_label[i],
		       dg_test_bad_frees(&b, i) - dg_test_bad_frees(&a, i),
		       bad_label[want]);
	EXPECT(ok, b.blocks_in_use == a.blocks_in_use,
	       "bad free changed blocks in use %llu -> %llu", a.blocks_in_use,
	       b.blocks_in_use);
	return ok;
}

/**
 * dgt_misuse() - cases: foreign, interior, wrong-dma and double frees
 * @m: the pool and blocks set up here, for the next two
 */
void dgt_misuse(struct misuse *m)
{
	u8 *foreign;
	bool ok;

	/* Setup: blocks a, b, c of the pool, o of another pool. */
	dgt_case_begin();
	ok = true;
	m->pool = dmaguard_pool_create("dgt_misuse", dgt_dev, 64, 64, 0);
	m->other = dmaguard_pool_create("dgt_misuse_o", dgt_dev, 64, 64, 0);
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
	dg_ktap_result(&dgt_ktap, ok, "misuse_foreign_pointer");

	dgt_case_begin();
	ok = m->setup;
	if (ok) {
		ok &= bad_free_one(m->pool, (void *)(m->a.v + 8), m->a.d + 8,
				   DG_BAD_MISALIGNED);
		ok &= bad_free_one(m->pool, (void *)(m->a.v + 1), m->a.d + 1,
				   DG_BAD_MISALIGNED);
		ok &= bad_free_one(m->pool, (void *)(m->b.v + 63), m->b.d + 63,
				   DG_BAD_MISALIGNED);
	}
	dg_ktap_result(&dgt_ktap, ok, "misuse_interior_pointer");

	dgt_case_begin();
	ok = m->setup;
	if (ok) {
		ok &= bad_free_one(m->pool, (void *)m->a.v, m->b.d, DG_BAD_DMA);
		ok &= bad_free_one(m->pool, (void *)m->a.v, m->a.d + 64,
				   DG_BAD_DMA);
		ok &= bad_free_one(m->pool, (void *)m->a.v, 0, DG_BAD_DMA);
		ok &= bad_free_one(m->pool, (void *)m->b.v, m->b.d ^ (1ull << 40),
				   DG_BAD_DMA);
	}
	dg_ktap_result(&dgt_ktap, ok, "misuse_wrong_dma");

	dgt_case_begin();
	ok = m->setup;
	if (ok) {
		struct dmaguard_pool_stats a, b;

		dgt_stats(m->pool, &a);
		dmaguard_pool_free(m->pool, (void *)m->c.v, m->c.d);
		dgt_stats(m->pool, &b);
		EXPECT(ok, b.blocks_in_use + 1 == a.blocks_in_use &&
		       dgt_bad_total(&b) == dgt_bad_total(&a), "good free of c miscounted");
		ok &= bad_free_one(m->pool, (void *)m->c.v, m->c.d,
				   DG_BAD_DOUBLE);
		ok &= bad_free_one(m->pool, (void *)m->c.v, m->c.d,
				   DG_BAD_DOUBLE);
		m->c.v = 0;
	}
	dg_ktap_result(&dgt_ktap, ok, "misuse_double_free");
}

/**
 * dgt_misuse_not_applied() - case: the pool as if no bad free happened
 * @m: the pool and blocks of dgt_misuse()
 *
 * After all that, the pool is as if the bad frees never happened: a and b
 * are still allocated with their bytes, c came back once, and filling the
 * chunk never hands out a or b.
 */
void dgt_misuse_not_applied(struct misuse *m)
{
	struct dmaguard_pool_stats st;
	struct blk *b = NULL;
	unsigned int n = 0, i, got_c = 0;
	bool ok = m->setup;

	dgt_case_begin();
	if (!ok)
		goto out;
	dgt_stats(m->pool, &st);
	EXPECT(ok, st.blocks_in_use == 2, "in use %llu, want 2",
	       st.blocks_in_use);
	EXPECT(ok, st.bad_free_foreign == 4 && st.bad_free_misaligned == 3 &&
	       st.bad_free_dma == 4 && st.bad_free_double == 2,
	       "counts foreign %llu misaligned %llu dma %llu double %llu",
	       st.bad_free_foreign, st.bad_free_misaligned, st.bad_free_dma,
	       st.bad_free_double);
	EXPECT(ok, dgt_all_bytes((void *)m->a.v, 64, 0xaa) &&
	       dgt_all_bytes((void *)m->b.v, 64, 0xbb),
	       "bytes of live blocks changed by bad frees");
	n = st.blocks_per_chunk * 2;
	b = kcalloc(n, sizeof(*b), GFP_KERNEL);
	EXPECT(ok, b, "no memory");
	if (!b)
		goto out;
	EXPECT(ok, dgt_alloc_blocks(m->pool, b, n) == n, "alloc failed");
	for (i = 0; i < n; i++) {
		EXPECT(ok, b[i].v != m->a.v && b[i].v != m->b.v,
		       "live block %lx handed out again", b[i].v);
		if (b[i].v && b[i].d == m->c.d)
			got_c++;
	}
	/* c's dma was saved before it was cleared: find it by address. */
	EXPECT(ok, dgt_all_bytes((void *)m->a.v, 64, 0xaa) &&
	       dgt_all_bytes((void *)m->b.v, 64, 0xbb), "live blocks changed");
	dgt_free_blocks(m->pool, b, n);
	EXPECT(ok, got_c == 1, "freed block c handed out %u times", got_c);
	dmaguard_pool_free(m->pool, (void *)m->a.v, m->a.d);
	dmaguard_pool_free(m->pool, (void *)m->b.v, m->b.d);
	dgt_stats(m->pool, &st);
	EXPECT(ok, st.blocks_in_use == 0, "in use %llu", st.blocks_in_use);
	EXPECT(ok, dgt_bad_total(&st) == 13, "bad frees %llu, want 13",
	       dgt_bad_total(&st));
out:
	kfree(b);
	dg_ktap_result(&dgt_ktap, ok, "misuse_not_applied");
}

/**
 * dgt_misuse_second_pool() - case: a second pool's report; tears down @m
 * @m: the pool and blocks of dgt_misuse()
 *
 * A second pool's first bad free gets its own report; the first pool none.
 */
void dgt_misuse_second_pool(struct misuse *m)
{
	struct dmaguard_pool *p2;
	struct dmaguard_pool_stats st;
	bool ok = m->setup;
	dma_addr_t d;
	void *v;

	dgt_case_begin();
	p2 = dmaguard_pool_create("dgt_misuse2", dgt_dev, 16, 16, 0);
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
	dgt_stats(m->other, &st);
	EXPECT(ok, dgt_bad_total(&st) == 0, "other pool counted %llu",
	       dgt_bad_total(&st));
out:
	dmaguard_pool_destroy(p2);
	if (m->other && m->o.v)
		dmaguard_pool_free(m->other, (void *)m->o.v, m->o.d);
	dmaguard_pool_destroy(m->other);
	dmaguard_pool_destroy(m->pool);
	dg_ktap_result(&dgt_ktap, ok, "misuse_second_pool");
}
