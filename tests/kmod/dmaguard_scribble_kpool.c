// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_scribble, part 2: the kernel's own dma_pool, whose free list
 * lives in the free blocks. Probe how (pointer list or offset list), then
 * forge a link to the decoy and one to a live block, and put each pool
 * back as it was (see the top of dmaguard_scribble_main.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dmapool.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "dmaguard_scribble.h"
#include "dg_test_kpool.h"

static const char * const kp_layout_name[] = {
	[KP_UNKNOWN] = "unknown",
	[KP_POINTER_LIST] = "pointer-list-in-free-blocks",
	[KP_OFFSET_LIST] = "offset-list-in-free-blocks",
	[KP_OUT_OF_LINE] = "no-state-in-free-blocks",
};

/* The device's view of a block's first bytes. */
static u64 dev_read(const void *p, unsigned int off)
{
	return READ_ONCE(*(const u64 *)(p + off));
}

static void dev_write(void *p, unsigned int off, u64 val)
{
	WRITE_ONCE(*(u64 *)(p + off), val);
}

/*
 * What the list stores to point at block @x of a page starting at @page
 * (out of line: what a device would forge against mainline's list).
 */
static u64 kp_link(enum kp_layout lay, void *x, void *page)
{
	if (lay != KP_OFFSET_LIST)
		return (u64)(unsigned long)x;
	return (u64)(x - page);
}

/**
 * dgs_kp_verify() - check a kernel pool after the demonstrations
 * @kp: the pool
 * @kdev: its device
 * @what: its name, for the diagnostics
 *
 * dg_test_kpool_whole(), with the decoy as the memory no block may lie in.
 *
 * Return: true if the pool is sound (then it may be destroyed); on false
 * the blocks stay allocated and the pool is leaked.
 */
bool dgs_kp_verify(struct dma_pool *kp, struct device *kdev,
		   const char *what)
{
	return dg_test_kpool_whole(kp, kdev, KP_SIZE, dgs_decoy,
				   DGS_DECOY_SIZE, what);
}

/**
 * dgs_kp_probe() - find out how a kernel pool keeps its free list
 * @kp: a fresh pool of KP_SIZE blocks
 * @page: set to the first block of the page the probe used
 *
 * Mark B, free A then B of a fresh page; what did B's first bytes become?
 *
 * Return: the layout, KP_UNKNOWN if not recognised.
 */
enum kp_layout dgs_kp_probe(struct dma_pool *kp, void **page)
{
	dma_addr_t da, db;
	void *a, *b;
	u64 raw;

	a = dma_pool_alloc(kp, GFP_KERNEL, &da);
	b = dma_pool_alloc(kp, GFP_KERNEL, &db);
	if (!a || !b) {
		if (a)
			dma_pool_free(kp, a, da);
		if (b)
			dma_pool_free(kp, b, db);
		return KP_UNKNOWN;
	}
	*page = a;
	dev_write(b, 0, KP_MARK);
	dma_pool_free(kp, a, da);
	dma_pool_free(kp, b, db);
	if (offset_in_page(a) || b != a + KP_SIZE)
		return KP_UNKNOWN;
	raw = dev_read(b, 0);
	pr_info("# dma_pool probe: after freeing blocks 0 and 1 of a page, block 1 starts with %s\n",
		raw == (u64)(unsigned long)a ? "the address of block 0" :
		(u32)raw == 0 ? "offset 0 (block 0) as a 32-bit word" :
		raw == KP_MARK ? "what was written before the free" :
		"something else");
	if (raw == (u64)(unsigned long)a)
		return KP_POINTER_LIST;
	if ((u32)raw == 0)
		return KP_OFFSET_LIST;
	if (raw == KP_MARK)
		return KP_OUT_OF_LINE;
	return KP_UNKNOWN;
}

/**
 * dgs_kp_forge_decoy() - the forged decoy on a kernel pool
 * @kp: the pool, whose list head is block 1 of the probed page
 * @res: the outcome, filled in
 * @edu: the device that writes the forged pointer (NULL: the CPU does)
 *
 * Return: true if the pool was put back as it was.
 */
bool dgs_kp_forge_decoy(struct dma_pool *kp, struct kp_result *res,
			struct edu *edu)
{
	dma_addr_t dr, h1, h2;
	void *r, *a1, *a2;
	u64 orig, *dk = dgs_decoy;
	bool restored;

	r = dma_pool_alloc(kp, GFP_KERNEL, &dr);
	if (!r)
		return false;
	dma_pool_free(kp, r, dr);
	/* r heads the free list; its first bytes say what comes next. */
	orig = dev_read(r, 0);

	/* The decoy, shaped like a free block that leads back to the list. */
	memset(dgs_decoy, 0x5a, DGS_DECOY_SIZE);
	dk[0] = orig;
	dk[1] = dgs_decoy_dma;

	/* The device's one write: by the CPU playing it, or by a real one. */
	if (!edu) {
		dev_write(r, 0, (u64)(unsigned long)dgs_decoy);
	} else {
		u64 forged = (u64)(unsigned long)dgs_decoy;

		if (dgs_edu_write(edu, dr, &forged, sizeof(forged)) ||
		    dev_read(r, 0) != forged) {
			pr_info("# edu: the device's DMA write did not land\n");
			/* r is free and unchanged: the pool is as it was. */
			return true;
		}
	}

	a1 = dma_pool_alloc(kp, GFP_KERNEL, &h1);
	a2 = dma_pool_alloc(kp, GFP_KERNEL, &h2);
	res->decoy_done = true;
	res->decoy_returned = a2 == dgs_decoy;
	res->decoy_handle = a2 && h2 == dgs_decoy_dma;
	res->decoy_written = memchr_inv(dgs_decoy + 16, 0x5a, KP_SIZE - 16);
	pr_info("# dma_pool forged decoy: first alloc %s, second alloc %s, its dma %s, decoy bytes %s by the kernel\n",
		a1 == r ? "returned the freed block" : "returned another block",
		!a2 ? "failed" : res->decoy_returned ?
		"RETURNED THE DECOY (device-chosen kernel memory)" :
		"returned a genuine block",
		res->decoy_handle ? "is the forged one" : "is genuine",
		res->decoy_written ? "overwritten" : "untouched");
	if (a1 != r || !a2)
		return false;	/* unexpected: leak the pool */

	if (res->decoy_returned) {
		/*
		 * Held: r (once, as a1) and the decoy (never to be freed into
		 * the pool). The list is as before r's first allocation, minus
		 * r. Free r twice (the count of active blocks drops by two,
		 * the list gets r twice: r -> r -> rest), then drop the
		 * duplicate link the way a device would.
		 */
		dma_pool_free(kp, r, dr);
		dma_pool_free(kp, r, dr);
		dev_write(r, 0, orig);
		return true;
	}
	/* The decoy was not taken: a2 is genuine, the forged link is in r's page. */
	dma_pool_free(kp, a2, h2);
	dma_pool_free(kp, r, dr);
	restored = (u32)dev_read(r, 0) == (u32)(unsigned long)dgs_decoy;
	if (restored)
		dev_write(r, 0, orig);	/* the forged offset went back in: undo */
	else
		pr_info("# dma_pool forged decoy: list head no longer holds the forged value\n");
	return true;
}

/* The forged link to a live block, on a fresh pool. */
static bool kp_forge_live(struct dma_pool *kp, enum kp_layout lay,
			  struct kp_result *res)
{
	dma_addr_t dy, dx, hp, hq;
	void *y, *x, *p, *q;
	u64 orig;

	y = dma_pool_alloc(kp, GFP_KERNEL, &dy);
	x = dma_pool_alloc(kp, GFP_KERNEL, &dx);
	if (!y || !x || offset_in_page(y) || x != y + KP_SIZE) {
		pr_info("# dma_pool forged live block: unexpected first blocks\n");
		return false;
	}
	dma_pool_free(kp, x, dx);
	orig = dev_read(x, 0);
	/* The device writes the live block y so the list goes on after it, */
	dev_write(y, 0, orig);
	if (lay != KP_OFFSET_LIST)
		dev_write(y, 8, dy);
	/* and points the free block x at y. */
	dev_write(x, 0, kp_link(lay, y, y));
	p = dma_pool_alloc(kp, GFP_KERNEL, &hp);
	q = dma_pool_alloc(kp, GFP_KERNEL, &hq);
	res->dup_done = true;
	res->dup_returned = q == y;
	pr_info("# dma_pool forged live block: second alloc %s\n",
		!q ? "failed" : q == y ?
		"RETURNED THE LIVE BLOCK AGAIN (two owners)" :
		"returned a free block");
	if (p != x || !q)
		return false;
	if (q == y) {
		/* y held twice, x once: free y, x, y; drop the duplicate. */
		dma_pool_free(kp, y, dy);
		dma_pool_free(kp, x, dx);
		dma_pool_free(kp, y, dy);
		dev_write(x, 0, orig);
	} else {
		dma_pool_free(kp, q, hq);
		dma_pool_free(kp, x, dx);
		dma_pool_free(kp, y, dy);
	}
	return true;
}

/**
 * dgs_kp_release() - destroy a sound kernel pool, leak a doubtful one
 * @kp: the pool (NULL: nothing to do)
 * @sound: whether it was put back as it was and passed the check
 * @name: its name, for the line that says it was leaked
 */
void dgs_kp_release(struct dma_pool *kp, bool sound, const char *name)
{
	if (kp && sound)
		dma_pool_destroy(kp);
	else if (kp)
		pr_info("# %s leaked on purpose\n", name);
}

/**
 * dgs_kp_run() - part 2: the kernel's dma_pool, probed and forged
 * @kver: the kernel release, for the REPORT lines
 */
void dgs_kp_run(const char *kver)
{
	struct dma_pool *kp1, *kp2 = NULL;
	struct kp_result res = {};
	bool sound1 = false, sound2 = false;
	void *page = NULL;

	kp1 = dma_pool_create("dgs_kpool_decoy", dgs_dev, KP_SIZE, KP_SIZE, 0);
	if (kp1)
		res.layout = dgs_kp_probe(kp1, &page);
	dg_ktap_result(&dgs_ktap, kp1 && res.layout != KP_UNKNOWN,
		       "kernel_dma_pool_freelist_layout");
	pr_info("# dma_pool free list: %s\n", kp_layout_name[res.layout]);

	if (res.layout == KP_UNKNOWN) {
		dg_ktap_skip(&dgs_ktap, "kernel_dma_pool_forged_decoy",
			     "free list layout not recognised");
		dg_ktap_skip(&dgs_ktap, "kernel_dma_pool_forged_live_block",
			     "free list layout not recognised");
		dg_ktap_skip(&dgs_ktap, "kernel_dma_pool_restored",
			     "free list layout not recognised");
		goto report;
	}

	sound1 = dgs_kp_forge_decoy(kp1, &res, NULL);
	/*
	 * The contrast: with the pointer list the forged value must come
	 * back as an allocation; with the offset list it cannot leave the
	 * page.
	 */
	dg_ktap_result(&dgs_ktap, res.decoy_done &&
		       res.decoy_returned == (res.layout == KP_POINTER_LIST) &&
		       (!res.decoy_returned || res.decoy_handle),
		       "kernel_dma_pool_forged_decoy");

	kp2 = dma_pool_create("dgs_kpool_live", dgs_dev, KP_SIZE, KP_SIZE, 0);
	if (kp2)
		sound2 = kp_forge_live(kp2, res.layout, &res);
	/* The forged link works on an in-block list, never out of line. */
	dg_ktap_result(&dgs_ktap, res.dup_done &&
		       res.dup_returned == (res.layout != KP_OUT_OF_LINE),
		       "kernel_dma_pool_forged_live_block");

	sound1 = sound1 && dgs_kp_verify(kp1, dgs_dev, "dgs_kpool_decoy");
	sound2 = sound2 && dgs_kp_verify(kp2, dgs_dev, "dgs_kpool_live");
	res.restored = sound1 && sound2;
	dg_ktap_result(&dgs_ktap, res.restored, "kernel_dma_pool_restored");
report:
	/* Sound pools go; anything doubtful is leaked, never destroyed. */
	dgs_kp_release(kp1, sound1 || res.layout == KP_UNKNOWN,
		       "dgs_kpool_decoy");
	dgs_kp_release(kp2, sound2, "dgs_kpool_live");

	pr_info("REPORT scribble kernel=%s allocator=dma_pool forged_alloc_returned_decoy=%s\n",
		kver, res.decoy_returned ? "yes" : "no");
	pr_info("REPORT scribble kernel=%s allocator=dma_pool freelist=%s forged_dma_returned=%s kernel_wrote_decoy=%s forged_link_returned_live_block=%s pool_restored=%s\n",
		kver, kp_layout_name[res.layout],
		res.decoy_handle ? "yes" : "no",
		res.decoy_written ? "yes" : "no",
		res.dup_returned ? "yes" : "no",
		res.restored ? "yes" : "no");
}
