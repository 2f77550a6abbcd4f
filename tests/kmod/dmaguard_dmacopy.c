// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_dmacopy: a real device copies pool blocks by DMA, so that every
 * DMA handle the pool hands out is shown to reach the memory of its CPU
 * address, under whatever DMA backend the VM runs (scripts/vm/vmtest.py:
 * direct, Intel IOMMU strict and lazy, AMD IOMMU, swiotlb=force).
 *
 * The device is QEMU's edu (dg_test_edu.h): the module needs it ("-device
 * edu,dma_mask=0xffffffff"; without it every case fails or is skipped).
 * For each row, a pool on the edu device hands out enough blocks for a few
 * chunks; each block must be aligned to the pool's align in DMA address
 * space, and in CPU address space up to PAGE_SIZE (the DMA API aligns
 * coherent memory beyond a page only in DMA address space: an IOMMU
 * remaps it into vmalloc space, see DESIGN.md), and may not cross the
 * boundary in DMA address space. Then, for two pairs of blocks A and B in
 * different chunks: the CPU fills A with a pattern and B with a filler,
 * the device copies A into its buffer and from there into B, by their DMA
 * addresses, DG_EDU_XFER bytes at a time (the start, the middle and the end
 * of blocks bigger than that: a transfer takes 100 ms), and the CPU finds
 * A's pattern in B where the device wrote and the filler elsewhere.
 *
 * Cases, in order:
 *   device           the device and its DMA path (diagnostics), and that
 *                    the DMA addresses are IOVAs exactly when the device's
 *                    IOMMU domain translates (DMA, DMA-FQ)
 *   dmacopy_<size>_<align>[_b<boundary>]   one per row
 *   dmacopy_atomic   the same for blocks of a pool grown with GFP_ATOMIC
 *                    under a spinlock with interrupts off
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include "dg_test_dev.h"
#include "dg_test_hooks.h"

DMAGUARD_IMPORT_NS();
DG_TEST_IMPORT_INTERNAL();

#define DMC_MAX_BLOCKS	1024
#define DMC_FILLER	0x5a

struct dmc_blk {
	u8 *v;
	dma_addr_t d;
};

struct dmc_row {
	const char *name;
	size_t size, align, boundary;
};

static const struct dmc_row dmc_rows[] = {
	{ "dmacopy_16_16", 16, 16, 0 },
	{ "dmacopy_64_64", 64, 64, 0 },
	{ "dmacopy_68_32_b4096", 68, 32, 4096 },
	{ "dmacopy_1000_8_b1024", 1000, 8, 1024 },
	{ "dmacopy_1024_1024", 1024, 1024, 0 },
	{ "dmacopy_3000_64_b4096", 3000, 64, 4096 },
	{ "dmacopy_4096_4096", 4096, 4096, 0 },
	{ "dmacopy_65536_65536", 65536, 65536, 0 },
	{ "dmacopy_200000_4096_b262144", 200000, 4096, 262144 },
};

static struct dg_test_dev dmc_dev;
static void __iomem *dmc_mmio;
static struct dg_ktap dmc_ktap;
static unsigned int dmc_diag_left;

#define EXPECT(ok, cond, fmt, ...)					\
	DG_EXPECT(ok, dmc_diag_left, cond, fmt, ##__VA_ARGS__)

/* The physical address behind a CPU address of coherent memory. */
static phys_addr_t dmc_phys(void *v)
{
	if (is_vmalloc_addr(v))
		return page_to_phys(vmalloc_to_page(v)) + offset_in_page(v);
	return virt_to_phys(v);
}

static u8 dmc_pattern(size_t i, u8 salt)
{
	return (u8)(i * 7 + (i >> 8) * 13 + salt);
}

/* Copy [off, off + len) of block @a into block @b through the device. */
static int dmc_copy_piece(struct dmc_blk *a, struct dmc_blk *b, size_t off,
			  u32 len)
{
	int ret = dg_edu_dma(dmc_mmio, false, a->d + off, len);

	return ret ? ret : dg_edu_dma(dmc_mmio, true, b->d + off, len);
}

/*
 * @a into @b by the device: one transfer for a small block; the start,
 * the middle and the end of a bigger one. Then every byte of @b is
 * either @a's where the device wrote or the filler.
 */
static bool dmc_copy_check(struct dmc_blk *a, struct dmc_blk *b, size_t size,
			   u8 salt)
{
	size_t off[3], i, j, n;
	u32 len = min_t(size_t, size, DG_EDU_XFER);
	bool ok = true;
	int ret = 0;

	off[0] = 0;
	off[1] = size / 2 - len / 2;
	off[2] = size - len;
	n = size > 2 * DG_EDU_XFER ? 3 : size > DG_EDU_XFER ? 2 : 1;
	if (n == 2)
		off[1] = off[2];
	for (i = 0; i < size; i++)
		a->v[i] = dmc_pattern(i, salt);
	memset(b->v, DMC_FILLER, size);
	for (j = 0; j < n && !ret; j++)
		ret = dmc_copy_piece(a, b, off[j], len);
	EXPECT(ok, !ret, "DMA %pad -> %pad failed: %d", &a->d, &b->d, ret);
	if (ret)
		return false;
	for (i = 0; i < size; i++) {
		bool copied = false;

		for (j = 0; j < n; j++)
			copied |= i >= off[j] && i < off[j] + len;
		if (b->v[i] != (copied ? dmc_pattern(i, salt) : DMC_FILLER) ||
		    a->v[i] != dmc_pattern(i, salt))
			break;
	}
	EXPECT(ok, i == size,
	       "dma %pad -> %pad, %zu bytes: byte %zu of the copy is %#x, want %#x",
	       &a->d, &b->d, size, i, i < size ? b->v[i] : 0,
	       i < size ? dmc_pattern(i, salt) : 0);
	return ok;
}

/* Alignment in both address spaces, and the boundary in DMA space. */
static bool dmc_check_place(struct dmc_blk *b, const struct dmc_row *r)
{
	size_t al = r->align ? r->align : 1;
	bool ok = true;

	EXPECT(ok, IS_ALIGNED(b->d, al), "dma %pad not aligned to %zu", &b->d,
	       al);
	EXPECT(ok, IS_ALIGNED((unsigned long)b->v, min_t(size_t, al, PAGE_SIZE)),
	       "block at dma %pad: CPU address not aligned to %zu", &b->d,
	       min_t(size_t, al, PAGE_SIZE));
	EXPECT(ok, !dg_test_crosses(b->d, r->size, r->boundary),
	       "dma %pad + %zu crosses %zu", &b->d, r->size, r->boundary);
	return ok;
}

/*
 * Blocks for a few chunks: three chunks' worth, at most DMC_MAX_BLOCKS.
 * One block is allocated and freed first so that the statistics tell how
 * many blocks a chunk holds.
 */
static unsigned int dmc_alloc(struct dmaguard_pool *pool, struct dmc_blk *b,
			      gfp_t gfp)
{
	struct dmaguard_pool_stats st;
	unsigned int i, n;
	dma_addr_t d;
	void *v;

	v = dmaguard_pool_alloc(pool, gfp, &d);
	if (!v)
		return 0;
	if (dg_test_stats(pool, &st))
		st.blocks_per_chunk = 1;
	dmaguard_pool_free(pool, v, d);
	n = min(3 * st.blocks_per_chunk, (u32)DMC_MAX_BLOCKS);
	for (i = 0; i < n; i++) {
		b[i].v = dmaguard_pool_alloc(pool, gfp, &b[i].d);
		if (!b[i].v)
			break;
	}
	return i;
}

static void dmc_free(struct dmaguard_pool *pool, struct dmc_blk *b,
		     unsigned int n)
{
	while (n--)
		dmaguard_pool_free(pool, b[n].v, b[n].d);
}

/*
 * Place every block, then copy the first into the last and the last into
 * the middle one by DMA (different chunks whenever there are several).
 */
static bool dmc_check_blocks(struct dmaguard_pool *pool, struct dmc_blk *b,
			     unsigned int n, const struct dmc_row *r)
{
	struct dmaguard_pool_stats st;
	unsigned int i;
	bool ok = true;

	for (i = 0; i < n && ok; i++)
		ok = dmc_check_place(&b[i], r);
	if (!ok)
		return false;
	ok = dmc_copy_check(&b[0], &b[n - 1], r->size, 0x11);
	ok = dmc_copy_check(&b[n - 1], &b[n / 2], r->size, 0x77) && ok;
	dg_test_stats(pool, &st);
	pr_info("# %s: %u blocks in %u chunks of %u bytes\n", r->name, n,
		st.chunks, st.chunk_size);
	return ok;
}

static void dmc_row(const struct dmc_row *r)
{
	struct dmaguard_pool *pool;
	struct dmc_blk *b;
	unsigned int n = 0;
	bool ok = true;

	dmc_diag_left = 8;
	b = kcalloc(DMC_MAX_BLOCKS, sizeof(*b), GFP_KERNEL);
	pool = dmaguard_pool_create(r->name, dmc_dev.dev, r->size, r->align,
				    r->boundary);
	EXPECT(ok, b && pool, "setup failed");
	if (ok)
		n = dmc_alloc(pool, b, GFP_KERNEL);
	EXPECT(ok, n >= 3, "only %u blocks allocated", n);
	if (ok)
		ok = dmc_check_blocks(pool, b, n, r);
	if (pool)
		dmc_free(pool, b, n);
	dmaguard_pool_destroy(pool);
	kfree(b);
	dg_ktap_result(&dmc_ktap, ok, r->name);
}

/* Chunks made with GFP_ATOMIC may come from elsewhere: copy those too. */
static void dmc_atomic(void)
{
	static const struct dmc_row r = { "dmacopy_atomic", 4096, 4096, 0 };
	static DEFINE_SPINLOCK(lock);
	struct dmaguard_pool *pool;
	struct dmc_blk *b;
	unsigned long flags;
	unsigned int n = 0;
	bool ok = true;

	dmc_diag_left = 8;
	b = kcalloc(DMC_MAX_BLOCKS, sizeof(*b), GFP_KERNEL);
	pool = dmaguard_pool_create(r.name, dmc_dev.dev, r.size, r.align,
				    r.boundary);
	EXPECT(ok, b && pool, "setup failed");
	if (ok) {
		spin_lock_irqsave(&lock, flags);
		n = dmc_alloc(pool, b, GFP_ATOMIC);
		spin_unlock_irqrestore(&lock, flags);
	}
	EXPECT(ok, n >= 3, "only %u blocks allocated with GFP_ATOMIC", n);
	if (ok)
		ok = dmc_check_blocks(pool, b, n, &r);
	if (pool)
		dmc_free(pool, b, n);
	dmaguard_pool_destroy(pool);
	kfree(b);
	dg_ktap_result(&dmc_ktap, ok, r.name);
}

/*
 * The device and its DMA path. Under an IOMMU that translates, a DMA
 * address is an IOVA the IOMMU maps (the 32-bit mask puts it just below
 * 4 GiB, far from the guest's memory); without, it is the physical
 * address. A page of coherent memory (the DMA API's, not the pool's) must
 * agree with the IOMMU domain type.
 */
static bool dmc_device(void)
{
	bool ok = true, iova;
	phys_addr_t phys;
	dma_addr_t d;
	void *v;

	dmc_diag_left = 8;
	dg_test_dev_describe(&dmc_dev);
	EXPECT(ok, dmc_dev.edu,
	       "no edu device: qemu: -device edu,dma_mask=0xffffffff");
	EXPECT(ok, dmc_mmio, "edu registers not mapped");
	if (!ok)
		return false;
	v = dma_alloc_coherent(dmc_dev.dev, PAGE_SIZE, &d, GFP_KERNEL);
	EXPECT(ok, v, "no coherent memory");
	if (!v)
		return false;
	phys = dmc_phys(v);
	iova = d != phys;
	pr_info("# coherent page: dma %pad, phys %pa: %s\n", &d, &phys,
		iova ? "IOVA" : "physical address");
	EXPECT(ok, iova == dg_test_translated(dmc_dev.dev),
	       "IOMMU domain %s, but the DMA address is %s",
	       dg_test_iommu_domain(dmc_dev.dev),
	       iova ? "an IOVA" : "physical");
	dma_free_coherent(dmc_dev.dev, PAGE_SIZE, v, d);
	return ok;
}

static int __init dmc_init(void)
{
	unsigned int i;
	bool dev_ok;
	int ret;

	ret = dg_test_dev_get(&dmc_dev, "dmaguard_dmacopy");
	if (ret)
		return ret;
	if (dmc_dev.edu)
		dmc_mmio = dg_edu_map(dmc_dev.edu);

	dg_ktap_begin(&dmc_ktap, 2 + ARRAY_SIZE(dmc_rows));
	dev_ok = dmc_device();
	dg_ktap_result(&dmc_ktap, dev_ok, "device");
	for (i = 0; i < ARRAY_SIZE(dmc_rows); i++) {
		if (dev_ok)
			dmc_row(&dmc_rows[i]);
		else
			dg_ktap_skip(&dmc_ktap, dmc_rows[i].name, "no device");
	}
	if (dev_ok)
		dmc_atomic();
	else
		dg_ktap_skip(&dmc_ktap, "dmacopy_atomic", "no device");
	pr_info("# %u of %u cases failed\n", dmc_ktap.failed, dmc_ktap.n);

	if (dmc_mmio)
		pci_iounmap(dmc_dev.edu, dmc_mmio);
	dmc_mmio = NULL;
	dg_test_dev_put(&dmc_dev);
	return 0;
}

static void __exit dmc_exit(void)
{
}

module_init(dmc_init);
module_exit(dmc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dmaguard blocks copied by a real device's DMA under each DMA backend (KTAP)");
