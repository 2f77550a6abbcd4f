// SPDX-License-Identifier: GPL-2.0
/*
 * Planted fixture for semantic-patches/no-inblock-metadata.cocci: a driver
 * that keeps kernel metadata in device-visible memory in every way the
 * rule knows, next to the same driver's legitimate descriptor writes.
 * Never built, never loaded; the reports it must produce are listed in
 * inblock_meta.expected (keep line numbers in step).
 */
#include <linux/module.h>
#include <linux/list.h>
#include <linux/dmapool.h>
#include <linux/dma-mapping.h>
#include <linux/skbuff.h>
#include <dmaguard/dmaguard.h>

/* Kernel bookkeeping: must never be placed in DMA memory. */
struct fixture_req {
	struct list_head node;
	struct sk_buff *skb;
	u32 len;
};

/* A hardware descriptor: only device-meaningful values, fine in DMA memory. */
struct fixture_desc {
	__le64 addr;
	__le32 len;
	__le32 flags;
	__le64 cookie;
};

struct fixture_ring {
	struct fixture_desc *desc;
	dma_addr_t desc_dma;
	unsigned int nr;
	struct list_head pending;
};

static struct device *fixture_dev;
static void *fixture_table;
static LIST_HEAD(fixture_list);

/* 1: a struct holding a list head and a pointer, from a dma_pool */
static struct fixture_req *fixture_req_get(struct dma_pool *pool,
					   struct sk_buff *skb, dma_addr_t *dma)
{
	struct fixture_req *req = dma_pool_zalloc(pool, GFP_ATOMIC, dma);

	if (!req)
		return NULL;
	INIT_LIST_HEAD(&req->node);
	req->skb = skb;
	req->len = skb->len;
	list_add_tail(&req->node, &fixture_list);
	return req;
}

/* 2: the in-band free list of mainline dma_pool, on dmaguard memory */
static void *fixture_freelist(struct dmaguard_pool *pool, void *next,
			      dma_addr_t *dma)
{
	void *blk = dmaguard_pool_alloc(pool, GFP_KERNEL, dma);

	if (blk)
		*(void **)blk = next;
	return blk;
}

/* 3: a ring allocated in one function, misused in another */
static int fixture_ring_init(struct fixture_ring *ring)
{
	ring->desc = dma_alloc_coherent(fixture_dev,
					ring->nr * sizeof(*ring->desc),
					&ring->desc_dma, GFP_KERNEL);
	if (!ring->desc)
		return -ENOMEM;
	INIT_LIST_HEAD(&ring->pending);
	return 0;
}

static void fixture_ring_post(struct fixture_ring *ring, unsigned int i,
			      struct sk_buff *skb, dma_addr_t addr)
{
	struct fixture_desc *d = &ring->desc[i];

	ring->desc[i].addr = cpu_to_le64(addr);
	ring->desc[i].len = cpu_to_le32(skb->len);
	ring->desc[i].cookie = cpu_to_le64((u64)(uintptr_t)skb);
	d->flags = cpu_to_le32(1);
}

/* 4: a table of pointers from dma_alloc_attrs, filled two ways */
static int fixture_table_fill(struct sk_buff *skb, dma_addr_t *dma)
{
	fixture_table = dma_alloc_attrs(fixture_dev, PAGE_SIZE, dma, GFP_KERNEL,
					DMA_ATTR_WRITE_COMBINE);
	if (!fixture_table)
		return -ENOMEM;
	memcpy(fixture_table, &skb, sizeof(skb));
	((u64 *)fixture_table)[1] = 0;
	return 0;
}

/* 5: struct view by cast, and a list head put into the block */
static void fixture_cast(struct dma_pool *pool, dma_addr_t *dma)
{
	void *blk = dma_pool_alloc(pool, GFP_KERNEL, dma);
	struct fixture_req *req;

	if (!blk)
		return;
	req = (struct fixture_req *)blk;
	list_add(blk, &fixture_list);
	memset(blk, 0, 64);
	req->len = 0;
}

/* 6: through a local alias of a descriptor */
static void fixture_alias(struct fixture_ring *ring, struct sk_buff *skb)
{
	struct fixture_desc *d = &ring->desc[0];

	d->len = cpu_to_le32(skb->len);
	d->cookie = (unsigned long)skb;
}

/* 7: an array of blocks: its elements are DMA memory, the array is not */
static void fixture_array(struct dma_pool *pool, void **bufs, dma_addr_t *dma)
{
	bufs[0] = dma_pool_alloc(pool, GFP_KERNEL, &dma[0]);
	if (!bufs[0])
		return;
	*(void **)bufs[0] = bufs;
	bufs[0] = NULL;
}

/* 8: inside the core: a chunk that links to its descriptor */
static void *fixture_core_chunk(void *dev, size_t size, void *desc)
{
	dma_addr_t dma;
	void *mem = dg_chunk_mem_alloc(dev, size, &dma, GFP_KERNEL);

	if (mem)
		*(void **)mem = desc;
	return mem;
}

/* Same names, other memory: nothing to report below. */
static void fixture_clean(struct sk_buff *skb)
{
	struct fixture_req *req = kzalloc(sizeof(*req), GFP_KERNEL);
	void *blk = kmalloc(64, GFP_KERNEL);

	if (!req || !blk)
		return;
	INIT_LIST_HEAD(&req->node);
	req->skb = skb;
	*(void **)blk = req;
	list_add(&req->node, &fixture_list);
}
