// SPDX-License-Identifier: GPL-2.0
/*
 * Planted fixture for semantic-patches/dma-free-mismatch.cocci: frees that
 * do not match their allocation, next to correct frees of the same blocks.
 * Never built, never loaded; the reports it must produce are listed in
 * free_mismatch.expected (keep line numbers in step).
 */
#include <linux/module.h>
#include <linux/dmapool.h>
#include <linux/dma-mapping.h>
#include <dmaguard/dmaguard.h>

struct fixture_priv {
	struct device *dev;
	struct dmaguard_pool *pool;
	void *cmd;
	dma_addr_t cmd_dma;
	void *resp;
	dma_addr_t resp_dma;
	void *ring;
	dma_addr_t ring_dma;
};

/* 1: handles swapped in an error path (struct fields, across functions) */
static int fixture_setup(struct fixture_priv *priv)
{
	priv->cmd = dmaguard_pool_zalloc(priv->pool, GFP_KERNEL,
					 &priv->cmd_dma);
	if (!priv->cmd)
		return -ENOMEM;
	priv->resp = dmaguard_pool_zalloc(priv->pool, GFP_KERNEL,
					  &priv->resp_dma);
	if (!priv->resp) {
		dmaguard_pool_free(priv->pool, priv->cmd, priv->resp_dma);
		return -ENOMEM;
	}
	priv->ring = dma_alloc_coherent(priv->dev, PAGE_SIZE, &priv->ring_dma,
					GFP_KERNEL);
	return priv->ring ? 0 : -ENOMEM;
}

static void fixture_teardown(struct fixture_priv *priv,
			     struct dma_pool *legacy)
{
	dmaguard_pool_free(priv->pool, priv->cmd, priv->cmd_dma);
	/* 2: half-converted driver: dmaguard block to the kernel's dma_pool */
	dma_pool_free(legacy, priv->resp, priv->resp_dma);
	/* 3: coherent memory given back with another block's handle */
	dma_free_coherent(priv->dev, PAGE_SIZE, priv->ring, priv->cmd_dma);
}

/* 4: two local buffers, frees crossed */
static void fixture_locals(struct device *dev)
{
	dma_addr_t a_dma, b_dma;
	void *a = dma_alloc_attrs(dev, 256, &a_dma, GFP_KERNEL, 0);
	void *b = dma_alloc_attrs(dev, 256, &b_dma, GFP_KERNEL, 0);

	if (a && b) {
		dma_free_attrs(dev, 256, a, b_dma, 0);
		dma_free_attrs(dev, 256, b, b_dma, 0);
		return;
	}
	if (a)
		dma_free_attrs(dev, 256, a, a_dma, 0);
	if (b)
		dmam_free_coherent(dev, 256, b, b_dma);
}

/* 5: a managed block freed by hand with the unmanaged call */
static void *fixture_managed(struct device *dev, dma_addr_t *out)
{
	dma_addr_t h;
	void *m = dmam_alloc_coherent(dev, 128, &h, GFP_KERNEL);

	if (m && !out) {
		dma_free_coherent(dev, 128, m, h);
		return NULL;
	}
	if (m)
		*out = h;
	return m;
}

/* Correct code with the same names in other functions: nothing to report. */
static void fixture_clean(struct device *dev, struct dmaguard_pool *pool)
{
	dma_addr_t a_dma, b_dma;
	void *a = dmaguard_pool_alloc(pool, GFP_KERNEL, &a_dma);
	void *b = dmaguard_pool_alloc(pool, GFP_KERNEL, &b_dma);

	if (a)
		dmaguard_pool_free(pool, a, a_dma);
	if (b)
		dmaguard_pool_free(pool, b, b_dma);
}

/* 6: inside the core: blocks of the core pool, handles crossed */
static void fixture_core(struct dg_pool *pool)
{
	dma_addr_t x_dma, y_dma;
	void *x = dg_pool_alloc(pool, GFP_KERNEL, &x_dma);
	void *y = dg_pool_alloc(pool, GFP_KERNEL, &y_dma);

	dg_pool_free(pool, x, x_dma);
	dg_pool_free(pool, y, x_dma);
}
