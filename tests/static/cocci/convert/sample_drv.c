// SPDX-License-Identifier: GPL-2.0
/*
 * Sample driver on the kernel's dma_pool: the input of the conversion test
 * of semantic-patches/dma_pool-to-dmaguard.cocci. scripts/static/
 * coccicheck.sh converts it (spatch -D patch), compares the result with
 * sample_drv.converted, and builds the converted driver against dmaguard's
 * headers and Module.symvers. Never loaded.
 */
#include <linux/module.h>
#include <linux/version.h>
#include <linux/platform_device.h>
#include <linux/dmapool.h>
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#define SAMPLE_RING	16

struct sample_desc {
	__le64 addr;
	__le32 len;
	__le32 flags;
};

struct sample_priv {
	struct device *dev;
	struct dma_pool *desc_pool;
	struct sample_desc *ring[SAMPLE_RING];
	dma_addr_t ring_dma[SAMPLE_RING];
};

static void sample_free_ring(struct sample_priv *priv)
{
	int i;

	for (i = 0; i < SAMPLE_RING; i++) {
		if (!priv->ring[i])
			continue;
		dma_pool_free(priv->desc_pool, priv->ring[i],
			      priv->ring_dma[i]);
		priv->ring[i] = NULL;
	}
}

static int sample_fill_ring(struct sample_priv *priv)
{
	int i;

	for (i = 0; i < SAMPLE_RING; i++) {
		priv->ring[i] = dma_pool_zalloc(priv->desc_pool, GFP_KERNEL,
						&priv->ring_dma[i]);
		if (!priv->ring[i])
			return -ENOMEM;
	}
	return 0;
}

static struct sample_desc *sample_get_one(struct dma_pool *pool,
					  dma_addr_t *dma)
{
	return dma_pool_alloc(pool, GFP_ATOMIC, dma);
}

static int sample_probe(struct platform_device *pdev)
{
	struct sample_priv *priv;
	struct sample_desc *extra;
	dma_addr_t extra_dma;
	int ret;

	priv = devm_kzalloc(&pdev->dev, sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	priv->dev = &pdev->dev;
	priv->desc_pool = dma_pool_create("sample_desc", &pdev->dev,
					  sizeof(struct sample_desc), 16, 0);
	if (!priv->desc_pool)
		return -ENOMEM;
	ret = sample_fill_ring(priv);
	if (ret)
		goto err;
	extra = sample_get_one(priv->desc_pool, &extra_dma);
	if (extra)
		dma_pool_free(priv->desc_pool, extra, extra_dma);
	platform_set_drvdata(pdev, priv);
	return 0;
err:
	sample_free_ring(priv);
	dma_pool_destroy(priv->desc_pool);
	return ret;
}

static void sample_teardown(struct platform_device *pdev)
{
	struct sample_priv *priv = platform_get_drvdata(pdev);

	sample_free_ring(priv);
	dma_pool_destroy(priv->desc_pool);
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
static void sample_remove(struct platform_device *pdev)
{
	sample_teardown(pdev);
}
#else
static int sample_remove(struct platform_device *pdev)
{
	sample_teardown(pdev);
	return 0;
}
#endif

static struct platform_driver sample_driver = {
	.probe = sample_probe,
	.remove = sample_remove,
	.driver = {
		.name = "dmaguard-sample",
	},
};
module_platform_driver(sample_driver);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dmaguard conversion fixture: a dma_pool driver");
