/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmaguard_scribble.ko, internal: what its parts share. Part 1 (dmaguard
 * under a CPU-played hostile device) is dmaguard_scribble_dg.c, part 2
 * (the kernel's dma_pool) dmaguard_scribble_kpool.c, part 3 (QEMU's edu
 * device as the attacker) dmaguard_scribble_edu.c; module init, the decoy
 * and the seed are in dmaguard_scribble_main.c.
 */
#ifndef _DMAGUARD_SCRIBBLE_H
#define _DMAGUARD_SCRIBBLE_H

#include <linux/types.h>
#include "dg_test_dev.h"
#include "dg_test_hooks.h"

#define DGS_MAX_CHUNKS	128
#define DGS_DECOY_SIZE	PAGE_SIZE

extern struct dg_test_dev dgs_tdev;	/* the test device ... */
extern struct device *dgs_dev;		/* ... and its struct device */
extern struct dg_ktap dgs_ktap;
extern void *dgs_decoy;
extern dma_addr_t dgs_decoy_dma;	/* what a DMA address of it would be */
extern u64 dgs_seed;

struct blk {
	unsigned long v;
	dma_addr_t d;
};

/* ---- part 1: dmaguard ---- */

enum pattern {
	PAT_RANDOM, PAT_ONES, PAT_DECOY, PAT_LIVE, PAT_OFFSETS, PAT_ZERO,
	PAT_NR,
};

struct chunk_rec {
	unsigned long mem;
	unsigned long len;
	dma_addr_t dma;
};

struct scribbler {
	/* the row */
	size_t size, align, boundary;
	/* live blocks as the test sees them */
	struct blk *live;
	unsigned int n, max;
	/* what the device writes next */
	enum pattern pat;
	u64 rng;
	/* chunks, as of the last walk */
	struct chunk_rec c[DGS_MAX_CHUNKS];
	unsigned int nc;
	bool overflow;
	/* tallies */
	unsigned long ops, scribbles, bytes, outside, dup, decoy, misplaced,
		      bad_dma, alloc_fail, free_rejected, accounting;
};

void dgs_scribble_fn(void *arg, void __dma *mem, size_t len, dma_addr_t dma);
void dgs_scribbler_collect(struct scribbler *s, struct dmaguard_pool *pool);
struct chunk_rec *dgs_chunk_of(struct scribbler *s, unsigned long v);
bool dgs_judge_alloc(struct scribbler *s, struct dmaguard_pool *pool,
		     unsigned long v, dma_addr_t d);
void dgs_scribbler_keep(struct scribbler *s, unsigned long v, dma_addr_t d);
void dgs_scribbler_free(struct scribbler *s, struct dmaguard_pool *pool,
			unsigned int k);
unsigned long dgs_scribbler_bad(const struct scribbler *s);
extern const unsigned int dgs_nr_rows;
void dgs_dmaguard_run(const char *kver);

/* ---- part 2: the kernel's dma_pool ---- */

/*
 * Where a kernel pool keeps its free list: a pointer list in the free
 * blocks (mainline 6.4+), an offset list in them (6.1), or out of line
 * (the series of `make kernel-series`: nothing written into a free block).
 */
enum kp_layout { KP_UNKNOWN, KP_POINTER_LIST, KP_OFFSET_LIST, KP_OUT_OF_LINE };

#define KP_SIZE		64
/* What the probe writes into a block before freeing it. */
#define KP_MARK		0xa5c3a5c3a5c3a5c3ull

struct kp_result {
	enum kp_layout layout;
	bool decoy_done, decoy_returned, decoy_handle, decoy_written;
	bool dup_done, dup_returned;
	bool restored;
};

struct dma_pool;
struct edu;

bool dgs_kp_verify(struct dma_pool *kp, struct device *kdev,
		   const char *what);
enum kp_layout dgs_kp_probe(struct dma_pool *kp, void **page);
bool dgs_kp_forge_decoy(struct dma_pool *kp, struct kp_result *res,
			struct edu *edu);
void dgs_kp_release(struct dma_pool *kp, bool sound, const char *name);
void dgs_kp_run(const char *kver);

/* ---- part 3: QEMU's edu device ---- */

int dgs_edu_write(struct edu *e, dma_addr_t dst, const void *src, u32 len);
void dgs_edu_run(const char *kver);

#endif /* _DMAGUARD_SCRIBBLE_H */
