/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the userspace unit tests of the pool core (cmocka).
 *
 * Each tests/unit/test_*.c is one program; everything here is static so
 * that every program carries its own copy. The helpers check properties
 * against an independent reference of what the layout must be (mainline's
 * dma_pool packing: blocks at multiples of the stride, restarted at every
 * boundary a block would cross), never against the core's own internals.
 */
#ifndef _DMAGUARD_TEST_H
#define _DMAGUARD_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pool.h"
#include "dg_user.h"

/* One allocated block as a driver holds it. */
struct dgt_blk {
	unsigned char *v;
	dma_addr_t dma;
};

/* One chunk as dg_pool_for_each_chunk() shows it. */
struct dgt_chunk {
	unsigned char *mem;
	size_t len;
	dma_addr_t dma;
};

#define DGT_MAX_CHUNKS	4096

struct dgt_chunks {
	unsigned int n;
	struct dgt_chunk c[DGT_MAX_CHUNKS];
};

/* A pool geometry the tests run over. */
struct dgt_row {
	const char *name;
	size_t size;
	size_t align;
	size_t boundary;
};

static struct dg_user_counters dgt_base;

/* Reset the simulated kernel and remember the leak-check baseline. */
static inline int dgt_setup(void **state)
{
	(void)state;
	dg_user_fail_nth_alloc(0);
	dg_user_init_on_alloc = true;
	dg_user_init_on_free = false;
	dg_user_lazy_unmap = false;
	dg_user_verbose = getenv("DG_VERBOSE") != NULL;
	dgt_base = dg_user_count;
	return 0;
}

/* Every test must give back everything it took. */
static inline int dgt_teardown(void **state)
{
	(void)state;
	dg_user_fail_nth_alloc(0);
	assert_int_equal(dg_user_count.meta_live, dgt_base.meta_live);
	assert_int_equal(dg_user_count.chunks_live, dgt_base.chunks_live);
	assert_int_equal(dg_user_count.chunk_bytes_live,
			 dgt_base.chunk_bytes_live);
	return 0;
}

static inline struct dg_pool *dgt_create(const char *name, size_t size,
					 size_t align, size_t boundary)
{
	struct dg_pool_params p = {
		.name = name, .dev = NULL, .size = size, .align = align,
		.boundary = boundary, .node = DG_NO_NODE,
	};

	return dg_pool_create(&p);
}

static inline struct dg_pool *dgt_create_row(const struct dgt_row *r)
{
	return dgt_create(r->name, r->size, r->align, r->boundary);
}

static inline struct dg_pool_stats dgt_stats(struct dg_pool *pool)
{
	struct dg_pool_stats st;

	dg_pool_get_stats(pool, &st);
	return st;
}

static void dgt_chunk_cb(void *arg, void __dma *mem, size_t len,
			 dma_addr_t dma)
{
	struct dgt_chunks *cs = arg;

	if (cs->n < DGT_MAX_CHUNKS) {
		cs->c[cs->n].mem = (unsigned char *)mem;
		cs->c[cs->n].len = len;
		cs->c[cs->n].dma = dma;
	}
	cs->n++;
}

/* Snapshot of the pool's chunks; the caller frees it. */
static inline struct dgt_chunks *dgt_chunks(struct dg_pool *pool)
{
	struct dgt_chunks *cs = calloc(1, sizeof(*cs));

	assert_non_null(cs);
	dg_pool_for_each_chunk(pool, dgt_chunk_cb, cs);
	assert_true(cs->n <= DGT_MAX_CHUNKS);
	return cs;
}

/* The chunk holding [v, v + len), or NULL. */
static inline const struct dgt_chunk *
dgt_find_chunk(const struct dgt_chunks *cs, const void *v, size_t len)
{
	const unsigned char *p = v;
	unsigned int i;

	for (i = 0; i < cs->n; i++)
		if (p >= cs->c[i].mem && p + len <= cs->c[i].mem + cs->c[i].len)
			return &cs->c[i];
	return NULL;
}

/*
 * Reference layout: is @off (offset in a chunk of @chunk_size bytes) the
 * start of a block? Blocks are packed at the stride and restart at every
 * boundary that the next block would cross.
 */
static inline bool dgt_ref_is_block(size_t off, size_t size, size_t align,
				    size_t boundary, size_t chunk_size)
{
	size_t a = align ? align : 1;
	size_t stride = (size + a - 1) & ~(a - 1);
	size_t seg = chunk_size;
	size_t in;

	if (boundary && boundary < chunk_size && stride < boundary)
		seg = boundary;
	in = off % seg;
	return off < chunk_size && in % stride == 0 && in + size <= seg;
}

/* Reference count of blocks in one chunk. */
static inline size_t dgt_ref_blocks_per_chunk(size_t size, size_t align,
					      size_t boundary,
					      size_t chunk_size)
{
	size_t a = align ? align : 1;
	size_t stride = (size + a - 1) & ~(a - 1);
	size_t seg = chunk_size;

	if (boundary && boundary < chunk_size && stride < boundary)
		seg = boundary;
	return (chunk_size / seg) * ((seg - size) / stride + 1);
}

/* Allocate one block and check what must hold for every block. */
static inline struct dgt_blk dgt_alloc(struct dg_pool *pool, gfp_t gfp,
				       size_t size, size_t align,
				       size_t boundary)
{
	struct dgt_blk b;
	size_t a = align ? align : 1;

	b.dma = 0;
	b.v = (unsigned char *)dg_pool_alloc(pool, gfp, &b.dma);
	assert_non_null(b.v);
	/* Bus address: aligned; CPU address: up to a page (pool.h). */
	assert_int_equal((uintptr_t)b.v % (a < DG_PAGE_SIZE ? a : DG_PAGE_SIZE), 0);
	assert_int_equal(b.dma % a, 0);
	assert_int_equal(b.dma, dg_user_bus_of(b.v));
	if (boundary)
		assert_int_equal(b.dma / boundary,
				 (b.dma + size - 1) / boundary);
	return b;
}

static int dgt_blk_cmp(const void *a, const void *b)
{
	const struct dgt_blk *x = a, *y = b;

	return x->v < y->v ? -1 : x->v > y->v;
}

/* No two blocks of @b overlap (each @size bytes); sorts @b. */
static inline void dgt_assert_disjoint(struct dgt_blk *b, size_t n,
				       size_t size)
{
	size_t i;

	qsort(b, n, sizeof(*b), dgt_blk_cmp);
	for (i = 1; i < n; i++)
		if (b[i - 1].v + size > b[i].v)
			fail_msg("blocks %p and %p overlap (size %zu)",
				 (void *)b[i - 1].v, (void *)b[i].v, size);
}

/* Every block lies in a chunk of @pool, at a reference block start. */
static inline void dgt_assert_in_chunks(struct dg_pool *pool,
					const struct dgt_blk *b, size_t n,
					size_t size, size_t align,
					size_t boundary)
{
	struct dgt_chunks *cs = dgt_chunks(pool);
	const struct dgt_chunk *c;
	size_t i;

	for (i = 0; i < n; i++) {
		c = dgt_find_chunk(cs, b[i].v, size);
		if (!c)
			fail_msg("block %p not inside any chunk", (void *)b[i].v);
		assert_int_equal(b[i].dma, c->dma + (size_t)(b[i].v - c->mem));
		assert_true(dgt_ref_is_block((size_t)(b[i].v - c->mem), size,
					     align, boundary, c->len));
	}
	free(cs);
}

/* Fisher-Yates with a fixed seed: frees in an order that is not LIFO. */
static inline void dgt_shuffle(struct dgt_blk *b, size_t n, unsigned int seed)
{
	struct dgt_blk t;
	size_t i, j;

	srand(seed);
	for (i = n; i > 1; i--) {
		j = (size_t)rand() % i;
		t = b[i - 1];
		b[i - 1] = b[j];
		b[j] = t;
	}
}

/*
 * After dg_pool_destroy() of a pool with live blocks, the chunks holding
 * them stay allocated on purpose. Give them back (the test owns them now)
 * so that the leak counters and LeakSanitizer stay meaningful. @cs is the
 * chunk snapshot taken before the destroy, @b the still-live blocks.
 * Returns the number of chunks released.
 */
static inline unsigned int dgt_release_leaked(const struct dgt_chunks *cs,
					      const struct dgt_blk *b,
					      size_t n, size_t size)
{
	unsigned int i, freed = 0;
	size_t k;

	for (i = 0; i < cs->n; i++) {
		for (k = 0; k < n; k++)
			if (b[k].v >= cs->c[i].mem &&
			    b[k].v + size <= cs->c[i].mem + cs->c[i].len)
				break;
		if (k == n)
			continue;
		dg_user_chunk_release(cs->c[i].mem);
		freed++;
	}
	return freed;
}

/* The row table shared by the layout, zeroing and metadata tests. */
static const struct dgt_row dgt_rows[] = {
	{ "16_16", 16, 16, 0 },
	{ "64_64", 64, 64, 0 },
	{ "256_256", 256, 256, 0 },
	{ "1024_1024", 1024, 1024, 0 },
	{ "4096_4096", 4096, 4096, 0 },
	{ "68_32_b4096", 68, 32, 4096 },
	{ "1_1", 1, 1, 0 },
	{ "24_8_b64", 24, 8, 64 },
	{ "100_4_b128", 100, 4, 128 },
	{ "3000_64_b4096", 3000, 64, 4096 },
};

#define DGT_NR_ROWS	(sizeof(dgt_rows) / sizeof(dgt_rows[0]))

/* Run the cmocka group; name cases "<fn>_<row>" via a table built here. */
#define DGT_ROW_TESTS(tests, fn, prefix) do { \
	size_t _i; \
	for (_i = 0; _i < DGT_NR_ROWS; _i++) { \
		static char _names[DGT_NR_ROWS][64]; \
		snprintf(_names[_i], sizeof(_names[_i]), "%s_%s", prefix, \
			 dgt_rows[_i].name); \
		(tests)[_i] = (struct CMUnitTest){ \
			.name = _names[_i], .test_func = fn, \
			.setup_func = dgt_setup, .teardown_func = dgt_teardown, \
			.initial_state = (void *)&dgt_rows[_i], \
		}; \
	} \
} while (0)

/*
 * Run every test function on every row of @rows as one cmocka group, the
 * cases named "<names[i]>_<row name>".
 */
static inline int dgt_run_matrix(const char *group,
				 void (*const *fns)(void **),
				 const char *const *names, size_t nf,
				 const struct dgt_row *rows, size_t nr)
{
	struct CMUnitTest *tests = calloc(nf * nr, sizeof(*tests));
	char (*nm)[64] = calloc(nf * nr, sizeof(*nm));
	size_t i, k;
	int rc;

	if (!tests || !nm)
		return 1;
	for (i = 0; i < nf; i++)
		for (k = 0; k < nr; k++) {
			snprintf(nm[i * nr + k], sizeof(nm[0]), "%s_%s",
				 names[i], rows[k].name);
			tests[i * nr + k] = (struct CMUnitTest){
				.name = nm[i * nr + k],
				.test_func = fns[i],
				.setup_func = dgt_setup,
				.teardown_func = dgt_teardown,
				.initial_state = (void *)&rows[k],
			};
		}
	rc = _cmocka_run_group_tests(group, tests, nf * nr, NULL, NULL);
	free(nm);
	free(tests);
	return rc;
}

#endif /* _DMAGUARD_TEST_H */
