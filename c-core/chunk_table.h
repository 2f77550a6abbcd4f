/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Chunk table: from a chunk's address key (address >> chunk_shift) to its
 * descriptor, so that a free finds its chunk in O(1) from arithmetic on
 * the pointer alone. Open addressing with linear probing; the pool keeps
 * it at most half full and serialises every call with its lock.
 */
#ifndef _DMAGUARD_CORE_CHUNK_TABLE_H
#define _DMAGUARD_CORE_CHUNK_TABLE_H

#include "dg_platform.h"

#define DG_TABLE_MIN_SLOTS	16

struct dg_chunk;

struct dg_chunk_slot {
	unsigned long key;
	struct dg_chunk *chunk;	/* NULL: slot unused */
};

struct dg_chunk_table {
	struct dg_chunk_slot *slots;
	u32 mask;		/* slots - 1, slots a power of two */
	u32 used;
};

/* Room for one more within the load factor of 1/2. */
static inline bool dg_table_has_room(const struct dg_chunk_table *t)
{
	return (t->used + 1) * 2 <= t->mask + 1;
}

/* Room for one more at all: a slot must stay empty to end every probe. */
static inline bool dg_table_can_insert(const struct dg_chunk_table *t)
{
	return t->used + 2 <= t->mask + 1;
}

/* Walk every chunk: u32 pos = 0; while ((c = dg_table_next(t, &pos))) */
static inline struct dg_chunk *dg_table_next(const struct dg_chunk_table *t,
					     u32 *pos)
{
	struct dg_chunk *chunk;

	while (*pos <= t->mask) {
		chunk = t->slots[(*pos)++].chunk;
		if (chunk)
			return chunk;
	}
	return NULL;
}

struct dg_chunk *dg_table_find(const struct dg_chunk_table *t,
			       unsigned long key);
void dg_table_insert(struct dg_chunk_table *t, unsigned long key,
		     struct dg_chunk *chunk);
void dg_table_remove(struct dg_chunk_table *t, unsigned long key);
struct dg_chunk_slot *dg_table_rehash(struct dg_chunk_table *t,
				      struct dg_chunk_slot *slots, u32 n);

#endif /* _DMAGUARD_CORE_CHUNK_TABLE_H */
