// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_inplace_test: misuse through the kernel's own dma_pool API with
 * dmaguard_inplace.ko loaded (KTAP). Each case makes a pool with
 * dma_pool_create() on the test device (dg_test_dev_get()), as a stock
 * driver would, and misuses it: a double free, a free of memory the pool
 * never gave out, a free of a block's interior. Each bad free must leave
 * the pool whole: the blocks it then hands out (three pages' worth) are
 * distinct, aligned, not the freed memory and, without an IOMMU, at the
 * DMA address of their CPU address. The kernel's pool links a block freed
 * twice into its free list twice and hands it out twice, which is the
 * control: without dmaguard_inplace.ko the double-free case fails (and its
 * pool is leaked, never destroyed). The reports are dmaguard's
 * ("pool NAME: bad free of ...; not applied"), checked by the spec.
 *
 * With going=1, instead: one create while dmaguard_inplace.ko is going
 * (its test hook), which must still give the driver a working pool.
 *
 * With churn=N, instead: one case that creates, uses and destroys a pool
 * on the test device N times, each the device's only one, so that each
 * create makes its sysfs "pools" file and each destroy removes it, while
 * the spec reads that file in a loop (the destroy racing the reader).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dmapool.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "dg_test_kpool.h"

#define DGIT_SIZE	64

static unsigned int churn;
module_param(churn, uint, 0444);
MODULE_PARM_DESC(churn, "Create and destroy a pool this many times instead");
static bool going;
module_param(going, bool, 0444);
MODULE_PARM_DESC(going, "Create one pool while dmaguard_inplace.ko is going instead");

static struct dg_test_dev dgit_tdev;
static struct dg_ktap dgit_ktap;

/* Make a pool, misuse it with @misuse, check it, destroy it if whole. */
static void dgit_case(const char *name,
		      void (*misuse)(struct dma_pool *pool, void **bad))
{
	struct dma_pool *pool;
	void *bad = NULL;
	bool ok;

	pool = dma_pool_create(name, dgit_tdev.dev, DGIT_SIZE, DGIT_SIZE, 0);
	if (!pool) {
		dg_ktap_result(&dgit_ktap, false, name);
		return;
	}
	misuse(pool, &bad);
	ok = dg_test_kpool_whole(pool, dgit_tdev.dev, DGIT_SIZE, bad, 1,
				 name);
	if (ok)
		dma_pool_destroy(pool);
	dg_ktap_result(&dgit_ktap, ok, name);
}

static void dgit_double_free(struct dma_pool *pool, void **bad)
{
	dma_addr_t d;
	void *v = dma_pool_alloc(pool, GFP_KERNEL, &d);

	if (!v)
		return;
	dma_pool_free(pool, v, d);
	dma_pool_free(pool, v, d);
}

static void dgit_foreign_free(struct dma_pool *pool, void **bad)
{
	void *v = kmalloc(DGIT_SIZE, GFP_KERNEL);

	if (!v)
		return;
	dma_pool_free(pool, v, virt_to_phys(v));
	*bad = v;
	/* never handed out: compared by address only, after this free */
	kfree(v);
}

static void dgit_interior_free(struct dma_pool *pool, void **bad)
{
	dma_addr_t d;
	void *v = dma_pool_alloc(pool, GFP_KERNEL, &d);

	if (!v)
		return;
	dma_pool_free(pool, v + DGIT_SIZE / 2, d + DGIT_SIZE / 2);
	*bad = v + DGIT_SIZE / 2;
	dma_pool_free(pool, v, d);
}

/*
 * A create while dmaguard_inplace.ko is going (its test hook set: the
 * window of rmmod after the last pool went): the driver still gets a
 * pool, the kernel's, that works and is destroyed as usual. The kernel's
 * struct dma_pool starts with a list head, a kernel address; one of
 * dmaguard_inplace.ko starts with a magic that is not one.
 */
static void dgit_create_while_going(void)
{
	struct dma_pool *pool;
	bool ok = false;
	dma_addr_t d;
	void *v;

	pool = dma_pool_create("dgit_going", dgit_tdev.dev, DGIT_SIZE,
			       DGIT_SIZE, 0);
	pr_info("# create while going: %s\n", !pool ? "NULL" :
		virt_addr_valid(*(void **)pool) ? "the kernel's pool" :
		"not the kernel's pool");
	if (pool) {
		v = dma_pool_alloc(pool, GFP_KERNEL, &d);
		ok = v && virt_addr_valid(*(void **)pool);
		if (v)
			dma_pool_free(pool, v, d);
		dma_pool_destroy(pool);
	}
	dg_ktap_result(&dgit_ktap, ok, "dgit_create_while_going");
}

static void dgit_churn(void)
{
	unsigned int i, budget = 3;
	struct dma_pool *pool;
	bool ok = true;
	dma_addr_t d;
	void *v;

	for (i = 0; i < churn && ok; i++) {
		pool = dma_pool_create("dgit_churn", dgit_tdev.dev, DGIT_SIZE,
				       DGIT_SIZE, 0);
		DG_EXPECT(ok, budget, pool, "create %u failed", i);
		if (!pool)
			break;
		v = dma_pool_alloc(pool, GFP_KERNEL, &d);
		DG_EXPECT(ok, budget, v, "allocation %u failed", i);
		if (v)
			dma_pool_free(pool, v, d);
		dma_pool_destroy(pool);
	}
	pr_info("# %u creates and destroys\n", i);
	dg_ktap_result(&dgit_ktap, ok, "dgit_churn");
}

static int __init dgit_init(void)
{
	int ret;

	ret = dg_test_dev_get(&dgit_tdev, "dmaguard_inplace_test");
	if (ret)
		return ret;
	dg_ktap_begin(&dgit_ktap, churn || going ? 1 : 3);
	dg_test_dev_describe(&dgit_tdev);
	if (going) {
		dgit_create_while_going();
	} else if (churn) {
		dgit_churn();
	} else {
		dgit_case("dgit_double_free", dgit_double_free);
		dgit_case("dgit_foreign_free", dgit_foreign_free);
		dgit_case("dgit_interior_free", dgit_interior_free);
	}
	pr_info("# %u of %u cases failed\n", dgit_ktap.failed, dgit_ktap.n);
	dg_test_dev_put(&dgit_tdev);
	return 0;
}

static void __exit dgit_exit(void)
{
}

module_init(dgit_init);
module_exit(dgit_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Misuse of the kernel's dma_pool API under dmaguard_inplace (KTAP)");
