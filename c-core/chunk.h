/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A chunk's descriptor: shared by the pool (pool.c) and its chunk table
 * (chunk_table.c), which finds a chunk's address range through it.
 * Ordinary kernel memory; the device never sees it.
 */
#ifndef _DMAGUARD_CORE_CHUNK_H
#define _DMAGUARD_CORE_CHUNK_H

#include "dg_platform.h"

struct dg_chunk {
	struct list_head node;	/* on pool->partial or pool->full */
	char __dma *blocks;	/* CPU address of the first block */
	dma_addr_t blocks_dma;	/* its bus address */
	unsigned long empty_since;
	u32 nr_free;
	u32 hint;		/* no free bit in the words below this one */
	/* The allocation: blocks - phase, chunk_size + slack bytes. */
	u32 phase;
	u32 slack;
	/*
	 * map_words words of "free in the chunk" bits (pool lock), then
	 * map_words words of "held by a driver" bits, set and cleared with
	 * atomic bitops by CPUs that do not hold the pool lock: a block is
	 * free in its chunk, in a CPU's cache, or live, and only a live
	 * block may be freed.
	 */
	unsigned long map[];
};

#endif /* _DMAGUARD_CORE_CHUNK_H */
