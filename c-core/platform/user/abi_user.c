// SPDX-License-Identifier: GPL-2.0
/*
 * What the exported-interface files of abi/shim/ (pool_abi.c, pin_abi.c)
 * take from the kernel besides the core, for their userspace build into
 * libdmaguard.a (scripts/mk/core.mk): the simulated device, `current`
 * (a per-thread task whose mm a test sets), and the registries, which in
 * the kernel only feed debugfs (main.c) and here record nothing.
 */
#include <unistd.h>
#include <linux/device.h>
#include <linux/sched.h>
#include "dg_kernel.h"
#include "dg_pin_plat.h"

/* The one device of the simulated kernel; no NUMA node. */
struct device dg_user_dev = { .numa_node = NUMA_NO_NODE };

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

void dg_registry_add(struct dg_pool *pool)
{
}

void dg_registry_del(struct dg_pool *pool)
{
}

void dg_pin_registry_add(struct dg_pin_plat *plat, struct dg_pin_cache *c)
{
}
