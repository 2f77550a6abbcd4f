// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_scribble: a hostile device against dmaguard, and the same
 * attack against the kernel's own dma_pool.
 *
 * Part 1, dmaguard. For each row a pool takes random allocations and
 * frees; after EVERY operation the whole memory of every chunk
 * (dg_pool_for_each_chunk) is overwritten, as a device could, with one of
 * six patterns: random bytes, all-ones, forged pointers to a decoy buffer
 * (its address and its would-be DMA address), pointers to the live blocks
 * with their DMA addresses, small in-chunk offsets of live blocks, zeros.
 * Each allocation must lie inside a chunk with a matching DMA offset,
 * aligned, not crossing the boundary, overlapping no live block, and not
 * be the decoy; each legitimate free must be accepted.
 *
 * Part 2, the kernel's dma_pool (whatever this kernel's version of it).
 * Its free list lives in the free blocks themselves. The module first
 * finds out how (runtime probe, no version check): mainline since 6.4
 * threads a pointer list (first 8 bytes of a free block = next free
 * block, next 8 = its dma); older kernels keep an in-page offset list
 * (first 4 bytes of a free block = offset of the next free block in the
 * page, bounded by the page size). Then, on private pools of the test
 * device, the device's move:
 *
 *   forged decoy: allocate a block R and free it (it is the list head);
 *   write the decoy's address over R's first 8 bytes; allocate twice.
 *   With the pointer list the second allocation returns the decoy: the
 *   kernel hands out memory the device chose (and zeroes it itself, under
 *   init_on_alloc). With the offset list the forged value exceeds the
 *   page, the page looks full, and a new page is used.
 *
 *   forged live block: with blocks Y and X allocated, free X and point its
 *   link at Y (an address or an in-page offset, whatever the list holds):
 *   the second allocation returns Y while Y is still live, on both
 *   designs.
 *
 * The module never writes through a pointer the kernel's pool returned
 * for the decoy. The decoy is the module's own kmalloc() buffer, and its
 * first 16 bytes are set up so that the list continues at the original
 * next block after the decoy is popped. Afterwards each pool is put back
 * exactly as it was, with only the in-band moves a device could make plus
 * frees of genuine blocks: the forged entry is never freed back. The
 * block that was handed out twice is freed a second time, which links it
 * into the list twice, and a device-style write of its link then drops
 * the duplicate. The pool's count of active blocks is zero again, its
 * list is a proper list, and the module then allocates and frees
 * three pages' worth of blocks to check that (distinct blocks, DMA
 * addresses that match) before dma_pool_destroy(). If anything is not as
 * expected, the pool is leaked instead (never destroyed, nothing freed).
 *
 * Part 3, the same with a real device: QEMU's edu PCI device (when the VM
 * has one) DMA-writes the forged pointer into the kernel pool's free
 * block, and DMA-overwrites dmaguard's chunks while the pool keeps
 * allocating and freeing (see the part 3 comment).
 *
 * The test device of all three parts is the edu device when the VM has
 * one (behind the IOMMU under an IOMMU backend), else a platform device
 * (dg_test_dev_get()); the first KTAP diagnostic after the seed names it.
 *
 * Machine-readable lines, for `make run`:
 *   REPORT scribble kernel=K allocator=dma_pool forged_alloc_returned_decoy=yes|no
 *   REPORT scribble kernel=K allocator=dma_pool freelist=... (details)
 *   REPORT scribble kernel=K allocator=dmaguard ops=N scribbles=N
 *          outside_chunk=N duplicate=N decoy=N
 *   and, with the edu device, the first and the last with device=edu
 *   after the allocator (the last ending in ops_during_dma=N).
 *
 * The module is built from dmaguard_scribble_main.c (this file: module
 * init, the decoy, the seed), dmaguard_scribble_dg.c (part 1),
 * dmaguard_scribble_kpool.c (part 2) and dmaguard_scribble_edu.c (part
 * 3); dmaguard_scribble.h is what they share.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/io.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/utsname.h>
#include <linux/sizes.h>
#include "dmaguard_scribble.h"

DMAGUARD_IMPORT_NS();
DG_TEST_IMPORT_INTERNAL();

u64 dgs_seed;
module_param_named(seed, dgs_seed, ullong, 0444);
MODULE_PARM_DESC(seed, "PRNG seed (0: random, printed)");

struct dg_test_dev dgs_tdev;
struct device *dgs_dev;
struct dg_ktap dgs_ktap;
void *dgs_decoy;
dma_addr_t dgs_decoy_dma;

static void *decoy_alloc(void)
{
	void *rejected[8], *p = NULL;
	int i, n = 0;

	/*
	 * An offset list reads the low 32 bits of a forged address: keep a
	 * decoy whose low bits are clearly beyond any page offset.
	 */
	for (i = 0; i < ARRAY_SIZE(rejected); i++) {
		p = kmalloc(DGS_DECOY_SIZE, GFP_KERNEL);
		if (!p || (u32)(unsigned long)p >= SZ_64K)
			break;
		rejected[n++] = p;
		p = NULL;
	}
	while (n)
		kfree(rejected[--n]);
	return p;
}

static int __init dgs_init(void)
{
	const char *kver = utsname()->release;
	int ret;

	ret = dg_test_dev_get(&dgs_tdev, "dmaguard_scribble");
	if (ret)
		return ret;
	dgs_dev = dgs_tdev.dev;
	dgs_decoy = decoy_alloc();
	if (!dgs_decoy) {
		dg_test_dev_put(&dgs_tdev);
		return -ENOMEM;
	}
	dgs_decoy_dma = virt_to_phys(dgs_decoy);
	if (!dgs_seed)
		dgs_seed = get_random_u64() | 1;

	dg_ktap_begin(&dgs_ktap, dgs_nr_rows + 6);
	pr_info("# seed=%llu kernel=%s\n", dgs_seed, kver);
	dg_test_dev_describe(&dgs_tdev);
	dgs_dmaguard_run(kver);

	dgs_kp_run(kver);
	dgs_edu_run(kver);
	pr_info("# %u of %u cases failed\n", dgs_ktap.failed, dgs_ktap.n);

	kfree(dgs_decoy);
	dgs_decoy = NULL;
	dg_test_dev_put(&dgs_tdev);
	dgs_dev = NULL;
	return 0;
}

static void __exit dgs_exit(void)
{
}

module_init(dgs_init);
module_exit(dgs_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dmaguard device-scribble test and the kernel dma_pool contrast (KTAP)");
