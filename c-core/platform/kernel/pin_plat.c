// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel side of the pin cache's platform hooks (contracts in
 * dg_pin_plat.h): the mm reference, interval notifiers, pinned_vm
 * accounting against RLIMIT_MEMLOCK, pin_user_pages_fast() and the DMA
 * mapping of an entry.
 *
 * The cache's mm is mmgrab()ed, never mmget()ed: a cache must not keep a
 * dead process's memory alive. When the process exits first, the mm's
 * release runs every interval notifier (mn_itree_release), which makes
 * every entry stale; their pins stay until the cache's owner destroys it
 * (normally on file release), and the mm_struct itself (with its notifier
 * subscriptions and pinned_vm) stays until then through mmgrab().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/capability.h>
#include <linux/scatterlist.h>
#include <linux/dma-mapping.h>
#include <linux/dma-map-ops.h>
#include <linux/error-injection.h>
#include <linux/pci.h>
#include <linux/iommu.h>
#include <linux/module.h>
#include "pincache.h"
#include "dg_kernel.h"

static void dg_pin_reap_workfn(struct work_struct *work)
{
	dg_pin_reap_deferred(container_of(work, struct dg_pin_plat,
					  reap_work));
}

static void dg_pin_age_workfn(struct work_struct *work)
{
	dg_pin_age_deferred(container_of(to_delayed_work(work),
					 struct dg_pin_plat, age_work));
}

int dg_pin_plat_init(struct dg_pin_plat *plat, void *mm, void *dev)
{
	plat->mm = mm;
	plat->dev = dev;
	INIT_LIST_HEAD(&plat->registry);
	INIT_WORK(&plat->reap_work, dg_pin_reap_workfn);
	INIT_DELAYED_WORK(&plat->age_work, dg_pin_age_workfn);
	plat->cache = NULL;
	mmgrab(plat->mm);
	if (plat->dev)
		get_device(plat->dev);
	/* The notifier callbacks are this module's text: no unload under them. */
	__module_get(THIS_MODULE);
	return 0;
}

void dg_pin_plat_fini(struct dg_pin_plat *plat)
{
	dg_pin_registry_del(plat);
	if (plat->dev)
		put_device(plat->dev);
	mmdrop(plat->mm);
	module_put(THIS_MODULE);
}

static bool dg_pin_invalidate_cb(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct dg_pin_notifier *n = container_of(mni, struct dg_pin_notifier,
						 mni);
	enum dg_pin_event ev;

	switch (range->event) {
	case MMU_NOTIFY_PROTECTION_VMA:		/* mprotect, NUMA hinting */
		ev = DG_PIN_EV_PROT;
		break;
	case MMU_NOTIFY_PROTECTION_PAGE:	/* fork's COW setup, mkclean */
	case MMU_NOTIFY_SOFT_DIRTY:
		ev = DG_PIN_EV_WRPROTECT;
		break;
	default:
		ev = DG_PIN_EV_UNMAP;
	}
	return dg_pin_invalidate(n, cur_seq, ev);
}

static const struct mmu_interval_notifier_ops dg_pin_mni_ops = {
	.invalidate = dg_pin_invalidate_cb,
};

/* Error injection may fail it (tests/vm/fault.vmtest), as the pin and map. */
noinline int dg_pin_plat_track(struct dg_pin_plat *plat, struct dg_pin_notifier *n,
		      unsigned long start, unsigned long len)
{
	int ret;

	/* The first insert registers the mm's subscriptions: a live mm only. */
	if (!mmget_not_zero(plat->mm))
		return -EFAULT;
	ret = mmu_interval_notifier_insert(&n->mni, plat->mm, start, len,
					   &dg_pin_mni_ops);
	mmput(plat->mm);
	return ret;
}
ALLOW_ERROR_INJECTION(dg_pin_plat_track, ERRNO);

bool dg_pin_plat_allows(struct dg_pin_plat *plat, unsigned long start,
			unsigned long last, bool write)
{
	vm_flags_t need = write ? VM_WRITE : VM_READ;
	struct mm_struct *mm = plat->mm;
	struct vm_area_struct *vma;
	unsigned long addr = start;
	struct vma_iterator vmi;

	mmap_read_lock(mm);
	vma_iter_init(&vmi, mm, start);
	for_each_vma_range(vmi, vma, last + 1) {
		/* a hole, or a VMA pin_user_pages refuses */
		if (vma->vm_start > addr || !(vma->vm_flags & need) ||
		    (vma->vm_flags & (VM_IO | VM_PFNMAP)))
			break;
		addr = vma->vm_end;
		if (addr > last)
			break;
	}
	mmap_read_unlock(mm);
	return addr > last;
}

int dg_pin_plat_charge(struct dg_pin_plat *plat, unsigned long nr_pages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	s64 now;

	now = atomic64_add_return(nr_pages, &plat->mm->pinned_vm);
	if (now > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(nr_pages, &plat->mm->pinned_vm);
		return -ENOMEM;
	}
	return 0;
}

void dg_pin_plat_uncharge(struct dg_pin_plat *plat, unsigned long nr_pages)
{
	atomic64_sub(nr_pages, &plat->mm->pinned_vm);
}

/* Failed on a call after a range's first (DG_PIN_BATCH): a partial pin. */
noinline long dg_pin_plat_pin(struct dg_pin_plat *plat, unsigned long start,
		     unsigned long nr_pages, bool write, void **pages)
{
	unsigned int flags = FOLL_LONGTERM | (write ? FOLL_WRITE : 0);

	/* pin_user_pages_fast() pins from current->mm. */
	if (current->mm != plat->mm)
		return -EFAULT;
	return pin_user_pages_fast(start, nr_pages, flags,
				   (struct page **)pages);
}
ALLOW_ERROR_INJECTION(dg_pin_plat_pin, ERRNO);

void dg_pin_plat_unpin(struct dg_pin_plat *plat, void **pages,
		       unsigned long nr_pages, bool dirty)
{
	unpin_user_pages_dirty_lock((struct page **)pages, nr_pages, dirty);
}

static enum dma_data_direction dg_pin_dir(bool write)
{
	return write ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE;
}

/*
 * A cached mapping is kept only where syncs do nothing (see
 * dg_pin_plat_map()), so it skips them, as page_pool's long-lived
 * mappings do. This also states that two mappings of one page are
 * intended: an entry invalidated while an I/O holds it keeps its
 * mapping until the put, while a new entry of the same range maps the
 * pages the range kept; CONFIG_DMA_API_DEBUG reports such overlaps
 * unless the syncs are the caller's.
 */
#define DG_PIN_MAP_ATTRS	DMA_ATTR_SKIP_CPU_SYNC

/* Would a transfer through this mapping need dma_sync_*() calls? */
static bool dg_pin_sgt_needs_sync(struct device *dev, struct sg_table *sgt)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);
	struct scatterlist *sg;
	unsigned int i;

	/*
	 * dma_need_sync() says yes for every device dma-iommu translates
	 * before 6.11, and on any kernel with CONFIG_DMA_API_DEBUG; the
	 * syncs of dma-iommu do something only for a non-coherent device or
	 * an untrusted one (bounced through swiotlb). For dma-direct (no
	 * IOMMU, or an identity domain) its answer is exact.
	 */
	if (dom && iommu_is_dma_domain(dom) && dev_is_dma_coherent(dev) &&
	    !(dev_is_pci(dev) && to_pci_dev(dev)->untrusted))
		return false;
	for_each_sgtable_dma_sg(sgt, sg, i)
		if (dma_need_sync(dev, sg_dma_address(sg)))
			return true;
	return false;
}

noinline int dg_pin_plat_map(struct dg_pin_plat *plat, void **pages,
		    unsigned long nr_pages, bool write, void **cookie)
{
	unsigned int seg = dma_get_max_seg_size(plat->dev) & PAGE_MASK;
	struct sg_table *sgt;
	int ret;

	*cookie = NULL;
	if (READ_ONCE(plat->map_needs_sync))
		return 0;
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL_ACCOUNT);
	if (!sgt)
		return -ENOMEM;
	/* Merges only physically contiguous pages, up to the device's limit. */
	ret = sg_alloc_table_from_pages_segment(sgt, (struct page **)pages,
						nr_pages, 0,
						nr_pages << PAGE_SHIFT,
						seg ? seg : PAGE_SIZE,
						GFP_KERNEL_ACCOUNT);
	if (ret)
		goto free;
	ret = dma_map_sgtable(plat->dev, sgt, dg_pin_dir(write),
			      DG_PIN_MAP_ATTRS);
	if (ret)
		goto free_table;
	/*
	 * Bounce buffers (swiotlb) or a non-coherent device: a cached
	 * mapping would hold bounce slots for the entry's lifetime and need
	 * whole-entry syncs that could copy over another handle's bytes.
	 * This device gets pages only from now on; drivers map per transfer.
	 */
	if (dg_pin_sgt_needs_sync(plat->dev, sgt)) {
		WRITE_ONCE(plat->map_needs_sync, true);
		dma_unmap_sgtable(plat->dev, sgt, dg_pin_dir(write),
				  DG_PIN_MAP_ATTRS);
		sg_free_table(sgt);
		kfree(sgt);
		return 0;
	}
	*cookie = sgt;
	return 0;

free_table:
	sg_free_table(sgt);
free:
	kfree(sgt);
	return ret;
}
ALLOW_ERROR_INJECTION(dg_pin_plat_map, ERRNO);

void dg_pin_plat_unmap(struct dg_pin_plat *plat, void *cookie,
		       unsigned long nr_pages, bool write)
{
	struct sg_table *sgt = cookie;

	dma_unmap_sgtable(plat->dev, sgt, dg_pin_dir(write), DG_PIN_MAP_ATTRS);
	sg_free_table(sgt);
	kfree(sgt);
}
