// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_test: managed pools (dmaguard_pool_create_managed(), v1.2), on
 * a platform device this file binds to a driver of its own: the pool goes
 * with the unbind, or earlier with dmaguard_pool_destroy_managed() (and
 * not twice); a pool created the plain way is refused by the managed
 * destroy, reported, and still works. The chunk memory the module holds
 * tells whether a pool is gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/platform_device.h>
#include "dmaguard_test.h"

#define DGT_MANAGED_DRV	"dmaguard_test_managed"

static struct dmaguard_pool *dgt_mpool;

static int dgt_managed_probe(struct platform_device *pdev)
{
	int ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));

	if (ret)
		return ret;
	dgt_mpool = dmaguard_pool_create_managed("dgt_managed", &pdev->dev,
						 64, 64, 0);
	return dgt_mpool ? 0 : -ENOMEM;
}

static struct platform_driver dgt_managed_driver = {
	.probe = dgt_managed_probe,
	.driver = { .name = DGT_MANAGED_DRV },
};

/* Bind a new device: its probe makes dgt_mpool, from which a block goes. */
static struct platform_device *managed_bind(bool *ok)
{
	struct platform_device *pdev;
	dma_addr_t dma;
	void *b = NULL;

	dgt_mpool = NULL;
	pdev = platform_device_register_simple(DGT_MANAGED_DRV,
					       PLATFORM_DEVID_AUTO, NULL, 0);
	EXPECT(*ok, !IS_ERR(pdev) && dgt_mpool, "bind: no managed pool");
	if (IS_ERR(pdev))
		return NULL;
	if (dgt_mpool)
		b = dmaguard_pool_alloc(dgt_mpool, GFP_KERNEL, &dma);
	EXPECT(*ok, b, "alloc from the managed pool failed");
	if (b)
		dmaguard_pool_free(dgt_mpool, b, dma);
	return pdev;
}

void dgt_managed(void)
{
	long base = dg_test_chunk_bytes();
	struct platform_device *pdev;
	struct dmaguard_pool *plain;
	dma_addr_t dma;
	bool ok = true;
	void *b;

	dgt_case_begin();
	EXPECT(ok, !dmaguard_pool_create_managed("dgt_managed", NULL, 64, 0, 0),
	       "created without a device");
	if (platform_driver_register(&dgt_managed_driver)) {
		dg_ktap_result(&dgt_ktap, false, "managed_pool");
		return;
	}

	/* Destroyed by the unbind. */
	pdev = managed_bind(&ok);
	EXPECT(ok, dg_test_chunk_bytes() > base, "no chunk for the pool");
	/* Not managed: refused, reported, still usable. */
	plain = dmaguard_pool_create("dgt_plain", dgt_dev, 64, 64, 0);
	EXPECT(ok, plain, "plain pool");
	if (plain) {
		dmaguard_pool_destroy_managed(plain);
		b = dmaguard_pool_alloc(plain, GFP_KERNEL, &dma);
		EXPECT(ok, b, "plain pool destroyed by the managed destroy");
		if (b)
			dmaguard_pool_free(plain, b, dma);
		dmaguard_pool_destroy(plain);
	}
	if (pdev)
		platform_device_unregister(pdev);
	EXPECT(ok, dg_test_chunk_bytes() == base,
	       "%ld chunk bytes left after the unbind",
	       dg_test_chunk_bytes() - base);

	/* Destroyed early; the unbind then has nothing to destroy. */
	pdev = managed_bind(&ok);
	if (dgt_mpool)
		dmaguard_pool_destroy_managed(dgt_mpool);
	EXPECT(ok, dg_test_chunk_bytes() == base,
	       "%ld chunk bytes left after the managed destroy",
	       dg_test_chunk_bytes() - base);
	if (pdev)
		platform_device_unregister(pdev);

	platform_driver_unregister(&dgt_managed_driver);
	dgt_mpool = NULL;
	dg_ktap_result(&dgt_ktap, ok, "managed_pool");
}
