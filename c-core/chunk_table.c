// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk table of the pool: see chunk_table.h.
 */
#include "chunk_table.h"

static inline unsigned long slot_key(const struct dg_chunk_table *t,
				     unsigned long base)
{
	return ((base & ~1ul) >> t->shift) + (base & 1);
}

static inline u32 home_of(unsigned long key, u32 bits)
{
	return hash_64(key, bits);
}

/**
 * dg_table_find() - the chunk whose blocks contain an address
 * @t: the table
 * @addr: CPU address
 *
 * Return: the chunk, or NULL.
 */
struct dg_chunk *dg_table_find(const struct dg_chunk_table *t,
			       unsigned long addr)
{
	unsigned long key = addr >> t->shift, size = 1ul << t->shift;
	u32 mask = dg_table_slots(t) - 1, i;
	const struct dg_chunk_slot *s;

	for (i = home_of(key, t->bits);; i = (i + 1) & mask) {
		s = &t->slots[i];
		if (!s->chunk)
			return NULL;
		if (slot_key(t, s->base) == key && addr - (s->base & ~1ul) < size)
			return s->chunk;
	}
}

static void slots_put(struct dg_chunk_slot *slots, u32 bits,
		      unsigned long key, unsigned long base,
		      struct dg_chunk *chunk)
{
	u32 mask = (1u << bits) - 1, i = home_of(key, bits);

	while (slots[i].chunk)
		i = (i + 1) & mask;
	slots[i].base = base;
	slots[i].chunk = chunk;
}

/**
 * dg_table_insert() - add a chunk
 * @t: the table; dg_table_can_insert() must hold
 * @base: CPU address of its first block, page aligned
 * @chunk: the chunk
 */
void dg_table_insert(struct dg_chunk_table *t, unsigned long base,
		     struct dg_chunk *chunk)
{
	unsigned long key = base >> t->shift;

	slots_put(t->slots, t->bits, key, base, chunk);
	t->used++;
	if (dg_table_entries(t, base) == 2) {
		slots_put(t->slots, t->bits, key + 1, base | 1, chunk);
		t->used++;
	}
}

/* Remove one entry, backward-shift: later entries of its probe chain move
 * up, so no tombstones are needed and every chain stays unbroken.
 */
static void table_remove_entry(struct dg_chunk_table *t, unsigned long base,
			       struct dg_chunk *chunk)
{
	u32 mask = dg_table_slots(t) - 1, i, j, h;

	i = home_of(slot_key(t, base), t->bits);
	while (t->slots[i].chunk != chunk || t->slots[i].base != base) {
		dg_assert(t->slots[i].chunk);
		i = (i + 1) & mask;
	}

	for (;;) {
		t->slots[i].chunk = NULL;
		for (j = i;;) {
			j = (j + 1) & mask;
			if (!t->slots[j].chunk) {
				t->used--;
				return;
			}
			h = home_of(slot_key(t, t->slots[j].base), t->bits);
			/* Leave it if its home lies cyclically in (i, j]. */
			if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
				continue;
			break;
		}
		t->slots[i] = t->slots[j];
		i = j;
	}
}

/**
 * dg_table_remove() - remove a chunk
 * @t: the table
 * @base: what dg_table_insert() was given
 * @chunk: the chunk, in the table
 */
void dg_table_remove(struct dg_chunk_table *t, unsigned long base,
		     struct dg_chunk *chunk)
{
	table_remove_entry(t, base, chunk);
	if (dg_table_entries(t, base) == 2)
		table_remove_entry(t, base | 1, chunk);
}

/**
 * dg_table_rehash() - move every entry into a new slot array
 * @t: the table
 * @slots: zeroed array of 2^@bits slots, more than twice the entries used
 * @bits: log2 of its size
 *
 * Return: the old slot array, for the caller to free.
 */
struct dg_chunk_slot *dg_table_rehash(struct dg_chunk_table *t,
				      struct dg_chunk_slot *slots, u32 bits)
{
	struct dg_chunk_slot *old = t->slots;
	u32 i, n = dg_table_slots(t);

	for (i = 0; i < n; i++)
		if (old[i].chunk)
			slots_put(slots, bits, slot_key(t, old[i].base),
				  old[i].base, old[i].chunk);
	t->slots = slots;
	t->bits = bits;
	return old;
}
