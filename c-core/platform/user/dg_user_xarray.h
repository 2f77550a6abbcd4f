/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few xarray calls of the pin cache (xa_alloc() of an id, xa_load(),
 * xa_erase()), for the userspace build: a growable array of pointers
 * indexed by id, lowest free id first (what an XA_FLAGS_ALLOC1 xarray
 * hands out), under a mutex of its own as the kernel's xa_lock. Same
 * names and contracts as <linux/xarray.h>; not its data structure.
 */
#ifndef _DMAGUARD_USER_XARRAY_H
#define _DMAGUARD_USER_XARRAY_H

#include <pthread.h>
#include "dg_platform.h"

struct xarray {
	pthread_mutex_t lock;
	void **slots;		/* slots[id], id from 1 */
	u32 nr_slots;
	u32 nr_used;
};

struct xa_limit {
	u32 min, max;
};

#define XA_FLAGS_ALLOC1		1u
#define xa_limit_32b		((struct xa_limit){ .min = 1, .max = UINT_MAX })

static inline void xa_init_flags(struct xarray *xa, unsigned int flags)
{
	pthread_mutex_init(&xa->lock, NULL);
	xa->slots = NULL;
	xa->nr_slots = 0;
	xa->nr_used = 0;
}

/* Store @entry at the lowest free id >= @limit.min: 0, -EBUSY, -ENOMEM. */
static inline int xa_alloc(struct xarray *xa, u32 *id, void *entry,
			   struct xa_limit limit, gfp_t gfp)
{
	u32 i, n;
	void **s;

	pthread_mutex_lock(&xa->lock);
	for (i = limit.min; i < xa->nr_slots && xa->slots[i]; i++)
		;
	if (i > limit.max) {
		pthread_mutex_unlock(&xa->lock);
		return -EBUSY;
	}
	if (i >= xa->nr_slots) {
		n = xa->nr_slots ? 2 * xa->nr_slots : 16;
		s = realloc(xa->slots, n * sizeof(*s));
		if (!s) {
			pthread_mutex_unlock(&xa->lock);
			return -ENOMEM;
		}
		memset(s + xa->nr_slots, 0, (n - xa->nr_slots) * sizeof(*s));
		xa->slots = s;
		xa->nr_slots = n;
	}
	xa->slots[i] = entry;
	xa->nr_used++;
	*id = i;
	pthread_mutex_unlock(&xa->lock);
	return 0;
}

static inline void *xa_load(struct xarray *xa, unsigned long id)
{
	void *e = NULL;

	pthread_mutex_lock(&xa->lock);
	if (id < xa->nr_slots)
		e = xa->slots[id];
	pthread_mutex_unlock(&xa->lock);
	return e;
}

static inline void *xa_erase(struct xarray *xa, unsigned long id)
{
	void *e = NULL;

	pthread_mutex_lock(&xa->lock);
	if (id < xa->nr_slots && xa->slots[id]) {
		e = xa->slots[id];
		xa->slots[id] = NULL;
		xa->nr_used--;
	}
	pthread_mutex_unlock(&xa->lock);
	return e;
}

static inline bool xa_empty(struct xarray *xa)
{
	bool empty;

	pthread_mutex_lock(&xa->lock);
	empty = !xa->nr_used;
	pthread_mutex_unlock(&xa->lock);
	return empty;
}

static inline void xa_destroy(struct xarray *xa)
{
	free(xa->slots);
	xa->slots = NULL;
	xa->nr_slots = 0;
	xa->nr_used = 0;
	pthread_mutex_destroy(&xa->lock);
}

#endif /* _DMAGUARD_USER_XARRAY_H */
