// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_scribble, part 3: a real device, QEMU's edu, as the attacker.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/dmapool.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include "dmaguard_scribble.h"

/*
 * QEMU's edu test device (dg_test_edu.h) has a DMA engine. Here it is the
 * hostile device for real: its DMA writes the forged pointer into the
 * kernel pool's free block, and its DMA overwrites dmaguard's chunks.
 * Without the device (no "-device edu" on the QEMU command line) these
 * cases are skipped. It is the module's test device (dgs_tdev, with its
 * 32-bit DMA mask), and every buffer it touches comes from the DMA API
 * for it.
 */
#define EDU_BUF_SIZE		4096
#define EDU_XFER		DG_EDU_XFER

static unsigned int edu_ops = 12;
module_param(edu_ops, uint, 0444);
MODULE_PARM_DESC(edu_ops, "Operations of the real-device scribble (each costs a few 100 ms DMA transfers)");

struct edu {
	struct pci_dev *pdev;
	void __iomem *mmio;
	void *stage;		/* what the device will write, staged */
	dma_addr_t stage_dma;
	unsigned long transfers;
};

struct edu_work;
static void edu_work_one(struct edu_work *w);

/*
 * One transfer between guest memory at @ram and the device buffer. The
 * device runs it on its own, later; until it is done, @w (if any) keeps
 * doing pool operations, so the device's writes land while the pool is
 * busy rather than only between operations.
 */
static int edu_dma(struct edu *e, bool to_ram, dma_addr_t ram, u32 len,
		   struct edu_work *w)
{
	unsigned long end = jiffies + DG_EDU_TIMEOUT;
	int ret;

	if (!w)
		ret = dg_edu_dma(e->mmio, to_ram, ram, len);
	else
		ret = dg_edu_dma_start(e->mmio, to_ram, ram, len);
	while (!ret && w && dg_edu_dma_busy(e->mmio)) {
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		edu_work_one(w);
	}
	if (!ret)
		e->transfers++;
	return ret;
}

/* Stage @len bytes in the device's buffer. */
static int edu_load(struct edu *e, const void *src, u32 len)
{
	memcpy(e->stage, src, len);
	return edu_dma(e, false, e->stage_dma, len, NULL);
}

/**
 * dgs_edu_write() - the device writes to guest memory
 * @e: the device
 * @dst: the bus address it writes at
 * @src: what it writes
 * @len: how many bytes (at most EDU_XFER)
 *
 * Return: 0, or a negative error if a transfer failed or timed out.
 */
int dgs_edu_write(struct edu *e, dma_addr_t dst, const void *src, u32 len)
{
	int ret = edu_load(e, src, len);

	return ret ? ret : edu_dma(e, true, dst, len, NULL);
}

/* The test device, if it is the edu device (dg_test_dev_get() set it up). */
static struct edu *edu_open(void)
{
	struct pci_dev *pdev = dgs_tdev.edu;
	struct edu *e;

	if (!pdev)
		return NULL;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return NULL;
	e->pdev = pdev;
	e->mmio = dg_edu_map(pdev);
	if (!e->mmio)
		goto fail_free;
	e->stage = dma_alloc_coherent(&pdev->dev, EDU_BUF_SIZE, &e->stage_dma,
				      GFP_KERNEL);
	if (!e->stage)
		goto fail_unmap;
	return e;

fail_unmap:
	pci_iounmap(pdev, e->mmio);
fail_free:
	kfree(e);
	return NULL;
}

static void edu_close(struct edu *e)
{
	dma_free_coherent(&e->pdev->dev, EDU_BUF_SIZE, e->stage, e->stage_dma);
	pci_iounmap(e->pdev, e->mmio);
	kfree(e);
}

#define EDU_MAX_PINS	16

/* The dmaguard side of the real-device run. */
struct edu_work {
	struct scribbler *s;
	struct dmaguard_pool *pool;
	struct blk pins[EDU_MAX_PINS];
	unsigned int npins;
	unsigned long during_dma;	/* operations while a DMA was running */
	struct chunk_rec c[DGS_MAX_CHUNKS];	/* the device's targets */
};

/* Whether the chunk holding block @v already has a pinned block. */
static bool edu_chunk_pinned(struct edu_work *w, unsigned long v)
{
	struct chunk_rec *c = dgs_chunk_of(w->s, v);
	unsigned int i;

	for (i = 0; c && i < w->npins; i++)
		if (w->pins[i].v >= c->mem && w->pins[i].v < c->mem + c->len)
			return true;
	return false;
}

static void edu_free_one(struct edu_work *w)
{
	struct scribbler *s = w->s;

	dgs_scribbler_free(s, w->pool, dg_rand_below(&s->rng, s->n));
}

/*
 * One allocation, judged. The first block of every chunk is pinned: it
 * stays allocated until the device is done, so no chunk the device may
 * be writing to can be reclaimed.
 */
static void edu_alloc_one(struct edu_work *w)
{
	struct scribbler *s = w->s;
	dma_addr_t d;
	void *v;

	/* s->live holds s->max blocks: when full, churn by freeing one. */
	if (s->n >= s->max) {
		edu_free_one(w);
		return;
	}
	s->ops++;
	v = dmaguard_pool_alloc(w->pool, GFP_ATOMIC, &d);
	if (!v) {
		s->alloc_fail++;
		return;
	}
	if (!dgs_judge_alloc(s, w->pool, (unsigned long)v, d))
		return;
	if (!edu_chunk_pinned(w, (unsigned long)v)) {
		if (w->npins == EDU_MAX_PINS) {
			/* Never free into a chunk the device may write. */
			s->alloc_fail++;
			return;
		}
		w->pins[w->npins].v = (unsigned long)v;
		w->pins[w->npins++].d = d;
		return;
	}
	dgs_scribbler_keep(s, (unsigned long)v, d);
}

/* What runs while a device transfer is in flight: alloc or free, 50:50. */
static void edu_work_one(struct edu_work *w)
{
	struct scribbler *s = w->s;

	if (!(++w->during_dma & 1023))
		cond_resched();
	if (s->n && (s->n == s->max || dg_rand_below(&s->rng, 2)))
		edu_free_one(w);
	else
		edu_alloc_one(w);
}

/*
 * The real device overwrites every chunk of the pool with one pattern,
 * in EDU_XFER pieces, while the pool keeps working. The chunk list is
 * taken under the pool lock at the start; each of those chunks holds a
 * pinned block, so all of them outlive the transfers.
 */
static int edu_scribble(struct edu *e, struct edu_work *w, u64 *pat)
{
	struct scribbler *s = w->s;
	struct chunk_rec *c = w->c;
	unsigned int i, nc, len;
	unsigned long off;
	int ret;

	s->pat = dg_rand_below(&s->rng, PAT_NR);
	/* Build the pattern with the CPU scribbler on a plain buffer. */
	dgs_scribble_fn(s, (void __dma __force *)pat, EDU_XFER, 0);
	ret = edu_load(e, pat, EDU_XFER);
	if (ret)
		return ret;
	dgs_scribbler_collect(s, w->pool);
	nc = s->nc;
	memcpy(c, s->c, nc * sizeof(c[0]));
	for (i = 0; i < nc; i++)
		for (off = 0; off < c[i].len; off += EDU_XFER) {
			len = min_t(unsigned long, EDU_XFER, c[i].len - off);
			ret = edu_dma(e, true, c[i].dma + off, len, w);
			if (ret)
				return ret;
		}
	s->scribbles++;
	return 0;
}

static bool edu_dmaguard(struct edu *e, struct scribbler *s,
			 unsigned long *during_dma)
{
	struct dmaguard_pool_stats st;
	struct edu_work *w;
	unsigned int i, j;
	u64 *pat = NULL;
	bool ok = true;
	int ret = 0;

	s->size = 64;
	s->align = 64;
	s->max = 200;
	s->rng = dgs_seed ^ 0xed0ed0;
	s->live = kcalloc(s->max, sizeof(*s->live), GFP_KERNEL);
	pat = kmalloc(EDU_XFER, GFP_KERNEL);
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (w) {
		w->s = s;
		w->pool = dmaguard_pool_create("edu_scribble", &e->pdev->dev,
					       64, 64, 0);
	}
	if (!s->live || !pat || !w || !w->pool) {
		ok = false;
		goto out;
	}
	for (i = 0; i < edu_ops && !ret; i++) {
		/* Grow over two chunks in the first half, then churn. */
		if (i < edu_ops / 2)
			for (j = 0; j < 24 && s->n < s->max; j++)
				edu_alloc_one(w);
		else if (s->n && dg_rand_below(&s->rng, 100) < 60)
			edu_free_one(w);
		else
			edu_alloc_one(w);
		ret = edu_scribble(e, w, pat);
	}
	/*
	 * At least one operation must have met a transfer in flight: a vCPU
	 * the host did not run while every transfer lasted leaves none, so
	 * scribble on until one does; the spec's timeout is the backstop.
	 */
	while (!ret && !w->during_dma)
		ret = edu_scribble(e, w, pat);
	if (ret) {
		pr_info("# edu: DMA failed: %d\n", ret);
		ok = false;
	}
	while (s->n)
		edu_free_one(w);
	/* The device is done: the pinned blocks can go. */
	for (i = 0; i < w->npins; i++)
		if (dg_pool_free(dg_test_core(w->pool),
				 (void __dma __force *)w->pins[i].v,
				 w->pins[i].d) != DG_FREE_OK)
			s->free_rejected++;
	if (dg_test_stats(w->pool, &st))
		ok = false;
	*during_dma = w->during_dma;
	pr_info("# edu dmaguard: %lu ops (%lu while a DMA was in flight), %lu device scribbles, %llu chunks, %lu DMA transfers; outside_chunk=%lu duplicate=%lu decoy=%lu misplaced=%lu bad_dma=%lu alloc_fail=%lu free_rejected=%lu\n",
		s->ops, w->during_dma, s->scribbles, st.chunks_allocated,
		e->transfers, s->outside, s->dup, s->decoy, s->misplaced,
		s->bad_dma, s->alloc_fail, s->free_rejected);
	ok = ok && !dgs_scribbler_bad(s) && !st.blocks_in_use && st.chunks_allocated >= 2 &&
	     s->scribbles >= edu_ops && w->during_dma;
out:
	if (w)
		dmaguard_pool_destroy(w->pool);
	kfree(w);
	kfree(pat);
	kfree(s->live);
	return ok;
}

/**
 * dgs_edu_run() - part 3: both attacks again, by QEMU's edu device
 * @kver: the kernel release, for the REPORT lines
 */
void dgs_edu_run(const char *kver)
{
	struct kp_result res = {};
	struct scribbler *s;
	struct dma_pool *kp;
	unsigned long during = 0;
	struct edu *e;
	bool sound = false, ok;

	e = edu_open();
	if (!e) {
		dg_ktap_skip(&dgs_ktap, "edu_device_dma_pool_forged_decoy",
			     "no edu PCI device (QEMU -device edu)");
		dg_ktap_skip(&dgs_ktap, "edu_device_dmaguard_scribble",
			     "no edu PCI device (QEMU -device edu)");
		return;
	}
	kp = dma_pool_create("dgs_edu_kpool", &e->pdev->dev, KP_SIZE, KP_SIZE,
			     0);
	if (kp) {
		void *page;

		res.layout = dgs_kp_probe(kp, &page);
		if (res.layout != KP_UNKNOWN)
			sound = dgs_kp_forge_decoy(kp, &res, e);
		sound = sound && dgs_kp_verify(kp, &e->pdev->dev, "dgs_edu_kpool");
	}
	ok = kp && res.layout != KP_UNKNOWN && res.decoy_done && sound &&
	     res.decoy_returned == (res.layout == KP_POINTER_LIST);
	dg_ktap_result(&dgs_ktap, ok, "edu_device_dma_pool_forged_decoy");
	dgs_kp_release(kp, sound, "dgs_edu_kpool");
	pr_info("REPORT scribble kernel=%s allocator=dma_pool device=edu forged_alloc_returned_decoy=%s\n",
		kver, res.decoy_returned ? "yes" : "no");

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	ok = s && edu_dmaguard(e, s, &during);
	dg_ktap_result(&dgs_ktap, ok, "edu_device_dmaguard_scribble");
	if (s)
		pr_info("REPORT scribble kernel=%s allocator=dmaguard device=edu ops=%lu scribbles=%lu outside_chunk=%lu duplicate=%lu decoy=%lu ops_during_dma=%lu\n",
			kver, s->ops, s->scribbles, s->outside, s->dup,
			s->decoy, during);
	kfree(s);
	edu_close(e);
}
