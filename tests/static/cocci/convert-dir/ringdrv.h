/* SPDX-License-Identifier: GPL-2.0 */
/* The pool pointer lives here, as in xhci.h or ehci.h. */
#ifndef RINGDRV_H
#define RINGDRV_H

#include <linux/device.h>
#include <linux/types.h>

#define RINGDRV_SLOTS	8

struct ringdrv {
	struct device *dev;
	struct dma_pool *desc_pool;
	void *ring[RINGDRV_SLOTS];
	dma_addr_t ring_dma[RINGDRV_SLOTS];
};

int ringdrv_ring_fill(struct ringdrv *rd);
void ringdrv_ring_empty(struct ringdrv *rd);
struct ringdrv *ringdrv_attach(struct device *dev);
void ringdrv_detach(struct ringdrv *rd);
bool ringstat_has_pool(const struct ringdrv *rd);

#endif
