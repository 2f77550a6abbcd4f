/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _DMAGUARD_CORE_RING_H
#define _DMAGUARD_CORE_RING_H

#include "dg_platform.h"

/*
 * Chunk lists: a plain circular doubly-linked ring, not <linux/list.h>:
 * with CONFIG_DEBUG_LIST (Debian's kernels) each list operation is an
 * out-of-line check, and chunks change lists on the hot path. The rings
 * live in kernel memory that the device cannot reach.
 */
struct dg_ring {
	struct dg_ring *next, *prev;
};

static inline void ring_init(struct dg_ring *r)
{
	r->next = r;
	r->prev = r;
}

static inline bool ring_empty(const struct dg_ring *r)
{
	return r->next == r;
}

static inline void ring_unlink(struct dg_ring *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
}

static inline void ring_insert(struct dg_ring *e, struct dg_ring *prev,
			       struct dg_ring *next)
{
	e->prev = prev;
	e->next = next;
	prev->next = e;
	next->prev = e;
}

static inline void ring_push_head(struct dg_ring *e, struct dg_ring *r)
{
	ring_insert(e, r, r->next);
}

static inline void ring_push_tail(struct dg_ring *e, struct dg_ring *r)
{
	ring_insert(e, r->prev, r);
}

#endif /* _DMAGUARD_CORE_RING_H */
