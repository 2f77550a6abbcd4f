// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_test: the pool's properties in a real kernel, on real
 * dma_alloc_coherent() memory of QEMU's edu PCI device when the VM has one
 * (behind the IOMMU, under an IOMMU backend of the VM harness; 32-bit
 * mask), else of a platform device with a 64-bit mask. The first KTAP
 * diagnostic says which device and which DMA path (dg_test_dev_describe()).
 *
 * Everything runs at load time, through the public API (dmaguard_pool_*)
 * plus the DMAGUARD_INTERNAL chunk walk and test hooks (test flavour of
 * dmaguard.ko), and is reported as one
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
 *
 * The module is built from dmaguard_test_main.c (this file: module init,
 * the shared helpers), dmaguard_test_geometry.c (create checks, block
 * geometry, zeroing, the size-carrying public calls),
 * dmaguard_test_atomic.c (GFP_ATOMIC under a spinlock and in hard
 * interrupt context), dmaguard_test_misuse.c (bad frees) and
 * dmaguard_test_reclaim.c (reclaim, two threads, leak check, destroy with
 * live blocks); dmaguard_test.h is what they share.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include "dmaguard_test.h"

DMAGUARD_IMPORT_NS();
DG_TEST_IMPORT_INTERNAL();

struct device *dgt_dev;
struct dg_ktap dgt_ktap;
unsigned int dgt_diag_left;
long dgt_leaked_by_design;

/**
 * dgt_case_begin() - start a case: a fresh budget of diagnostic lines
 */
void dgt_case_begin(void)
{
	dgt_diag_left = DGT_MAX_DIAG;
}

/**
 * dgt_stats() - a pool's statistics, through dmaguard_pool_get_stats()
 * @pool: the pool
 * @st: filled in (all zero, and the case failed, if the call fails)
 */
void dgt_stats(struct dmaguard_pool *pool, struct dmaguard_pool_stats *st)
{
	int ret = dg_test_stats(pool, st);

	if (ret) {
		pr_info("# dmaguard_pool_get_stats: %d\n", ret);
		memset(st, 0, sizeof(*st));
	}
}

/**
 * dgt_bad_total() - bad frees of every kind
 * @st: statistics of a pool
 *
 * Return: the sum of the bad-free counters.
 */
u64 dgt_bad_total(const struct dmaguard_pool_stats *st)
{
	return st->bad_free_foreign + st->bad_free_misaligned +
	       st->bad_free_dma + st->bad_free_double;
}

/**
 * dgt_all_bytes() - whether every byte of a buffer has one value
 * @p: the buffer
 * @len: its length
 * @val: the value
 *
 * Return: true if all @len bytes at @p are @val.
 */
bool dgt_all_bytes(const void *p, size_t len, u8 val)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != val)
			return false;
	return true;
}

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

/**
 * dgt_chunk_collect() - take the chunk list of a pool
 * @pool: the pool
 * @cs: filled in (overflow set if the pool has more than DGT_MAX_CHUNKS)
 */
void dgt_chunk_collect(struct dmaguard_pool *pool, struct chunk_set *cs)
{
	cs->n = 0;
	cs->overflow = false;
	dg_pool_for_each_chunk(dg_test_core(pool), chunk_collect_fn, cs);
}

/**
 * dgt_chunk_of() - the chunk a block lies in
 * @cs: the chunk list
 * @v: the block's address
 * @size: its size
 *
 * Return: the chunk that holds all of [@v, @v + @size), or NULL.
 */
struct chunk_rec *dgt_chunk_of(struct chunk_set *cs, unsigned long v,
			       size_t size)
{
	unsigned int i;

	for (i = 0; i < cs->n; i++)
		if (v >= cs->c[i].mem && v + size <= cs->c[i].mem + cs->c[i].len)
			return &cs->c[i];
	return NULL;
}

/**
 * dgt_chunks_setup() - room for a number of chunks' worth of blocks
 * @pool: an empty pool
 * @chunks: how many chunks' worth
 * @n: set to @chunks times the pool's blocks per chunk
 *
 * One block is allocated and freed first, so that the pool has a chunk
 * and its statistics tell how many blocks a chunk holds.
 *
 * Return: @n zeroed block records (kfree() them), or NULL.
 */
struct blk *dgt_chunks_setup(struct dmaguard_pool *pool, unsigned int chunks,
			     unsigned int *n)
{
	struct dmaguard_pool_stats st;
	struct blk *b;
	dma_addr_t d;
	void *v;

	*n = 0;
	v = dmaguard_pool_alloc(pool, GFP_KERNEL, &d);
	if (!v)
		return NULL;
	dgt_stats(pool, &st);
	dmaguard_pool_free(pool, v, d);
	*n = chunks * st.blocks_per_chunk;
	b = kcalloc(*n, sizeof(*b), GFP_KERNEL);
	return b;
}

/**
 * dgt_alloc_blocks() - allocate blocks with GFP_KERNEL
 * @pool: the pool
 * @b: the records, filled in (v is 0 where an allocation failed)
 * @n: how many
 *
 * Return: how many allocations succeeded.
 */
unsigned int dgt_alloc_blocks(struct dmaguard_pool *pool, struct blk *b,
			      unsigned int n)
{
	unsigned int i, got = 0;

	for (i = 0; i < n; i++) {
		b[i].v = (unsigned long)dmaguard_pool_alloc(pool, GFP_KERNEL,
							    &b[i].d);
		if (b[i].v)
			got++;
	}
	return got;
}

/**
 * dgt_free_blocks() - free the blocks of the records that hold one
 * @pool: the pool
 * @b: the records (those with v 0 are skipped)
 * @n: how many
 */
void dgt_free_blocks(struct dmaguard_pool *pool, struct blk *b,
		     unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (b[i].v)
			dmaguard_pool_free(pool, (void *)b[i].v, b[i].d);
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
#define DGT_NR_OTHER		21

static char *only;
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "Run this case instead of the others: destroy_race (a spec of its own, on four CPUs)");

static int __init dgt_init(void)
{
	struct dg_test_dev td;
	struct misuse *m;
	long base;
	unsigned int i;
	int ret;

	ret = dg_test_dev_get(&td, "dmaguard_test");
	if (ret)
		return ret;
	dgt_dev = td.dev;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		dg_test_dev_put(&td);
		return -ENOMEM;
	}
	base = dg_test_chunk_bytes();

	if (only) {
		ret = strcmp(only, "destroy_race") ? -EINVAL : 0;
		if (!ret) {
			dg_ktap_begin(&dgt_ktap, 1);
			dg_test_dev_describe(&td);
			dgt_destroy_race();
			pr_info("# %u of %u cases failed\n", dgt_ktap.failed,
				dgt_ktap.n);
		}
		kfree(m);
		dg_test_dev_put(&td);
		dgt_dev = NULL;
		return ret;
	}
	dg_ktap_begin(&dgt_ktap, DGT_NR_OTHER + ARRAY_SIZE(dgt_rows));
	dg_test_dev_describe(&td);
	dgt_create_validation();
	for (i = 0; i < ARRAY_SIZE(dgt_rows); i++)
		dgt_geometry(dgt_rows[i].name, dgt_rows[i].size,
			     dgt_rows[i].align, dgt_rows[i].boundary);
	dgt_zeroing();
	dgt_public_opts_stats();
	dgt_atomic_spinlock();
	dgt_atomic_hardirq();
	dgt_irq_on_busy_cache();
	dgt_misuse(m);
	dgt_misuse_not_applied(m);
	dgt_misuse_second_pool(m);
	dgt_reclaim();
	dgt_cpu_offline();
	dgt_failed_growth_steals();
	dgt_hotplug_callback();
	dgt_concurrency();
	dgt_stats_race();
	dgt_no_leak(base);
	dgt_destroy_live();
	dgt_managed();
	pr_info("# leaked_by_design=%ld\n", dgt_leaked_by_design);
	pr_info("# %u of %u cases failed\n", dgt_ktap.failed, dgt_ktap.n);
	WARN_ON(dgt_ktap.n != DGT_NR_OTHER + ARRAY_SIZE(dgt_rows));

	kfree(m);
	dg_test_dev_put(&td);
	dgt_dev = NULL;
	return 0;
}

static void __exit dgt_exit(void)
{
}

module_init(dgt_init);
module_exit(dgt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dmaguard pool tests on real coherent DMA memory (KTAP)");
