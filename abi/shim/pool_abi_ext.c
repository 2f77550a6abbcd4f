// SPDX-License-Identifier: GPL-2.0
/*
 * Exported pool calls that take size-carrying structs: create from
 * options, and statistics. The size rules live in dg_struct_size.c and
 * the translation in dg_pool_conv.c (both plain C, unit-tested in
 * userspace); this file only adds what needs the kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/nodemask.h>
#include <dmaguard/dmaguard.h>
#include "dg_platform.h"
#include "dg_kernel.h"
#include "dg_pool_conv.h"

/**
 * dmaguard_pool_create_opts() - create a pool from an options struct
 * @dev: device doing the DMA
 * @opts: what to create, any version of the struct
 *
 * Context: process context.
 * Return: the pool, or ERR_PTR(-EINVAL / -E2BIG / -ENOMEM); see
 * <dmaguard/pool.h>.
 */
struct dmaguard_pool *
dmaguard_pool_create_opts(struct device *dev,
			  const struct dmaguard_pool_opts *opts)
{
	struct dmaguard_pool_opts o;
	struct dg_pool_params p;
	struct dg_pool *pool;
	const char *why, *name;
	int ret;

	might_sleep();
	ret = dg_pool_opts_in(&o, opts, &why);
	name = ret ? NULL : o.name;	/* o is only valid after a copy-in */
	if (!ret && !dev) {
		why = "no device";
		ret = -EINVAL;
	}
	if (!ret && (o.flags & DMAGUARD_POOL_F_NODE) &&
	    o.node != NUMA_NO_NODE &&
	    (o.node < 0 || o.node >= MAX_NUMNODES || !node_possible(o.node))) {
		why = "no such NUMA node";
		ret = -EINVAL;
	}
	if (!ret) {
		dg_pool_opts_params(&o, dev, dev_to_node(dev), &p);
		if (dg_pool_check_params(&p, &why))
			ret = -EINVAL;
	}
	if (ret) {
		if (ret == -E2BIG)
			why = "opts larger than this module knows, unknown fields not zero";
		pr_err("pool %s: cannot create: %s\n",
		       name ? name : "(null)", why ? why : "invalid options");
		return ERR_PTR(ret);
	}
	pool = dg_pool_create(&p);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	dg_registry_add(pool);
	return (struct dmaguard_pool *)pool;
}
DG_EXPORT(dmaguard_pool_create_opts);

/**
 * dmaguard_pool_get_stats() - snapshot of a pool's counters
 * @pool: the pool
 * @st: the caller's struct, any version, zero but for @st->sz
 *
 * Context: any context.
 * Return: 0, -EINVAL or -E2BIG; see <dmaguard/pool.h>.
 */
int dmaguard_pool_get_stats(const struct dmaguard_pool *pool,
			    struct dmaguard_pool_stats *st)
{
	struct dg_pool_stats cs;

	if (!pool || !st)
		return -EINVAL;
	dg_pool_get_stats((struct dg_pool *)pool, &cs);
	return dg_pool_stats_out(st, &cs);
}
DG_EXPORT(dmaguard_pool_get_stats);
