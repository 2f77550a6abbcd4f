// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_driver_attack: the device attack of dmaguard_scribble, on the
 * pools of a stock driver (Debian's nvme.ko) rather than a test module's.
 *
 * Loaded before the driver, it notes every pool dma_pool_create() makes
 * while it is loaded (a kretprobe: the driver is neither converted nor
 * rebuilt) and forgets it at dma_pool_destroy() (a kprobe). Commands, one
 * per write to debugfs dmaguard_driver_attack/attack, DEV being the
 * device's name and NAME the pool's:
 *
 * "forge DEV NAME": take two blocks x and y of the pool, free x, and make
 * the writes a device that kept x's DMA address would make against the
 * kernel's pool of this kernel version: x's free-list link to y, and y
 * shaped as a free block that leads on to the rest of the list (its
 * first 16 bytes; the rest of y is a canary). Then take x again, as the
 * driver's own next block in flight would: on the kernel's pool the list
 * now starts at y, so the driver's next allocation is y, a block that
 * another owner (this module) holds, however many requests it has in
 * flight. The offset list of the kernel before 6.4 links blocks of one
 * page only: blocks are taken until two share a page.
 *
 * "check DEV NAME", after the driver's I/O: was y's canary written? If
 * so, the pool gave the driver a held block; y is abandoned (the pool
 * counts one block too many in use and keeps its chunk at destroy, as the
 * kernel's pool does for a busy page). If not, the pool must still be
 * whole: three pages' worth of its blocks are taken and checked (distinct,
 * aligned, none of them y), then everything is freed.
 *
 * The spec checks a pool before its driver is removed; a pool destroyed
 * between forge and check keeps the blocks held here.
 *
 * With watch=1 (issue 36: a hostile device under a real driver), dmaguard's
 * pools (dmaguard_pool_create(), what the converted nvme calls) are noted
 * too, and every block a noted pool hands out or takes back is watched: a
 * kretprobe on the alloc, an ftrace callback on the free. A block handed
 * out while it is still out, outside a dmaguard pool's chunks, or the
 * decoy page below, is counted the moment the allocation returns and
 * refused (the allocation returns NULL, the driver retries), so nothing
 * writes through it. QEMU's edu device is then the attacker, the writes
 * are its DMA, into the pool's memory mapped for it (the reach the
 * driver's own device has), and two more commands:
 *
 * "edu-forge DEV NAME": "forge", the link written by the edu device, to
 * y where the list holds offsets in a page, else to the decoy page (a
 * forged free block whose own link ends the list).
 *
 * "scribble DEV NAME", for a dmaguard pool while its driver has I/O in
 * flight: the edu device writes forged free blocks as the kernel's pool
 * (6.4 on) lays them out, every 16 bytes the decoy's kernel address then
 * its DMA address (mapped for the driver's device), over the pool's
 * chunks, free and used blocks alike, 2 KiB at a time. Each transfer runs
 * under the pool's lock (dg_pool_for_each_chunk()), so no chunk is freed
 * under the device. Sweep after sweep, until one sweep has written every
 * chunk the pool has, some write landed while blocks were out, and the
 * driver was handed a block that was free when the device wrote it. In a
 * PRP list in flight, a forged word sends that page of the I/O to the
 * decoy or nowhere (QEMU reads a PRP list when the command is submitted,
 * so in practice none is met): the data of the I/O during the attack is
 * not judged. The verdict: nothing refused, no free of a block the pool
 * did not hand out, no probe hit missed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/dmapool.h>
#include <linux/ftrace.h>
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>
#include "dg_test_kpool.h"

DMAGUARD_IMPORT_NS();
DG_TEST_IMPORT_INTERNAL();

static bool watch;
module_param(watch, bool, 0444);
MODULE_PARM_DESC(watch, "Also note dmaguard's pools and watch every block the noted pools hand out");

#define DGDA_POOLS	16
#define DGDA_HELD	(PAGE_SIZE / 16 + 1)
#define DGDA_CANARY	0x5a
/* The block's first bytes that the kernel's pool uses as a free block's. */
#define DGDA_HEADER	16

/* The kernel's pool before 6.4 keeps offsets in a page, after it pointers. */
#define DGDA_OFFSET_LIST (LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0))

/* Blocks out at once, over every watched pool. */
#define DGDA_LIVE_MAX	4096
/* Between polls of an edu transfer under a pool's lock (no sleeping). */
#define DGDA_EDU_POLL_US 100

/**
 * struct dgda_pool - a pool created while this module is loaded
 * @pool: the pool (NULL: the slot is free)
 * @dev: its device
 * @size: its block size
 * @name: its name
 * @held: the blocks taken by "forge" (x and any before it) ...
 * @held_dma: ... their DMA addresses ...
 * @nr_held: ... and how many
 * @y: the held block that the forged link points at (NULL: not forged)
 * @y_dma: its DMA address
 * @dmaguard: a dmaguard pool (else the kernel's)
 * @allocs: watched allocations ...
 * @out: ... the blocks out now ...
 * @dup: ... allocations of a block that was out ...
 * @outside: ... of a block outside the pool's chunks (dmaguard's) ...
 * @decoy: ... of the scribble's decoy page ...
 * @unknown_free: ... frees of a block the watch did not see handed out ...
 * @forged_reused: ... and allocations of a block that was free when the
 *	scribble's device wrote it
 * @reported: the first refused block was reported
 */
struct dgda_pool {
	void *pool;
	struct device *dev;
	size_t size;
	char name[32];
	void *held[DGDA_HELD];
	dma_addr_t held_dma[DGDA_HELD];
	unsigned int nr_held;
	void *y;
	dma_addr_t y_dma;
	bool dmaguard;
	unsigned long allocs, out, dup, outside, decoy, unknown_free;
	unsigned long forged_reused;
	bool reported;
};

/**
 * struct dgda_block - a block out of a watched pool
 * @node: in dgda_live, by address
 * @vaddr: the block
 * @e: its pool
 */
struct dgda_block {
	struct hlist_node node;
	unsigned long vaddr;
	struct dgda_pool *e;
};

/* The probes' handlers add and remove pools under the spinlock. */
static DEFINE_SPINLOCK(dgda_lock);
static struct dgda_pool dgda_pools[DGDA_POOLS];
/* The watch's blocks, under dgda_lock; a static store: no allocation in a probe. */
static DEFINE_HASHTABLE(dgda_live, 10);
static struct dgda_block dgda_blocks[DGDA_LIVE_MAX];
static HLIST_HEAD(dgda_spare);
static unsigned long dgda_overflow;
/* The free blocks the scribble's device wrote, not handed out since. */
#define DGDA_FORGED_MAX	1024
static unsigned long dgda_forged[DGDA_FORGED_MAX];
static unsigned int dgda_nr_forged;
/* The scribble's decoy page (mapped for dgda_decoy_dev, until unload). */
static struct page *dgda_decoy;
static struct device *dgda_decoy_dev;
static dma_addr_t dgda_decoy_dma;
/* One command at a time. */
static DEFINE_MUTEX(dgda_cmd_lock);
static struct dentry *dgda_dir;

/**
 * struct dgda_create_args - dma_pool_create()'s arguments, for its return
 * @dev: the device
 * @size: the block size
 * @name: the name
 */
struct dgda_create_args {
	struct device *dev;
	size_t size;
	char name[32];
};

static int dgda_create_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct dgda_create_args *a = (void *)ri->data;
	const char *name = (const char *)regs_get_kernel_argument(regs, 0);

	a->dev = (struct device *)regs_get_kernel_argument(regs, 1);
	a->size = regs_get_kernel_argument(regs, 2);
	if (!name || !a->dev || a->size < DGDA_HEADER + 8)
		return 1;	/* not one to note: no return probe */
	strscpy(a->name, name, sizeof(a->name));
	return 0;
}

static void dgda_note(struct dgda_create_args *a, void *pool, bool dmaguard)
{
	unsigned long flags;
	unsigned int i;

	if (!pool)
		return;
	spin_lock_irqsave(&dgda_lock, flags);
	for (i = 0; i < DGDA_POOLS; i++) {
		if (!dgda_pools[i].pool) {
			dgda_pools[i] = (struct dgda_pool){
				.pool = pool, .dev = a->dev, .size = a->size,
				.dmaguard = dmaguard,
			};
			memcpy(dgda_pools[i].name, a->name, sizeof(a->name));
			break;
		}
	}
	spin_unlock_irqrestore(&dgda_lock, flags);
}

static int dgda_create_return(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	dgda_note((void *)ri->data, (void *)regs_return_value(regs), false);
	return 0;
}

static int dgda_dg_create_return(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	dgda_note((void *)ri->data, (void *)regs_return_value(regs), true);
	return 0;
}

static struct kretprobe dgda_create_probe = {
	.kp.symbol_name = "dma_pool_create",
	.entry_handler = dgda_create_entry,
	.handler = dgda_create_return,
	.data_size = sizeof(struct dgda_create_args),
	.maxactive = 8,
};

static struct kretprobe dgda_dg_create_probe = {
	.kp.symbol_name = "dmaguard_pool_create",
	.entry_handler = dgda_create_entry,
	.handler = dgda_dg_create_return,
	.data_size = sizeof(struct dgda_create_args),
	.maxactive = 8,
};

/* The noted pool @pool, under dgda_lock. */
static struct dgda_pool *dgda_pool_of(const void *pool)
{
	unsigned int i;

	for (i = 0; pool && i < DGDA_POOLS; i++)
		if (dgda_pools[i].pool == pool)
			return &dgda_pools[i];
	return NULL;
}

static struct dgda_block *dgda_block_of(unsigned long vaddr)
{
	struct dgda_block *b;

	hash_for_each_possible(dgda_live, b, node, vaddr)
		if (b->vaddr == vaddr)
			return b;
	return NULL;
}

/* @b is out no more: back to the spare store; under dgda_lock. */
static void dgda_block_put(struct dgda_block *b)
{
	hash_del(&b->node);
	hlist_add_head(&b->node, &dgda_spare);
}

static int dgda_destroy_pre(struct kprobe *p, struct pt_regs *regs)
{
	void *pool = (void *)regs_get_kernel_argument(regs, 0);
	struct dgda_block *b;
	struct hlist_node *t;
	struct dgda_pool *e;
	unsigned long flags;
	unsigned int bkt;

	spin_lock_irqsave(&dgda_lock, flags);
	e = dgda_pool_of(pool);
	if (e) {
		/* What the pool still has out (an abandoned y) goes too. */
		hash_for_each_safe(dgda_live, bkt, t, b, node)
			if (b->e == e)
				dgda_block_put(b);
		e->pool = NULL;
	}
	spin_unlock_irqrestore(&dgda_lock, flags);
	return 0;
}

static struct kprobe dgda_destroy_probe = {
	.symbol_name = "dma_pool_destroy",
	.pre_handler = dgda_destroy_pre,
};

static struct kprobe dgda_dg_destroy_probe = {
	.symbol_name = "dmaguard_pool_destroy",
	.pre_handler = dgda_destroy_pre,
};

/**
 * struct dgda_alloc_args - an allocation's arguments, for its return
 * @pool: the pool
 * @handle: where the DMA address goes
 */
struct dgda_alloc_args {
	void *pool;
	dma_addr_t *handle;
};

static int dgda_alloc_entry(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct dgda_alloc_args *a = (void *)ri->data;
	unsigned long flags;
	bool noted;

	a->pool = (void *)regs_get_kernel_argument(regs, 0);
	a->handle = (dma_addr_t *)regs_get_kernel_argument(regs, 2);
	spin_lock_irqsave(&dgda_lock, flags);
	noted = dgda_pool_of(a->pool);
	spin_unlock_irqrestore(&dgda_lock, flags);
	return noted ? 0 : 1;
}

/**
 * struct dgda_inside - is a block in one of its pool's chunks?
 * @vaddr: the block
 * @dma: its DMA address
 * @found: it is, at the chunk's DMA address for its offset
 */
struct dgda_inside {
	unsigned long vaddr;
	dma_addr_t dma;
	bool found;
};

static void dgda_inside_fn(void *arg, void __dma *mem, size_t len,
			   dma_addr_t dma)
{
	struct dgda_inside *in = arg;
	unsigned long m = (unsigned long)(void __force *)mem;

	if (in->vaddr >= m && in->vaddr - m < len &&
	    in->dma == dma + (in->vaddr - m))
		in->found = true;
}

/* Take @vaddr out of the scribble's forged free blocks; under dgda_lock. */
static bool dgda_forged_take(unsigned long vaddr)
{
	unsigned int i;

	for (i = 0; i < dgda_nr_forged; i++) {
		if (dgda_forged[i] == vaddr) {
			dgda_forged[i] = dgda_forged[--dgda_nr_forged];
			return true;
		}
	}
	return false;
}

/*
 * An allocation returns: judge the block before the caller gets it. A
 * block handed out twice, outside the pool's chunks or the decoy is
 * counted and refused: the allocation returns NULL (the driver retries),
 * so nothing the caller does writes through it. The chunk walk takes the
 * pool's lock (so an allocation waits for a scribble's transfer in
 * flight); dgda_lock is taken after it is dropped, never inside it.
 */
static int dgda_alloc_return(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct dgda_alloc_args *a = (void *)ri->data;
	struct dgda_inside in = {
		.vaddr = regs_return_value(regs),
	};
	struct page *decoy = READ_ONCE(dgda_decoy);
	bool dmaguard, refuse = false;
	struct dgda_pool *e;
	struct dgda_block *b;
	unsigned long flags;

	if (!in.vaddr)
		return 0;
	in.dma = a->handle ? *a->handle : 0;
	/*
	 * An allocation from an interrupt while this runs would be a missed
	 * probe hit (counted: the verdict fails), so interrupts stay off.
	 */
	local_irq_save(flags);
	spin_lock(&dgda_lock);
	e = dgda_pool_of(a->pool);
	dmaguard = e && e->dmaguard;
	spin_unlock(&dgda_lock);
	if (!e)
		goto out_irq;
	if (dmaguard)
		dg_pool_for_each_chunk(a->pool, dgda_inside_fn, &in);

	spin_lock(&dgda_lock);
	e = dgda_pool_of(a->pool);
	if (!e)
		goto out;
	e->allocs++;
	if (dmaguard && !in.found) {
		e->outside++;
		refuse = true;
	}
	if (decoy && in.vaddr == (unsigned long)page_address(decoy)) {
		e->decoy++;
		refuse = true;
	}
	if (dgda_block_of(in.vaddr)) {
		e->dup++;
		refuse = true;
	}
	if (refuse) {
		if (!e->reported) {
			e->reported = true;
			pr_info("# %s %s: refused %p, handed out while out, outside the pool or the decoy\n",
				dev_name(e->dev), e->name, (void *)in.vaddr);
		}
		goto out;
	}
	if (dgda_forged_take(in.vaddr))
		e->forged_reused++;
	b = hlist_entry_safe(dgda_spare.first, struct dgda_block, node);
	if (!b) {
		dgda_overflow++;
		goto out;
	}
	hlist_del(&b->node);
	b->vaddr = in.vaddr;
	b->e = e;
	hash_add(dgda_live, &b->node, b->vaddr);
	e->out++;
out:
	spin_unlock(&dgda_lock);
	if (refuse)
		regs_set_return_value(regs, 0);
out_irq:
	local_irq_restore(flags);
	return 0;
}

/* The watch needs ftrace with registers (not on the rt kernel's config). */
#define DGDA_CAN_WATCH	IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_REGS)

#if DGDA_CAN_WATCH
/*
 * A free, watched by an ftrace callback rather than a kprobe: kprobes
 * count a probe hit while another of theirs runs on the CPU as "missed"
 * (a free from an I/O completion interrupting an allocation's probe),
 * where ftrace's recursion guard lets an interrupt's callback run.
 */
static void dgda_free_fn(unsigned long ip, unsigned long parent_ip,
			 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	struct dgda_block *b;
	struct dgda_pool *e;
	unsigned long flags, vaddr;
	void *pool;

	if (!regs)
		return;
	pool = (void *)regs_get_kernel_argument(regs, 0);
	vaddr = regs_get_kernel_argument(regs, 1);
	spin_lock_irqsave(&dgda_lock, flags);
	e = dgda_pool_of(pool);
	if (e && vaddr) {
		b = dgda_block_of(vaddr);
		if (b && b->e == e) {
			dgda_block_put(b);
			e->out--;
		} else {
			e->unknown_free++;
		}
	}
	spin_unlock_irqrestore(&dgda_lock, flags);
}

static struct ftrace_ops dgda_free_ops = {
	.func = dgda_free_fn,
	.flags = FTRACE_OPS_FL_SAVE_REGS,
};
#endif

static struct kretprobe dgda_alloc_probe = {
	.kp.symbol_name = "dma_pool_alloc",
	.entry_handler = dgda_alloc_entry,
	.handler = dgda_alloc_return,
	.data_size = sizeof(struct dgda_alloc_args),
	.maxactive = 64,
};

static struct kretprobe dgda_dg_alloc_probe = {
	.kp.symbol_name = "dmaguard_pool_alloc",
	.entry_handler = dgda_alloc_entry,
	.handler = dgda_alloc_return,
	.data_size = sizeof(struct dgda_alloc_args),
	.maxactive = 64,
};

static struct kretprobe *dgda_watch_rps[] = {
	&dgda_dg_create_probe, &dgda_alloc_probe, &dgda_dg_alloc_probe,
};

static struct kprobe *dgda_watch_kps[] = {
	&dgda_dg_destroy_probe,
};

/* Events missed by their probes (a probe hit inside another's). */
static unsigned long dgda_missed(void)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dgda_watch_rps); i++)
		n += dgda_watch_rps[i]->nmissed +
		     dgda_watch_rps[i]->kp.nmissed;
	for (i = 0; i < ARRAY_SIZE(dgda_watch_kps); i++)
		n += dgda_watch_kps[i]->nmissed;
	return n + dgda_destroy_probe.nmissed;
}

#if DGDA_CAN_WATCH
static int dgda_free_watch(void)
{
	static const char * const fns[] = {
		"dma_pool_free", "dmaguard_pool_free",
	};
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		ret = ftrace_set_filter(&dgda_free_ops, (unsigned char *)fns[i],
					strlen(fns[i]), 0);
		if (ret) {
			ftrace_free_filter(&dgda_free_ops);
			return ret;
		}
	}
	ret = register_ftrace_function(&dgda_free_ops);
	if (ret)
		ftrace_free_filter(&dgda_free_ops);
	return ret;
}

static void dgda_free_unwatch(void)
{
	unregister_ftrace_function(&dgda_free_ops);
	ftrace_free_filter(&dgda_free_ops);
}
#else
static int dgda_free_watch(void)
{
	return -EOPNOTSUPP;
}

static void dgda_free_unwatch(void)
{
}
#endif

static struct dgda_pool *dgda_find(const char *dev, const char *name)
{
	struct dgda_pool *e = NULL;
	unsigned int i;

	spin_lock_irq(&dgda_lock);
	for (i = 0; i < DGDA_POOLS && !e; i++)
		if (dgda_pools[i].pool &&
		    !strcmp(dev_name(dgda_pools[i].dev), dev) &&
		    !strcmp(dgda_pools[i].name, name))
			e = &dgda_pools[i];
	spin_unlock_irq(&dgda_lock);
	return e;
}

/* Whether the pool's free list would hold offsets in a page (else pointers). */
static bool dgda_offsets(const struct dgda_pool *e)
{
	return DGDA_OFFSET_LIST && !e->dmaguard;
}

/* Whether the kernel's list can link @a to @b. */
static bool dgda_linkable(const struct dgda_pool *e, const void *a,
			  const void *b)
{
	return !dgda_offsets(e) || !(((unsigned long)a ^ (unsigned long)b) &
				     PAGE_MASK);
}

/* What the kernel's list stores to point at @y. */
static u64 dgda_link(const struct dgda_pool *e, const void *y)
{
	if (dgda_offsets(e))
		return offset_in_page(y);
	return (u64)(unsigned long)y;
}

static void *dgda_alloc(struct dgda_pool *e, dma_addr_t *dma)
{
	if (e->dmaguard)
		return dmaguard_pool_alloc(e->pool, GFP_KERNEL, dma);
	return dma_pool_alloc(e->pool, GFP_KERNEL, dma);
}

static void dgda_free(struct dgda_pool *e, void *v, dma_addr_t dma)
{
	if (e->dmaguard)
		dmaguard_pool_free(e->pool, v, dma);
	else
		dma_pool_free(e->pool, v, dma);
}

static void dgda_release(struct dgda_pool *e)
{
	while (e->nr_held) {
		e->nr_held--;
		dgda_free(e, e->held[e->nr_held], e->held_dma[e->nr_held]);
	}
}

/**
 * struct dgda_edu - QEMU's edu device as the attacker
 * @td: the device (dg_test_dev_get())
 * @mmio: its registers
 * @stage: what it will write, staged in a buffer of its own ...
 * @stage_dma: ... at this DMA address
 * @transfers: transfers done
 */
struct dgda_edu {
	struct dg_test_dev td;
	void __iomem *mmio;
	void *stage;
	dma_addr_t stage_dma;
	unsigned long transfers;
};

static int dgda_edu_open(struct dgda_edu *d)
{
	int ret = dg_test_dev_get(&d->td, KBUILD_MODNAME);

	if (ret)
		return ret;
	ret = -ENODEV;
	if (!d->td.edu)
		goto fail_put;
	d->mmio = dg_edu_map(d->td.edu);
	if (!d->mmio)
		goto fail_put;
	d->stage = dma_alloc_coherent(d->td.dev, PAGE_SIZE, &d->stage_dma,
				      GFP_KERNEL);
	if (d->stage)
		return 0;
	ret = -ENOMEM;
	pci_iounmap(d->td.edu, d->mmio);
fail_put:
	dg_test_dev_put(&d->td);
	return ret;
}

static void dgda_edu_close(struct dgda_edu *d)
{
	dma_free_coherent(d->td.dev, PAGE_SIZE, d->stage, d->stage_dma);
	pci_iounmap(d->td.edu, d->mmio);
	dg_test_dev_put(&d->td);
}

/*
 * Map @len bytes at @v, within one page, for the edu device to write: the
 * reach the driver's own device has to its pool's memory, behind an IOMMU
 * too.
 */
static dma_addr_t dgda_edu_map(struct dgda_edu *d, void *v, u32 len)
{
	struct page *page = is_vmalloc_addr(v) ? vmalloc_to_page(v) :
						 virt_to_page(v);

	return dma_map_page(d->td.dev, page, offset_in_page(v), len,
			    DMA_FROM_DEVICE);
}

/*
 * One transfer, waited for however long the host takes to run it (no
 * timeout: the spec's is the backstop, and the memory stays the device's
 * until it is done). Sleeps.
 */
static void dgda_edu_dma(struct dgda_edu *d, bool to_ram, dma_addr_t ram,
			 u32 len)
{
	dg_edu_dma_start(d->mmio, to_ram, ram, len);
	while (dg_edu_dma_busy(d->mmio))
		usleep_range(2000, 4000);
	d->transfers++;
}

/* The device writes @len bytes of @src at @v (within one page); sleeps. */
static int dgda_edu_write(struct dgda_edu *d, void *v, const void *src,
			  u32 len)
{
	dma_addr_t t;

	memcpy(d->stage, src, len);
	dgda_edu_dma(d, false, d->stage_dma, len);
	t = dgda_edu_map(d, v, len);
	if (dma_mapping_error(d->td.dev, t))
		return -ENOMEM;
	dgda_edu_dma(d, true, t, len);
	dma_unmap_page(d->td.dev, t, len, DMA_FROM_DEVICE);
	return 0;
}

/* The decoy page, zeroed: a forged free block that ends the list. */
static int dgda_decoy_get(void)
{
	struct page *page;

	if (dgda_decoy)
		return 0;
	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return -ENOMEM;
	WRITE_ONCE(dgda_decoy, page);
	return 0;
}

/*
 * "forge" (@d NULL: the CPU writes as the device would) or "edu-forge".
 * The device's link goes to y, a block held here, where the list holds
 * offsets in a page (the kernel's before 6.4); else, for the device, to
 * the decoy page, as the scribble's forged blocks do.
 */
static int dgda_forge(struct dgda_pool *e, struct dgda_edu *d)
{
	unsigned int n = 0;
	u64 hdr[2], link;
	void *x, *y, *to;
	int ret = 0;

	if (e->y)
		return -EBUSY;
	if (d && !dgda_offsets(e)) {
		ret = dgda_decoy_get();
		if (ret)
			return ret;
	}
	do {
		e->held[n] = dgda_alloc(e, &e->held_dma[n]);
		if (!e->held[n]) {
			e->nr_held = n;
			dgda_release(e);
			return -ENOMEM;
		}
		n++;
	} while (n < DGDA_HELD &&
		 (n < 2 || !dgda_linkable(e, e->held[n - 2], e->held[n - 1])));
	e->nr_held = n;
	if (!dgda_linkable(e, e->held[n - 2], e->held[n - 1])) {
		dgda_release(e);
		return -EINVAL;	/* one block per page: nothing to link */
	}
	/* y stays held; x goes back, its link now the head's next. */
	y = e->held[n - 1];
	e->y = y;
	e->y_dma = e->held_dma[n - 1];
	e->nr_held = n - 1;
	x = e->held[n - 2];
	dgda_free(e, x, e->held_dma[n - 2]);

	/* The device's writes: y leads on to what followed x, x leads to y. */
	memset(y + DGDA_HEADER, DGDA_CANARY, e->size - DGDA_HEADER);
	hdr[0] = READ_ONCE(*(u64 *)x);
	hdr[1] = e->y_dma;
	to = d && !dgda_offsets(e) ? page_address(dgda_decoy) : y;
	link = dgda_link(e, to);
	if (to != y) {
		/* The decoy ends the list (its link 0), at its own address. */
		((u64 *)to)[0] = 0;
		((u64 *)to)[1] = page_to_phys(dgda_decoy);
		ret = dgda_edu_write(d, x, &link, sizeof(link));
	} else if (d) {
		ret = dgda_edu_write(d, y, hdr,
				     dgda_offsets(e) ? 8 : sizeof(hdr));
		if (!ret)
			ret = dgda_edu_write(d, x, &link, sizeof(link));
	} else {
		WRITE_ONCE(((u64 *)y)[0], hdr[0]);
		if (!dgda_offsets(e))
			WRITE_ONCE(((u64 *)y)[1], hdr[1]);
		WRITE_ONCE(*(u64 *)x, link);
	}

	/* The driver's next block in flight: the list goes on at y. */
	e->held[n - 2] = dgda_alloc(e, &e->held_dma[n - 2]);
	if (!e->held[n - 2])
		e->nr_held = n - 2;
	if (ret) {
		pr_info("# %s %s: the device's writes failed: %d\n",
			dev_name(e->dev), e->name, ret);
		return ret;	/* y stays held: "check" tells what happened */
	}
	pr_info("# %s %s: %s forged a link to %s (%s list), after taking %u blocks\n",
		dev_name(e->dev), e->name, d ? "the edu device" : "the CPU",
		to == y ? "a held block" : "the decoy page",
		dgda_offsets(e) ? "offset" : "pointer", n);
	return 0;
}

static int dgda_check(struct dgda_pool *e)
{
	bool written, whole = false;
	unsigned long dup, decoy;

	if (!e->y)
		return -EINVAL;
	written = memchr_inv(e->y + DGDA_HEADER, DGDA_CANARY,
			     e->size - DGDA_HEADER);
	if (!written && e->dmaguard)
		whole = true;	/* the watch judged every block it handed out */
	else if (!written)
		whole = dg_test_kpool_whole(e->pool, e->dev, e->size, e->y,
					    e->size, e->name);
	spin_lock_irq(&dgda_lock);
	dup = e->dup;
	decoy = e->decoy;
	spin_unlock_irq(&dgda_lock);
	pr_info("driver-attack dev=%s pool=\"%s\" held_block_written=%s pool_whole=%s duplicates_refused=%lu decoys_refused=%lu%s\n",
		dev_name(e->dev), e->name, written ? "yes" : "no",
		whole ? "yes" : "no", dup, decoy,
		watch ? "" : " (not watched)");
	if (written || !whole) {
		/* A block handed out twice is never freed into the pool. */
		pr_info("# %s %s: held block %p abandoned\n",
			dev_name(e->dev), e->name, e->y);
		if (written)
			dgda_release(e);
	} else {
		dgda_free(e, e->y, e->y_dma);
		dgda_release(e);
	}
	e->y = NULL;
	e->nr_held = 0;
	return 0;
}

#define DGDA_CHUNKS	64

/**
 * struct dgda_hit - the scribble's progress over a pool's chunks
 * @d: the device
 * @e: the pool
 * @stride: the pool's block stride
 * @base: the chunks met so far, by their first block ...
 * @done: ... and how many of their bytes this sweep has written
 * @nr: chunks met
 * @xfer: bytes written by the last walk (0: none left this sweep)
 * @ret: an error
 * @landed: transfers landed ...
 * @landed_out: ... of which while the pool had blocks out ...
 * @unseen: ... and after which no word written reads back as written
 */
struct dgda_hit {
	struct dgda_edu *d;
	struct dgda_pool *e;
	u32 stride;
	unsigned long base[DGDA_CHUNKS];
	size_t done[DGDA_CHUNKS];
	unsigned int nr;
	u32 xfer;
	int ret;
	unsigned long landed, landed_out, unseen;
};

/* The free blocks that start in [@p, @p + @n) of the chunk at @mem. */
static void dgda_note_forged(struct dgda_hit *h, unsigned long mem,
			     unsigned long p, u32 n)
{
	unsigned long b = mem + roundup(p - mem, h->stride);

	spin_lock(&dgda_lock);
	for (; b < p + n; b += h->stride) {
		if (dgda_block_of(b))
			continue;	/* out: the driver's */
		if (dgda_nr_forged == DGDA_FORGED_MAX) {
			dgda_overflow++;
			break;
		}
		dgda_forged_take(b);
		dgda_forged[dgda_nr_forged++] = b;
	}
	spin_unlock(&dgda_lock);
}

/*
 * One transfer into the first chunk of the walk that this sweep has not
 * written whole yet. Under the pool's lock, interrupts off: the chunk
 * cannot be freed while the device writes it, so the transfer is waited
 * for here, however long the host takes (the spec's timeout is the
 * backstop). dgda_lock nests inside the pool's lock, never around it.
 */
static void dgda_hit_fn(void *arg, void __dma *mem, size_t len,
			dma_addr_t dma)
{
	unsigned long m = (unsigned long)(void __force *)mem;
	struct dgda_hit *h = arg;
	unsigned int c, i;
	dma_addr_t t;
	void *p;

	if (h->xfer || h->ret)
		return;
	for (c = 0; c < h->nr && h->base[c] != m; c++)
		;
	if (c == h->nr) {
		if (c == DGDA_CHUNKS) {
			h->ret = -ENOSPC;
			return;
		}
		h->base[c] = m;
		h->done[c] = 0;
		h->nr++;
	}
	if (h->done[c] >= len)
		return;
	p = (void *)(m + h->done[c]);
	h->xfer = min_t(size_t, min_t(size_t, len - h->done[c], DG_EDU_XFER),
			PAGE_SIZE - offset_in_page(p));
	t = dgda_edu_map(h->d, p, h->xfer);
	if (dma_mapping_error(h->d->td.dev, t)) {
		h->ret = -ENOMEM;
		return;
	}
	dg_edu_dma_start(h->d->mmio, true, t, h->xfer);
	while (dg_edu_dma_busy(h->d->mmio))
		udelay(DGDA_EDU_POLL_US);
	dma_unmap_page(h->d->td.dev, t, h->xfer, DMA_FROM_DEVICE);
	h->done[c] += h->xfer;
	h->d->transfers++;
	h->landed++;
	/* Written under dgda_lock, which is never taken around a pool's. */
	if (data_race(h->e->out))
		h->landed_out++;
	/* The driver may rewrite its blocks at once, but not all of them. */
	for (i = 0; i < h->xfer / sizeof(u64); i++)
		if (i & 1 && READ_ONCE(((u64 *)p)[i]) == dgda_decoy_dma)
			break;
	if (i == h->xfer / sizeof(u64))
		h->unseen++;
	dgda_note_forged(h, m, (unsigned long)p, h->xfer);
}

static unsigned long dgda_forged_reused(struct dgda_pool *e)
{
	unsigned long n;

	spin_lock_irq(&dgda_lock);
	n = e->forged_reused;
	spin_unlock_irq(&dgda_lock);
	return n;
}

/* Map the decoy for the one device whose pool a scribble attacks. */
static int dgda_decoy_map(struct device *dev)
{
	dma_addr_t dma;
	int ret;

	if (dgda_decoy_dev)
		return dgda_decoy_dev == dev ? 0 : -EBUSY;
	ret = dgda_decoy_get();
	if (ret)
		return ret;
	dma = dma_map_page(dev, dgda_decoy, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, dma))
		return -ENOMEM;
	dgda_decoy_dma = dma;
	dgda_decoy_dev = get_device(dev);
	return 0;
}

/* A scribble's counters, copied out of dgda_lock to be printed. */
struct dgda_counts {
	unsigned long allocs, reused, outside, dup, decoy, unknown_free;
	unsigned long overflow;
};

static int dgda_scribble(struct dgda_pool *e)
{
	struct dmaguard_pool_stats st = { .sz = sizeof(st) };
	struct dgda_counts c;
	unsigned long sweeps = 0, allocs0, reused0;
	struct dgda_edu d = {};
	struct dgda_hit *h;
	unsigned int i;
	u64 *w;
	int ret;

	if (!e->dmaguard || !watch)
		return -EINVAL;
	ret = dmaguard_pool_get_stats(e->pool, &st);
	if (ret)
		return ret;
	ret = dgda_decoy_map(e->dev);
	if (ret)
		return ret;
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	ret = dgda_edu_open(&d);
	if (ret)
		goto out_free;
	h->d = &d;
	h->e = e;
	h->stride = st.stride;
	w = d.stage;
	for (i = 0; i < DG_EDU_XFER / sizeof(*w); i++)
		w[i] = i & 1 ? dgda_decoy_dma :
			       (u64)(unsigned long)page_address(dgda_decoy);
	dgda_edu_dma(&d, false, d.stage_dma, DG_EDU_XFER);
	spin_lock_irq(&dgda_lock);
	dgda_nr_forged = 0;
	allocs0 = e->allocs;
	reused0 = e->forged_reused;
	spin_unlock_irq(&dgda_lock);
	/*
	 * Sweep until a sweep has written every chunk the pool has, some
	 * write landed while blocks were out, and the driver was handed a
	 * block that was free when the device wrote it: what the verdict
	 * needs, however the I/O is scheduled (the spec's timeout is the
	 * backstop).
	 */
	while (!ret) {
		do {
			h->xfer = 0;
			dg_pool_for_each_chunk(dg_test_core(e->pool),
					       dgda_hit_fn, h);
			ret = h->ret;
			if (h->xfer)
				cond_resched();
		} while (!ret && h->xfer);
		if (ret)
			break;
		if (h->nr)
			sweeps++;
		else
			msleep(20);	/* no chunk yet: no I/O yet */
		if (sweeps && h->landed_out &&
		    dgda_forged_reused(e) != reused0)
			break;
		for (i = 0; i < h->nr; i++)
			h->done[i] = 0;
	}
	/* Copied under the lock, printed after it. */
	spin_lock_irq(&dgda_lock);
	c = (struct dgda_counts){
		.allocs = e->allocs - allocs0,
		.reused = e->forged_reused - reused0,
		.outside = e->outside, .dup = e->dup, .decoy = e->decoy,
		.unknown_free = e->unknown_free, .overflow = dgda_overflow,
	};
	spin_unlock_irq(&dgda_lock);
	pr_info("driver-attack dev=%s pool=\"%s\" device=edu sweeps=%lu chunks=%u transfers=%lu landed_while_blocks_out=%lu not_seen_landed=%lu allocs_during=%lu forged_blocks_reused=%lu outside_chunk=%lu duplicate=%lu decoy=%lu unknown_free=%lu missed=%lu overflow=%lu error=%d\n",
		dev_name(e->dev), e->name, sweeps, h->nr, d.transfers,
		h->landed_out, h->unseen, c.allocs, c.reused, c.outside,
		c.dup, c.decoy, c.unknown_free, dgda_missed(), c.overflow,
		ret);
	dgda_edu_close(&d);
out_free:
	kfree(h);
	return ret;
}

static ssize_t dgda_attack_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	char buf[96], *s = buf, *cmd, *dev;
	struct dgda_edu d = {};
	struct dgda_pool *e;
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	s = strim(buf);
	cmd = strsep(&s, " ");
	dev = strsep(&s, " ");
	if (!dev || !s)
		return -EINVAL;

	mutex_lock(&dgda_cmd_lock);
	e = dgda_find(dev, s);
	if (!e) {
		ret = -ENOENT;
	} else if (!strcmp(cmd, "forge")) {
		ret = dgda_forge(e, NULL);
	} else if (!strcmp(cmd, "edu-forge")) {
		ret = dgda_edu_open(&d);
		if (!ret) {
			ret = dgda_forge(e, &d);
			dgda_edu_close(&d);
		}
	} else if (!strcmp(cmd, "check")) {
		ret = dgda_check(e);
	} else if (!strcmp(cmd, "scribble")) {
		ret = dgda_scribble(e);
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&dgda_cmd_lock);
	return ret ? ret : len;
}

static const struct file_operations dgda_attack_fops = {
	.owner = THIS_MODULE,
	.write = dgda_attack_write,
};

static int __init dgda_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < DGDA_LIVE_MAX; i++)
		hlist_add_head(&dgda_blocks[i].node, &dgda_spare);
	ret = register_kretprobe(&dgda_create_probe);
	if (ret)
		return ret;
	ret = register_kprobe(&dgda_destroy_probe);
	if (ret)
		goto fail_create;
	if (watch) {
		ret = register_kretprobes(dgda_watch_rps,
					  ARRAY_SIZE(dgda_watch_rps));
		if (ret)
			goto fail_destroy;
		ret = register_kprobes(dgda_watch_kps,
				       ARRAY_SIZE(dgda_watch_kps));
		if (ret)
			goto fail_watch;
		ret = dgda_free_watch();
		if (ret)
			goto fail_kps;
	}
	dgda_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("attack", 0200, dgda_dir, NULL, &dgda_attack_fops);
	return 0;

fail_kps:
	unregister_kprobes(dgda_watch_kps, ARRAY_SIZE(dgda_watch_kps));
fail_watch:
	unregister_kretprobes(dgda_watch_rps, ARRAY_SIZE(dgda_watch_rps));
fail_destroy:
	unregister_kprobe(&dgda_destroy_probe);
fail_create:
	unregister_kretprobe(&dgda_create_probe);
	return ret;
}

static void __exit dgda_exit(void)
{
	debugfs_remove_recursive(dgda_dir);
	if (watch) {
		dgda_free_unwatch();
		unregister_kprobes(dgda_watch_kps, ARRAY_SIZE(dgda_watch_kps));
		unregister_kretprobes(dgda_watch_rps,
				      ARRAY_SIZE(dgda_watch_rps));
	}
	unregister_kprobe(&dgda_destroy_probe);
	unregister_kretprobe(&dgda_create_probe);
	if (dgda_decoy_dev) {
		dma_unmap_page(dgda_decoy_dev, dgda_decoy_dma, PAGE_SIZE,
			       DMA_BIDIRECTIONAL);
		put_device(dgda_decoy_dev);
	}
	if (dgda_decoy)
		__free_page(dgda_decoy);
}

module_init(dgda_init);
module_exit(dgda_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("The device attack on a stock driver's dma_pool (test)");
