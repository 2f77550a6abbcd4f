/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few xarray calls of the pin cache (xa_alloc() of an id, xa_load()
 * and xas_load(), xa_erase(), xa_for_each()), for the userspace build: a
 * two-level table of pointers indexed by id, lowest free id first (what
 * an XA_FLAGS_ALLOC1 xarray hands out). Stores and erases take a mutex
 * of their own (the kernel's xa_lock); xa_load() takes none, as the
 * kernel's (RCU) does not: the leaves are never moved or freed before
 * xa_destroy(). Same names and contracts as <linux/xarray.h>; not its
 * data structure.
 */
#ifndef _DMAGUARD_USER_XARRAY_H
#define _DMAGUARD_USER_XARRAY_H

#include <pthread.h>
#include "dg_platform.h"

#define DG_XA_LEAF		1024u
#define DG_XA_LEAVES		1024u	/* ids below 2^20 */

struct xarray {
	pthread_mutex_t lock;
	void **leaf[DG_XA_LEAVES];	/* published with release stores */
	u32 nr_used;
};

struct xa_limit {
	u32 min, max;
};

#define XA_FLAGS_ALLOC1		1u
#define xa_limit_32b		((struct xa_limit){ .min = 1, .max = UINT_MAX })

static inline void xa_init_flags(struct xarray *xa, unsigned int flags)
{
	memset(xa, 0, sizeof(*xa));
	pthread_mutex_init(&xa->lock, NULL);
}

/* The slot of @id, or NULL when its leaf does not exist (yet). */
static inline void **xa_slot(struct xarray *xa, unsigned long id)
{
	void **leaf;

	if (id >= (unsigned long)DG_XA_LEAF * DG_XA_LEAVES)
		return NULL;
	leaf = __atomic_load_n(&xa->leaf[id / DG_XA_LEAF], __ATOMIC_ACQUIRE);
	return leaf ? &leaf[id % DG_XA_LEAF] : NULL;
}

/* Store @entry at the lowest free id >= @limit.min: 0, -EBUSY, -ENOMEM. */
static inline int xa_alloc(struct xarray *xa, u32 *id, void *entry,
			   struct xa_limit limit, gfp_t gfp)
{
	unsigned long i, top = (unsigned long)DG_XA_LEAF * DG_XA_LEAVES;
	void **slot, **leaf;
	int err = -EBUSY;

	if (limit.max < top - 1)
		top = (unsigned long)limit.max + 1;
	pthread_mutex_lock(&xa->lock);
	for (i = limit.min; i < top; i++) {
		if (!xa->leaf[i / DG_XA_LEAF]) {
			leaf = calloc(DG_XA_LEAF, sizeof(*leaf));
			if (!leaf) {
				err = -ENOMEM;
				break;
			}
			__atomic_store_n(&xa->leaf[i / DG_XA_LEAF], leaf,
					 __ATOMIC_RELEASE);
		}
		slot = xa_slot(xa, i);
		if (!__atomic_load_n(slot, __ATOMIC_RELAXED)) {
			__atomic_store_n(slot, entry, __ATOMIC_RELEASE);
			__atomic_fetch_add(&xa->nr_used, 1, __ATOMIC_RELAXED);
			*id = i;
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&xa->lock);
	return err;
}

static inline void *xa_load(struct xarray *xa, unsigned long id)
{
	void **slot = xa_slot(xa, id);

	return slot ? __atomic_load_n(slot, __ATOMIC_ACQUIRE) : NULL;
}

/* xas_load() under the caller's RCU section; this table never retries. */
struct xa_state {
	struct xarray *xa;
	unsigned long index;
};

#define XA_STATE(name, array, idx)					\
	struct xa_state name = { .xa = (array), .index = (idx) }

static inline void *xas_load(struct xa_state *xas)
{
	return xa_load(xas->xa, xas->index);
}

static inline bool xas_retry(struct xa_state *xas, const void *entry)
{
	return false;
}

static inline void *xa_erase(struct xarray *xa, unsigned long id)
{
	void **slot, *e = NULL;

	pthread_mutex_lock(&xa->lock);
	slot = xa_slot(xa, id);
	if (slot && *slot) {
		e = *slot;
		__atomic_store_n(slot, NULL, __ATOMIC_RELEASE);
		__atomic_fetch_sub(&xa->nr_used, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&xa->lock);
	return e;
}

/* The first entry at an id >= *@id, and its id; NULL when none. */
static inline void *xa_find(struct xarray *xa, unsigned long *id,
			    unsigned long max, unsigned int filter)
{
	unsigned long i, top = (unsigned long)DG_XA_LEAF * DG_XA_LEAVES;
	void **slot, *e;

	for (i = *id; i < top && i <= max; i++) {
		slot = xa_slot(xa, i);
		if (!slot) {
			i |= DG_XA_LEAF - 1;	/* no leaf: skip it */
			continue;
		}
		e = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
		if (e) {
			*id = i;
			return e;
		}
	}
	return NULL;
}

#define XA_PRESENT		0u
#define xa_for_each(xa, index, entry)					\
	for ((index) = 0, (entry) = xa_find(xa, &(index), ULONG_MAX,	\
					    XA_PRESENT);		\
	     entry;							\
	     (index)++, (entry) = xa_find(xa, &(index), ULONG_MAX,	\
					  XA_PRESENT))

static inline bool xa_empty(struct xarray *xa)
{
	return !__atomic_load_n(&xa->nr_used, __ATOMIC_RELAXED);
}

static inline void xa_destroy(struct xarray *xa)
{
	unsigned int i;

	for (i = 0; i < DG_XA_LEAVES; i++)
		free(xa->leaf[i]);
	pthread_mutex_destroy(&xa->lock);
}

#endif /* _DMAGUARD_USER_XARRAY_H */
