// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk table of the pool: see chunk_table.h.
 */
#include "chunk.h"
#include "chunk_table.h"

static inline struct dg_chunk *slot_chunk(unsigned long tagged)
{
	return (struct dg_chunk *)(tagged & ~1ul);
}

static inline unsigned long chunk_base(const struct dg_chunk *chunk)
{
	return dg_dma_addr(chunk->blocks);
}

/* The window a slot stands for. */
static inline unsigned long slot_key(const struct dg_chunk_table *t,
				     unsigned long tagged)
{
	return (chunk_base(slot_chunk(tagged)) >> t->shift) + (tagged & 1);
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
	struct dg_chunk *chunk;
	unsigned long s;

	for (i = home_of(key, t->bits);; i = (i + 1) & mask) {
		s = t->slots[i].tagged;
		if (!s)
			return NULL;
		chunk = slot_chunk(s);
		if (slot_key(t, s) == key && addr - chunk_base(chunk) < size)
			return chunk;
	}
}

static void slots_put(const struct dg_chunk_table *t,
		      struct dg_chunk_slot *slots, u32 bits,
		      unsigned long tagged)
{
	u32 mask = (1u << bits) - 1, i = home_of(slot_key(t, tagged), bits);

	while (slots[i].tagged)
		i = (i + 1) & mask;
	slots[i].tagged = tagged;
}

/**
 * dg_table_insert() - add a chunk
 * @t: the table; dg_table_can_insert() must hold
 * @chunk: the chunk, its first block address page aligned
 */
void dg_table_insert(struct dg_chunk_table *t, struct dg_chunk *chunk)
{
	unsigned long tagged = (unsigned long)chunk;

	slots_put(t, t->slots, t->bits, tagged);
	t->used++;
	if (dg_table_entries(t, chunk_base(chunk)) == 2) {
		slots_put(t, t->slots, t->bits, tagged | 1);
		t->used++;
	}
}

/* Remove one entry, backward-shift: later entries of its probe chain move
 * up, so no tombstones are needed and every chain stays unbroken.
 */
static void table_remove_entry(struct dg_chunk_table *t, unsigned long tagged)
{
	u32 mask = dg_table_slots(t) - 1, i, j, h;

	i = home_of(slot_key(t, tagged), t->bits);
	while (t->slots[i].tagged != tagged) {
		VM_WARN_ON_ONCE(!t->slots[i].tagged);
		i = (i + 1) & mask;
	}

	for (;;) {
		t->slots[i].tagged = 0;
		for (j = i;;) {
			j = (j + 1) & mask;
			if (!t->slots[j].tagged) {
				t->used--;
				return;
			}
			h = home_of(slot_key(t, t->slots[j].tagged), t->bits);
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
 * @chunk: the chunk, in the table
 */
void dg_table_remove(struct dg_chunk_table *t, struct dg_chunk *chunk)
{
	table_remove_entry(t, (unsigned long)chunk);
	if (dg_table_entries(t, chunk_base(chunk)) == 2)
		table_remove_entry(t, (unsigned long)chunk | 1);
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
		if (old[i].tagged)
			slots_put(t, slots, bits, old[i].tagged);
	t->slots = slots;
	t->bits = bits;
	return old;
}
