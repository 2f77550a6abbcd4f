// SPDX-License-Identifier: GPL-2.0
/* Only allocates and frees, from the pool ringdrv_main.c creates. */
#include <linux/gfp.h>
#include <linux/errno.h>
#include "ringdrv.h"

int ringdrv_ring_fill(struct ringdrv *rd)
{
	int i;

	for (i = 0; i < RINGDRV_SLOTS; i++) {
		rd->ring[i] = dma_pool_zalloc(rd->desc_pool, GFP_KERNEL,
					      &rd->ring_dma[i]);
		if (!rd->ring[i]) {
			ringdrv_ring_empty(rd);
			return -ENOMEM;
		}
	}
	return 0;
}

void ringdrv_ring_empty(struct ringdrv *rd)
{
	int i;

	for (i = 0; i < RINGDRV_SLOTS; i++) {
		if (rd->ring[i])
			dma_pool_free(rd->desc_pool, rd->ring[i],
				      rd->ring_dma[i]);
		rd->ring[i] = NULL;
	}
}
