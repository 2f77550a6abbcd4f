// SPDX-License-Identifier: GPL-2.0
/*
 * Every block of a pool keeps the promises dma_pool_create() makes: its
 * bus address is aligned, it does not cross the boundary, it does not
 * overlap another block, and dma_pool_zalloc() clears it.
 */
static int dmapool_test_geometry(const struct dmapool_parms *parms)
{
	size_t span = parms->boundary ? parms->boundary : 0;
	int i, j, blocks = nr_blocks(parms->size);
	struct dma_pool_pair *p;
	int ret = 0;
	u8 *v;

	p = kcalloc(blocks, sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	pool = dma_pool_create("test pool", &test_dev, parms->size,
			       parms->align, parms->boundary);
	if (!pool) {
		ret = -ENOMEM;
		goto free_pairs;
	}

	for (i = 0; i < blocks; i++) {
		p[i].v = dma_pool_alloc(pool, GFP_KERNEL, &p[i].dma);
		if (!p[i].v) {
			ret = -ENOMEM;
			goto free_blocks;
		}
		if (!IS_ALIGNED(p[i].dma, parms->align) ||
		    (span && (p[i].dma ^ (p[i].dma + parms->size - 1)) >= span)) {
			pr_err("dmapool test: size:%zu align:%zu boundary:%zu: block at %pad\n",
			       parms->size, parms->align, parms->boundary,
			       &p[i].dma);
			ret = -EINVAL;
			i++;
			goto free_blocks;
		}
		/* A pattern of its own: an overlap overwrites another's. */
		memset(p[i].v, i & 0xff, parms->size);
	}
	for (i = 0; i < blocks && !ret; i++)
		if (memchr_inv(p[i].v, i & 0xff, parms->size)) {
			pr_err("dmapool test: size:%zu: blocks overlap\n",
			       parms->size);
			ret = -EINVAL;
		}

free_blocks:
	for (j = 0; j < i; j++)
		dma_pool_free(pool, p[j].v, p[j].dma);
	if (!ret) {
		v = dma_pool_zalloc(pool, GFP_KERNEL, &p[0].dma);
		if (!v)
			ret = -ENOMEM;
		else if (memchr_inv(v, 0, parms->size))
			ret = -EINVAL;
		if (v)
			dma_pool_free(pool, v, p[0].dma);
	}
	dma_pool_destroy(pool);
free_pairs:
	kfree(p);
	return ret;
}
