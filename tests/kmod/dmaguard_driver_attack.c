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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/dmapool.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include "dg_test_kpool.h"

#define DGDA_POOLS	16
#define DGDA_HELD	(PAGE_SIZE / 16 + 1)
#define DGDA_CANARY	0x5a
/* The block's first bytes that the kernel's pool uses as a free block's. */
#define DGDA_HEADER	16

/* The kernel's pool before 6.4 keeps offsets in a page, after it pointers. */
#define DGDA_OFFSET_LIST (LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0))

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
 */
struct dgda_pool {
	struct dma_pool *pool;
	struct device *dev;
	size_t size;
	char name[32];
	void *held[DGDA_HELD];
	dma_addr_t held_dma[DGDA_HELD];
	unsigned int nr_held;
	void *y;
	dma_addr_t y_dma;
};

/* The probes' handlers add and remove pools under the spinlock. */
static DEFINE_SPINLOCK(dgda_lock);
static struct dgda_pool dgda_pools[DGDA_POOLS];
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

static int dgda_create_return(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct dgda_create_args *a = (void *)ri->data;
	struct dma_pool *pool = (void *)regs_return_value(regs);
	unsigned long flags;
	unsigned int i;

	if (!pool)
		return 0;
	spin_lock_irqsave(&dgda_lock, flags);
	for (i = 0; i < DGDA_POOLS; i++) {
		if (!dgda_pools[i].pool) {
			dgda_pools[i] = (struct dgda_pool){
				.pool = pool, .dev = a->dev, .size = a->size,
			};
			memcpy(dgda_pools[i].name, a->name, sizeof(a->name));
			break;
		}
	}
	spin_unlock_irqrestore(&dgda_lock, flags);
	return 0;
}

static struct kretprobe dgda_create_probe = {
	.kp.symbol_name = "dma_pool_create",
	.entry_handler = dgda_create_entry,
	.handler = dgda_create_return,
	.data_size = sizeof(struct dgda_create_args),
	.maxactive = 8,
};

static int dgda_destroy_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct dma_pool *pool = (void *)regs_get_kernel_argument(regs, 0);
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&dgda_lock, flags);
	for (i = 0; i < DGDA_POOLS; i++)
		if (pool && dgda_pools[i].pool == pool)
			dgda_pools[i].pool = NULL;
	spin_unlock_irqrestore(&dgda_lock, flags);
	return 0;
}

static struct kprobe dgda_destroy_probe = {
	.symbol_name = "dma_pool_destroy",
	.pre_handler = dgda_destroy_pre,
};

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

/* Whether the kernel's list can link @a to @b. */
static bool dgda_linkable(const void *a, const void *b)
{
	return !DGDA_OFFSET_LIST || !(((unsigned long)a ^ (unsigned long)b) &
				      PAGE_MASK);
}

/* What the kernel's list stores to point at @y. */
static u64 dgda_link(const void *y)
{
	if (DGDA_OFFSET_LIST)
		return offset_in_page(y);
	return (u64)(unsigned long)y;
}

static void dgda_release(struct dgda_pool *e)
{
	while (e->nr_held) {
		e->nr_held--;
		dma_pool_free(e->pool, e->held[e->nr_held],
			      e->held_dma[e->nr_held]);
	}
}

static int dgda_forge(struct dgda_pool *e)
{
	unsigned int n = 0;
	void *x, *y;
	u64 *ylink;
	u64 orig;

	if (e->y)
		return -EBUSY;
	do {
		e->held[n] = dma_pool_alloc(e->pool, GFP_KERNEL,
					    &e->held_dma[n]);
		if (!e->held[n]) {
			e->nr_held = n;
			dgda_release(e);
			return -ENOMEM;
		}
		n++;
	} while (n < DGDA_HELD &&
		 (n < 2 || !dgda_linkable(e->held[n - 2], e->held[n - 1])));
	e->nr_held = n;
	if (!dgda_linkable(e->held[n - 2], e->held[n - 1])) {
		dgda_release(e);
		return -EINVAL;	/* one block per page: nothing to link */
	}
	/* y stays held; x goes back, its link now the head's next. */
	y = e->held[n - 1];
	e->y = y;
	e->y_dma = e->held_dma[n - 1];
	e->nr_held = n - 1;
	x = e->held[n - 2];
	dma_pool_free(e->pool, x, e->held_dma[n - 2]);

	/* The device's writes: y leads on to what followed x, x leads to y. */
	memset(y + DGDA_HEADER, DGDA_CANARY, e->size - DGDA_HEADER);
	orig = READ_ONCE(*(u64 *)x);
	ylink = y;
	WRITE_ONCE(ylink[0], orig);
	if (!DGDA_OFFSET_LIST)
		WRITE_ONCE(ylink[1], e->y_dma);
	WRITE_ONCE(*(u64 *)x, dgda_link(y));

	/* The driver's next block in flight: the list goes on at y. */
	e->held[n - 2] = dma_pool_alloc(e->pool, GFP_KERNEL,
					&e->held_dma[n - 2]);
	if (!e->held[n - 2])
		e->nr_held = n - 2;
	pr_info("# %s %s: forged a link to a held block (%s list), after taking %u blocks\n",
		dev_name(e->dev), e->name,
		DGDA_OFFSET_LIST ? "offset" : "pointer", n);
	return 0;
}

static int dgda_check(struct dgda_pool *e)
{
	bool written, whole = false;

	if (!e->y)
		return -EINVAL;
	written = memchr_inv(e->y + DGDA_HEADER, DGDA_CANARY,
			     e->size - DGDA_HEADER);
	if (!written)
		whole = dg_test_kpool_whole(e->pool, e->dev, e->size, e->y,
					    e->size, e->name);
	pr_info("driver-attack dev=%s pool=\"%s\" held_block_written=%s pool_whole=%s\n",
		dev_name(e->dev), e->name, written ? "yes" : "no",
		whole ? "yes" : "no");
	if (written || !whole) {
		/* A block handed out twice is never freed into the pool. */
		pr_info("# %s %s: held block %p abandoned\n",
			dev_name(e->dev), e->name, e->y);
		if (written)
			dgda_release(e);
	} else {
		dma_pool_free(e->pool, e->y, e->y_dma);
		dgda_release(e);
	}
	e->y = NULL;
	e->nr_held = 0;
	return 0;
}

static ssize_t dgda_attack_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	char buf[96], *s = buf, *cmd, *dev;
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
	if (!e)
		ret = -ENOENT;
	else if (!strcmp(cmd, "forge"))
		ret = dgda_forge(e);
	else if (!strcmp(cmd, "check"))
		ret = dgda_check(e);
	else
		ret = -EINVAL;
	mutex_unlock(&dgda_cmd_lock);
	return ret ? ret : len;
}

static const struct file_operations dgda_attack_fops = {
	.owner = THIS_MODULE,
	.write = dgda_attack_write,
};

static int __init dgda_init(void)
{
	int ret;

	ret = register_kretprobe(&dgda_create_probe);
	if (ret)
		return ret;
	ret = register_kprobe(&dgda_destroy_probe);
	if (ret) {
		unregister_kretprobe(&dgda_create_probe);
		return ret;
	}
	dgda_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("attack", 0200, dgda_dir, NULL, &dgda_attack_fops);
	return 0;
}

static void __exit dgda_exit(void)
{
	debugfs_remove_recursive(dgda_dir);
	unregister_kprobe(&dgda_destroy_probe);
	unregister_kretprobe(&dgda_create_probe);
}

module_init(dgda_init);
module_exit(dgda_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("The device attack on a stock driver's dma_pool (test)");
