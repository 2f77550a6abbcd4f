/* SPDX-License-Identifier: GPL-2.0 */
/* Test hooks of the userspace platform (see chunk_mem.c). */
#ifndef _DMAGUARD_USER_H
#define _DMAGUARD_USER_H

#include "dg_platform.h"

/* Made-up bus address = CPU address + this; keeps chunk alignment. */
#define DG_USER_DMA_OFFSET	0x100000000000ull

struct dg_user_counters {
	long meta_live;		/* bookkeeping allocations not freed */
	long chunks_live;	/* chunks not freed */
	long chunk_bytes_live;
};

extern struct dg_user_counters dg_user_count;

/* Make the nth allocation from now (bookkeeping or chunk) fail; 0: none. */
void dg_user_fail_nth_alloc(unsigned long nth);
/* Whether the allocation set up by dg_user_fail_nth_alloc() came. */
bool dg_user_fail_reached(void);

#endif /* _DMAGUARD_USER_H */
