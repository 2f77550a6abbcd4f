/* SPDX-License-Identifier: GPL-2.0 */
/* What pool_bench.c (single thread) and pool_bench_mt.c share. */
#ifndef _DMAGUARD_POOL_BENCH_H
#define _DMAGUARD_POOL_BENCH_H

#define BENCH_MAX_REPS	101

/* Median of @n values; sorts @v. */
double bench_median(double *v, unsigned int n);
/* pool_bench -t: thread counts "2,4", repetitions, ms per measurement. */
int bench_mt(const char *threads, unsigned int reps, unsigned int ms);

#endif /* _DMAGUARD_POOL_BENCH_H */
