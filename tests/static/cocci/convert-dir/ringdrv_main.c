// SPDX-License-Identifier: GPL-2.0
/* Creates the pool; the only file of the module with MODULE_LICENSE(). */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/dmapool.h>
#include "ringdrv.h"

/**
 * ringdrv_attach() - a ring of descriptors for @dev
 * @dev: the device
 *
 * Return: the ring, or an ERR_PTR().
 */
struct ringdrv *ringdrv_attach(struct device *dev)
{
	struct ringdrv *rd = kzalloc(sizeof(*rd), GFP_KERNEL);
	int ret;

	if (!rd)
		return ERR_PTR(-ENOMEM);
	rd->dev = dev;
	rd->desc_pool = dma_pool_create("ringdrv", dev, 64, 64, 0);
	if (!rd->desc_pool) {
		kfree(rd);
		return ERR_PTR(-ENOMEM);
	}
	ret = ringdrv_ring_fill(rd);
	if (ret) {
		dma_pool_destroy(rd->desc_pool);
		kfree(rd);
		return ERR_PTR(ret);
	}
	return rd;
}
EXPORT_SYMBOL_GPL(ringdrv_attach);

/**
 * ringdrv_detach() - give back what ringdrv_attach() took
 * @rd: the ring
 */
void ringdrv_detach(struct ringdrv *rd)
{
	ringdrv_ring_empty(rd);
	dma_pool_destroy(rd->desc_pool);
	kfree(rd);
}
EXPORT_SYMBOL_GPL(ringdrv_detach);

MODULE_DESCRIPTION("convert-driver fixture: a pool held in a local header");
MODULE_LICENSE("GPL");
