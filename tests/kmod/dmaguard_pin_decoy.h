/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside dmaguard_pin_test.ko: between its main file (the misc device,
 * dmaguard's pin cache, the edu device) and the decoy pin-once cache of
 * dmaguard_pin_decoy.c (deliberately unsafe, see there).
 */
#ifndef _DMAGUARD_PIN_DECOY_H
#define _DMAGUARD_PIN_DECOY_H

#include <linux/dma-direction.h>
#include <linux/types.h>

struct device;
struct sg_table;
struct pt_decoy;

/* dmaguard_pin_test_main.c */
int pt_sgt_dma_addr(struct sg_table *sgt, u64 at, u32 len, dma_addr_t *dma);
int pt_edu_read(struct sg_table *sgt, enum dma_data_direction dir,
		dma_addr_t dma, u32 len, u8 *out);

/* dmaguard_pin_decoy.c */
int pt_decoy_register(struct pt_decoy **decoy, struct device *dev,
		      void __user *arg);
int pt_decoy_read(struct pt_decoy *decoy, void __user *arg);
void pt_decoy_release(struct pt_decoy *decoy);

#endif /* _DMAGUARD_PIN_DECOY_H */
