// SPDX-License-Identifier: GPL-2.0
/*
 * What the exported-interface files of abi/shim/ (pool_abi.c, pin_abi.c)
 * take from the kernel besides the core, for their userspace build into
 * libdmaguard.a (scripts/mk/core.mk): the simulated device, `current`
 * (a per-thread task whose mm a test sets), device resources (for the
 * managed pools), and the registries, which in the kernel only feed
 * debugfs (main.c) and here record nothing.
 */
#include <stdlib.h>
#include <unistd.h>
#include <linux/device.h>
#include <linux/sched.h>
#include "dg_kernel.h"
#include "dg_pin_plat.h"

/* The one device of the simulated kernel; no NUMA node. */
struct device dg_user_dev = { .numa_node = NUMA_NO_NODE };

struct device *get_device(struct device *dev)
{
	if (dev)
		__atomic_add_fetch(&dev->refs, 1, __ATOMIC_RELAXED);
	return dev;
}

void put_device(struct device *dev)
{
	if (dev && __atomic_sub_fetch(&dev->refs, 1, __ATOMIC_RELEASE) < 0)
		dev_err(dev, "put_device() without a reference\n");
}

long dg_user_device_refs(const struct device *dev)
{
	return __atomic_load_n(&dev->refs, __ATOMIC_ACQUIRE);
}

static __thread struct task_struct dg_user_task;

struct task_struct *dg_user_current(void)
{
	if (!dg_user_task.tgid)
		dg_user_task.tgid = getpid();
	return &dg_user_task;
}

void dg_user_set_current_mm(struct dg_user_mm *mm)
{
	dg_user_current()->mm = mm;
}

struct dg_user_devres {
	struct dg_user_devres *next;
	dr_release_t release;
	unsigned long long data[];
};

static struct dg_user_devres *to_devres(void *res)
{
	return (struct dg_user_devres *)((char *)res -
					 offsetof(struct dg_user_devres, data));
}

void *devres_alloc(dr_release_t release, size_t size, gfp_t gfp)
{
	struct dg_user_devres *dr = calloc(1, sizeof(*dr) + size);

	if (!dr)
		return NULL;
	dr->release = release;
	return dr->data;
}

void devres_free(void *res)
{
	if (res)
		free(to_devres(res));
}

void devres_add(struct device *dev, void *res)
{
	struct dg_user_devres *dr = to_devres(res);

	dr->next = dev->devres;
	dev->devres = dr;
}

int devres_release(struct device *dev, dr_release_t release,
		   dr_match_t match, void *match_data)
{
	struct dg_user_devres **pp, *dr;

	for (pp = &dev->devres; (dr = *pp); pp = &dr->next) {
		if (dr->release != release ||
		    (match && !match(dev, dr->data, match_data)))
			continue;
		*pp = dr->next;
		dr->release(dev, dr->data);
		free(dr);
		return 0;
	}
	return -ENOENT;
}

void dg_user_devres_release_all(struct device *dev)
{
	struct dg_user_devres *dr;

	while ((dr = dev->devres)) {
		dev->devres = dr->next;
		dr->release(dev, dr->data);
		free(dr);
	}
}

void dg_registry_add(struct dg_pool *pool)
{
}

void dg_registry_del(struct dg_pool *pool)
{
}

