// SPDX-License-Identifier: GPL-2.0
/* Chunk-table side: built with the project's userspace flags, calls the
 * project's c-core/chunk_table.c (linked as its own object). */
#include "chunk.h"
#include "chunk_table.h"
#include "xbench.h"

#define DESC_BYTES 128	/* kmalloc-128: 56-byte descriptor + 8 map words */

void *ct_chunk_new(unsigned long base)
{
	struct dg_chunk *c = calloc(1, DESC_BYTES);

	c->blocks = (char *)base;
	return c;
}
void ct_chunk_free(void *chunk) { free(chunk); }
size_t ct_blocks_offset(void) { return offsetof(struct dg_chunk, blocks); }
size_t ct_desc_bytes(void) { return DESC_BYTES; }

void *ct_table_new(unsigned int shift)
{
	struct dg_chunk_table *t = calloc(1, sizeof(*t));

	t->slots = calloc(DG_TABLE_MIN_SLOTS, sizeof(*t->slots));
	t->bits = ilog2(DG_TABLE_MIN_SLOTS);
	t->shift = shift;
	return t;
}

void ct_table_free(void *tv)
{
	struct dg_chunk_table *t = tv;

	free(t->slots);
	free(t);
}

void ct_insert(void *tv, void *chunk)
{
	struct dg_chunk_table *t = tv;

	while (!dg_table_has_room(t)) {
		u32 bits = t->bits + 1;
		struct dg_chunk_slot *s = calloc(1ul << bits, sizeof(*s));

		free(dg_table_rehash(t, s, bits));
	}
	dg_table_insert(t, chunk);
}

void ct_remove(void *t, void *chunk) { dg_table_remove(t, chunk); }
void *ct_find(void *t, unsigned long addr) { return dg_table_find(t, addr); }

unsigned long ct_loop(void *tv, const unsigned long *a, size_t m)
{
	const struct dg_chunk_table *t = tv;
	unsigned long x = 0;
	size_t i;

	for (i = 0; i < m; i++)
		x += (unsigned long)dg_table_find(t, a[i]);
	return x;
}

unsigned long ct_loop_dep(void *tv, const unsigned long *a, size_t m)
{
	const struct dg_chunk_table *t = tv;
	unsigned long x = 0, prev = 0;
	size_t i;

	for (i = 0; i < m; i++) {
		/* descriptors are 8-byte aligned: bit 0 is 0, but only known
		 * at run time, so the next address waits for this result */
		prev = (unsigned long)dg_table_find(t, a[i] | (prev & 1));
		x += prev;
	}
	return x;
}

unsigned int ct_slots(void *t) { return dg_table_slots(t); }
unsigned int ct_used(void *t) { return ((struct dg_chunk_table *)t)->used; }
