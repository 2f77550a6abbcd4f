// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk memory as an IOMMU hands it out: page-aligned CPU addresses that
 * are never aligned to the chunk size, bus addresses (IOVAs) that are page
 * aligned and sometimes aligned to the size, no relation between the two
 * (chunk_mem.c, DG_MEM_REMAP). And the direct mapping (DG_MEM_DIRECT) for
 * contrast. For pools whose alignment or boundary exceeds a page, every
 * block must still be aligned and within its boundary in bus address
 * space, and its bus address must be the one its CPU address maps to.
 * Frees are found and validated through the same arithmetic either way.
 */
#include "dg_test.h"

#define CHUNKS	12

static const struct dgt_row rows[] = {
	{ "64_64_b16384", 64, 64, 16384 },
	{ "100_4_b65536", 100, 4, 65536 },
	{ "5000_8192", 5000, 8192, 0 },
	{ "3000_64_b32768", 3000, 64, 32768 },
	{ "16_16", 16, 16, 0 },
	{ "68_32_b4096", 68, 32, 4096 },
};

static void fill_and_check(const struct dgt_row *r, enum dg_user_mem_mode mode)
{
	struct dg_pool *pool;
	struct dgt_chunks *cs;
	struct dg_pool_stats st;
	struct dgt_blk *b;
	size_t i, n, bpc, unaligned;
	long bytes;

	dg_user_mem_mode = mode;
	pool = dgt_create_row(r);
	assert_non_null(pool);
	st = dgt_stats(pool);
	bpc = st.blocks_per_chunk;
	n = CHUNKS * bpc;
	b = calloc(n, sizeof(*b));
	assert_non_null(b);
	for (i = 0; i < n; i++) {
		/* dgt_alloc: bus alignment, boundary, bus == map(CPU) */
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
		memset(b[i].v, 0x5a, r->size);	/* ASan: all of it is ours */
	}
	dgt_assert_in_chunks(pool, b, n, r->size, r->align, r->boundary);
	dgt_assert_disjoint(b, n, r->size);

	cs = dgt_chunks(pool);
	assert_int_equal(cs->n, CHUNKS);
	bytes = dg_user_count.chunk_bytes_live - dgt_base.chunk_bytes_live;
	unaligned = 0;
	for (i = 0; i < cs->n; i++) {
		assert_int_equal(cs->c[i].dma, dg_user_bus_of(cs->c[i].mem));
		unaligned += (uintptr_t)cs->c[i].mem % cs->c[i].len != 0;
	}
	/* The CPU side of a remapped chunk is (almost) never size aligned. */
	if (mode == DG_MEM_REMAP)
		assert_true(unaligned > 0);
	else
		assert_int_equal(unaligned, 0);
	/*
	 * Slack: only a pool whose blocks need more than page alignment in
	 * bus space, and only for chunks whose IOVA was not aligned enough.
	 */
	if (mode == DG_MEM_DIRECT || (r->align <= DG_PAGE_SIZE &&
				      r->boundary <= DG_PAGE_SIZE))
		assert_int_equal(bytes, (long)CHUNKS * st.chunk_size);
	else
		assert_true(bytes > (long)CHUNKS * st.chunk_size);
	free(cs);

	dgt_shuffle(b, n, 7);
	for (i = 0; i < n; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	assert_int_equal(dgt_stats(pool).blocks_in_use, 0);
	assert_int_equal(dg_pool_destroy(pool), 0);
	free(b);
	dg_user_mem_mode = DG_MEM_REMAP;
}

static void remap(void **state)
{
	fill_and_check(*state, DG_MEM_REMAP);
}

static void direct(void **state)
{
	fill_and_check(*state, DG_MEM_DIRECT);
}

/*
 * The window table: a chunk that straddles two windows is found from
 * both, a pointer just before or after it is foreign, and a pointer into
 * the neighbouring chunk of the same window goes to that chunk.
 */
static void straddle(void **state)
{
	const struct dgt_row *r = *state;
	struct dg_pool *pool = dgt_create_row(r);
	struct dgt_blk b[3 * 4096];
	struct dgt_chunks *cs;
	size_t i, n, bpc;
	unsigned char *p;

	assert_non_null(pool);
	bpc = dgt_stats(pool).blocks_per_chunk;
	n = 3 * bpc;
	assert_true(n <= sizeof(b) / sizeof(b[0]));
	for (i = 0; i < n; i++)
		b[i] = dgt_alloc(pool, GFP_KERNEL, r->size, r->align,
				 r->boundary);
	cs = dgt_chunks(pool);
	for (i = 0; i < cs->n; i++) {
		p = cs->c[i].mem;
		if (!dgt_find_chunk(cs, p - 1, 1))
			assert_int_equal(dg_pool_free(pool, p - r->size,
						      dg_user_bus_of(p) - r->size),
					 DG_BAD_FOREIGN);
		if (!dgt_find_chunk(cs, p + cs->c[i].len, 1))
			assert_int_equal(dg_pool_free(pool, p + cs->c[i].len,
						      cs->c[i].dma + cs->c[i].len),
					 DG_BAD_FOREIGN);
	}
	free(cs);
	/* Every block comes back, wherever its chunk sits in the windows. */
	for (i = 0; i < n; i++)
		assert_int_equal(dg_pool_free(pool, b[i].v, b[i].dma),
				 DG_FREE_OK);
	assert_int_equal(dg_pool_destroy(pool), 0);
}

int main(void)
{
	static void (*const fns[])(void **) = { remap, direct, straddle };
	static const char *const names[] = { "remap", "direct", "straddle" };

	return dgt_run_matrix("pool_remap", fns, names, 3, rows,
			      sizeof(rows) / sizeof(rows[0]));
}
