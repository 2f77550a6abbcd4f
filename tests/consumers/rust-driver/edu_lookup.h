/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C half of the Rust example driver (edu_lookup.c), as rust_example.rs
 * declares it in its extern "C" block.
 */
#ifndef _DG_RUST_EXAMPLE_EDU_LOOKUP_H
#define _DG_RUST_EXAMPLE_EDU_LOOKUP_H

struct device;

struct device *dg_rust_example_edu_get(void);
void dg_rust_example_edu_put(struct device *dev);

#endif
