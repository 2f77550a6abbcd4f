// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_scribble: a hostile device against dmaguard, and the same
 * attack against the kernel's own dma_pool.
 *
 * Part 1, dmaguard. For each row a pool takes random allocations and
 * frees; after EVERY operation the whole memory of every chunk
 * (dg_pool_for_each_chunk) is overwritten, as a device could, with one of
 * six patterns: random bytes, all-ones, forged pointers to a decoy buffer
 * (its address and its would-be DMA address), pointers to the live blocks
 * with their DMA addresses, small in-chunk offsets of live blocks, zeros.
 * Each allocation must lie inside a chunk with a matching DMA offset,
 * aligned, not crossing the boundary, overlapping no live block, and not
 * be the decoy; each legitimate free must be accepted.
 *
 * Part 2, the kernel's dma_pool (whatever this kernel's version of it).
 * Its free list lives in the free blocks themselves. The module first
 * finds out how (runtime probe, no version check): mainline since 6.4
 * threads a pointer list (first 8 bytes of a free block = next free
 * block, next 8 = its dma); older kernels keep an in-page offset list
 * (first 4 bytes of a free block = offset of the next free block in the
 * page, bounded by the page size). Then, on private pools of a private
 * platform device, the device's move:
 *
 *   forged decoy: allocate a block R and free it (it is the list head);
 *   write the decoy's address over R's first 8 bytes; allocate twice.
 *   With the pointer list the second allocation returns the decoy: the
 *   kernel hands out memory the device chose (and zeroes it itself, under
 *   init_on_alloc). With the offset list the forged value exceeds the
 *   page, the page looks full, and a new page is used.
 *
 *   forged live block: with blocks Y and X allocated, free X and point its
 *   link at Y (an address or an in-page offset, whatever the list holds):
 *   the second allocation returns Y while Y is still live, on both
 *   designs.
 *
 * The module never writes through a pointer the kernel's pool returned
 * for the decoy. The decoy is the module's own kmalloc() buffer, and its
 * first 16 bytes are set up so that the list continues at the original
 * next block after the decoy is popped. Afterwards each pool is put back
 * exactly as it was, with only the in-band moves a device could make plus
 * frees of genuine blocks: the forged entry is never freed back. The
 * block that was handed out twice is freed a second time, which links it
 * into the list twice, and a device-style write of its link then drops
 * the duplicate. The pool's count of active blocks is zero again, its
 * list is a proper list, and the module then allocates and frees
 * three pages' worth of blocks to check that (distinct blocks, DMA
 * addresses that match) before dma_pool_destroy(). If anything is not as
 * expected, the pool is leaked instead (never destroyed, nothing freed).
 *
 * Part 3, the same with a real device: QEMU's edu PCI device (when the VM
 * has one) DMA-writes the forged pointer into the kernel pool's free
 * block, and DMA-overwrites dmaguard's chunks while the pool keeps
 * allocating and freeing (see the part 3 comment).
 *
 * Machine-readable lines, for `make run`:
 *   REPORT scribble kernel=K allocator=dma_pool forged_alloc_returned_decoy=yes|no
 *   REPORT scribble kernel=K allocator=dma_pool freelist=... (details)
 *   REPORT scribble kernel=K allocator=dmaguard ops=N scribbles=N
 *          outside_chunk=N duplicate=N decoy=N
 *   and, with the edu device, the first and the last with device=edu
 *   after the allocator (the last ending in ops_during_dma=N).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/dmapool.h>
#include <linux/dma-direct.h>
#include <linux/iommu.h>
#include <linux/pci.h>
#include <linux/io.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/utsname.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/delay.h>
#include "dg_test_dev.h"
#include "dg_kernel.h"

DMAGUARD_IMPORT_NS();
DG_TEST_IMPORT_INTERNAL();

static unsigned int ops_pct = 100;
module_param(ops_pct, uint, 0444);
MODULE_PARM_DESC(ops_pct, "Scale the operations per row, in percent");

static u64 seed;
module_param(seed, ullong, 0444);
MODULE_PARM_DESC(seed, "PRNG seed (0: random, printed)");

#define DGS_MAX_CHUNKS	128
#define DGS_DECOY_SIZE	PAGE_SIZE

static struct device *dev;
static struct dg_ktap ktap;
static void *decoy;
static dma_addr_t decoy_dma;	/* what a DMA address of it would be */

struct blk {
	unsigned long v;
	dma_addr_t d;
};

/* ---------------- part 1: dmaguard ---------------- */

enum pattern {
	PAT_RANDOM, PAT_ONES, PAT_DECOY, PAT_LIVE, PAT_OFFSETS, PAT_ZERO,
	PAT_NR,
};

struct chunk_rec {
	unsigned long mem;
	unsigned long len;
	dma_addr_t dma;
};

struct scribbler {
	/* the row */
	size_t size, align, boundary;
	/* live blocks as the test sees them */
	struct blk *live;
	unsigned int n, max;
	/* what the device writes next */
	enum pattern pat;
	u64 rng;
	/* chunks, as of the last walk */
	struct chunk_rec c[DGS_MAX_CHUNKS];
	unsigned int nc;
	bool overflow;
	/* tallies */
	unsigned long ops, scribbles, bytes, outside, dup, decoy, misplaced,
		      bad_dma, alloc_fail, free_rejected, accounting;
};

static void scribble_fn(void *arg, void __dma *mem, size_t len,
			dma_addr_t dma)
{
	struct scribbler *s = arg;
	u64 *w = (u64 __force *)mem;
	size_t i, nw = len / sizeof(u64);
	u32 *w32;

	s->bytes += len;
	switch (s->pat) {
	case PAT_RANDOM:
		for (i = 0; i < nw; i++)
			w[i] = dg_rand(&s->rng);
		break;
	case PAT_ONES:
		memset(w, 0xff, len);
		break;
	case PAT_DECOY:
		/* struct { next; dma; } shaped, pointing at the decoy. */
		for (i = 0; i + 1 < nw; i += 2) {
			w[i] = (u64)(unsigned long)decoy;
			w[i + 1] = decoy_dma;
		}
		break;
	case PAT_LIVE:
		/* Pointers to live blocks, with their DMA addresses. */
		for (i = 0; i + 1 < nw; i += 2) {
			struct blk *b = s->n ?
				&s->live[dg_rand_below(&s->rng, s->n)] : NULL;

			w[i] = b ? b->v : (u64)(unsigned long)decoy;
			w[i + 1] = b ? b->d : decoy_dma;
		}
		break;
	case PAT_OFFSETS:
		/* In-chunk offsets of live blocks, as 32-bit words. */
		w32 = (u32 *)w;
		for (i = 0; i < len / sizeof(u32); i++) {
			struct blk *b = s->n ?
				&s->live[dg_rand_below(&s->rng, s->n)] : NULL;

			w32[i] = b ? (u32)(b->d & (len - 1)) : 0;
		}
		break;
	default:
		memset(w, 0, len);
		break;
	}
}

static void collect_fn(void *arg, void __dma *mem, size_t len,
		       dma_addr_t dma)
{
	struct scribbler *s = arg;

	if (s->nc == DGS_MAX_CHUNKS) {
		s->overflow = true;
		return;
	}
	s->c[s->nc].mem = (unsigned long)(void __force *)mem;
	s->c[s->nc].len = len;
	s->c[s->nc].dma = dma;
	s->nc++;
}

static struct chunk_rec *chunk_of(struct scribbler *s, unsigned long v)
{
	unsigned int i;

	for (i = 0; i < s->nc; i++)
		if (v >= s->c[i].mem && v + s->size <= s->c[i].mem + s->c[i].len)
			return &s->c[i];
	return NULL;
}

static bool crosses(u64 a, size_t size, size_t boundary)
{
	return boundary && (a & ~(u64)(boundary - 1)) !=
			   ((a + size - 1) & ~(u64)(boundary - 1));
}

/* Judge one allocation; true if the block may join the live set. */
static bool judge_alloc(struct scribbler *s, struct dmaguard_pool *pool,
			unsigned long v, dma_addr_t d)
{
	size_t al = s->align ? s->align : 1;
	struct chunk_rec *c;
	unsigned int i;
	bool good = true;

	if (v < (unsigned long)decoy + DGS_DECOY_SIZE &&
	    v + s->size > (unsigned long)decoy) {
		s->decoy++;
		return false;
	}
	if (d < decoy_dma + DGS_DECOY_SIZE && d + s->size > decoy_dma) {
		s->decoy++;
		good = false;
	}
	s->nc = 0;
	s->overflow = false;
	dg_pool_for_each_chunk(dg_test_core(pool), collect_fn, s);
	c = chunk_of(s, v);
	if (!c) {
		s->outside++;
		return false;
	}
	if (d - c->dma != v - c->mem) {
		s->bad_dma++;
		good = false;
	}
	if ((v | d) & (al - 1) || crosses(d, s->size, s->boundary) ||
	    crosses(v, s->size, s->boundary)) {
		s->misplaced++;
		good = false;
	}
	for (i = 0; i < s->n; i++)
		if (v < s->live[i].v + s->size && v + s->size > s->live[i].v) {
			s->dup++;
			return false;
		}
	return good;
}

static void device_scribbles(struct scribbler *s, struct dmaguard_pool *pool)
{
	s->pat = dg_rand_below(&s->rng, PAT_NR);
	dg_pool_for_each_chunk(dg_test_core(pool), scribble_fn, s);
	s->scribbles++;
}

struct dgs_row {
	const char *name;
	size_t size, align, boundary;
	unsigned int ops, max_live;
	/*
	 * >0: at each quarter of the row, drain the pool and wait this long
	 * so that reclaim gives chunks back, and the next ones are fresh.
	 */
	unsigned int pause_ms;
};

static const struct dgs_row dgs_rows[] = {
	{ "dmaguard_scribble_16_16", 16, 16, 0, 6000, 1200 },
	{ "dmaguard_scribble_64_64", 64, 64, 0, 6000, 400 },
	{ "dmaguard_scribble_68_32_b4096", 68, 32, 4096, 6000, 300 },
	{ "dmaguard_scribble_256_256", 256, 256, 0, 4000, 100 },
	{ "dmaguard_scribble_1024_1024", 1024, 1024, 0, 3000, 80 },
	{ "dmaguard_scribble_4096_4096", 4096, 4096, 0, 1500, 40 },
	{ "dmaguard_scribble_1_1", 1, 1, 0, 4000, 600 },
	{ "dmaguard_scribble_24_8_b64", 24, 8, 64, 4000, 600 },
	{ "dmaguard_scribble_64_64_reclaim", 64, 64, 0, 4000, 500, 300 },
};

static struct scribbler dgs_total;

/* Free odds per quarter of a row: fill, drain, fill, drain hard. */
static const u32 free_pct[4] = { 30, 60, 35, 90 };

/* One operation each, then the device overwrites the whole pool. */
static void op_free(struct scribbler *s, struct dmaguard_pool *pool,
		    unsigned int k)
{
	enum dg_bad_free r;

	s->ops++;
	r = dg_pool_free(dg_test_core(pool), (void __dma __force *)s->live[k].v,
			 s->live[k].d);
	if (r != DG_FREE_OK)
		s->free_rejected++;
	s->live[k] = s->live[--s->n];
	device_scribbles(s, pool);
}

static void op_alloc(struct scribbler *s, struct dmaguard_pool *pool,
		     bool atomic_zero)
{
	dma_addr_t d;
	void *v;

	s->ops++;
	v = atomic_zero ? dmaguard_pool_zalloc(pool, GFP_ATOMIC, &d) :
			  dmaguard_pool_alloc(pool, GFP_KERNEL, &d);
	if (!v) {
		s->alloc_fail++;
	} else if (judge_alloc(s, pool, (unsigned long)v, d)) {
		s->live[s->n].v = (unsigned long)v;
		s->live[s->n].d = d;
		s->n++;
	}
	/* A block judged wrong is neither kept nor freed: it is evidence. */
	device_scribbles(s, pool);
}

static void dgs_run_row(const struct dgs_row *row)
{
	struct dmaguard_pool *pool;
	struct dg_pool_stats st;
	struct scribbler *s;
	unsigned int i, quarter = 0, ops = max(1u, row->ops * ops_pct / 100);
	long base = atomic_long_read(&dg_chunk_bytes);
	bool ok = true;
	u64 t0 = ktime_get_ns();
	int j;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	pool = dmaguard_pool_create(row->name + strlen("dmaguard_"), dev,
				    row->size, row->align, row->boundary);
	if (s)
		s->live = kcalloc(row->max_live, sizeof(*s->live), GFP_KERNEL);
	if (!s || !s->live || !pool) {
		pr_info("# %s: setup failed\n", row->name);
		ok = false;
		goto out;
	}
	s->size = row->size;
	s->align = row->align;
	s->boundary = row->boundary;
	s->max = row->max_live;
	s->rng = seed ^ (row->size * 0x9e3779b97f4a7c15ull) ^ row->boundary;
	if (!s->rng)
		s->rng = 1;

	for (i = 0; i < ops; i++) {
		u32 r100 = dg_rand_below(&s->rng, 100);

		if (row->pause_ms && i * 4 / ops != quarter) {
			quarter = i * 4 / ops;
			while (s->n)
				op_free(s, pool, dg_rand_below(&s->rng, s->n));
			msleep(row->pause_ms);
			device_scribbles(s, pool);
		}
		if (s->n == s->max ||
		    (s->n && r100 < free_pct[(i * 4 / ops) & 3]))
			op_free(s, pool, dg_rand_below(&s->rng, s->n));
		else
			op_alloc(s, pool, r100 & 1);
		if (!(i & 63)) {
			dg_pool_get_stats(dg_test_core(pool), &st);
			if (st.blocks_in_use < s->n)
				s->accounting++;
			cond_resched();
		}
	}
	while (s->n)
		op_free(s, pool, s->n - 1);
	dg_pool_get_stats(dg_test_core(pool), &st);
	pr_info("# %s: %lu ops, %lu scribbles (%lu KiB), %llu chunks allocated, %llu released, %llu ms\n",
		row->name, s->ops, s->scribbles, s->bytes >> 10,
		st.chunks_allocated, st.chunks_released,
		(ktime_get_ns() - t0) / NSEC_PER_MSEC);
	pr_info("# %s: outside_chunk=%lu duplicate=%lu decoy=%lu misplaced=%lu bad_dma=%lu alloc_fail=%lu free_rejected=%lu accounting=%lu\n",
		row->name, s->outside, s->dup, s->decoy, s->misplaced,
		s->bad_dma, s->alloc_fail, s->free_rejected, s->accounting);
	ok = !(s->outside | s->dup | s->decoy | s->misplaced | s->bad_dma |
	       s->alloc_fail | s->free_rejected | s->accounting | s->overflow);
	if (st.blocks_in_use ||
	    (st.chunks_allocated < 2 && row->max_live > st.blocks_per_chunk) ||
	    (row->pause_ms && !st.chunks_released)) {
		pr_info("# %s: %llu blocks in use at the end, %llu chunks allocated, %llu released\n",
			row->name, st.blocks_in_use, st.chunks_allocated,
			st.chunks_released);
		ok = false;
	}
	for (j = 1; j < DG_BAD_NR; j++)
		if (st.bad_frees[j]) {
			pr_info("# %s: %llu bad frees of kind %d\n", row->name,
				st.bad_frees[j], j);
			ok = false;
		}
	dgs_total.ops += s->ops;
	dgs_total.scribbles += s->scribbles;
	dgs_total.outside += s->outside;
	dgs_total.dup += s->dup;
	dgs_total.decoy += s->decoy;
	dgs_total.misplaced += s->misplaced + s->bad_dma;
out:
	dmaguard_pool_destroy(pool);
	if (atomic_long_read(&dg_chunk_bytes) != base) {
		pr_info("# %s: chunk bytes %ld after destroy, %ld before\n",
			row->name, atomic_long_read(&dg_chunk_bytes), base);
		ok = false;
	}
	if (s)
		kfree(s->live);
	kfree(s);
	dg_ktap_result(&ktap, ok, row->name);
}

/* ---------------- part 2: the kernel's dma_pool ---------------- */

enum kp_layout { KP_UNKNOWN, KP_POINTER_LIST, KP_OFFSET_LIST };

static const char * const kp_layout_name[] = {
	[KP_UNKNOWN] = "unknown",
	[KP_POINTER_LIST] = "pointer-list-in-free-blocks",
	[KP_OFFSET_LIST] = "offset-list-in-free-blocks",
};

#define KP_SIZE		64

/* The device's view of a block's first bytes. */
static u64 dev_read(const void *p, unsigned int off)
{
	return READ_ONCE(*(const u64 *)(p + off));
}

static void dev_write(void *p, unsigned int off, u64 val)
{
	WRITE_ONCE(*(u64 *)(p + off), val);
}

/* What the list stores to point at block @x of a page starting at @page. */
static u64 kp_link(enum kp_layout lay, void *x, void *page)
{
	if (lay == KP_POINTER_LIST)
		return (u64)(unsigned long)x;
	return (u64)(x - page);
}

static bool kp_dma_ok(struct device *kdev, void *v, dma_addr_t d)
{
	if (device_iommu_mapped(kdev))
		return true;	/* no 1:1 relation to check */
	return d == phys_to_dma(kdev, virt_to_phys(v));
}

/*
 * After the demonstrations: allocate three pages' worth of blocks, check
 * they are distinct, aligned, not the decoy and with matching DMA
 * addresses, free them. True if the pool is sound (then it may be
 * destroyed); on false the blocks stay allocated and the pool is leaked.
 */
static bool kp_verify(struct dma_pool *kp, struct device *kdev,
		      const char *what)
{
	unsigned int n = 3 * (PAGE_SIZE / KP_SIZE), i, j;
	struct blk *b;
	bool ok = true;

	b = kcalloc(n, sizeof(*b), GFP_KERNEL);
	if (!b)
		return false;
	for (i = 0; i < n && ok; i++) {
		b[i].v = (unsigned long)dma_pool_alloc(kp, GFP_KERNEL, &b[i].d);
		if (!b[i].v || (b[i].v & (KP_SIZE - 1)) ||
		    (b[i].v >= (unsigned long)decoy &&
		     b[i].v < (unsigned long)decoy + DGS_DECOY_SIZE) ||
		    !kp_dma_ok(kdev, (void *)b[i].v, b[i].d)) {
			pr_info("# %s: block %u of the check is wrong\n", what, i);
			ok = false;
		}
		for (j = 0; j < i && ok; j++)
			if (b[j].v == b[i].v) {
				pr_info("# %s: block handed out twice in the check\n",
					what);
				ok = false;
			}
	}
	if (ok)
		for (i = 0; i < n; i++)
			dma_pool_free(kp, (void *)b[i].v, b[i].d);
	kfree(b);
	return ok;
}

struct kp_result {
	enum kp_layout layout;
	bool decoy_done, decoy_returned, decoy_handle, decoy_written;
	bool dup_done, dup_returned;
	bool restored;
};

/* Probe: free A then B of a fresh page; what did B's first bytes become? */
static enum kp_layout kp_probe(struct dma_pool *kp, void **page)
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
	dma_pool_free(kp, a, da);
	dma_pool_free(kp, b, db);
	if (offset_in_page(a) || b != a + KP_SIZE)
		return KP_UNKNOWN;
	raw = dev_read(b, 0);
	pr_info("# dma_pool probe: after freeing blocks 0 and 1 of a page, block 1 starts with %s\n",
		raw == (u64)(unsigned long)a ? "the address of block 0" :
		(u32)raw == 0 ? "offset 0 (block 0) as a 32-bit word" :
		"something else");
	if (raw == (u64)(unsigned long)a)
		return KP_POINTER_LIST;
	if ((u32)raw == 0)
		return KP_OFFSET_LIST;
	return KP_UNKNOWN;
}

/*
 * The forged decoy on pool @kp, whose list head is block 1 of @page after
 * the probe. Returns true if the pool was put back as it was.
 */
struct edu;
static int edu_write(struct edu *e, dma_addr_t dst, const void *src,
		     u32 len);

static bool kp_forge_decoy(struct dma_pool *kp, struct kp_result *res,
			   struct edu *edu)
{
	dma_addr_t dr, h1, h2;
	void *r, *a1, *a2;
	u64 orig, *dk = decoy;
	bool restored;

	r = dma_pool_alloc(kp, GFP_KERNEL, &dr);
	if (!r)
		return false;
	dma_pool_free(kp, r, dr);
	/* r heads the free list; its first bytes say what comes next. */
	orig = dev_read(r, 0);

	/* The decoy, shaped like a free block that leads back to the list. */
	memset(decoy, 0x5a, DGS_DECOY_SIZE);
	dk[0] = orig;
	dk[1] = decoy_dma;

	/* The device's one write: by the CPU playing it, or by a real one. */
	if (!edu) {
		dev_write(r, 0, (u64)(unsigned long)decoy);
	} else {
		u64 forged = (u64)(unsigned long)decoy;

		if (edu_write(edu, dr, &forged, sizeof(forged)) ||
		    dev_read(r, 0) != forged) {
			pr_info("# edu: the device's DMA write did not land\n");
			/* r is free and unchanged: the pool is as it was. */
			return true;
		}
	}

	a1 = dma_pool_alloc(kp, GFP_KERNEL, &h1);
	a2 = dma_pool_alloc(kp, GFP_KERNEL, &h2);
	res->decoy_done = true;
	res->decoy_returned = a2 == decoy;
	res->decoy_handle = a2 && h2 == decoy_dma;
	res->decoy_written = memchr_inv(decoy + 16, 0x5a, KP_SIZE - 16);
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
	restored = (u32)dev_read(r, 0) == (u32)(unsigned long)decoy;
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
	if (lay == KP_POINTER_LIST)
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

static void kp_run(const char *kver)
{
	struct dma_pool *kp1, *kp2 = NULL;
	struct kp_result res = {};
	bool sound1 = false, sound2 = false;
	void *page = NULL;

	kp1 = dma_pool_create("dgs_kpool_decoy", dev, KP_SIZE, KP_SIZE, 0);
	if (kp1)
		res.layout = kp_probe(kp1, &page);
	dg_ktap_result(&ktap, kp1 && res.layout != KP_UNKNOWN,
		       "kernel_dma_pool_freelist_layout");
	pr_info("# dma_pool free list: %s\n", kp_layout_name[res.layout]);

	if (res.layout == KP_UNKNOWN) {
		dg_ktap_skip(&ktap, "kernel_dma_pool_forged_decoy",
			     "free list layout not recognised");
		dg_ktap_skip(&ktap, "kernel_dma_pool_forged_live_block",
			     "free list layout not recognised");
		dg_ktap_skip(&ktap, "kernel_dma_pool_restored",
			     "free list layout not recognised");
		goto report;
	}

	sound1 = kp_forge_decoy(kp1, &res, NULL);
	/*
	 * The contrast: with the pointer list the forged value must come
	 * back as an allocation; with the offset list it cannot leave the
	 * page.
	 */
	dg_ktap_result(&ktap, res.decoy_done &&
		       res.decoy_returned == (res.layout == KP_POINTER_LIST) &&
		       (!res.decoy_returned || res.decoy_handle),
		       "kernel_dma_pool_forged_decoy");

	kp2 = dma_pool_create("dgs_kpool_live", dev, KP_SIZE, KP_SIZE, 0);
	if (kp2)
		sound2 = kp_forge_live(kp2, res.layout, &res);
	dg_ktap_result(&ktap, res.dup_done && res.dup_returned,
		       "kernel_dma_pool_forged_live_block");

	sound1 = sound1 && kp_verify(kp1, dev, "dgs_kpool_decoy");
	sound2 = sound2 && kp_verify(kp2, dev, "dgs_kpool_live");
	res.restored = sound1 && sound2;
	dg_ktap_result(&ktap, res.restored, "kernel_dma_pool_restored");
report:
	/* Sound pools go; anything doubtful is leaked, never destroyed. */
	if (kp1 && (sound1 || res.layout == KP_UNKNOWN))
		dma_pool_destroy(kp1);
	else if (kp1)
		pr_info("# dgs_kpool_decoy leaked on purpose\n");
	if (kp2 && sound2)
		dma_pool_destroy(kp2);
	else if (kp2)
		pr_info("# dgs_kpool_live leaked on purpose\n");

	pr_info("REPORT scribble kernel=%s allocator=dma_pool forged_alloc_returned_decoy=%s\n",
		kver, res.decoy_returned ? "yes" : "no");
	pr_info("REPORT scribble kernel=%s allocator=dma_pool freelist=%s forged_dma_returned=%s kernel_wrote_decoy=%s forged_link_returned_live_block=%s pool_restored=%s\n",
		kver, kp_layout_name[res.layout],
		res.decoy_handle ? "yes" : "no",
		res.decoy_written ? "yes" : "no",
		res.dup_returned ? "yes" : "no",
		res.restored ? "yes" : "no");
}

/* ---------------- part 3: a real device (QEMU "edu") ---------------- */

/*
 * QEMU's edu test device (PCI 1234:11e8) has a DMA engine: it copies up
 * to 4 KiB between guest memory and its own buffer. Here it is the hostile
 * device for real: its DMA writes the forged pointer into the kernel
 * pool's free block, and its DMA overwrites dmaguard's chunks. Each
 * transfer takes 100 ms of the device's (virtual) time. Without the device
 * (no "-device edu" on the QEMU command line) these cases are skipped.
 *
 * The edu DMA engine truncates addresses to its dma_mask, 28 bits unless
 * QEMU is told otherwise, so the device gets a 28-bit DMA mask and every
 * buffer it touches comes from the DMA API for it.
 */
#define EDU_VENDOR		0x1234
#define EDU_DEVICE		0x11e8
#define EDU_REG_ID		0x00
#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_CNT		0x90
#define EDU_REG_DMA_CMD		0x98
#define EDU_DMA_RUN		0x1
#define EDU_DMA_TO_RAM		0x2
#define EDU_BUF			0x40000
#define EDU_BUF_SIZE		4096
/*
 * Bytes per transfer. QEMU 7.2's range check refuses (with hw_error(),
 * which aborts QEMU) a transfer that ends exactly at the end of the
 * device buffer, so no transfer may cover the whole 4 KiB.
 */
#define EDU_XFER		2048

static unsigned int edu_ops = 12;
module_param(edu_ops, uint, 0444);
MODULE_PARM_DESC(edu_ops, "Operations of the real-device scribble (each costs a few 100 ms DMA transfers)");

struct edu {
	struct pci_dev *pdev;
	void __iomem *mmio;
	void *stage;		/* what the device will write, staged */
	dma_addr_t stage_dma;
	unsigned long transfers;
	u16 command;		/* PCI_COMMAND as found */
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
	unsigned long end = jiffies + 5 * HZ;

	if (!len || len > EDU_XFER)
		return -EINVAL;
	writeq(to_ram ? EDU_BUF : ram, e->mmio + EDU_REG_DMA_SRC);
	writeq(to_ram ? ram : EDU_BUF, e->mmio + EDU_REG_DMA_DST);
	writeq(len, e->mmio + EDU_REG_DMA_CNT);
	writeq(EDU_DMA_RUN | (to_ram ? EDU_DMA_TO_RAM : 0),
	       e->mmio + EDU_REG_DMA_CMD);
	while (readq(e->mmio + EDU_REG_DMA_CMD) & EDU_DMA_RUN) {
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		if (w)
			edu_work_one(w);
		else
			usleep_range(2000, 4000);
	}
	e->transfers++;
	return 0;
}

/* Stage @len bytes in the device's buffer. */
static int edu_load(struct edu *e, const void *src, u32 len)
{
	memcpy(e->stage, src, len);
	return edu_dma(e, false, e->stage_dma, len, NULL);
}

/* The device writes @len bytes of @src at bus address @dst. */
static int edu_write(struct edu *e, dma_addr_t dst, const void *src, u32 len)
{
	int ret = edu_load(e, src, len);

	return ret ? ret : edu_dma(e, true, dst, len, NULL);
}

/*
 * Memory decoding and bus mastering are switched on in the command
 * register directly: pci_enable_device() would also route the device's
 * interrupt through ACPI, which the test does not need and which costs
 * over ten seconds of AML under TCG (as much again when disabling).
 */
static struct edu *edu_open(void)
{
	struct pci_dev *pdev;
	struct edu *e;
	u32 id;

	pdev = pci_get_device(EDU_VENDOR, EDU_DEVICE, NULL);
	if (!pdev)
		return NULL;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		goto fail_put;
	e->pdev = pdev;
	pci_read_config_word(pdev, PCI_COMMAND, &e->command);
	pci_write_config_word(pdev, PCI_COMMAND, e->command |
			      PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	if (dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(28)))
		goto fail_restore;
	e->mmio = pci_iomap(pdev, 0, 0);
	if (!e->mmio)
		goto fail_restore;
	id = readl(e->mmio + EDU_REG_ID);
	if ((id & 0xff) != 0xed) {
		pr_info("# edu: unexpected id %#x\n", id);
		goto fail_unmap;
	}
	e->stage = dma_alloc_coherent(&pdev->dev, EDU_BUF_SIZE, &e->stage_dma,
				      GFP_KERNEL);
	if (!e->stage)
		goto fail_unmap;
	return e;

fail_unmap:
	pci_iounmap(pdev, e->mmio);
fail_restore:
	pci_write_config_word(pdev, PCI_COMMAND, e->command);
fail_put:
	kfree(e);
	pci_dev_put(pdev);
	return NULL;
}

static void edu_close(struct edu *e)
{
	dma_free_coherent(&e->pdev->dev, EDU_BUF_SIZE, e->stage, e->stage_dma);
	pci_iounmap(e->pdev, e->mmio);
	pci_write_config_word(e->pdev, PCI_COMMAND, e->command);
	pci_dev_put(e->pdev);
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
	struct chunk_rec *c = chunk_of(w->s, v);
	unsigned int i;

	for (i = 0; c && i < w->npins; i++)
		if (w->pins[i].v >= c->mem && w->pins[i].v < c->mem + c->len)
			return true;
	return false;
}

static void edu_free_one(struct edu_work *w)
{
	struct scribbler *s = w->s;
	unsigned int k = dg_rand_below(&s->rng, s->n);

	s->ops++;
	if (dg_pool_free(dg_test_core(w->pool),
			 (void __dma __force *)s->live[k].v,
			 s->live[k].d) != DG_FREE_OK)
		s->free_rejected++;
	s->live[k] = s->live[--s->n];
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

	s->ops++;
	v = dmaguard_pool_alloc(w->pool, GFP_ATOMIC, &d);
	if (!v) {
		s->alloc_fail++;
		return;
	}
	if (!judge_alloc(s, w->pool, (unsigned long)v, d))
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
	s->live[s->n].v = (unsigned long)v;
	s->live[s->n++].d = d;
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
	scribble_fn(s, (void __dma __force *)pat, EDU_XFER, 0);
	ret = edu_load(e, pat, EDU_XFER);
	if (ret)
		return ret;
	s->nc = 0;
	dg_pool_for_each_chunk(dg_test_core(w->pool), collect_fn, s);
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
	struct dg_pool_stats st;
	struct edu_work *w;
	unsigned int i, j;
	u64 *pat = NULL;
	bool ok = true;
	int ret = 0;

	s->size = 64;
	s->align = 64;
	s->max = 200;
	s->rng = seed ^ 0xed0ed0;
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
	dg_pool_get_stats(dg_test_core(w->pool), &st);
	*during_dma = w->during_dma;
	pr_info("# edu dmaguard: %lu ops (%lu while a DMA was in flight), %lu device scribbles, %llu chunks, %lu DMA transfers; outside_chunk=%lu duplicate=%lu decoy=%lu misplaced=%lu bad_dma=%lu alloc_fail=%lu free_rejected=%lu\n",
		s->ops, w->during_dma, s->scribbles, st.chunks_allocated,
		e->transfers, s->outside, s->dup, s->decoy, s->misplaced,
		s->bad_dma, s->alloc_fail, s->free_rejected);
	ok = ok && !(s->outside | s->dup | s->decoy | s->misplaced |
		     s->bad_dma | s->alloc_fail | s->free_rejected) &&
	     !st.blocks_in_use && st.chunks_allocated >= 2 &&
	     s->scribbles == edu_ops && w->during_dma;
out:
	if (w)
		dmaguard_pool_destroy(w->pool);
	kfree(w);
	kfree(pat);
	kfree(s->live);
	return ok;
}

static void edu_run(const char *kver)
{
	struct kp_result res = {};
	struct scribbler *s;
	struct dma_pool *kp;
	unsigned long during = 0;
	struct edu *e;
	bool sound = false, ok;

	e = edu_open();
	if (!e) {
		dg_ktap_skip(&ktap, "edu_device_dma_pool_forged_decoy",
			     "no edu PCI device (QEMU -device edu)");
		dg_ktap_skip(&ktap, "edu_device_dmaguard_scribble",
			     "no edu PCI device (QEMU -device edu)");
		return;
	}
	kp = dma_pool_create("dgs_edu_kpool", &e->pdev->dev, KP_SIZE, KP_SIZE,
			     0);
	if (kp) {
		void *page;

		res.layout = kp_probe(kp, &page);
		if (res.layout != KP_UNKNOWN)
			sound = kp_forge_decoy(kp, &res, e);
		sound = sound && kp_verify(kp, &e->pdev->dev, "dgs_edu_kpool");
	}
	ok = kp && res.layout != KP_UNKNOWN && res.decoy_done && sound &&
	     res.decoy_returned == (res.layout == KP_POINTER_LIST);
	dg_ktap_result(&ktap, ok, "edu_device_dma_pool_forged_decoy");
	if (kp && sound)
		dma_pool_destroy(kp);
	else if (kp)
		pr_info("# dgs_edu_kpool leaked on purpose\n");
	pr_info("REPORT scribble kernel=%s allocator=dma_pool device=edu forged_alloc_returned_decoy=%s\n",
		kver, res.decoy_returned ? "yes" : "no");

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	ok = s && edu_dmaguard(e, s, &during);
	dg_ktap_result(&ktap, ok, "edu_device_dmaguard_scribble");
	if (s)
		pr_info("REPORT scribble kernel=%s allocator=dmaguard device=edu ops=%lu scribbles=%lu outside_chunk=%lu duplicate=%lu decoy=%lu ops_during_dma=%lu\n",
			kver, s->ops, s->scribbles, s->outside, s->dup,
			s->decoy, during);
	kfree(s);
	edu_close(e);
}

static void *decoy_alloc(void)
{
	void *rejected[8], *p = NULL;
	int i, n = 0;

	/*
	 * An offset list reads the low 32 bits of a forged address: keep a
	 * decoy whose low bits are clearly beyond any page offset.
	 */
	for (i = 0; i < ARRAY_SIZE(rejected); i++) {
		p = kmalloc(DGS_DECOY_SIZE, GFP_KERNEL);
		if (!p || (u32)(unsigned long)p >= SZ_64K)
			break;
		rejected[n++] = p;
		p = NULL;
	}
	while (n)
		kfree(rejected[--n]);
	return p;
}

static int __init dgs_init(void)
{
	const char *kver = utsname()->release;
	struct platform_device *pdev;
	unsigned int i;

	pdev = dg_test_dev_create("dmaguard_scribble");
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	dev = &pdev->dev;
	decoy = decoy_alloc();
	if (!decoy) {
		dg_test_dev_destroy(pdev);
		return -ENOMEM;
	}
	decoy_dma = virt_to_phys(decoy);
	if (!seed)
		seed = get_random_u64() | 1;

	dg_ktap_begin(&ktap, ARRAY_SIZE(dgs_rows) + 6);
	pr_info("# seed=%llu kernel=%s\n", seed, kver);
	for (i = 0; i < ARRAY_SIZE(dgs_rows); i++)
		dgs_run_row(&dgs_rows[i]);
	pr_info("REPORT scribble kernel=%s allocator=dmaguard ops=%lu scribbles=%lu outside_chunk=%lu duplicate=%lu decoy=%lu\n",
		kver, dgs_total.ops, dgs_total.scribbles, dgs_total.outside,
		dgs_total.dup, dgs_total.decoy);

	kp_run(kver);
	edu_run(kver);
	pr_info("# %u of %u cases failed\n", ktap.failed, ktap.n);

	kfree(decoy);
	decoy = NULL;
	dg_test_dev_destroy(pdev);
	dev = NULL;
	return 0;
}

static void __exit dgs_exit(void)
{
}

module_init(dgs_init);
module_exit(dgs_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dmaguard device-scribble test and the kernel dma_pool contrast (KTAP)");
