/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Translation between the public pin cache structs (<dmaguard/pin.h>) and
 * the core's (c-core/pincache.h). Plain C over dg_platform.h.
 */
#ifndef _DMAGUARD_PIN_CONV_H
#define _DMAGUARD_PIN_CONV_H

#include <dmaguard/pin.h>
#include "pincache.h"
#include "dg_struct_size.h"

int dg_pin_opts_parse(const struct dmaguard_pin_opts *caller, int node,
		      struct dg_pin_params *p);
int dg_pin_stats_out(struct dmaguard_pin_stats *caller,
		     const struct dg_pin_stats *cs);
void dg_pin_handle_out_short(struct dmaguard_pin *caller,
			     struct dg_pin_handle h);

/*
 * The per-I/O ones, inline in dmaguard_pin_get() and dmaguard_pin_put()
 * (pin_io.c); the exporting file (pin_abi.c) may not see the layouts.
 */
#ifndef DMAGUARD_SHIM_OPAQUE_STRUCTS

/**
 * dg_pin_handle_check() - whether a caller's handle struct can be filled
 * @caller: the caller's struct, zero but for its sz
 *
 * Checked before the get, so that a bad struct pins nothing.
 *
 * Return: 0, -EINVAL (NULL or too small) or -E2BIG (unknown tail not
 * zero, or absurdly large).
 */
static inline int dg_pin_handle_check(const struct dmaguard_pin *caller)
{
	if (!caller)
		return -EINVAL;
	/* Read in place: nothing of it is kept. */
	return dg_struct_check(caller, caller->sz, sizeof(*caller),
			       DMAGUARD_PIN_SIZE_VER0);
}

/**
 * dg_pin_handle_out() - fill a caller's handle, checked already
 * @caller: the caller's struct, passed by dg_pin_handle_check()
 * @h: the core's handle
 */
static inline void dg_pin_handle_out(struct dmaguard_pin *caller,
				     const struct dg_pin_handle *h)
{
	/* Every get fills one: plain stores when the caller knows it all. */
	if (unlikely(caller->sz < sizeof(*caller))) {
		/* by value: @h's address escaping would cost every get */
		dg_pin_handle_out_short(caller, *h);
		return;
	}
	caller->offset = h->offset;
	/* 64-bit kernels only (dmaguard's Kconfig world): a cookie fits. */
	caller->priv = (void *)(uintptr_t)h->cookie;
	caller->pages = (struct page **)h->pages;
	caller->nr_pages = h->nr_pages;
	caller->sgt = h->map;
	caller->sgt_offset = h->map_offset;
}

/**
 * dg_pin_handle_cookie() - the core's cookie in a caller's handle
 * @caller: a handle filled by dg_pin_handle_out(), or anything else
 *
 * The core validates the cookie; this only reads it. A handle too small
 * to be one of any version (no get fills it) gets a cookie of id 0, which
 * no entry has: the core refuses and reports it as a put of a handle it
 * does not hold.
 *
 * Return: the cookie, or 0 for a NULL or already put handle; the handle
 * is marked put.
 */
static inline u64 dg_pin_handle_cookie(struct dmaguard_pin *caller)
{
	u64 cookie;

	if (!caller)
		return 0;
	if (caller->sz < DMAGUARD_PIN_SIZE_VER0)
		return 1ull << 32;
	cookie = (uintptr_t)caller->priv;
	caller->priv = NULL;
	return cookie;
}
#endif /* !DMAGUARD_SHIM_OPAQUE_STRUCTS */

#endif /* _DMAGUARD_PIN_CONV_H */
