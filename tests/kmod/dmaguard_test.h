/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmaguard_test.ko, internal: what the files of the module share (the
 * device, the KTAP document, EXPECT(), block records, the chunk walk and
 * the setup helpers) and the cases dmaguard_test_main.c runs, in order.
 */
#ifndef _DMAGUARD_TEST_H
#define _DMAGUARD_TEST_H

#include <linux/types.h>
#include "dg_test_dev.h"
#include "dg_test_hooks.h"

#define DGT_MAX_DIAG		8
#define DGT_MAX_CHUNKS		256

extern struct device *dgt_dev;
extern struct dg_ktap dgt_ktap;
extern unsigned int dgt_diag_left;
extern long dgt_leaked_by_design;

/* A failed expectation: print why (a few per case), mark the case failed. */
#define EXPECT(ok, cond, fmt, ...)					\
	DG_EXPECT(ok, dgt_diag_left, cond, fmt, ##__VA_ARGS__)

/* A block as the test holds it: CPU address and DMA address. */
struct blk {
	unsigned long v;
	dma_addr_t d;
};

/* The chunk list, taken with dg_pool_for_each_chunk(). */
struct chunk_rec {
	unsigned long mem;
	unsigned long len;
	dma_addr_t dma;
	unsigned long last;	/* highest block handed out, for ordering */
};

struct chunk_set {
	struct chunk_rec c[DGT_MAX_CHUNKS];
	unsigned int n;
	bool overflow;
};

/* The misuse cases share one pool and its blocks. */
struct misuse {
	struct dmaguard_pool *pool;
	struct dmaguard_pool *other;
	struct blk a, b, c, o;
	bool setup;
};

/* dmaguard_test_main.c: helpers */
void dgt_case_begin(void);
void dgt_stats(struct dmaguard_pool *pool, struct dmaguard_pool_stats *st);
u64 dgt_bad_total(const struct dmaguard_pool_stats *st);
bool dgt_all_bytes(const void *p, size_t len, u8 val);
void dgt_chunk_collect(struct dmaguard_pool *pool, struct chunk_set *cs);
struct chunk_rec *dgt_chunk_of(struct chunk_set *cs, unsigned long v,
			       size_t size);
struct blk *dgt_chunks_setup(struct dmaguard_pool *pool, unsigned int chunks,
			     unsigned int *n);
unsigned int dgt_alloc_blocks(struct dmaguard_pool *pool, struct blk *b,
			      unsigned int n);
void dgt_free_blocks(struct dmaguard_pool *pool, struct blk *b,
		     unsigned int n);

/* dmaguard_test_geometry.c */
void dgt_create_validation(void);
void dgt_geometry(const char *name, size_t size, size_t align,
		  size_t boundary);
void dgt_zeroing(void);
void dgt_public_opts_stats(void);

/* dmaguard_test_misuse.c */
void dgt_misuse(struct misuse *m);
void dgt_misuse_not_applied(struct misuse *m);
void dgt_misuse_second_pool(struct misuse *m);

/* dmaguard_test_atomic.c */
void dgt_atomic_spinlock(void);
void dgt_atomic_hardirq(void);
void dgt_irq_on_busy_cache(void);

/* dmaguard_test_reclaim.c */
void dgt_reclaim(void);
void dgt_cpu_offline(void);
void dgt_hotplug_callback(void);
void dgt_failed_growth_steals(void);
void dgt_concurrency(void);
void dgt_stats_race(void);
void dgt_no_leak(long base);
void dgt_destroy_live(void);

/* dmaguard_test_destroy.c */
void dgt_destroy_race(void);

/* dmaguard_test_managed.c */
void dgt_managed(void);

#endif /* _DMAGUARD_TEST_H */
