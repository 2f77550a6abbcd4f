// SPDX-License-Identifier: GPL-2.0
/* XArray side: built with the radix-tree harness flags; calls the kernel's
 * lib/xarray.c (xa_real.o). */
#include "shared.h"
#include <linux/xarray.h>
#include <linux/radix-tree.h>
#include <stdlib.h>
#include "xbench.h"

extern int nr_allocated;	/* tools/testing/shared/linux.c */
#define BLOCKS_OFF 16		/* offsetof(struct dg_chunk, blocks), checked */

static inline unsigned long base_of(void *e)
{
	return *(unsigned long *)((char *)e + BLOCKS_OFF);
}

void xb_env_init(void)
{
	rcu_register_thread();
	radix_tree_init();
}
void xb_env_sync(void) { rcu_barrier(); }

void *xb_new(void)
{
	struct xarray *xa = malloc(sizeof(*xa));

	xa_init(xa);
	return xa;
}
void xb_free(void *xa) { xa_destroy(xa); free(xa); }

int xb_store(void *xa, unsigned long idx, void *p)
{
	return xa_err(xa_store(xa, idx, p, GFP_KERNEL));
}
void xb_erase(void *xa, unsigned long idx) { xa_erase(xa, idx); }

unsigned long xb_loop1(void *xa, const unsigned long *a, size_t m,
		       unsigned int shift, unsigned long sub)
{
	unsigned long x = 0;
	size_t i;

	for (i = 0; i < m; i++)
		x += (unsigned long)xa_load(xa, (a[i] - sub) >> shift);
	return x;
}

static inline void *find2(struct xarray *xa, unsigned long addr,
			  unsigned int shift, unsigned long sub)
{
	unsigned long w = (addr - sub) >> shift;
	void *e = xa_load(xa, w);

	if (e && addr >= base_of(e))
		return e;
	e = xa_load(xa, w - 1);
	if (e && addr - base_of(e) < (1ul << shift))
		return e;
	return NULL;
}

void *xb_find2(void *xa, unsigned long addr, unsigned int shift,
	       unsigned long sub)
{
	return find2(xa, addr, shift, sub);
}

unsigned long xb_loop2(void *xa, const unsigned long *a, size_t m,
		       unsigned int shift, unsigned long sub)
{
	unsigned long x = 0;
	size_t i;

	for (i = 0; i < m; i++)
		x += (unsigned long)find2(xa, a[i], shift, sub);
	return x;
}

unsigned long xb_loop1_dep(void *xa, const unsigned long *a, size_t m,
			   unsigned int shift, unsigned long sub)
{
	unsigned long x = 0, prev = 0;
	size_t i;

	for (i = 0; i < m; i++) {
		prev = (unsigned long)xa_load(xa, ((a[i] | (prev & 1)) - sub) >> shift);
		x += prev;
	}
	return x;
}

unsigned long xb_loop2_dep(void *xa, const unsigned long *a, size_t m,
			   unsigned int shift, unsigned long sub)
{
	unsigned long x = 0, prev = 0;
	size_t i;

	for (i = 0; i < m; i++) {
		prev = (unsigned long)find2(xa, a[i] | (prev & 1), shift, sub);
		x += prev;
	}
	return x;
}

long xb_nr_nodes(void) { return nr_allocated; }
size_t xb_node_size(void) { return sizeof(struct xa_node); }

unsigned long xb_rcu_loop(size_t m)
{
	size_t i;

	for (i = 0; i < m; i++) {
		rcu_read_lock();
		barrier();
		rcu_read_unlock();
	}
	return m;
}
