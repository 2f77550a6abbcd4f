/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmaguard_bench: what the parts of the benchmark module share.
 *
 *   dmaguard_bench_main.c  parameters, the device, module init
 *   dmaguard_bench_rows.c  one CPU, dmapool_test protocol (BENCH pool)
 *   dmaguard_bench_ring.c  one CPU, a descriptor ring (BENCH ring)
 *   dmaguard_bench_mt.c    every online CPU on one pool (BENCH pool-mt)
 */
#ifndef _DMAGUARD_BENCH_H
#define _DMAGUARD_BENCH_H

#include <linux/types.h>

#define BENCH_MAX_REPS	31

struct device;

/* The device every pool of the run is created on (bench_dev_open()). */
extern struct device *bench_dev;
/* "direct" or "iommu": how bench_dev's DMA reaches memory. */
extern const char *bench_backend;

/* Median of @n (at most BENCH_MAX_REPS) values; @v is left as it was. */
s64 bench_median(const s64 *v, unsigned int n);
/* "a,b,c" of @n values into @buf. */
void bench_format_list(char *buf, size_t len, const s64 *v, unsigned int n);

/* The single-CPU rows; 0 or the first error. */
int bench_rows_run(void);
/* Whether keep_pools=1 left pools on bench_dev (then it stays open). */
bool bench_rows_kept(void);
/* Destroy the pools keep_pools=1 kept. */
void bench_rows_exit(void);
/* The ring rows; 0 or the first error. */
int bench_ring_run(void);
/* The multi-CPU measurement; 0 or the first error. */
int bench_mt_run(void);

#endif /* _DMAGUARD_BENCH_H */
