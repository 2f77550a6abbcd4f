// SPDX-License-Identifier: GPL-2.0
/*
 * Public pool structs to and from the core's, with every size rule applied
 * by dg_struct_size.c. Plain C: no decision here depends on the kernel, so
 * tests/abi/ runs it under ASan/UBSan in userspace.
 */
#include "dg_platform.h"
#include "dg_pool_conv.h"
#include "dg_struct_size.h"

/**
 * dg_pool_opts_in() - check a caller's pool options, any version
 * @o: this module's copy, filled in on success
 * @caller: the caller's struct, @caller->sz bytes
 * @why: on -EINVAL, a reason to print
 *
 * Return: 0; -EINVAL (NULL, too small, unknown flag, reserved field set,
 * a size that does not fit size_t); -E2BIG (unknown non-zero tail).
 */
int dg_pool_opts_in(struct dmaguard_pool_opts *o,
		    const struct dmaguard_pool_opts *caller, const char **why)
{
	int ret;

	/* The plain-C helpers' errno values and sizes match this build's. */
	BUILD_BUG_ON(EINVAL != DG_SZ_EINVAL);
	BUILD_BUG_ON(E2BIG != DG_SZ_E2BIG);
	BUILD_BUG_ON(sizeof(*o) < DMAGUARD_POOL_OPTS_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct dmaguard_pool_stats) <
		     DMAGUARD_POOL_STATS_SIZE_VER0);
	/* A new kind of bad free needs a stats field. */
	BUILD_BUG_ON(DG_BAD_NR != 5);

	*why = NULL;
	if (!caller) {
		*why = "opts is NULL";
		return -EINVAL;
	}
	ret = dg_struct_copy_in(o, sizeof(*o), caller, caller->sz,
				DMAGUARD_POOL_OPTS_SIZE_VER0);
	if (ret == -EINVAL)
		*why = "opts->sz smaller than version 0";
	if (ret)
		return ret;
	if (o->flags & ~DMAGUARD_POOL_F_ALL)
		*why = "unknown flag in opts->flags";
	else if (o->__reserved0)
		*why = "reserved field of opts not zero";
	else if ((size_t)o->size != o->size || (size_t)o->align != o->align ||
		 (size_t)o->boundary != o->boundary)
		*why = "size, align or boundary out of range";
	else
		return 0;
	return -EINVAL;
}

/**
 * dg_pool_opts_params() - core parameters from checked options
 * @o: options checked by dg_pool_opts_in()
 * @dev: the device (the core's opaque backend context)
 * @node: node to use unless @o has DMAGUARD_POOL_F_NODE
 * @p: filled in
 */
void dg_pool_opts_params(const struct dmaguard_pool_opts *o, void *dev,
			 int node, struct dg_pool_params *p)
{
	p->name = o->name;
	p->dev = dev;
	p->size = (size_t)o->size;
	p->align = (size_t)o->align;
	p->boundary = (size_t)o->boundary;
	p->node = o->flags & DMAGUARD_POOL_F_NODE ? o->node : node;
}

/**
 * dg_pool_opts_parse() - core parameters from a caller's options
 * @caller: the caller's struct, any version, @caller->sz bytes
 * @node: node to use unless the options name one (DMAGUARD_POOL_F_NODE)
 * @p: filled in, @p->dev left NULL; on error only @p->name may be set
 *	(the pool's name, when the options could be read at all)
 * @why: on error, a reason to print
 *
 * dg_pool_opts_in() and dg_pool_opts_params() in one, for the exporting
 * file (pool_abi.c), which sees struct dmaguard_pool_opts as an
 * incomplete type (see <dmaguard/pool.h>).
 *
 * Return: 0, -EINVAL or -E2BIG, as dg_pool_opts_in().
 */
int dg_pool_opts_parse(const struct dmaguard_pool_opts *caller, int node,
		       struct dg_pool_params *p, const char **why)
{
	struct dmaguard_pool_opts o;
	int ret;

	memset(p, 0, sizeof(*p));
	/* A copy-in that fails leaves o as it is: no name then. */
	memset(&o, 0, sizeof(o));
	ret = dg_pool_opts_in(&o, caller, why);
	p->name = o.name;
	if (ret == -E2BIG)
		*why = "opts larger than this module knows, unknown fields not zero";
	if (ret)
		return ret;
	dg_pool_opts_params(&o, NULL, node, p);
	return 0;
}

/**
 * dg_pool_stats_out() - fill a caller's stats struct, any version
 * @caller: the caller's struct, @caller->sz bytes, zero but for sz
 * @cs: the core's snapshot
 *
 * Return: 0, -EINVAL (NULL or too small) or -E2BIG (unknown tail not
 * zero); on error @caller is untouched.
 */
int dg_pool_stats_out(struct dmaguard_pool_stats *caller,
		      const struct dg_pool_stats *cs)
{
	struct dmaguard_pool_stats st;

	if (!caller)
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	st.sz = caller->sz;	/* the caller's, left as it was */
	st.block_size = cs->size;
	st.stride = cs->stride;
	st.chunk_size = cs->chunk_size;
	st.blocks_per_chunk = cs->blocks_per_chunk;
	st.chunks = cs->chunks;
	st.chunks_empty = cs->chunks_empty;
	st.blocks_in_use = cs->blocks_in_use;
	st.blocks_total = cs->blocks_total;
	st.chunks_allocated = cs->chunks_allocated;
	st.chunks_released = cs->chunks_released;
	st.meta_bytes = cs->meta_bytes;
	st.bad_free_foreign = cs->bad_frees[DG_BAD_FOREIGN];
	st.bad_free_misaligned = cs->bad_frees[DG_BAD_MISALIGNED];
	st.bad_free_dma = cs->bad_frees[DG_BAD_DMA];
	st.bad_free_double = cs->bad_frees[DG_BAD_DOUBLE];
	return dg_struct_copy_out(caller, caller->sz, &st, sizeof(st),
				  DMAGUARD_POOL_STATS_SIZE_VER0);
}
