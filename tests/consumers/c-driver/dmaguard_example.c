// SPDX-License-Identifier: GPL-2.0
/*
 * Example consumer of dmaguard: an out-of-tree driver that uses nothing of
 * dmaguard but its public headers (<dmaguard/dmaguard.h>) and the exports
 * listed in dmaguard's Module.symvers (KBUILD_EXTRA_SYMBOLS).
 *
 * It plays the driver of an imaginary DMA engine whose descriptors are
 * 32-byte, 32-aligned records chained into a ring by bus address, the
 * usual dma_pool use: it creates a descriptor pool, fills a ring, checks
 * what the pool promises (alignment, no block crosses 4 KiB, no overlap,
 * zeroing), reads the pool's statistics, and frees everything. Each step
 * is one KTAP case on the console.
 *
 * Its device is QEMU's edu PCI device (1234:11e8) when the VM has one, so
 * that the pools sit behind the VM's IOMMU when it has one, else a
 * platform device; a diagnostic line names it and its IOMMU domain.
 *
 * It also pins a user buffer through the pin cache (since v1.1), the way
 * a driver would for a process's I/O: its init runs in insmod's process,
 * so it maps a buffer there, writes it as the process would, gets the
 * buffer through a cache bound to its device (a miss), gets part of it
 * again (a hit, same pages), checks the pinned pages and the DMA mapping,
 * unmaps the buffer (the cache invalidates it) and destroys the cache.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/highmem.h>
#include <linux/mman.h>
#include <linux/scatterlist.h>
#include <linux/uaccess.h>
#include <linux/iommu.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <dmaguard/dmaguard.h>

DMAGUARD_IMPORT_NS();

#define EX_RING		512
#define EX_BOUNDARY	4096

/* One descriptor of the imaginary engine, as the device reads it. */
struct ex_desc {
	__le64 next;		/* bus address of the next descriptor */
	__le64 buf;		/* bus address of the data buffer */
	__le32 len;
	__le32 flags;
	__le64 cookie;
};

struct ex_slot {
	struct ex_desc *d;
	dma_addr_t dma;
};

static struct pci_dev *ex_pci;		/* QEMU's edu device, if any */
static struct platform_device *ex_pdev;	/* else one of our own */
static struct device *ex_dev;		/* the pools' device: one of them */
static struct dmaguard_pool *ex_pool;
static struct ex_slot *ex_ring;
static unsigned int ex_case, ex_failed;

static void ex_result(bool ok, const char *name)
{
	ex_case++;
	if (!ok)
		ex_failed++;
	pr_info("%sok %u %s\n", ok ? "" : "not ", ex_case, name);
}

static bool ex_check(bool ok, const char *what, const char *fn, int line)
{
	if (!ok)
		pr_info("# %s:%d: failed: %s\n", fn, line, what);
	return ok;
}

/* True if @cond holds; says which check failed otherwise. */
#define EX_OK(cond)	ex_check(cond, #cond, __func__, __LINE__)

static bool ex_version(void)
{
	unsigned int v = dmaguard_version();

	pr_info("# module version %u.%u, built against %u.%u\n", v >> 16,
		v & 0xffff, DMAGUARD_VERSION_MAJOR, DMAGUARD_VERSION_MINOR);
	if (!EX_OK(v >> 16 == DMAGUARD_VERSION_MAJOR))
		return false;
	if (!EX_OK((v & 0xffff) >= DMAGUARD_VERSION_MINOR))
		return false;
	return true;
}

static int ex_cmp_dma(const void *a, const void *b)
{
	const struct ex_slot *x = a, *y = b;

	return x->dma < y->dma ? -1 : x->dma > y->dma;
}

static bool ex_ring_alloc(void)
{
	struct ex_slot *sorted;
	unsigned int i;
	bool ok = false;

	ex_pool = dmaguard_pool_create("ex-desc", ex_dev,
				       sizeof(struct ex_desc),
				       sizeof(struct ex_desc), EX_BOUNDARY);
	if (!EX_OK(ex_pool))
		return false;
	for (i = 0; i < EX_RING; i++) {
		struct ex_slot *s = &ex_ring[i];

		s->d = dmaguard_pool_alloc(ex_pool, GFP_KERNEL, &s->dma);
		if (!EX_OK(s->d))
			return false;
		if (!EX_OK(IS_ALIGNED(s->dma, sizeof(struct ex_desc))))
			return false;
		if (!EX_OK(IS_ALIGNED((unsigned long)s->d, sizeof(struct ex_desc))))
			return false;
		if (!EX_OK(s->dma / EX_BOUNDARY ==
			   (s->dma + sizeof(struct ex_desc) - 1) / EX_BOUNDARY))
			return false;
	}
	/* Chain the ring the way the device will follow it. */
	for (i = 0; i < EX_RING; i++) {
		struct ex_desc *d = ex_ring[i].d;

		d->next = cpu_to_le64(ex_ring[(i + 1) % EX_RING].dma);
		d->buf = 0;
		d->len = cpu_to_le32(i);
		d->flags = 0;
		d->cookie = cpu_to_le64(0xd0000000ull + i);
	}
	/* No two descriptors overlap, and every record kept its contents. */
	sorted = kmemdup(ex_ring, sizeof(*ex_ring) * EX_RING, GFP_KERNEL);
	if (!EX_OK(sorted))
		return false;
	sort(sorted, EX_RING, sizeof(*sorted), ex_cmp_dma, NULL);
	for (i = 1; i < EX_RING; i++)
		if (sorted[i].dma - sorted[i - 1].dma < sizeof(struct ex_desc))
			goto out;
	for (i = 0; i < EX_RING; i++) {
		struct ex_desc *d = ex_ring[i].d;

		if (le64_to_cpu(d->next) != ex_ring[(i + 1) % EX_RING].dma ||
		    le32_to_cpu(d->len) != i ||
		    le64_to_cpu(d->cookie) != 0xd0000000ull + i)
			goto out;
	}
	ok = true;
out:
	if (!ok)
		pr_info("# descriptor %u overlaps or lost its contents\n", i);
	kfree(sorted);
	return ok;
}

static bool ex_stats(unsigned long long in_use)
{
	DMAGUARD_OPTS(dmaguard_pool_stats, st);

	if (!EX_OK(dmaguard_pool_get_stats(ex_pool, &st) == 0))
		return false;
	pr_info("# stats: block %u stride %u chunk %u, %llu/%llu blocks in %u chunks, %llu bytes out of line\n",
		st.block_size, st.stride, st.chunk_size, st.blocks_in_use,
		st.blocks_total, st.chunks, st.meta_bytes);
	if (!EX_OK(st.sz == sizeof(st)))
		return false;
	if (!EX_OK(st.block_size == sizeof(struct ex_desc)))
		return false;
	if (!EX_OK(st.stride == sizeof(struct ex_desc)))
		return false;
	if (!EX_OK(st.blocks_in_use == in_use))
		return false;
	if (!EX_OK(st.blocks_total >= in_use))
		return false;
	if (!EX_OK(st.bad_free_foreign + st.bad_free_misaligned +
		   st.bad_free_dma + st.bad_free_double == 0))
		return false;
	return true;
}

static bool ex_ring_free(void)
{
	unsigned int i;

	for (i = 0; i < EX_RING; i++)
		dmaguard_pool_free(ex_pool, ex_ring[i].d, ex_ring[i].dma);
	return ex_stats(0);
}

/* The extensible form, and zeroing of reused blocks. */
static bool ex_opts_zalloc(void)
{
	DMAGUARD_OPTS(dmaguard_pool_opts, o, .name = "ex-cmd", .size = 200,
		      .align = 64, .boundary = 0);
	struct dmaguard_pool *pool;
	dma_addr_t dma;
	unsigned char *p;
	unsigned int i;
	bool zero = true;

	pool = dmaguard_pool_create_opts(ex_dev, &o);
	if (!EX_OK(!IS_ERR_OR_NULL(pool)))
		return false;
	p = dmaguard_pool_alloc(pool, GFP_KERNEL, &dma);
	if (p) {
		memset(p, 0xa5, 200);
		dmaguard_pool_free(pool, p, dma);
		p = dmaguard_pool_zalloc(pool, GFP_KERNEL, &dma);
	}
	if (p) {
		for (i = 0; i < 200; i++)
			zero &= !p[i];
		dmaguard_pool_free(pool, p, dma);
	}
	dmaguard_pool_destroy(pool);
	if (!EX_OK(p))
		return false;
	if (!EX_OK(IS_ALIGNED(dma, 64)))
		return false;
	if (!EX_OK(zero))
		return false;
	return true;
}

/* Descriptors are refilled from interrupt handlers: GFP_ATOMIC, irqs off. */
static bool ex_atomic(void)
{
	static DEFINE_SPINLOCK(lock);
	struct ex_slot s[8];
	unsigned long flags;
	unsigned int i, got = 0;

	spin_lock_irqsave(&lock, flags);
	for (i = 0; i < ARRAY_SIZE(s); i++) {
		s[i].d = dmaguard_pool_alloc(ex_pool, GFP_ATOMIC, &s[i].dma);
		got += !!s[i].d;
	}
	for (i = 0; i < ARRAY_SIZE(s); i++)
		if (s[i].d)
			dmaguard_pool_free(ex_pool, s[i].d, s[i].dma);
	spin_unlock_irqrestore(&lock, flags);
	if (!EX_OK(got == ARRAY_SIZE(s)))
		return false;
	return ex_stats(EX_RING);	/* the ring is still out */
}

/* The size rules as a caller sees them through the exported calls. */
static bool ex_size_rules(void)
{
	struct {
		struct dmaguard_pool_opts o;
		__aligned_u64 future;
	} big = { .o = { .sz = sizeof(big), .name = "ex-big", .size = 16 } };
	struct {
		struct dmaguard_pool_stats st;
		__aligned_u64 future[2];
	} bigst = { .st = { .sz = sizeof(bigst) } };
	DMAGUARD_OPTS(dmaguard_pool_opts, small, .name = "ex-small", .size = 16);
	struct dmaguard_pool *pool;

	/* A newer caller whose extra field is zero: accepted. */
	pool = dmaguard_pool_create_opts(ex_dev, &big.o);
	if (!EX_OK(!IS_ERR_OR_NULL(pool)))
		return false;
	if (!EX_OK(dmaguard_pool_get_stats(pool, &bigst.st) == 0))
		return false;
	if (!EX_OK(bigst.st.block_size == 16 && !bigst.future[0] && !bigst.future[1]))
		return false;
	bigst.future[1] = 1;
	if (!EX_OK(dmaguard_pool_get_stats(pool, &bigst.st) == -E2BIG))
		return false;
	dmaguard_pool_destroy(pool);

	/* ... and non-zero: refused with -E2BIG. */
	big.future = 1;
	if (!EX_OK(PTR_ERR(dmaguard_pool_create_opts(ex_dev, &big.o)) == -E2BIG))
		return false;

	/* Smaller than the first version: -EINVAL. */
	small.sz = DMAGUARD_POOL_OPTS_SIZE_VER0 - 8;
	if (!EX_OK(PTR_ERR(dmaguard_pool_create_opts(ex_dev, &small)) == -EINVAL))
		return false;
	if (!EX_OK(PTR_ERR(dmaguard_pool_create_opts(ex_dev, NULL)) == -EINVAL))
		return false;
	return true;
}

#define EX_PIN_LEN	(4 * PAGE_SIZE)

/* The pinned pages hold what the process wrote: byte i is (u8)i. */
static bool ex_pin_pages_ok(const struct dmaguard_pin *pin)
{
	unsigned long i;
	bool ok = true;

	for (i = 0; i < pin->nr_pages; i++) {
		u8 *v = kmap_local_page(pin->pages[i]);

		ok &= v[0] == (u8)(i * PAGE_SIZE) && v[PAGE_SIZE - 1] ==
		      (u8)((i + 1) * PAGE_SIZE - 1);
		kunmap_local(v);
	}
	return ok;
}

static bool ex_pin_steps(struct dmaguard_pin_cache *c, unsigned long uaddr)
{
	DMAGUARD_OPTS(dmaguard_pin, pin);
	DMAGUARD_OPTS(dmaguard_pin, part);
	DMAGUARD_OPTS(dmaguard_pin_stats, st);
	bool ok;

	if (!EX_OK(dmaguard_pin_get(c, uaddr, EX_PIN_LEN, true, &pin) == 0)) {
		vm_munmap(uaddr, EX_PIN_LEN);
		return false;
	}
	ok = EX_OK(pin.nr_pages == EX_PIN_LEN / PAGE_SIZE && !pin.offset) &&
	     EX_OK(ex_pin_pages_ok(&pin)) &&
	     EX_OK(pin.sgt && sg_dma_len(pin.sgt->sgl) >= PAGE_SIZE);
	/* A sub-range of a cached range is a hit on the same pages. */
	if (ok && EX_OK(dmaguard_pin_get(c, uaddr + PAGE_SIZE + 8, 100, false,
					 &part) == 0)) {
		ok = EX_OK(part.pages[0] == pin.pages[1] && part.offset == 8 &&
			   part.sgt_offset == PAGE_SIZE + 8);
		dmaguard_pin_put(c, &part);
	}
	dmaguard_pin_put(c, &pin);
	if (ok)
		ok = EX_OK(dmaguard_pin_cache_stats(c, &st) == 0) &&
		     EX_OK(st.misses == 1 && st.hits == 1 && !st.handles &&
			   st.pinned_bytes == EX_PIN_LEN);
	/* The process unmaps it: no longer cached, nothing held. */
	vm_munmap(uaddr, EX_PIN_LEN);
	if (ok) {
		memset(&st, 0, sizeof(st));
		st.sz = sizeof(st);
		ok = EX_OK(dmaguard_pin_cache_stats(c, &st) == 0) &&
		     EX_OK(st.invalidations == 1 && !st.entries_indexed);
	}
	return ok;
}

/* Pin a buffer of the process the driver runs for (insmod's, here). */
static bool ex_pin(void)
{
	DMAGUARD_OPTS(dmaguard_pin_opts, o, .max_bytes = 1 << 20);
	struct dmaguard_pin_cache *c;
	unsigned long uaddr, i;
	bool ok;

	if (!EX_OK(dmaguard_version() >= DMAGUARD_VERSION_CODE(1, 1)))
		return false;
	uaddr = vm_mmap(NULL, 0, EX_PIN_LEN, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (!EX_OK(!IS_ERR_VALUE(uaddr)))
		return false;
	for (i = 0; i < EX_PIN_LEN; i++) {
		if (put_user((u8)i, (u8 __user *)(uaddr + i))) {
			vm_munmap(uaddr, EX_PIN_LEN);
			return EX_OK(false);
		}
	}
	c = dmaguard_pin_cache_create(ex_dev, &o);
	if (!EX_OK(!IS_ERR(c))) {
		vm_munmap(uaddr, EX_PIN_LEN);
		return false;
	}
	ok = ex_pin_steps(c, uaddr);
	return EX_OK(dmaguard_pin_cache_destroy(c) == 0) && ok;
}

/*
 * A real driver gets its device in probe(); the example only needs the
 * device's DMA setup, not its registers. The edu device's DMA engine
 * truncates addresses to 32 bits in the VM specs (dma_mask=0xffffffff).
 */
static int ex_dev_get(void)
{
	struct iommu_domain *dom;

	ex_pci = pci_get_device(0x1234, 0x11e8, NULL);
	if (ex_pci) {
		ex_dev = &ex_pci->dev;
		dom = iommu_get_domain_for_dev(ex_dev);
		pr_info("# device: edu %s, IOMMU domain: %s\n", dev_name(ex_dev),
			!dom ? "none" : dom->type == IOMMU_DOMAIN_DMA ? "DMA" :
			dom->type == IOMMU_DOMAIN_DMA_FQ ? "DMA-FQ" :
			"not translated");
		return dma_set_mask_and_coherent(ex_dev, DMA_BIT_MASK(32));
	}
	ex_pdev = platform_device_register_simple(KBUILD_MODNAME,
						  PLATFORM_DEVID_AUTO, NULL, 0);
	if (IS_ERR(ex_pdev))
		return PTR_ERR(ex_pdev);
	ex_dev = &ex_pdev->dev;
	pr_info("# device: platform %s (no edu device), no IOMMU\n",
		dev_name(ex_dev));
	return dma_coerce_mask_and_coherent(ex_dev, DMA_BIT_MASK(64));
}

static void ex_dev_put(void)
{
	pci_dev_put(ex_pci);
	if (!IS_ERR_OR_NULL(ex_pdev))
		platform_device_unregister(ex_pdev);
}

static int __init ex_init(void)
{
	int ret;

	pr_info("KTAP version 1\n");
	pr_info("1..8\n");
	ex_ring = kcalloc(EX_RING, sizeof(*ex_ring), GFP_KERNEL);
	if (!ex_ring)
		return -ENOMEM;
	ret = ex_dev_get();
	if (ret) {
		ex_dev_put();
		kfree(ex_ring);
		return ret;
	}
	ex_result(ex_version(), "version");
	ex_result(ex_ring_alloc(), "ring_alloc");
	ex_result(ex_pool && ex_stats(EX_RING), "stats");
	ex_result(ex_pool && ex_atomic(), "atomic");
	ex_result(ex_pool && ex_ring_free(), "ring_free");
	ex_result(ex_opts_zalloc(), "opts_zalloc");
	ex_result(ex_size_rules(), "size_rules");
	ex_result(ex_pin(), "pin_user_buffer");
	pr_info("# %u of %u cases failed\n", ex_failed, ex_case);
	return 0;
}

static void __exit ex_exit(void)
{
	dmaguard_pool_destroy(ex_pool);
	ex_dev_put();
	kfree(ex_ring);
}

module_init(ex_init);
module_exit(ex_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Example out-of-tree consumer of the dmaguard v1 ABI (KTAP)");
