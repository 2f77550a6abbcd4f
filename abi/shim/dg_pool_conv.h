/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Translation between the public pool structs (<dmaguard/pool.h>) and the
 * core's (c-core/pool.h). Plain C over dg_platform.h, built into
 * dmaguard.ko and into the userspace ABI tests (tests/abi/).
 */
#ifndef _DMAGUARD_POOL_CONV_H
#define _DMAGUARD_POOL_CONV_H

#include <dmaguard/pool.h>
#include "pool.h"

int dg_pool_opts_in(struct dmaguard_pool_opts *o,
		    const struct dmaguard_pool_opts *caller, const char **why);
void dg_pool_opts_params(const struct dmaguard_pool_opts *o, void *dev,
			 int node, struct dg_pool_params *p);
int dg_pool_opts_parse(const struct dmaguard_pool_opts *caller, int node,
		       struct dg_pool_params *p, const char **why);
int dg_pool_stats_out(struct dmaguard_pool_stats *caller,
		      const struct dg_pool_stats *cs);

#endif /* _DMAGUARD_POOL_CONV_H */
