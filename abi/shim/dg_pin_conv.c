// SPDX-License-Identifier: GPL-2.0
/*
 * Public pin cache structs to and from the core's, with the size rules of
 * dg_struct_size.c. Plain C: no decision here depends on the kernel.
 */
#include "dg_platform.h"
#include "dg_pin_conv.h"
#include "dg_struct_size.h"

/**
 * dg_pin_opts_parse() - core parameters from a caller's pin cache options
 * @caller: the caller's struct, any version, @caller->sz bytes
 * @node: node to use unless the options name one (DMAGUARD_PIN_F_NODE)
 * @p: filled in, @p->mm and @p->dev left NULL
 *
 * Return: 0; -EINVAL (NULL, too small, unknown flag); -E2BIG (unknown
 * non-zero tail).
 */
int dg_pin_opts_parse(const struct dmaguard_pin_opts *caller, int node,
		      struct dg_pin_params *p)
{
	struct dmaguard_pin_opts o;
	int ret;

	BUILD_BUG_ON(sizeof(o) < DMAGUARD_PIN_OPTS_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct dmaguard_pin) < DMAGUARD_PIN_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct dmaguard_pin_stats) <
		     DMAGUARD_PIN_STATS_SIZE_VER0);

	memset(p, 0, sizeof(*p));
	if (!caller)
		return -EINVAL;
	ret = dg_struct_copy_in(&o, sizeof(o), caller, caller->sz,
				DMAGUARD_PIN_OPTS_SIZE_VER0);
	if (ret)
		return ret;
	if (o.flags & ~DMAGUARD_PIN_F_ALL)
		return -EINVAL;
	p->max_bytes = o.max_bytes;
	p->max_entries = o.max_entries;
	p->node = o.flags & DMAGUARD_PIN_F_NODE ? o.node : node;
	return 0;
}

/**
 * dg_pin_handle_out_short() - dg_pin_handle_out() for an older caller
 * @caller: the caller's struct, passed by dg_pin_handle_check(), smaller
 *	than this version's
 * @h: the core's handle
 */
void dg_pin_handle_out_short(struct dmaguard_pin *caller,
			     struct dg_pin_handle h)
{
	struct dmaguard_pin pin = {
		.sz = caller->sz,
		.offset = h.offset,
		.priv = (void *)(uintptr_t)h.cookie,
		.pages = (struct page **)h.pages,
		.nr_pages = h.nr_pages,
		.sgt = h.map,
		.sgt_offset = h.map_offset,
	};

	dg_struct_copy_out(caller, caller->sz, &pin, sizeof(pin),
			   DMAGUARD_PIN_SIZE_VER0);
}

/**
 * dg_pin_stats_out() - fill a caller's stats struct, any version
 * @caller: the caller's struct, @caller->sz bytes, zero but for sz
 * @cs: the core's snapshot
 *
 * Return: 0, -EINVAL (NULL or too small) or -E2BIG (unknown tail not
 * zero); on error @caller is untouched.
 */
int dg_pin_stats_out(struct dmaguard_pin_stats *caller,
		     const struct dg_pin_stats *cs)
{
	struct dmaguard_pin_stats st;

	if (!caller)
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	st.sz = caller->sz;
	st.entries = cs->entries;
	st.entries_indexed = cs->entries_indexed;
	st.hits = cs->hits;
	st.misses = cs->misses;
	st.invalidations = cs->invalidations;
	st.inval_ignored = cs->inval_ignored;
	st.evictions = cs->evictions;
	st.retries = cs->retries;
	st.pinned_bytes = cs->pinned_bytes;
	st.handles = cs->handles;
	st.bad_puts = cs->bad_puts;
	st.prot_checks = cs->prot_checks;
	return dg_struct_copy_out(caller, caller->sz, &st, sizeof(st),
				  DMAGUARD_PIN_STATS_SIZE_VER0);
}
