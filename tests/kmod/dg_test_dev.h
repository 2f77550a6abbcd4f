/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by dmaguard's in-VM test modules: a DMA-capable platform device,
 * the DMAGUARD_INTERNAL import, KTAP output helpers and a small PRNG.
 * Everything is static inline or a macro: each module includes it once.
 */
#ifndef _DMAGUARD_TEST_DEV_H
#define _DMAGUARD_TEST_DEV_H

#include <linux/err.h>
#include <linux/dma-mapping.h>
#include <linux/platform_device.h>
#include <linux/printk.h>
#include <linux/version.h>
#include <dmaguard/dmaguard.h>
#include "pool.h"

/* Test modules also reach the core (stats, chunk walk): not ABI. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define DG_TEST_IMPORT_INTERNAL()	MODULE_IMPORT_NS("DMAGUARD_INTERNAL")
#else
#define DG_TEST_IMPORT_INTERNAL()	MODULE_IMPORT_NS(DMAGUARD_INTERNAL)
#endif

/*
 * The public handle is the core pool itself (abi/shim/pool_abi.c): the
 * one cast a test needs to reach the DMAGUARD_INTERNAL calls.
 */
static inline struct dg_pool *dg_test_core(struct dmaguard_pool *pool)
{
	return (struct dg_pool *)pool;
}

/**
 * dg_test_dev_create() - a platform device that can do 64-bit DMA
 * @name: device name (a unique id is appended)
 *
 * Return: the device, or an ERR_PTR.
 */
static inline struct platform_device *dg_test_dev_create(const char *name)
{
	struct platform_device *pdev;
	int ret;

	pdev = platform_device_register_simple(name, PLATFORM_DEVID_AUTO,
					       NULL, 0);
	if (IS_ERR(pdev))
		return pdev;
	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret) {
		platform_device_unregister(pdev);
		return ERR_PTR(ret);
	}
	return pdev;
}

static inline void dg_test_dev_destroy(struct platform_device *pdev)
{
	if (!IS_ERR_OR_NULL(pdev))
		platform_device_unregister(pdev);
}

/*
 * KTAP: one top-level document per module, "KTAP version 1", the plan,
 * then "ok N name" / "not ok N name" with "# " diagnostics, all through
 * pr_info() so the pr_fmt prefix tells the documents apart.
 */
struct dg_ktap {
	unsigned int n;		/* cases reported so far */
	unsigned int failed;
};

static inline void dg_ktap_begin(struct dg_ktap *k, unsigned int plan)
{
	k->n = 0;
	k->failed = 0;
	pr_info("KTAP version 1\n");
	pr_info("1..%u\n", plan);
}

static inline void dg_ktap_result(struct dg_ktap *k, bool ok,
				  const char *name)
{
	k->n++;
	if (!ok)
		k->failed++;
	pr_info("%sok %u %s\n", ok ? "" : "not ", k->n, name);
}

static inline void dg_ktap_skip(struct dg_ktap *k, const char *name,
				const char *why)
{
	k->n++;
	pr_info("ok %u %s # SKIP %s\n", k->n, name, why);
}

/* xorshift64*: fast, reproducible from its seed, good enough for tests. */
static inline u64 dg_rand(u64 *state)
{
	u64 x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static inline u32 dg_rand_below(u64 *state, u32 n)
{
	return (u32)(((dg_rand(state) >> 32) * n) >> 32);
}

#endif /* _DMAGUARD_TEST_DEV_H */
