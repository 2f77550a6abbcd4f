// SPDX-License-Identifier: GPL-2.0
/*
 * The exported pool interface: argument checks, then the core. Every
 * exported call of dmaguard.ko is defined here (test hooks aside:
 * dg_test_hooks.c) and documented once, in <dmaguard/dmaguard.h> and
 * <dmaguard/pool.h>.
 *
 * The public handle is the core pool itself, and the hot paths run the
 * core's inline fast paths (pool_fast.h) here; device-visible memory
 * leaves the __dma address space here, and only here, when a block is
 * handed to its driver.
 *
 * This file sees the size-carrying structs as incomplete types, so that
 * no symbol version (genksyms or gendwarfksyms) covers their layout: see
 * <dmaguard/pool.h>. dg_pool_conv.c reads and writes them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define DMAGUARD_SHIM_OPAQUE_STRUCTS

#include <linux/module.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <dmaguard/dmaguard.h>
#include "dg_platform.h"
#include "dg_kernel.h"
#include "dg_pool_conv.h"
#include "pool_fast.h"

static inline struct dg_pool *to_core(struct dmaguard_pool *pool)
{
	return (struct dg_pool *)pool;
}

unsigned int dmaguard_version(void)
{
	return DMAGUARD_VERSION;
}
DG_EXPORT(dmaguard_version);

static void dg_create_refused(struct device *dev, const char *name,
			      const char *why)
{
	if (!name)
		name = "(null)";
	if (dev)
		dev_err(dev, "pool %s: cannot create: %s\n", name, why);
	else
		pr_err("pool %s: cannot create: %s\n", name, why);
}

/*
 * The one create path: every create call ends here, with the node it
 * asked for (or the device's) in @p->node. Refusals are reported, naming
 * the pool and the device. Callers that promise NULL turn the error
 * pointer into NULL; dmaguard_pool_create_opts() passes it on.
 */
static struct dmaguard_pool *dg_create(struct device *dev,
				       struct dg_pool_params *p)
{
	struct dg_pool *pool;
	const char *why = NULL;

	might_sleep();
	if (!dev)
		why = "no device";
	else if (!dg_node_valid(p->node))
		why = "no such NUMA node";
	else
		dg_pool_check_params(p, &why);
	if (why) {
		dg_create_refused(dev, p->name, why);
		return ERR_PTR(-EINVAL);
	}
	p->dev = dev;
	pool = dg_pool_create(p);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	dg_registry_add(pool);
	return (struct dmaguard_pool *)pool;
}

struct dmaguard_pool *dmaguard_pool_create_node(const char *name,
						struct device *dev,
						size_t size, size_t align,
						size_t boundary, int node)
{
	struct dg_pool_params p = {
		.name = name, .size = size, .align = align,
		.boundary = boundary, .node = node,
	};
	struct dmaguard_pool *pool = dg_create(dev, &p);

	return IS_ERR(pool) ? NULL : pool;
}
DG_EXPORT(dmaguard_pool_create_node);

struct dmaguard_pool *dmaguard_pool_create(const char *name,
					   struct device *dev, size_t size,
					   size_t align, size_t boundary)
{
	return dmaguard_pool_create_node(name, dev, size, align, boundary,
					 dev ? dev_to_node(dev) : NUMA_NO_NODE);
}
DG_EXPORT(dmaguard_pool_create);

struct dmaguard_pool *
dmaguard_pool_create_opts(struct device *dev,
			  const struct dmaguard_pool_opts *opts)
{
	struct dg_pool_params p;
	const char *why;
	int ret;

	might_sleep();
	ret = dg_pool_opts_parse(opts, dev ? dev_to_node(dev) : NUMA_NO_NODE,
				 &p, &why);
	if (ret) {
		dg_create_refused(dev, p.name, why ? why : "invalid options");
		return ERR_PTR(ret);
	}
	return dg_create(dev, &p);
}
DG_EXPORT(dmaguard_pool_create_opts);

void *dmaguard_pool_alloc(struct dmaguard_pool *pool, gfp_t mem_flags,
			  dma_addr_t *handle)
{
	return (void __force *)__dg_pool_alloc(to_core(pool), mem_flags,
					       handle);
}
DG_EXPORT(dmaguard_pool_alloc);

void *dmaguard_pool_zalloc(struct dmaguard_pool *pool, gfp_t mem_flags,
			   dma_addr_t *handle)
{
	return dmaguard_pool_alloc(pool, mem_flags | __GFP_ZERO, handle);
}
DG_EXPORT(dmaguard_pool_zalloc);

/* The kernel's barriers are macros: these give them a symbol (Rust). */
void dmaguard_dma_wmb(void)
{
	dma_wmb();
}
DG_EXPORT(dmaguard_dma_wmb);

void dmaguard_dma_rmb(void)
{
	dma_rmb();
}
DG_EXPORT(dmaguard_dma_rmb);

void dmaguard_pool_free(struct dmaguard_pool *pool, void *vaddr,
			dma_addr_t dma)
{
	__dg_pool_free(to_core(pool), (void __dma __force *)vaddr, dma);
}
DG_EXPORT(dmaguard_pool_free);

void dmaguard_pool_destroy(struct dmaguard_pool *pool)
{
	if (!pool)
		return;
	might_sleep();
	dg_registry_del(to_core(pool));
	dg_pool_destroy(to_core(pool));
}
DG_EXPORT(dmaguard_pool_destroy);

/* The device resource of a managed pool: the pool pointer. */
static void dg_pool_devres_release(struct device *dev, void *res)
{
	dmaguard_pool_destroy(*(struct dmaguard_pool **)res);
}

static int dg_pool_devres_match(struct device *dev, void *res, void *data)
{
	return *(struct dmaguard_pool **)res == data;
}

struct dmaguard_pool *dmaguard_pool_create_managed(const char *name,
						   struct device *dev,
						   size_t size, size_t align,
						   size_t boundary)
{
	struct dmaguard_pool **res, *pool;

	res = devres_alloc(dg_pool_devres_release, sizeof(*res), GFP_KERNEL);
	if (!res)
		return NULL;
	pool = dmaguard_pool_create(name, dev, size, align, boundary);
	if (!pool) {
		devres_free(res);
		return NULL;
	}
	*res = pool;
	devres_add(dev, res);
	return pool;
}
DG_EXPORT(dmaguard_pool_create_managed);

void dmaguard_pool_destroy_managed(struct dmaguard_pool *pool)
{
	struct dg_pool *core = to_core(pool);

	if (!pool)
		return;
	might_sleep();
	/* releases (destroys) it if it is one of the device's resources */
	if (devres_release(core->dev, dg_pool_devres_release,
			   dg_pool_devres_match, pool))
		dev_err(core->dev,
			"pool %s: not created by dmaguard_pool_create_managed(), not destroyed\n",
			core->name);
}
DG_EXPORT(dmaguard_pool_destroy_managed);

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
