/* SPDX-License-Identifier: GPL-2.0 */
/* Plain-C interface between the bench driver and the two sides, which are
 * compiled with different (incompatible) header sets. */
#ifndef XBENCH_H
#define XBENCH_H
#include <stddef.h>

/* Chunk-table side (ct_glue.c, project flags, project's chunk_table.c) */
void *ct_chunk_new(unsigned long base);
void ct_chunk_free(void *chunk);
size_t ct_blocks_offset(void);
size_t ct_desc_bytes(void);
void *ct_table_new(unsigned int shift);
void ct_table_free(void *t);
void ct_insert(void *t, void *chunk);	/* grows like pool_table_room() */
void ct_remove(void *t, void *chunk);
void *ct_find(void *t, unsigned long addr);
unsigned long ct_loop(void *t, const unsigned long *a, size_t m);
/* each lookup's address depends on the previous result (latency) */
unsigned long ct_loop_dep(void *t, const unsigned long *a, size_t m);
unsigned int ct_slots(void *t);
unsigned int ct_used(void *t);

/* XArray side (xa_glue.c, radix-tree harness flags, kernel lib/xarray.c) */
void xb_env_init(void);
void xb_env_sync(void);			/* rcu_barrier() */
void *xb_new(void);
void xb_free(void *xa);
int xb_store(void *xa, unsigned long idx, void *p);
void xb_erase(void *xa, unsigned long idx);
/* idx = (addr - sub) >> shift; one xa_load (chunks aligned to their size) */
unsigned long xb_loop1(void *xa, const unsigned long *a, size_t m,
		       unsigned int shift, unsigned long sub);
/* chunks only page aligned: keyed by the window of the chunk's start,
 * xa_load(w), then xa_load(w - 1) */
unsigned long xb_loop2(void *xa, const unsigned long *a, size_t m,
		       unsigned int shift, unsigned long sub);
void *xb_find2(void *xa, unsigned long addr, unsigned int shift,
	       unsigned long sub);
unsigned long xb_loop1_dep(void *xa, const unsigned long *a, size_t m,
			   unsigned int shift, unsigned long sub);
unsigned long xb_loop2_dep(void *xa, const unsigned long *a, size_t m,
			   unsigned int shift, unsigned long sub);
long xb_nr_nodes(void);
size_t xb_node_size(void);
unsigned long xb_rcu_loop(size_t m);
#endif
