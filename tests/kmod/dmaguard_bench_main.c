// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_bench: the kernel's dma_pool against dmaguard, in one boot.
 *
 * Two benchmarks, chosen with run=:
 *   rows  one CPU, the dmapool_test protocol, six rows of block sizes
 *         (dmaguard_bench_rows.c; BENCH pool lines, time ratios)
 *   ring  one CPU, a driver's descriptor ring: blocks kept in flight,
 *         freed and allocated in FIFO order (dmaguard_bench_ring.c;
 *         BENCH ring lines, time ratios)
 *   mt    one kthread per online CPU on one shared pool, batches of
 *         blocks for a fixed time (dmaguard_bench_mt.c; BENCH pool-mt
 *         lines, throughput ratios)
 *   all   all three (default)
 *
 * Both run on one device: QEMU's edu PCI device when the guest has one
 * (bench_dev_open()), else a platform device. Its DMA backend, "iommu"
 * when an IOMMU translates the device's DMA, "direct" otherwise, is in
 * every line that compares the pools.
 *
 * The module runs everything at load time and ends with
 *
 *   BENCH done kernel=K rc=E
 *
 * The load fails (with the first error) if any measurement could not be
 * made, so insmod's exit status says whether the run was complete.
 * Unload it afterwards (with keep_pools=1, that destroys the kept pools
 * and releases the device).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/iommu.h>
#include <linux/pci.h>
#include <linux/sort.h>
#include <linux/utsname.h>
#include "dg_test_dev.h"	/* dmaguard.h, the INTERNAL import */
#include "dmaguard_bench.h"

DMAGUARD_IMPORT_NS();
DG_TEST_IMPORT_INTERNAL();

static char *run = "all";
module_param(run, charp, 0444);
MODULE_PARM_DESC(run, "What to run: rows, ring (single CPU), mt (all CPUs) or all");

struct device *bench_dev;
const char *bench_backend;

static int cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

s64 bench_median(const s64 *v, unsigned int n)
{
	s64 tmp[BENCH_MAX_REPS];

	memcpy(tmp, v, n * sizeof(*v));
	sort(tmp, n, sizeof(*tmp), cmp_s64, NULL);
	return n & 1 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

void bench_format_list(char *buf, size_t len, const s64 *v, unsigned int n)
{
	size_t pos = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && pos < len; i++)
		pos += scnprintf(buf + pos, len - pos, "%s%lld", i ? "," : "",
				 v[i]);
}

/*
 * The device: QEMU's edu (PCI 1234:11e8, "-device edu,dma_mask=0xffffffff")
 * when present, with a 32-bit mask, so that an IOMMU, when the guest has
 * one, translates its DMA; else a platform device with a 64-bit mask (no
 * IOMMU ever sits in front of it). The pools only allocate: the device
 * never runs a transfer, so it is not enabled.
 */
#define EDU_VENDOR	0x1234
#define EDU_DEVICE	0x11e8

static struct pci_dev *bench_edu;
static struct platform_device *bench_pdev;

static int bench_dev_open(void)
{
	int ret;

	bench_edu = pci_get_device(EDU_VENDOR, EDU_DEVICE, NULL);
	if (bench_edu) {
		ret = dma_set_mask_and_coherent(&bench_edu->dev,
						DMA_BIT_MASK(32));
		if (ret) {
			pci_dev_put(bench_edu);
			return ret;
		}
		bench_dev = &bench_edu->dev;
	} else {
		bench_pdev = dg_test_dev_create("dmaguard_bench");
		if (IS_ERR(bench_pdev))
			return PTR_ERR(bench_pdev);
		bench_dev = &bench_pdev->dev;
	}
	return 0;
}

static void bench_dev_close(void)
{
	if (bench_edu)
		pci_dev_put(bench_edu);
	else
		dg_test_dev_destroy(bench_pdev);
	bench_edu = NULL;
	bench_pdev = NULL;
	bench_dev = NULL;
}

/* "iommu" when an IOMMU translates @dev's DMA (a DMA API domain). */
static const char *bench_backend_of(struct device *dev)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);

	if (dom && (dom->type == IOMMU_DOMAIN_DMA ||
		    dom->type == IOMMU_DOMAIN_DMA_FQ))
		return "iommu";
	return "direct";
}

static int __init dmaguard_bench_init(void)
{
	bool rows = !strcmp(run, "rows") || !strcmp(run, "all");
	bool ring = !strcmp(run, "ring") || !strcmp(run, "all");
	bool mt = !strcmp(run, "mt") || !strcmp(run, "all");
	int ret = 0, err;

	if (!rows && !ring && !mt) {
		pr_err("run must be rows, ring, mt or all\n");
		return -EINVAL;
	}
	err = bench_dev_open();
	if (err)
		return err;
	bench_backend = bench_backend_of(bench_dev);
	if (rows)
		ret = bench_rows_run();
	if (ring) {
		err = bench_ring_run();
		if (err && !ret)
			ret = err;
	}
	if (mt) {
		err = bench_mt_run();
		if (err && !ret)
			ret = err;
	}
	pr_info("BENCH done kernel=%s rc=%d\n", init_utsname()->release, ret);
	if (ret)
		bench_rows_exit();
	if (ret || !bench_rows_kept())
		bench_dev_close();
	return ret;
}

static void __exit dmaguard_bench_exit(void)
{
	if (bench_rows_kept()) {
		bench_rows_exit();
		bench_dev_close();
	}
}

module_init(dmaguard_bench_init);
module_exit(dmaguard_bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dmaguard benchmark: kernel dma_pool vs dmaguard, one CPU and all CPUs");
MODULE_AUTHOR("dmaguard developers");
