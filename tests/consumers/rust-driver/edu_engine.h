/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C half of the Rust example driver (edu_engine.c), as rust_example.rs
 * declares it in its extern "C" block.
 */
#ifndef _DG_RUST_EXAMPLE_EDU_ENGINE_H
#define _DG_RUST_EXAMPLE_EDU_ENGINE_H

#include <linux/types.h>

struct device;
struct sg_table;
struct dg_rust_edu;

struct dg_rust_edu *dg_rust_example_edu_get(void);
void dg_rust_example_edu_put(struct dg_rust_edu *edu);
struct device *dg_rust_example_edu_dev(struct dg_rust_edu *edu);
int dg_rust_example_edu_copy(struct dg_rust_edu *edu, u64 src, u64 dst,
			     u32 len);
u64 dg_rust_example_dma_at(struct sg_table *sgt, u64 off, u32 len);

#endif
