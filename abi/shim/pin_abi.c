// SPDX-License-Identifier: GPL-2.0
/*
 * The exported pin cache interface (<dmaguard/pin.h>): argument checks,
 * then the core (c-core/pincache.c) over the kernel glue
 * (c-core/platform/kernel/pin_plat.c). Documented once, in the public
 * header. As in pool_abi.c, the size-carrying structs are incomplete
 * types here; dg_pin_conv.c reads and writes them. dmaguard_pin_get()
 * and dmaguard_pin_put() are exported here but defined in pin_io.c,
 * which sees the layouts and the core's entries: a hit and a put are
 * one function each there, and their CRCs still cover no layout.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define DMAGUARD_SHIM_OPAQUE_STRUCTS

#include <linux/module.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/sched.h>
#include <dmaguard/dmaguard.h>
#include "dg_platform.h"
#include "dg_kernel.h"
#include "dg_pin_conv.h"

static inline struct dg_pin_cache *to_core(struct dmaguard_pin_cache *c)
{
	return (struct dg_pin_cache *)c;
}

struct dmaguard_pin_cache *
dmaguard_pin_cache_create(struct device *dev,
			  const struct dmaguard_pin_opts *opts)
{
	struct dg_pin_params p;
	struct dg_pin_cache *c;
	int ret;

	might_sleep();
	ret = dg_pin_opts_parse(opts, dev ? dev_to_node(dev) : NUMA_NO_NODE,
				&p);
	if (ret)
		return ERR_PTR(ret);
	/* A kernel thread has no user pages to pin. */
	if (!dg_node_valid(p.node) || !current->mm)
		return ERR_PTR(-EINVAL);
	p.mm = current->mm;
	p.dev = dev;
	c = dg_pin_cache_create(&p);
	if (!c)
		return ERR_PTR(-ENOMEM);
	dg_pin_cache_plat(c)->tgid = task_tgid_nr(current);
	dg_pin_registry_add(dg_pin_cache_plat(c), c);
	return (struct dmaguard_pin_cache *)c;
}
DG_EXPORT(dmaguard_pin_cache_create);

unsigned long dmaguard_pin_cache_destroy(struct dmaguard_pin_cache *c)
{
	if (!c)
		return 0;
	might_sleep();
	return dg_pin_cache_destroy(to_core(c));
}
DG_EXPORT(dmaguard_pin_cache_destroy);

/* The per-I/O calls, defined in pin_io.c where the layouts are seen. */
DG_EXPORT(dmaguard_pin_get);
DG_EXPORT(dmaguard_pin_put);

int dmaguard_pin_cache_stats(struct dmaguard_pin_cache *c,
			     struct dmaguard_pin_stats *st)
{
	struct dg_pin_stats cs;

	if (!c || !st)
		return -EINVAL;
	dg_pin_get_stats(to_core(c), &cs);
	return dg_pin_stats_out(st, &cs);
}
DG_EXPORT(dmaguard_pin_cache_stats);
