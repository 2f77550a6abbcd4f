/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Chunk table: from a block's CPU address to its chunk in O(1), by
 * arithmetic on the pointer alone (the pool never trusts a pointer it is
 * handed, and never reads device-visible memory).
 *
 * Chunk memory is only page aligned (an IOMMU remaps it with vmap(), the
 * atomic pools hand out page-aligned pieces), so a chunk of 2^shift bytes
 * is not aligned to its size. Cut the address space into windows of
 * 2^shift bytes: a chunk covers at most two consecutive windows, and a
 * window holds parts of at most two chunks. The table maps a window
 * number to each chunk that touches it (one or two entries per chunk), and
 * a lookup checks which of them really contains the address.
 *
 * Open addressing with linear probing and backward-shift deletion, no
 * tombstones. Lookups only serve the frees that miss their CPU's "last
 * chunk", so a probe may read the descriptors it passes and a slot stays
 * one word. The pool keeps the table at most half full and serialises
 * every call with its lock.
 */
#ifndef _DMAGUARD_CORE_CHUNK_TABLE_H
#define _DMAGUARD_CORE_CHUNK_TABLE_H

#include "dg_platform.h"

#define DG_TABLE_MIN_SLOTS	16

struct dg_chunk;

/*
 * One window of one chunk: the descriptor's address, with bit 0 set for
 * the chunk's second window; 0: slot unused. The window is found from
 * the descriptor's first block address, so a slot is one word.
 */
struct dg_chunk_slot {
	unsigned long tagged;
};

struct dg_chunk_table {
	struct dg_chunk_slot *slots;
	u32 bits;		/* log2 of the number of slots */
	u32 used;
	u32 shift;		/* log2 of the chunk (and window) size */
};

static inline u32 dg_table_slots(const struct dg_chunk_table *t)
{
	return 1u << t->bits;
}

/* Entries a chunk at @base takes: one, or two when it straddles windows. */
static inline u32 dg_table_entries(const struct dg_chunk_table *t,
				   unsigned long base)
{
	return (base & ((1ul << t->shift) - 1)) ? 2 : 1;
}

/* Room for one more chunk within the load factor of 1/2. */
static inline bool dg_table_has_room(const struct dg_chunk_table *t)
{
	return (t->used + 2) * 2 <= dg_table_slots(t);
}

/* Room for one more chunk at all: a slot must stay empty to end a probe. */
static inline bool dg_table_can_insert(const struct dg_chunk_table *t)
{
	return t->used + 3 <= dg_table_slots(t);
}

struct dg_chunk *dg_table_find(const struct dg_chunk_table *t,
			       unsigned long addr);
void dg_table_insert(struct dg_chunk_table *t, struct dg_chunk *chunk);
void dg_table_remove(struct dg_chunk_table *t, struct dg_chunk *chunk);
struct dg_chunk_slot *dg_table_rehash(struct dg_chunk_table *t,
				      struct dg_chunk_slot *slots, u32 bits);

#endif /* _DMAGUARD_CORE_CHUNK_TABLE_H */
