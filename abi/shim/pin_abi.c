// SPDX-License-Identifier: GPL-2.0
/*
 * The exported pin cache interface (<dmaguard/pin.h>): argument checks,
 * then the core (c-core/pincache.c) over the kernel glue
 * (c-core/platform/kernel/pin_plat.c). Documented once, in the public
 * header. As in pool_abi.c, the size-carrying structs are incomplete
 * types here; dg_pin_conv.c reads and writes them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define DMAGUARD_SHIM_OPAQUE_STRUCTS

#include <linux/module.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
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

int dmaguard_pin_get(struct dmaguard_pin_cache *c, unsigned long uaddr,
		     size_t len, bool write, struct dmaguard_pin *pin)
{
	struct dg_pin_handle h;
	int ret;

	might_sleep();
	if (!c)
		return -EINVAL;
	ret = dg_pin_handle_check(pin);
	if (ret)
		return ret;
	/* A hit must not hand another address space's pages out either. */
	if (current->mm != dg_pin_cache_plat(to_core(c))->mm)
		return -EFAULT;
	/* Kernel addresses: refused before anything is charged or tracked. */
	if (len && uaddr + len - 1 >= uaddr &&
	    !access_ok((void __user *)uaddr, len))
		return -EFAULT;
	ret = dg_pin_get(to_core(c), uaddr, len, write, &h);
	if (ret)
		return ret;
	dg_pin_handle_out(pin, &h);
	return 0;
}
DG_EXPORT(dmaguard_pin_get);

void dmaguard_pin_put(struct dmaguard_pin_cache *c, struct dmaguard_pin *pin)
{
	struct dg_pin_handle h = { .cookie = dg_pin_handle_cookie(pin) };

	if (!c || !h.cookie)
		return;
	might_sleep();
	/* A handle the cache does not hold is reported and counted there. */
	dg_pin_put(to_core(c), &h);
}
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
