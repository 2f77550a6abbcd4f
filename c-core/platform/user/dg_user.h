/* SPDX-License-Identifier: GPL-2.0 */
/* Test hooks of the userspace platform (see chunk_mem.c). */
#ifndef _DMAGUARD_USER_H
#define _DMAGUARD_USER_H

#include "dg_platform.h"

/* DG_MEM_DIRECT: made-up bus address = CPU address + this. */
#define DG_USER_DMA_OFFSET	0x100000000000ull

/* How chunk memory is placed (chunk_mem.c); DG_MEM_REMAP by default. */
enum dg_user_mem_mode {
	DG_MEM_REMAP,	/* an IOMMU: page aligned, unrelated CPU and bus */
	DG_MEM_DIRECT,	/* direct mapping: both aligned to the size */
};

extern enum dg_user_mem_mode dg_user_mem_mode;

/* The bus address of a CPU address inside live chunk memory, or 0. */
dma_addr_t dg_user_bus_of(const void *p);
/*
 * Free the allocation holding @p, as dg_chunk_mem_free() would: for tests
 * that give back the chunks a pool deliberately kept (destroy with live
 * blocks), whose allocation may be larger than the chunk.
 */
void dg_user_chunk_release(const void *p);
/* The CPU address of a bus address inside live chunk memory, or NULL. */
void *dg_user_cpu_of(dma_addr_t dma);

struct dg_user_counters {
	long meta_live;		/* bookkeeping allocations not freed */
	long chunks_live;	/* chunks not freed */
	long chunk_bytes_live;
};

extern struct dg_user_counters dg_user_count;

/* CPUs work_on_cpu() and on_each_cpu_cond() visited, in all (atomic). */
extern unsigned long dg_user_cpu_visits;

/*
 * Run @fn(@arg) once, inside the next per-CPU cache section this thread
 * takes with a trylock (an allocation's or a free's), as an interrupt
 * landing in it would: every pool call @fn makes on this thread finds the
 * section taken (dg_user_pcp_busy in dg_platform.h counts them).
 */
void dg_user_pcp_interrupt(void (*fn)(void *arg), void *arg);

struct dg_pool;
/*
 * Start the stand-in of @pool's reclaim work: a thread running
 * dg_pool_reclaim(pool, 0, 0) over and over until dg_pool_destroy() stops
 * it (dg_plat_fini()); it drains the caches too, which the kernel's work
 * (dg_pool_reclaim_empty()) does not: a destroy races more here. Return:
 * 0 or the pthread_create() error.
 */
int dg_user_reclaim_start(struct dg_pool *pool);
/* How many reclaims that thread completed. */
unsigned long dg_user_reclaim_passes(struct dg_pool *pool);

/* Make the nth allocation from now (bookkeeping or chunk) fail; 0: none. */
void dg_user_fail_nth_alloc(unsigned long nth);
/* Whether the allocation set up by dg_user_fail_nth_alloc() came. */
bool dg_user_fail_reached(void);

#endif /* _DMAGUARD_USER_H */
