// SPDX-License-Identifier: GPL-2.0
/*
 * The device of the pool writes what it wants into every block, free or
 * not, and the driver frees what it should not: the pool never hands out
 * what the device pointed it to, never one block twice, and refuses
 * (reports, does not apply) a second free, a free of an address that is
 * no block of the pool, a free inside a block and a free with another
 * block's dma address.
 */
static u8 dmapool_forged[4096] __aligned(64);

static bool dmapool_test_owned(struct dma_pool_pair *p, int n, void *v)
{
	int i;

	for (i = 0; i < n; i++)
		if (p[i].v == v)
			return true;
	return false;
}

/* Not the device's pointer, nor inside what it points to. */
static bool dmapool_test_forged(void *v)
{
	return (u8 *)v + 1 > dmapool_forged &&
	       (u8 *)v < dmapool_forged + sizeof(dmapool_forged);
}

static int dmapool_test_hostile(const struct dmapool_parms *parms)
{
	int i, blocks = min(nr_blocks(parms->size), 64);
	struct dma_pool_pair *p, *q;
	u64 forged = (unsigned long)dmapool_forged;
	int ret = 0;
	size_t off;

	p = kcalloc(2 * blocks, sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	q = p + blocks;
	pool = dma_pool_create("test pool", &test_dev, parms->size,
			       parms->align, parms->boundary);
	if (!pool) {
		ret = -ENOMEM;
		goto free_pairs;
	}

	for (i = 0; i < blocks; i++) {
		p[i].v = dma_pool_alloc(pool, GFP_KERNEL, &p[i].dma);
		if (!p[i].v) {
			while (i--)
				dma_pool_free(pool, p[i].v, p[i].dma);
			ret = -ENOMEM;
			goto destroy;
		}
	}
	/* Freed blocks, then overwritten by the device with a pointer. */
	for (i = 0; i < blocks; i++)
		dma_pool_free(pool, p[i].v, p[i].dma);
	for (i = 0; i < blocks; i++)
		for (off = 0; off + sizeof(u64) <= parms->size; off += sizeof(u64))
			memcpy(p[i].v + off, &forged, sizeof(u64));
	for (i = 0; i < blocks; i++) {
		q[i].v = dma_pool_alloc(pool, GFP_KERNEL, &q[i].dma);
		if (!q[i].v || dmapool_test_forged(q[i].v) ||
		    dmapool_test_owned(q, i, q[i].v)) {
			pr_err("dmapool test: size:%zu: a device write made the pool hand out %p\n",
			       parms->size, q[i].v);
			q[i].v = NULL;
			ret = -EINVAL;
			goto free_blocks;
		}
	}
	/* Each bad free is refused; the pool stays whole. */
	dma_pool_free(pool, q[0].v, q[0].dma);
	dma_pool_free(pool, q[0].v, q[0].dma);
	dma_pool_free(pool, dmapool_forged, q[1].dma);
	dma_pool_free(pool, q[1].v + 1, q[1].dma + 1);
	dma_pool_free(pool, q[1].v, q[2].dma);
	q[0].v = dma_pool_alloc(pool, GFP_KERNEL, &q[0].dma);
	p[0].v = dma_pool_alloc(pool, GFP_KERNEL, &p[0].dma);
	if (!q[0].v || (p[0].v && dmapool_test_owned(q, blocks, p[0].v))) {
		pr_err("dmapool test: size:%zu: a bad free was applied\n",
		       parms->size);
		ret = -EINVAL;
	}
	if (p[0].v)
		dma_pool_free(pool, p[0].v, p[0].dma);
	for (i = 0; i < blocks; i++)
		if (q[i].v)
			dma_pool_free(pool, q[i].v, q[i].dma);
	goto destroy;

free_blocks:
	for (i = 0; i < blocks; i++)
		if (q[i].v)
			dma_pool_free(pool, q[i].v, q[i].dma);
destroy:
	dma_pool_destroy(pool);
free_pairs:
	kfree(p);
	return ret;
}
