// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_pin_test: the pin cache driven from userspace, the way a
 * driver uses it (in the spirit of mm/gup_test.c). A misc device,
 * /dev/dmaguard_pin_test; each open file may create one pin cache for
 * the opening process's mm (optionally mapped for the test device: QEMU's
 * edu when the VM has one) and hold up to PT_SLOTS handles. ioctls
 * (dmaguard_pin_test.h): create, get (returns the geometry, the DMA
 * address and the first bytes read through the pinned pages), read
 * (through the pages with kmap_local_page(), or by the edu device's DMA
 * from the entry's mapping), put, stats, destroy; hammer (gets and puts
 * without the file's lock, for several threads at once) and bench (the
 * per-I/O cost of pinning against a cache hit); decoy register and read
 * (a deliberately unsafe pin-once cache beside dmaguard's, for the contrast
 * of dmaguard_pin_decoy.c). Release puts what the file holds and destroys
 * its cache and its decoy, as a driver's release would.
 *
 * The cases themselves are the guest programs tests/vm/bin/pin_test.c,
 * pin_race.c, pin_bench.c and pin_contrast.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include "dg_test_dev.h"
#include "dmaguard_pin_test.h"
#include "dmaguard_pin_decoy.h"
#include "dg_prof.h"

DMAGUARD_IMPORT_NS();

struct pt_file {
	struct mutex lock;		/* everything below */
	/* Held for write to change @cache, for read by unlocked users. */
	struct rw_semaphore cache_rw;
	struct dmaguard_pin_cache *cache;
	bool destroyed;			/* no get; puts still go to cache */
	bool bound;
	struct dmaguard_pin slot[PT_SLOTS];
	bool used[PT_SLOTS];
	bool write[PT_SLOTS];
	struct pt_decoy *decoy;		/* the unsafe contrast, or NULL */
};

/* The test device, and edu's registers and a bounce page when present. */
static struct dg_test_dev pt_dev;
static void __iomem *pt_mmio;
static void *pt_buf;
static dma_addr_t pt_buf_dma;
static DEFINE_MUTEX(pt_dma_lock);	/* one edu transfer at a time */

static int pt_open(struct inode *inode, struct file *file)
{
	struct pt_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	init_rwsem(&f->cache_rw);
	file->private_data = f;
	return 0;
}

static void pt_put_all(struct pt_file *f)
{
	int i;

	for (i = 0; i < PT_SLOTS; i++) {
		if (!f->used[i])
			continue;
		dmaguard_pin_put(f->cache, &f->slot[i]);
		f->used[i] = false;
	}
}

static int pt_release(struct inode *inode, struct file *file)
{
	struct pt_file *f = file->private_data;

	if (f->cache) {
		pt_put_all(f);
		if (!f->destroyed)
			WARN_ON(dmaguard_pin_cache_destroy(f->cache));
	}
	pt_decoy_release(f->decoy);
	kfree(f);
	return 0;
}

static int pt_create(struct pt_file *f, void __user *arg)
{
	struct dmaguard_pin_opts opts = { .sz = sizeof(opts) };
	struct dmaguard_pin_cache *c;
	struct pt_create in;

	if (copy_from_user(&in, arg, sizeof(in)))
		return -EFAULT;
	if (f->cache)
		return -EBUSY;
	opts.max_bytes = in.max_bytes;
	opts.max_entries = in.max_entries;
	c = dmaguard_pin_cache_create(in.flags & PT_BIND_DEV ? pt_dev.dev :
				      NULL, &opts);
	if (IS_ERR(c))
		return PTR_ERR(c);
	down_write(&f->cache_rw);
	f->cache = c;
	f->bound = in.flags & PT_BIND_DEV;
	up_write(&f->cache_rw);
	return 0;
}

/**
 * pt_sgt_dma_addr() - DMA address of a byte of a mapped sg_table
 * @sgt: the table, DMA-mapped
 * @at: byte offset in its DMA-mapped area
 * @len: bytes from there that must lie in the same DMA segment
 * @dma: the address of byte @at
 *
 * Return: 0, or -ERANGE when the bytes are not all in one segment.
 */
int pt_sgt_dma_addr(struct sg_table *sgt, u64 at, u32 len, dma_addr_t *dma)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (at < sg_dma_len(sg)) {
			if (at + len > sg_dma_len(sg))
				return -ERANGE;
			*dma = sg_dma_address(sg) + at;
			return 0;
		}
		at -= sg_dma_len(sg);
	}
	return -ERANGE;
}

/* DMA address of byte @off of a handle's range, within one segment. */
static int pt_dma_addr(struct dmaguard_pin *p, u64 off, u32 len,
		       dma_addr_t *dma)
{
	return pt_sgt_dma_addr(p->sgt, p->sgt_offset + off, len, dma);
}

/* Bytes of a handle's range read through its pages by the CPU. */
static void pt_cpu_read(struct dmaguard_pin *p, u64 off, u32 len, u8 *out)
{
	u64 at = p->offset + off;

	while (len) {
		struct page *pg = p->pages[at >> PAGE_SHIFT];
		u32 in_pg = offset_in_page(at);
		u32 n = min_t(u32, len, PAGE_SIZE - in_pg);
		void *v = kmap_local_page(pg);

		memcpy(out, v + in_pg, n);
		kunmap_local(v);
		out += n;
		at += n;
		len -= n;
	}
}

/**
 * pt_edu_read() - the edu device reads bytes of a mapped table by DMA
 * @sgt: the table, DMA-mapped for the test device with @dir
 * @dir: its mapping's direction
 * @dma: the first byte's DMA address (pt_sgt_dma_addr())
 * @len: bytes, at most PT_DATA, all in one DMA segment
 * @out: what the device read
 *
 * The device copies the bytes into its own buffer, then from there into
 * a coherent bounce page the CPU reads: @out is what the device saw.
 *
 * Context: Process context. Sleeps (one transfer at a time).
 * Return: 0, -ENODEV without the edu device, -EINVAL or -ETIMEDOUT.
 */
int pt_edu_read(struct sg_table *sgt, enum dma_data_direction dir,
		dma_addr_t dma, u32 len, u8 *out)
{
	int ret;

	if (!pt_mmio)
		return -ENODEV;
	if (!len || len > PT_DATA)
		return -EINVAL;
	mutex_lock(&pt_dma_lock);
	memset(pt_buf, 0, len);
	dma_sync_sgtable_for_device(pt_dev.dev, sgt, dir);
	ret = dg_edu_dma(pt_mmio, false, dma, len);
	if (!ret)
		ret = dg_edu_dma(pt_mmio, true, pt_buf_dma, len);
	dma_sync_sgtable_for_cpu(pt_dev.dev, sgt, dir);
	if (!ret)
		memcpy(out, pt_buf, len);
	mutex_unlock(&pt_dma_lock);
	return ret;
}

/*
 * A handle of a bound cache without a cached mapping (the device needs
 * syncs: swiotlb): map the pages of this one transfer, as a driver does.
 */
static int pt_dma_read_mapped_now(struct dmaguard_pin *p,
				  enum dma_data_direction dir, u64 off,
				  u32 len, u8 *out)
{
	u64 at = p->offset + off;
	unsigned int first = at >> PAGE_SHIFT;
	unsigned int n = (offset_in_page(at) + len + PAGE_SIZE - 1) >> PAGE_SHIFT;
	struct sg_table sgt;
	dma_addr_t dma;
	int ret;

	ret = sg_alloc_table_from_pages(&sgt, p->pages + first, n,
					offset_in_page(at), len, GFP_KERNEL);
	if (ret)
		return ret;
	ret = dma_map_sgtable(pt_dev.dev, &sgt, dir, 0);
	if (!ret) {
		ret = pt_sgt_dma_addr(&sgt, 0, len, &dma);
		if (!ret)
			ret = pt_edu_read(&sgt, dir, dma, len, out);
		dma_unmap_sgtable(pt_dev.dev, &sgt, dir, 0);
	}
	sg_free_table(&sgt);
	return ret;
}

/* The edu device reads the bytes of a handle's range by DMA. */
static int pt_dma_read(struct dmaguard_pin *p, bool bound, bool write,
		       u64 off, u32 len, u8 *out)
{
	enum dma_data_direction dir = write ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE;
	dma_addr_t dma;
	int ret;

	if (!pt_mmio || !bound)
		return -ENODEV;
	if (!p->sgt)
		return pt_dma_read_mapped_now(p, dir, off, len, out);
	ret = pt_dma_addr(p, off, len, &dma);
	if (ret)
		return ret;
	return pt_edu_read(p->sgt, dir, dma, len, out);
}

/* Gets and puts in a loop, beside other threads of the process. */
static int pt_hammer(struct pt_file *f, void __user *arg)
{
	struct dmaguard_pin p;
	struct pt_hammer h;
	u32 i;
	int ret = 0;

	if (copy_from_user(&h, arg, sizeof(h)))
		return -EFAULT;
	h.ok = 0;
	h.faults = 0;
	h.other = 0;
	h.again = 0;
	h.first_err = 0;
	down_read(&f->cache_rw);
	if (!f->cache || f->destroyed) {
		ret = -ENOENT;
		goto out;
	}
	for (i = 0; i < h.iters; i++) {
		u8 byte;

		memset(&p, 0, sizeof(p));
		p.sz = sizeof(p);
		ret = dmaguard_pin_get(f->cache, h.addr, h.len, h.write, &p);
		if (!ret) {
			/* Touch the page: KASAN sees a page freed too early. */
			pt_cpu_read(&p, 0, 1, &byte);
			dmaguard_pin_put(f->cache, &p);
			h.ok++;
		} else if (ret == -EFAULT) {
			h.faults++;
		} else if (ret == -EAGAIN) {
			h.again++;
		} else {
			h.other++;
			if (!h.first_err)
				h.first_err = ret;
		}
		cond_resched();
	}
	ret = copy_to_user(arg, &h, sizeof(h)) ? -EFAULT : 0;
out:
	up_read(&f->cache_rw);
	return ret;
}

static int pt_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 pt_median(u64 *v, u32 n)
{
	sort(v, n, sizeof(*v), pt_cmp_u64, NULL);
	return v[n / 2];
}

/* What a driver without the cache pays per I/O: pin, (map, unmap,) unpin. */
static int pt_pin_unpin_once(struct pt_file *f, struct page **pages,
			     unsigned long addr, int n, bool write)
{
	enum dma_data_direction dir = write ? DMA_BIDIRECTIONAL :
					      DMA_TO_DEVICE;
	unsigned int flags = FOLL_LONGTERM | (write ? FOLL_WRITE : 0);
	unsigned long bytes = (unsigned long)n << PAGE_SHIFT;
	struct sg_table sgt;
	unsigned int seg;
	int got, ret = 0;

	got = pin_user_pages_fast(addr, n, flags, pages);
	if (got != n) {
		if (got > 0)
			unpin_user_pages(pages, got);
		return got < 0 ? got : -EFAULT;
	}
	if (f->bound) {
		/* Segments no longer than the device takes (as the cache). */
		seg = dma_get_max_seg_size(pt_dev.dev) & PAGE_MASK;
		ret = sg_alloc_table_from_pages_segment(&sgt, pages, n, 0,
							bytes, seg,
							GFP_KERNEL);
		if (!ret) {
			ret = dma_map_sgtable(pt_dev.dev, &sgt, dir, 0);
			if (!ret)
				dma_unmap_sgtable(pt_dev.dev, &sgt, dir, 0);
			sg_free_table(&sgt);
		}
	}
	unpin_user_pages(pages, n);
	return ret;
}

static int pt_bench(struct pt_file *f, void __user *arg)
{
	u64 pin[PT_BENCH_MAX_REPS], hit[PT_BENCH_MAX_REPS], t0;
	struct page **pages = NULL;
	struct dmaguard_pin p;
	struct pt_bench b;
	u32 r, i;
	int n, ret;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	if (!b.iters || !b.reps || b.reps > PT_BENCH_MAX_REPS ||
	    !b.len || b.len > SZ_16M || !PAGE_ALIGNED(b.addr | b.len))
		return -EINVAL;
	if (!f->cache || f->destroyed)
		return -ENOENT;
	n = b.len >> PAGE_SHIFT;
	pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	/* Warm both: the pages faulted in, the cache entry made. */
	ret = pt_pin_unpin_once(f, pages, b.addr, n, b.write);
	if (ret)
		goto out;
	memset(&p, 0, sizeof(p));
	p.sz = sizeof(p);
	ret = dmaguard_pin_get(f->cache, b.addr, b.len, b.write, &p);
	if (ret)
		goto out;
	dmaguard_pin_put(f->cache, &p);
	for (r = 0; r < b.reps; r++) {
		t0 = ktime_get_ns();
		for (i = 0; i < b.iters && !ret; i++)
			ret = pt_pin_unpin_once(f, pages, b.addr, n, b.write);
		pin[r] = div_u64(ktime_get_ns() - t0, b.iters);
		/*
		 * Work the pin loop left behind (pages it put back) runs now,
		 * not at the hits' might_sleep(): on Debian 6.12 under
		 * -icount, a 1 MiB row's 270 hits (every get a hit) were
		 * timed at 85 us each, a pin's cost, without this.
		 */
		usleep_range(1000, 2000);
		t0 = ktime_get_ns();
		dg_prof_start(0);
		for (i = 0; i < b.iters && !ret; i++) {
			memset(&p, 0, sizeof(p));
			p.sz = sizeof(p);
			ret = dmaguard_pin_get(f->cache, b.addr, b.len,
					       b.write, &p);
			if (!ret)
				dmaguard_pin_put(f->cache, &p);
		}
		dg_prof_stop(0);
		hit[r] = div_u64(ktime_get_ns() - t0, b.iters);
		if (ret)
			goto out;
		cond_resched();
	}
	b.pin_ns = pt_median(pin, b.reps);
	b.hit_ns = pt_median(hit, b.reps);
	b.mapped = f->bound;
	ret = copy_to_user(arg, &b, sizeof(b)) ? -EFAULT : 0;
out:
	kvfree(pages);
	return ret;
}

static int pt_get(struct pt_file *f, void __user *arg)
{
	struct dmaguard_pin *p;
	struct pt_get g;
	dma_addr_t dma;
	int i, ret;

	if (copy_from_user(&g, arg, sizeof(g)))
		return -EFAULT;
	if (!f->cache || f->destroyed)
		return -ENOENT;
	for (i = 0; i < PT_SLOTS && f->used[i]; i++)
		;
	if (i == PT_SLOTS)
		return -EMFILE;
	p = &f->slot[i];
	memset(p, 0, sizeof(*p));
	p->sz = sizeof(*p);
	ret = dmaguard_pin_get(f->cache, g.addr, g.len, g.write, p);
	if (ret)
		return ret;
	f->used[i] = true;
	f->write[i] = g.write;
	g.slot = i;
	g.nr_pages = p->nr_pages;
	g.offset = p->offset;
	g.has_dma = f->bound && pt_mmio;
	g.cached_map = !!p->sgt;
	g.dma = 0;
	if (p->sgt && !pt_dma_addr(p, 0, 1, &dma))
		g.dma = dma;
	pt_cpu_read(p, 0, min_t(u64, g.len, PT_HEAD), g.head);
	if (copy_to_user(arg, &g, sizeof(g)))
		return -EFAULT;		/* the slot stays held, put on release */
	return 0;
}

static int pt_read(struct pt_file *f, void __user *arg)
{
	struct pt_read *r;
	struct dmaguard_pin *p;
	int ret = 0;

	r = kmalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	if (copy_from_user(r, arg, sizeof(*r))) {
		ret = -EFAULT;
		goto out;
	}
	if (r->slot >= PT_SLOTS || !f->used[r->slot] || !r->len ||
	    r->len > PT_DATA) {
		ret = -EINVAL;
		goto out;
	}
	p = &f->slot[r->slot];
	if (r->off + r->len > (p->nr_pages << PAGE_SHIFT) - p->offset) {
		ret = -ERANGE;
		goto out;
	}
	if (r->how == PT_READ_DMA)
		ret = pt_dma_read(p, f->bound, f->write[r->slot], r->off,
				  r->len, r->data);
	else
		pt_cpu_read(p, r->off, r->len, r->data);
	if (!ret && copy_to_user(arg, r, sizeof(*r)))
		ret = -EFAULT;
out:
	kfree(r);
	return ret;
}

static int pt_stats(struct pt_file *f, void __user *arg)
{
	DMAGUARD_OPTS(dmaguard_pin_stats, st);
	struct pt_stats out;
	int ret;

	if (!f->cache || f->destroyed)
		return -ENOENT;
	ret = dmaguard_pin_cache_stats(f->cache, &st);
	if (ret)
		return ret;
	memset(&out, 0, sizeof(out));
	out.hits = st.hits;
	out.misses = st.misses;
	out.invalidations = st.invalidations;
	out.inval_ignored = st.inval_ignored;
	out.evictions = st.evictions;
	out.retries = st.retries;
	out.pinned_bytes = st.pinned_bytes;
	out.handles = st.handles;
	out.entries = st.entries;
	out.entries_indexed = st.entries_indexed;
	out.bad_puts = st.bad_puts;
	out.prot_checks = st.prot_checks;
	return copy_to_user(arg, &out, sizeof(out)) ? -EFAULT : 0;
}

/* A slot's handle put, then its copy and a forged one (both refused). */
static int pt_bad_put(struct pt_file *f, void __user *arg)
{
	struct dmaguard_pin copy, forged;
	u32 slot;

	if (get_user(slot, (u32 __user *)arg) || slot >= PT_SLOTS ||
	    !f->used[slot])
		return -EINVAL;
	copy = f->slot[slot];
	forged = copy;
	forged.priv = (void *)((uintptr_t)forged.priv ^ (1ull << 40));
	dmaguard_pin_put(f->cache, &f->slot[slot]);
	f->used[slot] = false;
	dmaguard_pin_put(f->cache, &copy);
	dmaguard_pin_put(f->cache, &forged);
	return 0;
}

struct pt_race_put {
	struct work_struct work;
	struct dmaguard_pin_cache *cache;
	struct dmaguard_pin *pin;
};

static void pt_race_put_fn(struct work_struct *work)
{
	struct pt_race_put *r = container_of(work, struct pt_race_put, work);

	dmaguard_pin_put(r->cache, r->pin);
}

/* PT_IOC_PUT_IRQ: the put, from a hrtimer callback. */
struct pt_irq_put {
	struct hrtimer timer;
	struct completion done;
	struct dmaguard_pin_cache *cache;
	struct dmaguard_pin *pin;
	bool hardirq;
};

/* No spinlock_t in hard interrupts on PREEMPT_RT: its timer softirq. */
#ifdef CONFIG_PREEMPT_RT
#define PT_IRQ_MODE	HRTIMER_MODE_REL_SOFT
#else
#define PT_IRQ_MODE	HRTIMER_MODE_REL_HARD
#endif

static enum hrtimer_restart pt_irq_put_fn(struct hrtimer *t)
{
	struct pt_irq_put *p = container_of(t, struct pt_irq_put, timer);

	p->hardirq = in_hardirq();
	dmaguard_pin_put(p->cache, p->pin);
	complete(&p->done);
	return HRTIMER_NORESTART;
}

static int pt_put_irq(struct pt_file *f, u32 slot)
{
	struct pt_irq_put p = {
		.cache = f->cache,
		.pin = &f->slot[slot],
	};

	init_completion(&p.done);
	hrtimer_init_on_stack(&p.timer, CLOCK_MONOTONIC, PT_IRQ_MODE);
	p.timer.function = pt_irq_put_fn;
	hrtimer_start(&p.timer, ns_to_ktime(10 * NSEC_PER_USEC), PT_IRQ_MODE);
	wait_for_completion(&p.done);
	hrtimer_cancel(&p.timer);
	destroy_hrtimer_on_stack(&p.timer);
	f->used[slot] = false;
	return p.hardirq;
}

/* One round of each race of PT_IOC_DESTROY_RACE; the handle count seen. */
static int pt_race_round(struct pt_race *in, unsigned long *held)
{
	struct dmaguard_pin_opts opts = { .sz = sizeof(opts) };
	struct dmaguard_pin pin[2], idle;
	struct pt_race_put put[2];
	struct dmaguard_pin_cache *c;
	u64 half = in->len / 2, i;
	int ret, k;

	c = dmaguard_pin_cache_create(pt_dev.dev, &opts);
	if (IS_ERR(c))
		return PTR_ERR(c);
	memset(pin, 0, sizeof(pin));
	pin[0].sz = sizeof(pin[0]);
	pin[1].sz = sizeof(pin[1]);
	ret = dmaguard_pin_get(c, in->addr, half, true, &pin[0]);
	/* idle entries: work for destroy after it unlocks */
	for (i = 0; !ret && i + PAGE_SIZE <= half; i += PAGE_SIZE) {
		memset(&idle, 0, sizeof(idle));
		idle.sz = sizeof(idle);
		ret = dmaguard_pin_get(c, in->addr + half + i, PAGE_SIZE,
				       false, &idle);
		if (!ret)
			dmaguard_pin_put(c, &idle);
	}
	if (ret) {
		dmaguard_pin_put(c, &pin[0]);
		dmaguard_pin_cache_destroy(c);
		return ret;
	}
	put[0].cache = c;
	put[0].pin = &pin[0];
	INIT_WORK_ONSTACK(&put[0].work, pt_race_put_fn);
	queue_work(system_unbound_wq, &put[0].work);
	*held += dmaguard_pin_cache_destroy(c);
	flush_work(&put[0].work);
	destroy_work_on_stack(&put[0].work);

	c = dmaguard_pin_cache_create(pt_dev.dev, &opts);
	if (IS_ERR(c))
		return PTR_ERR(c);
	memset(pin, 0, sizeof(pin));
	for (k = 0; k < 2; k++) {
		pin[k].sz = sizeof(pin[k]);
		ret = dmaguard_pin_get(c, in->addr + k * half, half, k, &pin[k]);
		if (ret) {
			if (k)
				dmaguard_pin_put(c, &pin[0]);
			dmaguard_pin_cache_destroy(c);
			return ret;
		}
	}
	if (dmaguard_pin_cache_destroy(c) != 2)
		return -EBADE;
	for (k = 0; k < 2; k++) {
		put[k].cache = c;
		put[k].pin = &pin[k];
		INIT_WORK_ONSTACK(&put[k].work, pt_race_put_fn);
		queue_work(system_unbound_wq, &put[k].work);
	}
	for (k = 0; k < 2; k++) {
		flush_work(&put[k].work);
		destroy_work_on_stack(&put[k].work);
	}
	return 0;
}

static int pt_destroy_race(void __user *arg)
{
	unsigned long held = 0;
	struct pt_race in;
	u32 r;
	int ret = 0;

	if (copy_from_user(&in, arg, sizeof(in)))
		return -EFAULT;
	if (in.len < 4 * PAGE_SIZE || in.len > 64 * PAGE_SIZE)
		return -EINVAL;
	for (r = 0; r < in.rounds && !ret; r++)
		ret = pt_race_round(&in, &held);
	in.held = held;
	if (copy_to_user(arg, &in, sizeof(in)))
		return -EFAULT;
	return ret;
}

static long pt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pt_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;
	u32 slot;

	/* The one ioctl that runs beside the others (under cache_rw). */
	if (cmd == PT_IOC_HAMMER)
		return pt_hammer(f, uarg);
	mutex_lock(&f->lock);
	switch (cmd) {
	case PT_IOC_CREATE:
		ret = pt_create(f, uarg);
		break;
	case PT_IOC_GET:
		ret = pt_get(f, uarg);
		break;
	case PT_IOC_PUT:
		ret = -EINVAL;
		if (!get_user(slot, (u32 __user *)uarg) && slot < PT_SLOTS &&
		    f->used[slot]) {
			dmaguard_pin_put(f->cache, &f->slot[slot]);
			f->used[slot] = false;
			ret = 0;
		}
		break;
	case PT_IOC_PUT_IRQ:
		ret = -EINVAL;
		if (!get_user(slot, (u32 __user *)uarg) && slot < PT_SLOTS &&
		    f->used[slot])
			ret = pt_put_irq(f, slot);
		break;
	case PT_IOC_BAD_PUT:
		ret = f->cache ? pt_bad_put(f, uarg) : -ENOENT;
		break;
	case PT_IOC_DESTROY_RACE:
		ret = pt_destroy_race(uarg);
		break;
	case PT_IOC_PUT_ALL:
		ret = 0;
		if (f->cache)
			pt_put_all(f);
		break;
	case PT_IOC_READ:
		ret = pt_read(f, uarg);
		break;
	case PT_IOC_STATS:
		ret = pt_stats(f, uarg);
		break;
	case PT_IOC_BENCH:
		ret = pt_bench(f, uarg);
		break;
	case PT_IOC_DECOY_REGISTER:
		ret = pt_decoy_register(&f->decoy, pt_dev.dev, uarg);
		break;
	case PT_IOC_DECOY_READ:
		ret = pt_decoy_read(f->decoy, uarg);
		break;
	case PT_IOC_DESTROY:
		ret = -ENOENT;
		if (f->cache && !f->destroyed) {
			down_write(&f->cache_rw);
			ret = dmaguard_pin_cache_destroy(f->cache);
			f->destroyed = true;
			/* Gone unless handles were held; then after the last put. */
			if (!ret)
				f->cache = NULL;
			up_write(&f->cache_rw);
		}
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&f->lock);
	return ret;
}

static const struct file_operations pt_fops = {
	.owner = THIS_MODULE,
	.open = pt_open,
	.release = pt_release,
	.unlocked_ioctl = pt_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice pt_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "dmaguard_pin_test",
	.fops = &pt_fops,
	.mode = 0666,
};

static int __init pt_init(void)
{
	int ret = dg_test_dev_get(&pt_dev, "dmaguard_pin_test");

	if (ret)
		return ret;
	dg_test_dev_describe(&pt_dev);
	if (pt_dev.edu) {
		pt_mmio = dg_edu_map(pt_dev.edu);
		pt_buf = dma_alloc_coherent(pt_dev.dev, PAGE_SIZE, &pt_buf_dma,
					    GFP_KERNEL);
		if (!pt_mmio || !pt_buf) {
			ret = -ENODEV;
			goto fail;
		}
	}
	ret = misc_register(&pt_misc);
	if (ret)
		goto fail;
	return 0;

fail:
	if (pt_buf)
		dma_free_coherent(pt_dev.dev, PAGE_SIZE, pt_buf, pt_buf_dma);
	if (pt_mmio)
		pci_iounmap(pt_dev.edu, pt_mmio);
	dg_test_dev_put(&pt_dev);
	return ret;
}

static void __exit pt_exit(void)
{
	misc_deregister(&pt_misc);
	if (pt_buf)
		dma_free_coherent(pt_dev.dev, PAGE_SIZE, pt_buf, pt_buf_dma);
	if (pt_mmio)
		pci_iounmap(pt_dev.edu, pt_mmio);
	dg_test_dev_put(&pt_dev);
}

module_init(pt_init);
module_exit(pt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dmaguard pin cache, driven from userspace by ioctl");
