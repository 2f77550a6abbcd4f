// SPDX-License-Identifier: GPL-2.0
/*
 * Planted violations of the __dma address space (c-core/dg_dma_space.h).
 *
 * Every function below makes one mistake the core must never make with
 * device-visible memory; `make sparse` asserts that sparse reports each
 * of them, on the lines listed in dma_misuse.expected. Keep the line
 * numbers in step with that file when editing.
 */
#include <linux/module.h>
#include <linux/list.h>
#include <linux/string.h>
#include "dg_dma_space.h"

struct fixture_meta {
	struct list_head link;
	void *owner;
	unsigned int nr_free;
};

/* A driver-side ring of blocks, also what teaches checkpatch "__dma". */
struct fixture_ring {
	void __dma *blk;
	dma_addr_t dma;
};

static struct fixture_meta fixture_kmeta;
static struct fixture_ring fixture_ring;
static void *fixture_sink;

/* (a) store a kernel pointer into block memory */
static void fixture_store_pointer(void __dma *blk)
{
	*(void **)blk = &fixture_kmeta;
}

/* (a') the same through a slot typed in the address space */
static void fixture_store_slot(void __dma *blk)
{
	void *__dma *slot = blk;

	*slot = &fixture_kmeta;
}

/* (a'') the same through memcpy() */
static void fixture_store_memcpy(void __dma *blk)
{
	void *kptr = &fixture_kmeta;

	memcpy(blk, &kptr, sizeof(kptr));
}

/* (b) cast block memory to a struct pointer and read a field */
static unsigned int fixture_struct_cast(void __dma *blk)
{
	struct fixture_meta *m = (struct fixture_meta *)blk;

	return m->nr_free;
}

/* (b') the same with the address space kept: a noderef member access */
static unsigned int fixture_struct_access(void __dma *blk)
{
	struct fixture_meta __dma *m = blk;

	return m->nr_free;
}

static void fixture_take_plain(void *p)
{
	fixture_sink = p;
}

/* (c) pass a __dma pointer where a plain pointer is expected */
static void fixture_mix(void __dma *blk)
{
	fixture_take_plain(blk);
}

/* (c') assign a __dma pointer to a plain one */
static void fixture_assign(void __dma *blk)
{
	fixture_sink = blk;
}

/* (d) dereference a __dma pointer */
static char fixture_deref(char __dma *blk)
{
	return *blk;
}

/* (d') index it */
static char fixture_index(char __dma *blk)
{
	return blk[8];
}

/* (e) a detour through an integer: caught with -Wcast-from-as. */
static void fixture_launder(void __dma *blk)
{
	*(void **)(unsigned long)blk = &fixture_kmeta;
}

/* The sanctioned ways: no warning expected below this line. */
static void fixture_ok(void __dma *blk, size_t len)
{
	dg_dma_zero(blk, len);
	fixture_take_plain((void __force *)blk);
}

static int __init fixture_init(void)
{
	void __dma *blk = fixture_ring.blk;

	fixture_store_pointer(blk);
	fixture_store_slot(blk);
	fixture_store_memcpy(blk);
	fixture_sink = (void *)(unsigned long)fixture_struct_cast(blk);
	fixture_sink = (void *)(unsigned long)fixture_struct_access(blk);
	fixture_mix(blk);
	fixture_assign(blk);
	fixture_sink = (void *)(unsigned long)fixture_deref(blk);
	fixture_sink = (void *)(unsigned long)fixture_index(blk);
	fixture_launder(blk);
	fixture_ok(blk, 0);
	return -ENODEV;
}
module_init(fixture_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dmaguard sparse fixture: planted __dma misuse, never loaded");
