/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace <linux/device.h> for the exported-interface files: the
 * simulated kernel's devices are all alike (chunk_mem.c ignores them), so
 * a device is only its NUMA node; dg_user_dev is the one tests pass.
 * Messages are counted and printed as dg_err() does (dg_platform.h).
 */
#ifndef _DMAGUARD_USER_LINUX_DEVICE_H
#define _DMAGUARD_USER_LINUX_DEVICE_H

#include "dg_platform.h"

struct device {
	int numa_node;
};

extern struct device dg_user_dev;

static inline int dev_to_node(struct device *dev)
{
	return dev->numa_node;
}

#ifndef pr_fmt
#define pr_fmt(fmt)		fmt
#endif

#define dg_user_printk(fmt, ...) do {					\
	__atomic_add_fetch(&dg_user_reports_err, 1, __ATOMIC_RELAXED);	\
	if (dg_user_verbose)						\
		fprintf(stderr, fmt, ##__VA_ARGS__);			\
} while (0)

#define dev_err(dev, fmt, ...)	\
	dg_user_printk("dev %p: " fmt, (void *)(dev), ##__VA_ARGS__)
#define pr_err(fmt, ...)	dg_user_printk(pr_fmt(fmt), ##__VA_ARGS__)

#endif /* _DMAGUARD_USER_LINUX_DEVICE_H */
