/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by dmaguard's in-VM test modules: the device their pools live on
 * (QEMU's edu PCI device when the VM has one, else a platform device),
 * the DMAGUARD_INTERNAL import, KTAP output helpers and a small PRNG.
 * Everything is static inline or a macro: each module includes it once.
 */
#ifndef _DMAGUARD_TEST_DEV_H
#define _DMAGUARD_TEST_DEV_H

#include <linux/err.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/swiotlb.h>
#include <linux/version.h>
#include <dmaguard/dmaguard.h>
#include "pool.h"
#include "dg_test_edu.h"

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

/**
 * struct dg_test_dev - the device a test module makes its pools for
 * @dev: the device to create pools on
 * @edu: QEMU's edu PCI device, if the VM has one: a real PCI device,
 *	behind the IOMMU when the VM has one (see the DMA backends of
 *	scripts/vm/vmtest.py); NULL otherwise
 * @plat: otherwise a platform device of our own, never behind an IOMMU
 * @command: the edu device's PCI_COMMAND as found, restored on release
 */
struct dg_test_dev {
	struct device *dev;
	struct pci_dev *edu;
	struct platform_device *plat;
	u16 command;
};

/**
 * dg_test_dev_get() - the device for a test module's pools
 * @td: filled in
 * @name: name of the platform device made when there is no edu device
 *
 * With QEMU's edu device (PCI 1234:11e8) in the VM, that device, with a
 * 32-bit DMA mask (the specs give it "-device edu,dma_mask=0xffffffff"),
 * memory decoding and bus mastering on; else a new platform device with a
 * 64-bit mask. Memory decoding and bus mastering are switched on in the
 * command register directly: pci_enable_device() would also route the
 * device's interrupt through ACPI, which the tests do not need and which
 * costs over ten seconds of AML under TCG (as much again when disabling).
 * Release with dg_test_dev_put().
 *
 * Return: 0 or a negative error.
 */
static inline int dg_test_dev_get(struct dg_test_dev *td, const char *name)
{
	int ret;

	memset(td, 0, sizeof(*td));
	td->edu = pci_get_device(DG_EDU_VENDOR, DG_EDU_DEVICE, NULL);
	if (!td->edu) {
		td->plat = dg_test_dev_create(name);
		if (IS_ERR(td->plat))
			return PTR_ERR(td->plat);
		td->dev = &td->plat->dev;
		return 0;
	}
	pci_read_config_word(td->edu, PCI_COMMAND, &td->command);
	pci_write_config_word(td->edu, PCI_COMMAND, td->command |
			      PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	ret = dma_set_mask_and_coherent(&td->edu->dev, DMA_BIT_MASK(32));
	if (ret) {
		pci_write_config_word(td->edu, PCI_COMMAND, td->command);
		pci_dev_put(td->edu);
		return ret;
	}
	td->dev = &td->edu->dev;
	return 0;
}

static inline void dg_test_dev_put(struct dg_test_dev *td)
{
	if (td->edu) {
		pci_write_config_word(td->edu, PCI_COMMAND, td->command);
		pci_dev_put(td->edu);
	}
	dg_test_dev_destroy(td->plat);
	memset(td, 0, sizeof(*td));
}

/**
 * dg_test_iommu_domain() - the kind of IOMMU domain a device's DMA goes to
 * @dev: the device
 *
 * Return: the name sysfs gives it (iommu_group/type): "DMA" (translated,
 * strict), "DMA-FQ" (translated, lazy: flush queue), "identity"
 * (passthrough), ...; "none" without an IOMMU.
 */
static inline const char *dg_test_iommu_domain(struct device *dev)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);

	if (!dom)
		return "none";
	switch (dom->type) {
	case IOMMU_DOMAIN_DMA:
		return "DMA";
	case IOMMU_DOMAIN_DMA_FQ:
		return "DMA-FQ";
	case IOMMU_DOMAIN_IDENTITY:
		return "identity";
	case IOMMU_DOMAIN_BLOCKED:
		return "blocked";
	case IOMMU_DOMAIN_UNMANAGED:
		return "unmanaged";
	default:
		return "other";
	}
}

/* Whether the device's DMA addresses are IOVAs the IOMMU translates. */
static inline bool dg_test_translated(struct device *dev)
{
	const char *t = dg_test_iommu_domain(dev);

	return !strcmp(t, "DMA") || !strcmp(t, "DMA-FQ");
}

/**
 * dg_test_dev_describe() - say which device and which DMA path (KTAP "#")
 * @td: the device
 *
 * Names the device, its DMA operations (the dma_map_ops, the direct calls
 * into dma-iommu that replaced them in 6.10, or dma-direct), its IOMMU
 * domain type and whether swiotlb bouncing is forced on it.
 */
static inline void dg_test_dev_describe(struct dg_test_dev *td)
{
	const struct dma_map_ops *ops = get_dma_ops(td->dev);
	char path[64];

	/* 6.10 replaced iommu_dma_ops with direct calls into dma-iommu. */
	if (ops)
		snprintf(path, sizeof(path), "%ps", ops);
	else
		strscpy(path, dg_test_translated(td->dev) ? "dma-iommu" :
			"dma-direct", sizeof(path));
	pr_info("# device: %s %s, DMA ops: %s, IOMMU domain: %s, swiotlb forced: %s\n",
		td->edu ? "edu" : "platform", dev_name(td->dev), path,
		dg_test_iommu_domain(td->dev),
		str_yes_no(is_swiotlb_force_bounce(td->dev)));
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

/*
 * A failed expectation in a KTAP case: clear @ok, and print why as a
 * diagnostic while @budget (an unsigned int lvalue, reset per case) lasts.
 */
#define DG_EXPECT(ok, budget, cond, fmt, ...)				\
	do {								\
		unsigned int *__left = &(budget);			\
									\
		if (!(cond)) {						\
			(ok) = false;					\
			if (*__left) {					\
				(*__left)--;				\
				pr_info("# %s:%d: " fmt "\n", __func__,	\
					__LINE__, ##__VA_ARGS__);	\
			}						\
		}							\
	} while (0)

/**
 * dg_test_crosses() - whether a block crosses a boundary
 * @a: the block's address
 * @size: its size
 * @boundary: the boundary (a power of two), 0 for none
 *
 * Return: true if [@a, @a + @size) crosses a multiple of @boundary.
 */
static inline bool dg_test_crosses(u64 a, size_t size, size_t boundary)
{
	return boundary && (a & ~(u64)(boundary - 1)) !=
			   ((a + size - 1) & ~(u64)(boundary - 1));
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
