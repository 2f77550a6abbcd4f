// SPDX-License-Identifier: GPL-2.0
/*
 * The decoy: a DELIBERATELY UNSAFE pin-once cache, written for a demo and
 * nothing else. It is the contrast to dmaguard's pin cache in
 * tests/vm/report/20-pincache.vmtest (guest program
 * tests/vm/bin/pin_contrast.c); never copy it into a driver.
 *
 * It does what io_uring does with fixed buffers (IORING_REGISTER_BUFFERS)
 * and what many drivers do with "registered" user memory: on register it
 * pins the user range once (pin_user_pages_fast(), FOLL_LONGTERM), maps
 * the pages for the device once, and keeps the pages and the DMA address
 * until release. A later request names the buffer by its user address
 * and is served from what was pinned, after a range check only. There is
 * no mmu notifier: when the process munmaps the range and maps new memory
 * at the same address, the decoy still hands the device the OLD pages, so
 * the device reads data the process no longer sees (and, had it written,
 * would write where the process never looks). io_uring documents this as
 * the user's contract; a driver cache that promises "the buffer at this
 * address" must follow the address space, as dmaguard's does.
 *
 * Shortcuts a real pin-once cache must not take: no RLIMIT_MEMLOCK
 * accounting (io_uring charges the user's locked_vm), one buffer per
 * file, page-aligned ranges only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "dmaguard_pin_test.h"
#include "dmaguard_pin_decoy.h"

/* The device only reads the buffer in this demo. */
#define PT_DECOY_DIR	DMA_TO_DEVICE

/**
 * struct pt_decoy - one registered buffer, pinned and mapped once
 * @dev: the device it is mapped for
 * @uaddr: the user address it was registered at
 * @len: its length in bytes (page-aligned)
 * @pages: the pages pinned at registration, kept until release
 * @nr_pages: entries of @pages
 * @sgt: @pages, DMA-mapped once for @dev
 */
struct pt_decoy {
	struct device *dev;
	unsigned long uaddr;
	unsigned long len;
	struct page **pages;
	unsigned int nr_pages;
	struct sg_table sgt;
};

/**
 * pt_decoy_register() - pin and map a user range once (PT_IOC_DECOY_REGISTER)
 * @decoy: the file's decoy, set on success
 * @dev: the device to map the pages for
 * @arg: struct pt_decoy_reg from the caller
 *
 * Context: Process context, in the process whose range it is. Sleeps.
 * Return: 0; -EBUSY if the file has a decoy already, -EINVAL for a bad
 * range, -EFAULT for one the process has not mapped, -ENOMEM, or the
 * DMA mapping's error.
 */
int pt_decoy_register(struct pt_decoy **decoy, struct device *dev,
		      void __user *arg)
{
	struct pt_decoy_reg r;
	struct pt_decoy *d;
	unsigned int seg;
	int got, ret;

	if (copy_from_user(&r, arg, sizeof(r)))
		return -EFAULT;
	if (*decoy)
		return -EBUSY;
	if (!r.len || r.len > PT_DECOY_MAX || !PAGE_ALIGNED(r.addr | r.len) ||
	    r.addr + r.len < r.addr)
		return -EINVAL;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->dev = dev;
	d->uaddr = r.addr;
	d->len = r.len;
	d->nr_pages = r.len >> PAGE_SHIFT;
	d->pages = kcalloc(d->nr_pages, sizeof(*d->pages), GFP_KERNEL);
	if (!d->pages) {
		ret = -ENOMEM;
		goto free;
	}
	got = pin_user_pages_fast(r.addr, d->nr_pages, FOLL_LONGTERM,
				  d->pages);
	if (got != d->nr_pages) {
		if (got > 0)
			unpin_user_pages(d->pages, got);
		ret = got < 0 ? got : -EFAULT;
		goto free;
	}
	/* Segments no longer than the device takes (edu: 64 KiB). */
	seg = dma_get_max_seg_size(dev) & PAGE_MASK;
	ret = sg_alloc_table_from_pages_segment(&d->sgt, d->pages,
						d->nr_pages, 0, r.len, seg,
						GFP_KERNEL);
	if (ret)
		goto unpin;
	ret = dma_map_sgtable(dev, &d->sgt, PT_DECOY_DIR, 0);
	if (ret)
		goto free_table;
	*decoy = d;
	r.dma = sg_dma_address(d->sgt.sgl);
	/* On a fault the decoy stays registered; release frees it. */
	return copy_to_user(arg, &r, sizeof(r)) ? -EFAULT : 0;

free_table:
	sg_free_table(&d->sgt);
unpin:
	unpin_user_pages(d->pages, d->nr_pages);
free:
	kfree(d->pages);
	kfree(d);
	return ret;
}

/**
 * pt_decoy_read() - the device reads "the buffer at this address" (PT_IOC_DECOY_READ)
 * @decoy: the file's decoy, or NULL
 * @arg: struct pt_decoy_read from the caller
 *
 * The unsafe part: the address is only checked against the registered
 * range, then the device reads the pages pinned at registration, whatever
 * the process has mapped at that address since.
 *
 * Context: Process context. Sleeps.
 * Return: 0; -ENOENT without a decoy, -EINVAL for a bad length, -EFAULT
 * for an address outside the registered range, or pt_edu_read()'s error.
 */
int pt_decoy_read(struct pt_decoy *decoy, void __user *arg)
{
	struct pt_decoy_read *r;
	dma_addr_t dma;
	u64 off;
	int ret;

	if (!decoy)
		return -ENOENT;
	r = memdup_user(arg, sizeof(*r));
	if (IS_ERR(r))
		return PTR_ERR(r);
	ret = -EINVAL;
	if (!r->len || r->len > PT_DATA)
		goto out;
	ret = -EFAULT;
	if (r->addr < decoy->uaddr || r->len > decoy->len ||
	    r->addr - decoy->uaddr > decoy->len - r->len)
		goto out;
	off = r->addr - decoy->uaddr;
	ret = pt_sgt_dma_addr(&decoy->sgt, off, r->len, &dma);
	if (!ret)
		ret = pt_edu_read(&decoy->sgt, PT_DECOY_DIR, dma, r->len,
				  r->data);
	if (!ret && copy_to_user(arg, r, sizeof(*r)))
		ret = -EFAULT;
out:
	kfree(r);
	return ret;
}

/**
 * pt_decoy_release() - unmap and unpin a decoy (on file release)
 * @decoy: the decoy, or NULL (no-op)
 *
 * Context: Process context. May sleep.
 */
void pt_decoy_release(struct pt_decoy *decoy)
{
	if (!decoy)
		return;
	dma_unmap_sgtable(decoy->dev, &decoy->sgt, PT_DECOY_DIR, 0);
	sg_free_table(&decoy->sgt);
	unpin_user_pages(decoy->pages, decoy->nr_pages);
	kfree(decoy->pages);
	kfree(decoy);
}
