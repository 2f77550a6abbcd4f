/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace <linux/device.h> for the exported-interface files: the
 * simulated kernel's devices are all alike (chunk_mem.c ignores them), so
 * a device is its NUMA node and its device resources; dg_user_dev is the
 * one tests pass.
 * dev_err() is dg_platform.h's: counted, printed with -v.
 */
#ifndef _DMAGUARD_USER_LINUX_DEVICE_H
#define _DMAGUARD_USER_LINUX_DEVICE_H

#include "dg_platform.h"

struct device {
	int numa_node;
	long refs;			/* get_device() less put_device() */
	struct dg_user_devres *devres;	/* newest first */
};

extern struct device dg_user_dev;

/*
 * References, as the driver core counts them; the simulated device is
 * never released, but a put without a get is reported (dev_err()'s count),
 * and tests read the balance with dg_user_device_refs().
 */
struct device *get_device(struct device *dev);
void put_device(struct device *dev);
long dg_user_device_refs(const struct device *dev);

/*
 * Device resources, as the driver core keeps them: released newest first
 * by dg_user_devres_release_all(), which a test calls where the driver
 * core would (unbind). Not thread-safe: a test's device is its own.
 */
typedef void (*dr_release_t)(struct device *dev, void *res);
typedef int (*dr_match_t)(struct device *dev, void *res, void *match_data);

void *devres_alloc(dr_release_t release, size_t size, gfp_t gfp);
void devres_free(void *res);
void devres_add(struct device *dev, void *res);
int devres_release(struct device *dev, dr_release_t release,
		   dr_match_t match, void *match_data);
void dg_user_devres_release_all(struct device *dev);

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

#define pr_err(fmt, ...)	dg_user_printk(pr_fmt(fmt), ##__VA_ARGS__)

#endif /* _DMAGUARD_USER_LINUX_DEVICE_H */
