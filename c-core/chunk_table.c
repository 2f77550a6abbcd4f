// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk table of the pool: see chunk_table.h. Keys are unique (chunks are
 * aligned to their size), so a key names one chunk.
 */
#include "chunk_table.h"

static inline u32 slot_of(unsigned long key, u32 mask)
{
	return (u32)(((u64)key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/**
 * dg_table_find() - the chunk with this key
 * @t: the table
 * @key: chunk address >> chunk_shift
 *
 * Return: the chunk, or NULL.
 */
struct dg_chunk *dg_table_find(const struct dg_chunk_table *t,
			       unsigned long key)
{
	const struct dg_chunk_slot *s;
	u32 i;

	for (i = slot_of(key, t->mask);; i = (i + 1) & t->mask) {
		s = &t->slots[i];
		if (!s->chunk)
			return NULL;
		if (s->key == key)
			return s->chunk;
	}
}

static void slots_insert(struct dg_chunk_slot *slots, u32 mask,
			 unsigned long key, struct dg_chunk *chunk)
{
	u32 i = slot_of(key, mask);

	while (slots[i].chunk)
		i = (i + 1) & mask;
	slots[i].key = key;
	slots[i].chunk = chunk;
}

/**
 * dg_table_insert() - add a chunk
 * @t: the table; dg_table_can_insert() must hold
 * @key: its key, not in the table yet
 * @chunk: the chunk
 */
void dg_table_insert(struct dg_chunk_table *t, unsigned long key,
		     struct dg_chunk *chunk)
{
	slots_insert(t->slots, t->mask, key, chunk);
	t->used++;
}

/**
 * dg_table_remove() - remove the chunk with this key
 * @t: the table
 * @key: a key in the table
 *
 * Backward-shift deletion: later entries of the probe chain move up, so
 * no tombstones are needed and every chain stays unbroken.
 */
void dg_table_remove(struct dg_chunk_table *t, unsigned long key)
{
	u32 mask = t->mask, i, j, h;

	i = slot_of(key, mask);
	while (t->slots[i].key != key || !t->slots[i].chunk)
		i = (i + 1) & mask;

	for (;;) {
		t->slots[i].chunk = NULL;
		for (j = i;;) {
			j = (j + 1) & mask;
			if (!t->slots[j].chunk) {
				t->used--;
				return;
			}
			h = slot_of(t->slots[j].key, mask);
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
 * dg_table_rehash() - move every entry into a new slot array
 * @t: the table
 * @slots: zeroed array of @n slots, @n a power of two above 2 * used
 * @n: its size
 *
 * Return: the old slot array, for the caller to free.
 */
struct dg_chunk_slot *dg_table_rehash(struct dg_chunk_table *t,
				      struct dg_chunk_slot *slots, u32 n)
{
	struct dg_chunk_slot *old = t->slots;
	u32 i;

	for (i = 0; i <= t->mask; i++)
		if (old[i].chunk)
			slots_insert(slots, n - 1, old[i].key, old[i].chunk);
	t->slots = slots;
	t->mask = n - 1;
	return old;
}
